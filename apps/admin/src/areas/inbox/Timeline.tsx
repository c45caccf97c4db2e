import DoneAllRoundedIcon from '@mui/icons-material/DoneAllRounded';
import DoneRoundedIcon from '@mui/icons-material/DoneRounded';
import ErrorOutlineRoundedIcon from '@mui/icons-material/ErrorOutlineRounded';
import InsertDriveFileRoundedIcon from '@mui/icons-material/InsertDriveFileRounded';
import LocalOfferRoundedIcon from '@mui/icons-material/LocalOfferRounded';
import LocationOnRoundedIcon from '@mui/icons-material/LocationOnRounded';
import PersonRoundedIcon from '@mui/icons-material/PersonRounded';
import GroupsRoundedIcon from '@mui/icons-material/GroupsRounded';
import ScheduleRoundedIcon from '@mui/icons-material/ScheduleRounded';
import StickyNote2RoundedIcon from '@mui/icons-material/StickyNote2Rounded';
import SwapHorizRoundedIcon from '@mui/icons-material/SwapHorizRounded';
import RocketLaunchRoundedIcon from '@mui/icons-material/RocketLaunchRounded';
import { Alert, Box, Button, CircularProgress, Link, Skeleton, Tooltip, Typography } from '@mui/material';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useTranslate } from 'react-admin';
import { mediaUrl } from './api';
import { dayKey, dayLabel } from './format';
import { layoutTimeline } from './model';
import type { InboxActor } from '@switchboard/contracts/src/inbox';
import type { SendStatus, TimelineEventDto } from './types';
import { useInbox } from './useInbox';

/** Delivery and read ticks of an outgoing message (spec 4 outgoing statuses). */
export const Ticks = ({ status, readAt }: { status: SendStatus | null; readAt: string | null }) => {
  const translate = useTranslate();
  const s: SendStatus = readAt ? 'read' : (status ?? 'sending');
  const label = translate(`inbox.send.${s}`, { _: s });
  const icon =
    s === 'read' ? <DoneAllRoundedIcon sx={{ fontSize: 16, color: '#38bdf8' }} /> :
    s === 'delivered' ? <DoneAllRoundedIcon sx={{ fontSize: 16, color: 'inherit' }} /> :
    s === 'sent' ? <DoneRoundedIcon sx={{ fontSize: 16, color: 'inherit' }} /> :
    s === 'sending' ? <ScheduleRoundedIcon sx={{ fontSize: 14, color: 'inherit' }} /> :
    <ErrorOutlineRoundedIcon sx={{ fontSize: 16, color: '#fecaca' }} />;
  return (
    <Tooltip title={label}>
      <Box component="span" data-testid="message-ticks" data-status={s} aria-label={label} sx={{ display: 'inline-flex', verticalAlign: 'middle' }}>
        {icon}
      </Box>
    </Tooltip>
  );
};

const MediaView = ({ e }: { e: TimelineEventDto }) => {
  const translate = useTranslate();
  const [url, setUrl] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  const media = e.content?.media;
  const id = media?.id;
  const kind = media?.kind;
  const unavailable = !!media?.unavailable || failed;
  useEffect(() => {
    if (!id || media?.unavailable || (kind !== 'image' && kind !== 'sticker' && kind !== 'video' && kind !== 'audio')) return;
    let gone = false;
    let made: string | null = null;
    // inbound WhatsApp and Telegram media is fetched from the provider by this first read
    mediaUrl(id).then(
      (u) => {
        made = u;
        if (!gone) setUrl(u);
      },
      () => {
        if (!gone) setFailed(true);
      },
    );
    return () => {
      gone = true;
      if (made) URL.revokeObjectURL(made);
    };
  }, [id, kind, media?.unavailable]);
  const loc = e.content?.location;
  if (loc) {
    return (
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, p: 1, mb: 0.5, borderRadius: 1.5, bgcolor: 'rgba(0,0,0,.06)' }} data-testid="message-location">
        <LocationOnRoundedIcon fontSize="small" />
        <Link href={`https://www.openstreetmap.org/?mlat=${loc.latitude}&mlon=${loc.longitude}`} target="_blank" rel="noopener noreferrer" sx={{ color: 'inherit', fontSize: 13 }}>
          {loc.name ?? loc.address ?? `${loc.latitude}, ${loc.longitude}`}
        </Link>
      </Box>
    );
  }
  if (!id || !kind) return null;
  if (unavailable) {
    return (
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, p: 1, mb: 0.5, borderRadius: 1.5, bgcolor: 'rgba(0,0,0,.06)', fontSize: 13 }} data-testid="media-unavailable">
        <InsertDriveFileRoundedIcon fontSize="small" />
        {translate(`inbox.media.${kind}`)}: {translate('inbox.media.unavailable')}
      </Box>
    );
  }
  if ((kind === 'image' || kind === 'sticker') && url) return <Box component="img" data-testid="media-image" src={url} alt="" sx={{ maxWidth: 260, maxHeight: 260, borderRadius: 1.5, display: 'block', mb: 0.5 }} />;
  if (kind === 'video' && url) return <Box component="video" src={url} controls sx={{ maxWidth: 280, borderRadius: 1.5, display: 'block', mb: 0.5 }} />;
  if (kind === 'audio' && url) return <Box component="audio" src={url} controls sx={{ maxWidth: 260, display: 'block', mb: 0.5 }} />;
  const Icon = kind === 'location' ? LocationOnRoundedIcon : InsertDriveFileRoundedIcon;
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, p: 1, mb: 0.5, borderRadius: 1.5, bgcolor: 'rgba(0,0,0,.06)' }}>
      <Icon fontSize="small" />
      <Link component="button" onClick={() => void mediaUrl(id).then((u) => window.open(u, '_blank'))} sx={{ color: 'inherit', fontSize: 13 }}>
        {media?.file_name ?? translate(`inbox.media.${kind}`)}
      </Link>
    </Box>
  );
};

const time = (iso: string, locale: string) => new Date(iso).toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit' });

/** A message bubble: incoming left, outgoing right with its ticks. Every text is rendered as text, never as markup. */
const Bubble = ({ e, locale, agentName }: { e: TimelineEventDto; locale: string; agentName: (a: InboxActor | null) => string }) => {
  const translate = useTranslate();
  const out = e.event_type === 'outgoing_message' || e.event_type === 'start_conversation';
  const failed = e.send_status === 'failed' || e.send_status === 'undelivered' || e.send_status === 'failedNotAuth';
  const templateName = e.content?.template?.name ?? e.event_data?.template_name;
  const body = e.content?.body ?? '';
  return (
    <Box sx={{ display: 'flex', justifyContent: out ? 'flex-end' : 'flex-start', px: { xs: 1, sm: 2.5 }, py: 0.35 }} data-testid={out ? 'message-outgoing' : 'message-incoming'} data-uuid={e.message_uuid ?? ''}>
      <Box sx={{ maxWidth: { xs: '85%', md: '68%' } }}>
        <Box
          sx={{
            px: 1.5,
            py: 1,
            borderRadius: 2.5,
            borderBottomRightRadius: out ? 6 : undefined,
            borderBottomLeftRadius: out ? undefined : 6,
            bgcolor: out ? (failed ? '#b42318' : '#4f46e5') : '#fff',
            color: out ? '#fff' : 'text.primary',
            boxShadow: out ? 'none' : '0 1px 2px rgba(16,24,40,.08)',
            border: out ? 'none' : '1px solid #eaecf0',
          }}
        >
          {templateName && (
            <Typography variant="caption" sx={{ display: 'block', opacity: 0.8, fontWeight: 600 }}>
              {translate('inbox.timeline.template', { name: templateName })}
            </Typography>
          )}
          <MediaView e={e} />
          {body && (
            <Typography component="div" data-testid="message-body" sx={{ fontSize: 14, whiteSpace: 'pre-wrap', wordBreak: 'break-word', lineHeight: 1.45 }}>
              {body}
            </Typography>
          )}
          <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'flex-end', gap: 0.5, mt: 0.25, opacity: 0.75 }}>
            {out && e.actor && (
              <Typography variant="caption" sx={{ mr: 'auto', fontSize: 11 }}>
                {agentName(e.actor)}
              </Typography>
            )}
            <Typography variant="caption" sx={{ fontSize: 11 }}>
              {time(e.message_time, locale)}
            </Typography>
            {out && <Ticks status={e.send_status} readAt={e.read_at} />}
          </Box>
        </Box>
        {failed && (
          <Typography variant="caption" color="error" sx={{ display: 'block', textAlign: 'right', mt: 0.25 }} data-testid="message-error">
            {translate(`inbox.send.${e.send_status}`)}
            {e.send_error ? ` · ${e.send_error}` : ''}
          </Typography>
        )}
      </Box>
    </Box>
  );
};

/** An internal note: only the team sees it, in amber, across the pane. */
const Note = ({ e, locale, agentName }: { e: TimelineEventDto; locale: string; agentName: (a: InboxActor | null) => string }) => {
  const translate = useTranslate();
  return (
    <Box sx={{ px: { xs: 1, sm: 2.5 }, py: 0.5, display: 'flex', justifyContent: 'flex-end' }} data-testid="timeline-note">
      <Box sx={{ maxWidth: { xs: '85%', md: '68%' }, bgcolor: '#fffaeb', border: '1px solid #fedf89', borderRadius: 2.5, px: 1.5, py: 1 }}>
        <Typography variant="caption" sx={{ display: 'flex', alignItems: 'center', gap: 0.5, color: '#b54708', fontWeight: 700 }}>
          <StickyNote2RoundedIcon sx={{ fontSize: 14 }} /> {translate('inbox.timeline.note', { agent: agentName(e.actor) })}
        </Typography>
        <Typography component="div" data-testid="note-body" sx={{ fontSize: 14, whiteSpace: 'pre-wrap', wordBreak: 'break-word', mt: 0.25 }}>
          {e.event_data?.note ?? e.content?.body ?? ''}
        </Typography>
        <Typography variant="caption" color="text.secondary" sx={{ display: 'block', textAlign: 'right', fontSize: 11 }}>
          {time(e.message_time, locale)}
        </Typography>
      </Box>
    </Box>
  );
};

/** A tag, team, agent or status change: a quiet line in the middle of the timeline. */
const Change = ({ e, locale, agentName, teamName, tagName, agentById }: { e: TimelineEventDto; locale: string; agentName: (a: InboxActor | null) => string; teamName: (id: number) => string; tagName: (id: number) => string; agentById: (id: number) => string }) => {
  const translate = useTranslate();
  const who = agentName(e.actor);
  const d = e.event_data ?? {};
  let icon = <SwapHorizRoundedIcon sx={{ fontSize: 14 }} />;
  let text = '';
  if (e.event_type === 'set_tag') {
    icon = <LocalOfferRoundedIcon sx={{ fontSize: 14 }} />;
    const parts: string[] = [];
    if (d.added_tags?.length) parts.push(translate('inbox.timeline.tagsAdded', { who, tags: d.added_tags.map(tagName).join(', ') }));
    if (d.removed_tags?.length) parts.push(translate('inbox.timeline.tagsRemoved', { who, tags: d.removed_tags.map(tagName).join(', ') }));
    text = parts.join(' · ');
  } else if (e.event_type === 'assign_team') {
    icon = <GroupsRoundedIcon sx={{ fontSize: 14 }} />;
    text = d.new_team?.length ? translate('inbox.timeline.team', { who, team: d.new_team.map(teamName).join(', ') }) : translate('inbox.timeline.teamRemoved', { who });
  } else if (e.event_type === 'assign_agent') {
    icon = <PersonRoundedIcon sx={{ fontSize: 14 }} />;
    text = d.new_agent?.length ? translate('inbox.timeline.agent', { who, agent: d.new_agent.map(agentById).join(', ') }) : translate('inbox.timeline.agentRemoved', { who });
  } else if (e.event_type === 'change_state') {
    text = translate('inbox.timeline.state', { who, state: translate(`inbox.status.${d.state ?? 'active'}`) });
  } else if (e.event_type === 'call_permission') {
    icon = <RocketLaunchRoundedIcon sx={{ fontSize: 14 }} />;
    text = translate('inbox.timeline.callPermission');
  } else text = e.event_type;
  return (
    <Box sx={{ display: 'flex', justifyContent: 'center', py: 0.75, px: 2 }} data-testid="timeline-change" data-type={e.event_type}>
      <Box sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.75, color: 'text.secondary', fontSize: 12, bgcolor: '#f2f4f7', borderRadius: 5, px: 1.25, py: 0.35, maxWidth: '100%' }}>
        {icon}
        <Box component="span" sx={{ overflow: 'hidden', textOverflow: 'ellipsis' }}>{text}</Box>
        <Box component="span" sx={{ opacity: 0.7 }}>{time(e.message_time, locale)}</Box>
      </Box>
    </Box>
  );
};

/**
 * The timeline pane (spec 4 "Message loading"): the first page of 30, older pages as the agent scrolls up (the view
 * keeps its place), day separators, the unread group, the "still_loading" retries with the attempt shown, then the
 * error with a retry button. New messages scroll into view when the agent is already at the bottom.
 */
export const Timeline = () => {
  const translate = useTranslate();
  const locale = translate('inbox.locale');
  const { state, timeline, loadOlder, reloadTimeline, space } = useInbox();
  const scroller = useRef<HTMLDivElement | null>(null);
  const atBottom = useRef(true);
  const anchor = useRef<{ height: number; top: number } | null>(null);
  const items = useMemo(
    () => layoutTimeline(state.timeline, timeline.unreadFrom, dayKey),
    [state.timeline, timeline.unreadFrom],
  );
  const agents = useMemo(() => new Map((space?.agents ?? []).map((a) => [a.id, `${a.firstname} ${a.lastname}`.trim() || a.email])), [space]);
  const teams = useMemo(() => new Map((space?.teams ?? []).map((t) => [t.id, t.name])), [space]);
  const tags = useMemo(() => new Map((space?.conversation_tags ?? []).map((t) => [t.id, t.name])), [space]);
  const agentById = (id: number) => agents.get(id) ?? `#${id}`;
  const agentName = (a: InboxActor | null) =>
    !a || a.type === 'system' ? translate('inbox.timeline.system') : a.type === 'agent' && a.id !== null ? (a.name ?? agentById(a.id)) : (a.name ?? '');
  const teamName = (id: number) => teams.get(id) ?? `#${id}`;
  const tagName = (id: number) => tags.get(id) ?? `#${id}`;

  // keep the place when older messages are put above, follow the bottom otherwise
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    if (anchor.current) {
      el.scrollTop = el.scrollHeight - anchor.current.height + anchor.current.top;
      anchor.current = null;
    } else if (atBottom.current) {
      el.scrollTop = el.scrollHeight;
    }
  }, [items]);

  useEffect(() => {
    atBottom.current = true;
  }, [state.activeUuid]);

  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 60;
    if (el.scrollTop < 80 && timeline.hasMore && !timeline.loadingMore) {
      anchor.current = { height: el.scrollHeight, top: el.scrollTop };
      void loadOlder();
    }
  };

  return (
    <Box ref={scroller} onScroll={onScroll} sx={{ flex: 1, overflowY: 'auto', minHeight: 0, bgcolor: '#f7f8fa', py: 1 }} data-testid="timeline" aria-live="polite">
      {timeline.hasMore && (
        <Box sx={{ textAlign: 'center', py: 1 }}>
          {timeline.loadingMore ? <CircularProgress size={18} /> : (
            <Button size="small" onClick={() => {
              const el = scroller.current;
              if (el) anchor.current = { height: el.scrollHeight, top: el.scrollTop };
              void loadOlder();
            }} data-testid="timeline-older">
              {translate('inbox.timeline.older')}
            </Button>
          )}
        </Box>
      )}
      {timeline.loading && (
        <Box sx={{ px: 2.5, pt: 2 }} data-testid="timeline-loading">
          {timeline.retry > 0 && (
            <Alert severity="info" sx={{ mb: 2 }} data-testid="timeline-still-loading">
              {translate('inbox.timeline.stillLoading', { attempt: timeline.retry, max: 5 })}
            </Alert>
          )}
          {[0, 1, 2].map((i) => (
            <Box key={i} sx={{ display: 'flex', justifyContent: i % 2 ? 'flex-end' : 'flex-start', mb: 1.5 }}>
              <Skeleton variant="rounded" width={i % 2 ? 220 : 280} height={48} />
            </Box>
          ))}
        </Box>
      )}
      {timeline.error && (
        <Box sx={{ p: 2.5 }}>
          <Alert severity="error" data-testid="timeline-error" action={<Button color="inherit" size="small" onClick={() => void reloadTimeline()}>{translate('inbox.actions.retry')}</Button>}>
            {timeline.error === 'still_loading' ? translate('inbox.timeline.stillLoadingFailed') : timeline.error}
          </Alert>
        </Box>
      )}
      {items.map((it) => {
        if (it.kind === 'day') {
          return (
            <Box key={it.key} sx={{ display: 'flex', alignItems: 'center', gap: 1.5, px: 2.5, py: 1.25 }} data-testid="day-separator">
              <Box sx={{ flex: 1, height: '1px', bgcolor: 'divider' }} />
              <Typography variant="caption" sx={{ color: 'text.secondary', fontWeight: 600 }}>
                {dayLabel(it.day, locale, translate('inbox.timeline.today'), translate('inbox.timeline.yesterday'))}
              </Typography>
              <Box sx={{ flex: 1, height: '1px', bgcolor: 'divider' }} />
            </Box>
          );
        }
        if (it.kind === 'unread') {
          return (
            <Box key={it.key} sx={{ display: 'flex', alignItems: 'center', gap: 1.5, px: 2.5, py: 1 }} data-testid="unread-separator">
              <Box sx={{ flex: 1, height: '1px', bgcolor: 'primary.light' }} />
              <Typography variant="caption" sx={{ color: 'primary.main', fontWeight: 700 }}>
                {translate('inbox.timeline.unread', { smart_count: it.count })}
              </Typography>
              <Box sx={{ flex: 1, height: '1px', bgcolor: 'primary.light' }} />
            </Box>
          );
        }
        const e = it.event;
        if (e.event_type === 'incoming_message' || e.event_type === 'outgoing_message' || e.event_type === 'start_conversation' || e.event_type === 'preview_message') {
          return <Bubble key={it.key} e={e} locale={locale} agentName={agentName} />;
        }
        if (e.event_type === 'internal_note') return <Note key={it.key} e={e} locale={locale} agentName={agentName} />;
        return <Change key={it.key} e={e} locale={locale} agentName={agentName} teamName={teamName} tagName={tagName} agentById={agentById} />;
      })}
      {!timeline.loading && !timeline.error && state.timeline.length === 0 && (
        <Typography sx={{ textAlign: 'center', color: 'text.secondary', mt: 6, fontSize: 14 }}>{translate('inbox.timeline.empty')}</Typography>
      )}
    </Box>
  );
};
