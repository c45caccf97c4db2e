import ChatBubbleOutlineRoundedIcon from '@mui/icons-material/ChatBubbleOutlineRounded';
import SearchRoundedIcon from '@mui/icons-material/SearchRounded';
import SmsRoundedIcon from '@mui/icons-material/SmsRounded';
import TelegramIcon from '@mui/icons-material/Telegram';
import WhatsAppIcon from '@mui/icons-material/WhatsApp';
import { Avatar, Box, Button, CircularProgress, IconButton, InputAdornment, MenuItem, Select, Skeleton, TextField, Tooltip, Typography } from '@mui/material';
import CloseRoundedIcon from '@mui/icons-material/CloseRounded';
import { forwardRef, useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useTranslate } from 'react-admin';
import { inboxApi } from './api';
import { P } from './constants';
import { avatarColour, channelOf, contactTitle, initials, shortTime, STATUS_COLOUR, totalText } from './format';
import type { ListFilter } from './model';
import { CONVERSATION_FILTERS, CONVERSATION_STATUSES, INBOX_TOTALS_CAP, type ConversationDto, type ConversationFilter } from './types';
import { rememberPreview, useInbox } from './useInbox';

export const ChannelIcon = ({ type, channel, size = 14 }: { type: number | string | null | undefined; channel?: string | null; size?: number }) => {
  const ch = channelOf(type, channel);
  const sx = { fontSize: size };
  if (ch === 'whatsapp') return <WhatsAppIcon sx={{ ...sx, color: '#25d366' }} />;
  if (ch === 'telegram') return <TelegramIcon sx={{ ...sx, color: '#229ed9' }} />;
  return <SmsRoundedIcon sx={{ ...sx, color: '#667085' }} />;
};

export const ContactAvatar = ({ name, phone, size = 40 }: { name: string | null; phone: string | null; size?: number }) => (
  <Avatar sx={{ width: size, height: size, fontSize: size * 0.38, fontWeight: 700, bgcolor: avatarColour(name || phone || '?') }}>{initials(name, phone)}</Avatar>
);

const Row = forwardRef<HTMLDivElement, { c: ConversationDto; selected: boolean; focused: boolean; onOpen: () => void; showPhone: boolean; locale: string }>(
  ({ c, selected, focused, onOpen, showPhone, locale }, ref) => {
    const translate = useTranslate();
    const unread = c.unread > 0;
    return (
      <Box
        ref={ref}
        role="option"
        aria-selected={selected}
        tabIndex={-1}
        onClick={onOpen}
        data-testid="conversation-row"
        data-uuid={c.conversation_uuid}
        data-unread={c.unread}
        sx={{
          display: 'flex',
          gap: 1.25,
          px: 1.5,
          py: 1.25,
          cursor: 'pointer',
          borderLeft: 3,
          borderColor: selected ? 'primary.main' : 'transparent',
          bgcolor: selected ? '#eef2ff' : focused ? '#f5f6f8' : 'transparent',
          outline: focused ? '2px solid' : 'none',
          outlineColor: 'primary.light',
          outlineOffset: -2,
          '&:hover': { bgcolor: selected ? '#eef2ff' : '#f8f9fb' },
          animation: c.just_added ? 'inboxFlash 1.2s ease-out' : undefined,
          '@keyframes inboxFlash': { from: { backgroundColor: '#fef3c7' }, to: { backgroundColor: 'transparent' } },
        }}
      >
        <Box sx={{ position: 'relative', flex: 'none' }}>
          <ContactAvatar name={c.contact_name} phone={c.contact_phone_number} />
          <Box sx={{ position: 'absolute', right: -3, bottom: -3, bgcolor: '#fff', borderRadius: '50%', width: 18, height: 18, display: 'grid', placeItems: 'center', boxShadow: '0 0 0 1px #eaecf0' }}>
            <ChannelIcon type={c.stream_type} channel={c.channel} size={12} />
          </Box>
        </Box>
        <Box sx={{ minWidth: 0, flex: 1 }}>
          <Box sx={{ display: 'flex', alignItems: 'baseline', gap: 1 }}>
            <Typography noWrap sx={{ fontWeight: unread ? 700 : 600, fontSize: 14, flex: 1 }} data-testid="conversation-name">
              {contactTitle(c, showPhone)}
            </Typography>
            <Typography variant="caption" sx={{ color: unread ? 'primary.main' : 'text.secondary', fontWeight: unread ? 700 : 400, flex: 'none' }}>
              {shortTime(c.last_updated, locale)}
            </Typography>
          </Box>
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mt: 0.25 }}>
            <Typography noWrap variant="body2" sx={{ flex: 1, color: unread ? 'text.primary' : 'text.secondary', fontSize: 13 }} data-testid="conversation-last">
              {c.last_message ?? (c.last_message_type ? translate(`inbox.media.${c.last_message_type}`, { _: c.last_message_type }) : '')}
            </Typography>
            {unread && (
              <Box data-testid="unread-badge" sx={{ flex: 'none', minWidth: 20, height: 20, px: 0.75, borderRadius: 10, bgcolor: 'primary.main', color: '#fff', fontSize: 11.5, fontWeight: 700, display: 'grid', placeItems: 'center' }}>
                {c.unread > 99 ? '99+' : c.unread}
              </Box>
            )}
          </Box>
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 0.75, mt: 0.5 }}>
            <Box sx={{ width: 7, height: 7, borderRadius: '50%', bgcolor: STATUS_COLOUR[c.conversation_status] }} />
            <Typography variant="caption" color="text.secondary">
              {translate(`inbox.status.${c.conversation_status}`)}
            </Typography>
          </Box>
        </Box>
      </Box>
    );
  },
);
Row.displayName = 'ConversationRow';

const filterKey = (f: ListFilter) => (f.kind === 'status' || f.kind === 'team' ? `${f.kind}:${f.value}` : f.kind);

/**
 * The list pane: the filters with their counts (spec 4), a simple search over names, phones and message text, the
 * conversations newest first with unread badges, keyset pages of 15 loaded at the bottom. Arrow keys (and j/k) move
 * through it, Enter opens.
 */
export const ConversationList = ({ onOpened, searchRef }: { onOpened?: () => void; searchRef?: React.RefObject<HTMLInputElement | null> }) => {
  const translate = useTranslate();
  const locale = translate('inbox.locale');
  const { state, setFilter, listLoading, listError, hasMoreConversations, loadMoreConversations, open, space, can } = useInbox();
  const [focus, setFocus] = useState(0);
  const [query, setQuery] = useState('');
  const [results, setResults] = useState<ConversationDto[] | null>(null);
  const [searching, setSearching] = useState(false);
  const rows = useRef<Array<HTMLDivElement | null>>([]);
  const listRef = useRef<HTMLDivElement | null>(null);
  const showPhone = can(P.ShowPhone);
  const items = results ?? state.conversations;

  useEffect(() => {
    if (!query.trim() || !space) {
      setResults(null);
      return;
    }
    const abort = new AbortController();
    const t = setTimeout(() => {
      setSearching(true);
      inboxApi
        .search(space.space.id, query.trim(), abort.signal)
        .then((r) => setResults(r.items))
        .catch(() => undefined)
        .finally(() => setSearching(false));
    }, 250);
    return () => {
      clearTimeout(t);
      abort.abort();
    };
  }, [query, space]);

  useEffect(() => {
    rows.current[focus]?.scrollIntoView({ block: 'nearest' });
  }, [focus]);

  const openAt = (i: number) => {
    const c = items[i];
    if (!c) return;
    setFocus(i);
    if (results) rememberPreview(c);
    open(c.conversation_uuid);
    onOpened?.();
  };

  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown' || e.key === 'j') {
      e.preventDefault();
      setFocus((f) => Math.min(items.length - 1, f + 1));
      if (focus >= items.length - 3 && hasMoreConversations && !results) void loadMoreConversations();
    } else if (e.key === 'ArrowUp' || e.key === 'k') {
      e.preventDefault();
      setFocus((f) => Math.max(0, f - 1));
    } else if (e.key === 'Enter') {
      e.preventDefault();
      openAt(focus);
    } else if (e.key === 'Home') {
      setFocus(0);
    } else if (e.key === 'End') {
      setFocus(items.length - 1);
    }
  };

  const filters: ConversationFilter[] = [...CONVERSATION_FILTERS];
  const current = filterKey(state.filter);

  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', height: '100%', minHeight: 0 }} data-testid="conversation-list-pane">
      <Box sx={{ p: 1.5, pb: 1, borderBottom: 1, borderColor: 'divider' }}>
        <TextField
          inputRef={searchRef}
          size="small"
          fullWidth
          placeholder={translate('inbox.list.search')}
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'ArrowDown') {
              e.preventDefault();
              listRef.current?.focus();
            }
            if (e.key === 'Escape') setQuery('');
          }}
          inputProps={{ 'data-testid': 'inbox-search', 'aria-label': translate('inbox.list.search') }}
          InputProps={{
            startAdornment: (
              <InputAdornment position="start">
                <SearchRoundedIcon fontSize="small" />
              </InputAdornment>
            ),
            endAdornment: query ? (
              <InputAdornment position="end">
                {searching ? <CircularProgress size={16} /> : (
                  <IconButton size="small" onClick={() => setQuery('')} aria-label={translate('inbox.list.clearSearch')}>
                    <CloseRoundedIcon fontSize="small" />
                  </IconButton>
                )}
              </InputAdornment>
            ) : undefined,
          }}
        />
        {!results && (
          <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.5, mt: 1, pb: 0.5 }} role="tablist" data-testid="inbox-filters">
            {filters.map((f) => {
              const selected = current === f;
              return (
                <Button
                  key={f}
                  role="tab"
                  aria-selected={selected}
                  size="small"
                  onClick={() => setFilter({ kind: f })}
                  data-testid={`filter-${f}`}
                  sx={{ flex: 'none', borderRadius: 5, px: 1.25, py: 0.25, minWidth: 0, fontSize: 12.5, fontWeight: 600, textTransform: 'none', bgcolor: selected ? 'primary.main' : '#f2f4f7', color: selected ? '#fff' : 'text.secondary', '&:hover': { bgcolor: selected ? 'primary.dark' : '#e4e7ec' } }}
                >
                  {translate(`inbox.filters.${f}`)}
                  <Box component="span" data-testid={`filter-${f}-count`} sx={{ ml: 0.75, opacity: 0.85, fontWeight: 700 }}>
                    {totalText(state.totals[f], state.totalsCap ?? INBOX_TOTALS_CAP)}
                  </Box>
                </Button>
              );
            })}
          </Box>
        )}
        {!results && (
          <Box sx={{ display: 'flex', gap: 1, mt: 0.5 }}>
            <Select
              size="small"
              displayEmpty
              value={state.filter.kind === 'status' ? state.filter.value : ''}
              onChange={(e) => (e.target.value ? setFilter({ kind: 'status', value: e.target.value as 'active' }) : setFilter({ kind: 'all' }))}
              sx={{ flex: 1, fontSize: 13, '& .MuiSelect-select': { py: 0.5 } }}
              inputProps={{ 'data-testid': 'filter-status', 'aria-label': translate('inbox.list.byStatus') }}
            >
              <MenuItem value="">{translate('inbox.list.byStatus')}</MenuItem>
              {CONVERSATION_STATUSES.map((s) => (
                <MenuItem key={s} value={s}>
                  {translate(`inbox.status.${s}`)}
                </MenuItem>
              ))}
            </Select>
            {(space?.teams.length ?? 0) > 0 && (
              <Select<number | ''>
                size="small"
                displayEmpty
                value={state.filter.kind === 'team' ? state.filter.value : ''}
                onChange={(e) => (e.target.value !== '' ? setFilter({ kind: 'team', value: Number(e.target.value) }) : setFilter({ kind: 'all' }))}
                sx={{ flex: 1, fontSize: 13, '& .MuiSelect-select': { py: 0.5 } }}
                inputProps={{ 'data-testid': 'filter-team', 'aria-label': translate('inbox.list.byTeam') }}
              >
                <MenuItem value="">{translate('inbox.list.byTeam')}</MenuItem>
                {space?.teams.map((t) => (
                  <MenuItem key={t.id} value={t.id}>
                    {t.name}
                  </MenuItem>
                ))}
              </Select>
            )}
          </Box>
        )}
      </Box>
      <Box
        ref={listRef}
        tabIndex={0}
        role="listbox"
        aria-label={translate('inbox.list.label')}
        onKeyDown={onKey}
        data-testid="conversation-list"
        onScroll={(e) => {
          const el = e.currentTarget;
          if (!results && hasMoreConversations && !listLoading && el.scrollTop + el.clientHeight > el.scrollHeight - 120) void loadMoreConversations();
        }}
        sx={{ flex: 1, overflowY: 'auto', minHeight: 0, outline: 'none', '&:focus-visible': { boxShadow: 'inset 0 0 0 2px #c7d2fe' } }}
      >
        {listError && <Typography sx={{ p: 2, color: 'error.main', fontSize: 13 }}>{listError}</Typography>}
        {items.map((c, i) => (
          <Row
            key={c.conversation_uuid}
            ref={(el) => {
              rows.current[i] = el;
            }}
            c={c}
            selected={c.conversation_uuid === state.activeUuid}
            focused={i === focus && document.activeElement === listRef.current}
            onOpen={() => openAt(i)}
            showPhone={showPhone}
            locale={locale}
          />
        ))}
        {listLoading && items.length === 0 && (
          <Box sx={{ p: 1.5 }}>
            {[0, 1, 2].map((i) => (
              <Box key={i} sx={{ display: 'flex', gap: 1.25, mb: 2 }}>
                <Skeleton variant="circular" width={40} height={40} />
                <Box sx={{ flex: 1 }}>
                  <Skeleton width="60%" />
                  <Skeleton width="90%" />
                </Box>
              </Box>
            ))}
          </Box>
        )}
        {!listLoading && items.length === 0 && !listError && (
          <Box sx={{ p: 4, textAlign: 'center', color: 'text.secondary' }} data-testid="conversation-list-empty">
            <ChatBubbleOutlineRoundedIcon sx={{ fontSize: 40, opacity: 0.4 }} />
            <Typography variant="body2" sx={{ mt: 1 }}>
              {translate(results ? 'inbox.list.noResults' : 'inbox.list.empty', { q: query })}
            </Typography>
          </Box>
        )}
        {!results && hasMoreConversations && (
          <Box sx={{ p: 1, textAlign: 'center' }}>
            <Tooltip title="">
              <Button size="small" onClick={() => void loadMoreConversations()} disabled={listLoading} data-testid="conversation-list-more">
                {listLoading ? <CircularProgress size={16} /> : translate('inbox.list.more')}
              </Button>
            </Tooltip>
          </Box>
        )}
      </Box>
    </Box>
  );
};
