import AttachFileRoundedIcon from '@mui/icons-material/AttachFileRounded';
import BoltRoundedIcon from '@mui/icons-material/BoltRounded';
import CloseRoundedIcon from '@mui/icons-material/CloseRounded';
import SendRoundedIcon from '@mui/icons-material/SendRounded';
import StickyNote2RoundedIcon from '@mui/icons-material/StickyNote2Rounded';
import { Alert, Box, Button, Chip, CircularProgress, IconButton, InputBase, ListItemText, Menu, MenuItem, TextField, Tooltip, Typography } from '@mui/material';
import { useEffect, useMemo, useRef, useState, type RefObject } from 'react';
import { useTranslate } from 'react-admin';
import { analyzeSms } from '@switchboard/contracts/src/sms/encoding';
import { useProfile } from '../../ui/useProfile';
import { inboxApi, uploadMedia } from './api';
import { P } from './constants';
import { channelOf } from './format';
import { fillCanned, replyBlock, type ReplyBlock } from './model';
import { INBOX_REPLY_BLOCKED, type MediaKind, type SendResult } from './types';
import type { SimpleSendMessage } from '@switchboard/contracts/src/inbox';
import { Permission } from '@switchboard/contracts/src/permissions';
import { AiAssist } from '../genai/AiAssist';
import { useInbox } from './useInbox';

const TELEGRAM_MAX = 4096;
const WHATSAPP_MAX = 4096;

/** Spec 8 "Inbox reply errors": general is failed, invalid argument invalid media, duplicate duplicate, auth errors one message. */
export function replyErrorKey(code: string | number | undefined | null): string {
  const c = String(code ?? '');
  if (c === 'NOT_AUTHENTICATED' || ['0x11', '0x12', '0x13', '0x14', '0x15', '0x16', '0x18'].includes(c)) return 'inbox.replyErrors.auth';
  if (c === '0x17') return 'inbox.replyErrors.invalidMedia';
  if (c === '0x19') return 'inbox.replyErrors.duplicate';
  return 'inbox.replyErrors.failed';
}

/** The media kind of a file, from its type (the server checks the bytes). */
export function mediaKindOf(file: File): MediaKind {
  const t = file.type;
  if (t === 'image/webp' && file.size < 512 * 1024 && /sticker/i.test(file.name)) return 'sticker';
  if (t.startsWith('image/')) return 'image';
  if (t.startsWith('video/')) return 'video';
  if (t.startsWith('audio/')) return 'audio';
  if (t === 'text/vcard' || t === 'text/x-vcard') return 'contact';
  return 'document';
}

const Banner = ({ block, onTemplate }: { block: ReplyBlock; onTemplate: () => void }) => {
  const translate = useTranslate();
  const { can } = useInbox();
  return (
    <Alert
      severity={block === 'passed24Hours' || block === 'awaitingReply' ? 'warning' : 'info'}
      data-testid={`reply-block-${block}`}
      sx={{ mx: 1.5, mt: 1.5, borderRadius: 2 }}
      action={
        block === 'passed24Hours' && can(P.NewConversation) ? (
          <Button size="small" color="inherit" variant="outlined" onClick={onTemplate} data-testid="offer-template">
            {translate('inbox.blocks.sendTemplate')}
          </Button>
        ) : undefined
      }
    >
      <Typography variant="body2" sx={{ fontWeight: 600 }}>{translate(`inbox.blocks.${block}.title`)}</Typography>
      <Typography variant="body2">{translate(`inbox.blocks.${block}.text`)}</Typography>
    </Alert>
  );
};

/**
 * The composer: a reply (or, with INBOX_INTERNAL_NOTES, an internal note), canned templates (button or "/" at the
 * start), the character count (SMS parts for SMS streams), a media attachment uploaded to the stream, and the reply
 * block banners of spec 4 in place of the editor, with the template offer once the WhatsApp window has passed.
 * Enter sends, Shift+Enter breaks the line.
 */
export const Composer = ({ inputRef, onOfferTemplate }: { inputRef: RefObject<HTMLTextAreaElement | null>; onOfferTemplate: () => void }) => {
  const translate = useTranslate();
  const { profile } = useProfile();
  const { active, state, space, addEvents, applyConversation, timeline, can } = useInbox();
  const [mode, setMode] = useState<'reply' | 'note'>('reply');
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [attachment, setAttachment] = useState<{ id: string; kind: MediaKind; name: string } | null>(null);
  const [uploading, setUploading] = useState(false);
  const [cannedAnchor, setCannedAnchor] = useState<HTMLElement | null>(null);
  const [cannedFilter, setCannedFilter] = useState('');
  const [now, setNow] = useState(() => Date.now());
  /** The block the server answered (409 INBOX_REPLY_BLOCKED) for this conversation: it is the authority. */
  const [serverBlock, setServerBlock] = useState<ReplyBlock | null>(null);
  const fileRef = useRef<HTMLInputElement | null>(null);
  const drafts = useRef(new Map<string, string>());

  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(t);
  }, []);

  // a draft per conversation
  const uuid = active?.conversation_uuid ?? null;
  useEffect(() => {
    setText(uuid ? (drafts.current.get(uuid) ?? '') : '');
    setAttachment(null);
    setError(null);
    setServerBlock(null);
  }, [uuid]);
  // a new customer message may reopen what the server refused
  useEffect(() => setServerBlock(null), [active?.last_incoming_time, active?.temp]);
  useEffect(() => {
    if (uuid) drafts.current.set(uuid, text);
  }, [uuid, text]);

  const block = timeline.loading ? null : (serverBlock ?? replyBlock(active, state.timeline, now));
  const channel = channelOf(active?.stream_type, active?.channel);
  const sms = channel === 'sms';
  const analysis = useMemo(() => (sms ? analyzeSms(text) : null), [sms, text]);
  const max = channel === 'telegram' ? TELEGRAM_MAX : channel === 'whatsapp' ? WHATSAPP_MAX : Infinity;
  const canned = (space?.canned_templates ?? []).filter((t) => !cannedFilter || `${t.name} ${t.templateKey}`.toLowerCase().includes(cannedFilter.toLowerCase()));
  const noteMode = mode === 'note';
  const blocked = !noteMode && !!block;
  const empty = !text.trim() && !attachment;

  const cannedValues = {
    name: active?.contact_name ?? '',
    contact_name: active?.contact_name ?? '',
    phone: active?.contact_phone_number ?? '',
    agent: `${profile?.firstName ?? ''} ${profile?.lastName ?? ''}`.trim(),
    agent_name: `${profile?.firstName ?? ''} ${profile?.lastName ?? ''}`.trim(),
  };

  const insertCanned = (t: string) => {
    setText((cur) => (cur.startsWith('/') ? '' : cur ? `${cur} ` : '') + fillCanned(t, cannedValues));
    setCannedAnchor(null);
    setCannedFilter('');
    setTimeout(() => inputRef.current?.focus(), 0);
  };

  const onResult = (r: SendResult) => {
    if (r.message) addEvents([r.message]);
    if (r.code === 'OK') {
      setText('');
      setAttachment(null);
      if (uuid) drafts.current.delete(uuid);
      setError(null);
    } else setError(r.code === 'SENT_FAILED' && r.error ? `${translate('inbox.replyErrors.failed')}: ${r.error}` : translate(replyErrorKey(r.code)));
  };

  const send = async () => {
    if (!active || busy || empty || (!noteMode && blocked) || text.length > max) return;
    setBusy(true);
    setError(null);
    try {
      if (noteMode) {
        const note = await inboxApi.note(active.conversation_uuid, text.trim());
        onResult({ code: 'OK', conversation_uuid: active.conversation_uuid, message_uuid: null, error: null, message: note });
      } else {
        const message: SimpleSendMessage = attachment ? { media_id: attachment.id, text: text.trim() || undefined } : { text };
        const r = await inboxApi.simpleSend(active.conversation_uuid, message);
        onResult(r);
        if (r.code === 'OK' && active.conversation_status === 'unanswered') applyConversation({ ...active, conversation_status: 'active' });
      }
    } catch (e) {
      const body = (e as { body?: { code?: string; message?: string; block?: ReplyBlock } }).body;
      if (body?.code === INBOX_REPLY_BLOCKED && body.block) setServerBlock(body.block);
      else setError(body?.code ? translate(replyErrorKey(body.code)) : translate('inbox.replyErrors.failed'));
    } finally {
      setBusy(false);
      inputRef.current?.focus();
    }
  };

  const attach = async (file: File) => {
    if (!active?.stream_uuid) return;
    setUploading(true);
    setError(null);
    try {
      const kind = mediaKindOf(file);
      const r = await uploadMedia(kind, active.stream_uuid, file);
      setAttachment({ id: r.id, kind: r.kind ?? kind, name: r.file_name ?? file.name });
    } catch (e) {
      const body = (e as { body?: { code?: string; message?: string } }).body;
      setError(body?.message ?? translate('inbox.replyErrors.invalidMedia'));
    } finally {
      setUploading(false);
      if (fileRef.current) fileRef.current.value = '';
    }
  };

  if (!active) return null;
  const canNote = can(P.InternalNotes);

  return (
    <Box sx={{ borderTop: 1, borderColor: 'divider', bgcolor: '#fff', position: 'relative' }} data-testid="composer">
      {blocked && block && <Banner block={block} onTemplate={onOfferTemplate} />}
      <Box sx={{ display: 'flex', gap: 0.5, px: 1.5, pt: 1 }} role="tablist">
        <Button size="small" role="tab" aria-selected={mode === 'reply'} onClick={() => setMode('reply')} data-testid="composer-mode-reply" sx={{ borderRadius: 5, fontWeight: 600, textTransform: 'none', bgcolor: mode === 'reply' ? '#eef2ff' : 'transparent' }}>
          {translate('inbox.composer.reply')}
        </Button>
        {canNote && (
          <Button size="small" role="tab" aria-selected={mode === 'note'} onClick={() => setMode('note')} startIcon={<StickyNote2RoundedIcon fontSize="small" />} data-testid="composer-mode-note" sx={{ borderRadius: 5, fontWeight: 600, textTransform: 'none', color: '#b54708', bgcolor: mode === 'note' ? '#fffaeb' : 'transparent' }}>
            {translate('inbox.composer.note')}
          </Button>
        )}
      </Box>
      <Box sx={{ mx: 1.5, my: 1, border: 1, borderColor: noteMode ? '#fedf89' : 'divider', bgcolor: noteMode ? '#fffcf5' : '#fff', borderRadius: 2, '&:focus-within': { borderColor: noteMode ? '#f79009' : 'primary.main', boxShadow: noteMode ? '0 0 0 3px #fef0c7' : '0 0 0 3px #e0e7ff' } }}>
        {attachment && (
          <Box sx={{ px: 1.25, pt: 1 }}>
            <Chip size="small" icon={<AttachFileRoundedIcon />} label={attachment.name} onDelete={() => setAttachment(null)} deleteIcon={<CloseRoundedIcon />} data-testid="composer-attachment" />
          </Box>
        )}
        <InputBase
          inputRef={inputRef}
          multiline
          minRows={2}
          maxRows={8}
          fullWidth
          disabled={busy || (!noteMode && blocked)}
          placeholder={translate(noteMode ? 'inbox.composer.notePlaceholder' : blocked ? 'inbox.composer.blockedPlaceholder' : 'inbox.composer.placeholder')}
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            if (e.target.value.startsWith('/') && !noteMode && (space?.canned_templates.length ?? 0) > 0) {
              setCannedFilter(e.target.value.slice(1));
              setCannedAnchor(e.currentTarget);
            }
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              void send();
            }
            if (e.key === 'Escape') (e.target as HTMLElement).blur();
          }}
          inputProps={{ 'data-testid': 'composer-input', 'aria-label': translate(noteMode ? 'inbox.composer.note' : 'inbox.composer.reply') }}
          sx={{ px: 1.5, py: 1, fontSize: 14 }}
        />
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 0.5, px: 1, pb: 0.75 }}>
          {!noteMode && (
            <Tooltip title={translate('inbox.composer.canned')}>
              <span>
                <IconButton size="small" onClick={(e) => setCannedAnchor(e.currentTarget)} disabled={blocked} data-testid="composer-canned" aria-label={translate('inbox.composer.canned')}>
                  <BoltRoundedIcon fontSize="small" />
                </IconButton>
              </span>
            </Tooltip>
          )}
          {!noteMode && channel !== 'sms' && (
            <Tooltip title={translate('inbox.composer.attach')}>
              <span>
                <IconButton size="small" onClick={() => fileRef.current?.click()} disabled={blocked || uploading} data-testid="composer-attach" aria-label={translate('inbox.composer.attach')}>
                  {uploading ? <CircularProgress size={16} /> : <AttachFileRoundedIcon fontSize="small" />}
                </IconButton>
              </span>
            </Tooltip>
          )}
          {/* generative AI (docs/decisions/0041): rephrase, write from an idea, answer toward a goal */}
          {!noteMode && can(Permission.InboxAiAssistant) && (
            <AiAssist text={text} conversationUuid={active.conversation_uuid} spaceId={space?.space.id ?? null} goals={space?.conversation_goals ?? []} disabled={blocked || busy} onText={(t) => { setText(t); setTimeout(() => inputRef.current?.focus(), 0); }} />
          )}
          <input ref={fileRef} type="file" hidden data-testid="composer-file" onChange={(e) => e.target.files?.[0] && void attach(e.target.files[0])} />
          <Box sx={{ flex: 1 }} />
          <Typography variant="caption" data-testid="composer-count" sx={{ color: text.length > max ? 'error.main' : 'text.secondary', mr: 1 }}>
            {analysis && !noteMode
              ? translate('inbox.composer.smsCount', { chars: analysis.units, parts: analysis.segments })
              : Number.isFinite(max) && !noteMode
                ? `${text.length} / ${max}`
                : translate('inbox.composer.chars', { smart_count: text.length })}
          </Typography>
          <Button
            variant="contained"
            size="small"
            onClick={() => void send()}
            disabled={busy || empty || (!noteMode && blocked) || text.length > max}
            endIcon={busy ? <CircularProgress size={14} color="inherit" /> : <SendRoundedIcon fontSize="small" />}
            data-testid="composer-send"
            sx={{ borderRadius: 5, px: 2, bgcolor: noteMode ? '#dc6803' : undefined, '&:hover': { bgcolor: noteMode ? '#b54708' : undefined } }}
          >
            {translate(noteMode ? 'inbox.composer.addNote' : 'inbox.composer.send')}
          </Button>
        </Box>
      </Box>
      {error && (
        <Alert severity="error" onClose={() => setError(null)} sx={{ mx: 1.5, mb: 1 }} data-testid="composer-error">
          {error}
        </Alert>
      )}
      <Menu anchorEl={cannedAnchor} open={!!cannedAnchor} onClose={() => setCannedAnchor(null)} anchorOrigin={{ vertical: 'top', horizontal: 'left' }} transformOrigin={{ vertical: 'bottom', horizontal: 'left' }} disableAutoFocus={text.startsWith('/')} slotProps={{ paper: { sx: { width: 360, maxHeight: 320 } } }} data-testid="canned-menu">
        {!text.startsWith('/') && (
          <Box sx={{ px: 1.5, pb: 1 }} onKeyDown={(e) => e.key !== 'Escape' && e.key !== 'ArrowDown' && e.key !== 'ArrowUp' && e.stopPropagation()}>
            <TextField size="small" fullWidth autoFocus placeholder={translate('inbox.composer.cannedSearch')} value={cannedFilter} onChange={(e) => setCannedFilter(e.target.value)} />
          </Box>
        )}
        {canned.length === 0 && <MenuItem disabled>{translate('inbox.composer.noCanned')}</MenuItem>}
        {canned.map((t) => (
          <MenuItem key={t.id} onClick={() => insertCanned(t.text)} data-testid="canned-item">
            <ListItemText primary={t.name} secondary={t.text} secondaryTypographyProps={{ noWrap: true }} primaryTypographyProps={{ fontWeight: 600, fontSize: 14 }} />
          </MenuItem>
        ))}
      </Menu>
    </Box>
  );
};

