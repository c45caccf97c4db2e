import AddCommentRoundedIcon from '@mui/icons-material/AddCommentRounded';
import { Alert, Box, Button, CircularProgress, MenuItem, TextField, Typography } from '@mui/material';
import { useEffect, useMemo, useState } from 'react';
import { useTranslate } from 'react-admin';
import { AppModal } from '../../ui/modal/AppModal';
import { useApi } from '../../ui/useApi';
import { useProfile } from '../../ui/useProfile';
import { streamsApi } from '../streams/api';
import { phone as phoneRule } from '../streams/rules';
import { SmsCounter } from '../streams/send/SmsCounter';
import { WhatsAppMessage } from '../streams/send/WhatsAppMessage';
import { missingPlaceholders, type WhatsAppDraft } from '../streams/send/whatsapp-template';
import type { TemplateSendBody } from '@switchboard/contracts/src/inbox';
import { messageText } from '../streams/widgets/errors';
import { inboxApi } from './api';
import { NEW_CONVERSATION_RETRIES, NEW_CONVERSATION_RETRY_MS } from './constants';
import { replyErrorKey } from './Composer';
import { useInbox } from './useInbox';

/** Spec 3 stream types the inbox starts conversations on: two-way 4 and WhatsApp 5. */
const TWO_WAY = 4;
const WHATSAPP = 5;

/** The draft's `BODY.1` values as the contract's placeholders by section and position: `{ body: { '1': 'Ann' } }`. */
export function templatePlaceholders(values: Record<string, string>): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const [k, v] of Object.entries(values)) {
    const [section, n] = k.split('.');
    if (!section || !n) continue;
    (out[section.toLowerCase()] ??= {})[n] = v;
  }
  return out;
}

export interface NewConversationPreset {
  phone?: string;
  stream?: string;
  contactKey?: string;
}

/**
 * The send-message popup on inbox paths (spec 2): titled "new conversation", only two-way and WhatsApp streams,
 * details (stream, sender, phone, team when there are two or more teams) then the message (SMS text with the UTF-8
 * warning and count, or a WhatsApp template with its placeholders and buttons). The conversation it starts is
 * looked up 5 times every 1.5 s (spec 4) and opened.
 */
export const NewConversationDialog = ({ open, preset, onClose }: { open: boolean; preset?: NewConversationPreset | null; onClose: () => void }) => {
  const translate = useTranslate();
  const { profile } = useProfile();
  const { space, open: openConversation, reloadList } = useInbox();
  const [step, setStep] = useState<'details' | 'message'>('details');
  const [streamUid, setStreamUid] = useState('');
  const [phone, setPhone] = useState('');
  const [team, setTeam] = useState<number | ''>('');
  const [text, setText] = useState('');
  const [wa, setWa] = useState<WhatsAppDraft>({ mode: 'template', template: '', placeholders: {} });
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const streams = useApi(() => inboxApi.inboxStreams(), [], open);
  const usable = useMemo(() => (streams.data?.items ?? []).filter((s) => s.streamType === TWO_WAY || s.streamType === WHATSAPP), [streams.data]);
  const stream = usable.find((s) => s.streamUid === streamUid);
  const isWa = stream?.streamType === WHATSAPP;
  const templates = useApi(() => streamsApi.externalTemplates(stream!.id), [stream?.id], open && !!stream && isWa);
  const teams = space?.teams ?? [];

  useEffect(() => {
    if (!open) return;
    setStep('details');
    setPhone(preset?.phone ?? '');
    setStreamUid(preset?.stream ?? '');
    setTeam(teams.length === 1 ? teams[0].id : '');
    setText('');
    setWa({ mode: 'template', template: '', placeholders: {} });
    setSubmitted(false);
    setError(null);
    // reset on open
  }, [open, preset?.phone, preset?.stream]);

  useEffect(() => {
    if (open && !streamUid && usable.length === 1) setStreamUid(usable[0].streamUid);
  }, [open, streamUid, usable]);

  const errors = {
    stream: streamUid ? undefined : 'errors.client.required',
    phone: phone.trim() ? phoneRule(phone) : 'errors.client.required',
    // spec 5: team required when two or more teams (inbox only)
    team: teams.length >= 2 && team === '' ? 'errors.client.required' : undefined,
  };
  const detailsOk = !errors.stream && !errors.phone && !errors.team;
  const template = templates.data?.items.find((x) => `${x.name}|${x.language}` === wa.template);
  const messageError = isWa
    ? wa.mode === 'template'
      ? !template
        ? 'errors.client.required'
        : missingPlaceholders(template, wa.placeholders)
          ? 'errors.client.required'
          : undefined
      : text.trim()
        ? undefined
        : 'errors.client.required'
    : text.trim()
      ? undefined
      : 'errors.client.required';

  const findAndOpen = async (answered?: string) => {
    if (answered) {
      openConversation(answered);
      return;
    }
    const p = phone.trim();
    for (let i = 0; i < NEW_CONVERSATION_RETRIES; i++) {
      const found = await inboxApi.contactConversations(p).catch(() => null);
      const c = found?.items.find((x) => x.stream_uuid === streamUid) ?? found?.items[0];
      if (c) {
        openConversation(c.conversation_uuid);
        return;
      }
      await new Promise((r) => setTimeout(r, NEW_CONVERSATION_RETRY_MS));
    }
  };

  const send = async () => {
    setSubmitted(true);
    if (messageError || !stream || !space) return;
    setBusy(true);
    setError(null);
    // spec 2: the form's initial values are the agent, the team and the space
    const convInfo = { agent: profile?.id ?? null, team: team === '' ? null : team, space: space.space.id };
    const body: TemplateSendBody = { streamUid, phone: phone.trim(), sender: stream.sender ?? null, convInfo };
    if (isWa && wa.mode === 'template' && template) {
      body.template = { name: template.name, language: template.language };
      body.placeholders = templatePlaceholders(wa.placeholders);
    } else body.text = text;
    try {
      const r = await inboxApi.templateSend(streamUid, body);
      if (r.code !== 'OK') {
        setError(r.code === 'SENT_FAILED' && r.error ? `${translate('inbox.replyErrors.failed')}: ${r.error}` : translate(replyErrorKey(r.code)));
        return;
      }
      onClose();
      void reloadList();
      void findAndOpen(r.conversation_uuid ?? undefined);
    } catch (e) {
      const b = (e as { body?: { code?: string; message?: string } }).body;
      setError(b?.message ?? translate(replyErrorKey(b?.code)));
    } finally {
      setBusy(false);
    }
  };

  const err = (k: string | undefined) => (submitted && k ? messageText(k, translate) : undefined);

  return (
    <AppModal
      open={open}
      onClose={onClose}
      size="m"
      icon={<AddCommentRoundedIcon />}
      title={translate('inbox.newConversation.title')}
      subtitle={translate(`inbox.newConversation.step.${step}`)}
      testId="send-message-dialog"
      dismissible={!busy}
      actions={
        step === 'details' ? (
          <>
            <Button onClick={onClose}>{translate('ra.action.cancel')}</Button>
            <Button variant="contained" data-testid="send-next" onClick={() => (setSubmitted(true), detailsOk && (setSubmitted(false), setStep('message')))}>
              {translate('inbox.newConversation.next')}
            </Button>
          </>
        ) : (
          <>
            <Button onClick={() => setStep('details')} data-testid="send-back">{translate('inbox.newConversation.back')}</Button>
            <Button variant="contained" disabled={busy} data-testid="send-submit" onClick={() => void send()} endIcon={busy ? <CircularProgress size={14} color="inherit" /> : undefined}>
              {translate('inbox.newConversation.send')}
            </Button>
          </>
        )
      }
    >
      {error && <Alert severity="error" sx={{ mb: 2 }} data-testid="new-conversation-error">{error}</Alert>}
      {step === 'details' ? (
        <Box sx={{ display: 'grid', gap: 2, pt: 1 }}>
          <TextField select label={translate('inbox.newConversation.stream')} value={streamUid} onChange={(e) => setStreamUid(e.target.value)} error={!!err(errors.stream)} helperText={err(errors.stream) ?? (usable.length === 0 && !streams.loading ? translate('inbox.newConversation.noStreams') : ' ')} slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'send-stream' } as object } }}>
            {usable.map((s) => (
              <MenuItem key={s.streamUid} value={s.streamUid}>
                {s.name}
                <Typography component="span" variant="caption" color="text.secondary" sx={{ ml: 1 }}>
                  {translate(s.streamType === WHATSAPP ? 'inbox.channels.whatsapp' : 'inbox.channels.sms')}
                </Typography>
              </MenuItem>
            ))}
          </TextField>
          <TextField label={translate('inbox.newConversation.phone')} value={phone} onChange={(e) => setPhone(e.target.value)} error={!!err(errors.phone)} helperText={err(errors.phone) ?? ' '} inputProps={{ 'data-testid': 'send-phone', inputMode: 'tel' }} />
          {teams.length >= 2 && (
            <TextField select label={translate('inbox.newConversation.team')} value={team} onChange={(e) => setTeam(e.target.value === '' ? '' : Number(e.target.value))} error={!!err(errors.team)} helperText={err(errors.team) ?? ' '} slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'send-team' } as object } }}>
              {teams.map((t) => (
                <MenuItem key={t.id} value={t.id}>{t.name}</MenuItem>
              ))}
            </TextField>
          )}
        </Box>
      ) : isWa ? (
        <WhatsAppMessage draft={wa} onChange={setWa} text={text} onText={setText} templates={templates.data?.items} loading={templates.loading} error={!!templates.error} textError={err(messageError)} />
      ) : (
        <Box>
          <TextField fullWidth multiline minRows={4} label={translate('inbox.newConversation.message')} value={text} onChange={(e) => setText(e.target.value)} error={!!err(messageError)} helperText={err(messageError)} inputProps={{ 'data-testid': 'send-text' }} />
          <SmsCounter text={text} />
        </Box>
      )}
    </AppModal>
  );
};
