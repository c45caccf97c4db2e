import ArrowBackRoundedIcon from '@mui/icons-material/ArrowBackRounded';
import CheckCircleRoundedIcon from '@mui/icons-material/CheckCircleRounded';
import ErrorRoundedIcon from '@mui/icons-material/ErrorRounded';
import SendRoundedIcon from '@mui/icons-material/SendRounded';
import { Alert, Autocomplete, Box, Button, CircularProgress, MenuItem, Skeleton, TextField, Typography } from '@mui/material';
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { useTranslate } from 'react-admin';
import { streamsApi } from '../api';
import { FINAL_STATUSES, FIRST_POLL_MS, P, SenderApproval, STATUS_POLL_MS, StreamStatus, StreamType, isSmsType } from '../constants';
import { ApprovalChip, StreamStatusChip, TypeTile, mono, useMoney, useTypeLabel } from '../labels';
import { check, flagNumber, phone as phoneRule, senderId, telegramChat } from '../rules';
import type { DemoAnswer, MessageStatus, Stream } from '../types';
import { AppModal } from '../../../ui/modal/AppModal';
import { CopyButton } from '../../../ui/CopyButton';
import { errorText, messageText } from '../widgets/errors';
import { useCan } from '../../../ui/permissions';
import { useApi } from '../../../ui/useApi';
import { DeliveryTracker } from './DeliveryTracker';
import { SmsCounter } from './SmsCounter';
import { WhatsAppMessage } from './WhatsAppMessage';
import { missingPlaceholders, templatePayload, type WhatsAppDraft } from './whatsapp-template';

type Step = 'details' | 'message' | 'result';

interface Props {
  open: boolean;
  /** The stream to send through; none: a stream picker comes first (spec 2). */
  stream?: Pick<Stream, 'id' | 'name'> | null;
  onClose: () => void;
  /** Told when a message was accepted (the caller refreshes its statistics). */
  onSent?: (answer: DemoAnswer) => void;
}

const TELEGRAM_MAX = 4096;
const SENDABLE = new Set<number>([StreamStatus.Ready, StreamStatus.Sending]);

/** The two steps of spec 2, as a header over the modal's content. */
const Steps = ({ step }: { step: Step }) => {
  const translate = useTranslate();
  const items: Array<{ key: Step; label: string }> = [
    { key: 'details', label: translate('streams.sendMessage.steps.details') },
    { key: 'message', label: translate('streams.sendMessage.steps.message') },
  ];
  const at = step === 'details' ? 0 : 1;
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 2.5 }}>
      {items.map((s, i) => (
        <Box key={s.key} sx={{ display: 'flex', alignItems: 'center', gap: 1, flex: i === 0 ? 'none' : 1 }}>
          {i > 0 && <Box sx={{ width: 40, height: 2, bgcolor: at >= i ? 'primary.main' : 'divider', borderRadius: 1 }} />}
          <Box sx={{ width: 24, height: 24, borderRadius: '50%', display: 'grid', placeItems: 'center', fontSize: 12.5, fontWeight: 700, bgcolor: at >= i ? 'primary.main' : '#f2f4f7', color: at >= i ? '#fff' : 'text.secondary' }}>{i + 1}</Box>
          <Typography variant="body2" sx={{ fontWeight: at === i ? 700 : 500, color: at === i ? 'text.primary' : 'text.secondary' }}>
            {s.label}
          </Typography>
        </Box>
      ))}
    </Box>
  );
};

/**
 * The send-message popup of spec 2 (demo message): step one the details (a stream picker when none is preselected,
 * the sender, the phone), step two the message in the form of the stream's type (SMS with the UTF-8 warning and the
 * live character and part count, WhatsApp templates with their placeholders, Telegram text), Next / Back / Send, then
 * a result screen that follows the message until it is delivered (status poll 5 s).
 */
export const SendMessageDialog = ({ open, stream: preselected, onClose, onSent }: Props) => {
  const translate = useTranslate();
  const typeLabel = useTypeLabel();
  const money = useMoney();
  const can = useCan();
  const [step, setStep] = useState<Step>('details');
  const [streamId, setStreamId] = useState<number | ''>('');
  const [sender, setSender] = useState('');
  const [phone, setPhone] = useState('');
  const [text, setText] = useState('');
  const [wa, setWa] = useState<WhatsAppDraft>({ mode: 'template', template: '', placeholders: {} });
  const [touched, setTouched] = useState<Record<string, boolean>>({});
  const [submitted, setSubmitted] = useState<Record<Step, boolean>>({ details: false, message: false, result: false });
  const [server, setServer] = useState<Record<string, string>>({});
  const [banner, setBanner] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<DemoAnswer | null>(null);
  const [status, setStatus] = useState<MessageStatus | null>(null);
  const phoneRef = useRef<HTMLInputElement | null>(null);

  useEffect(() => {
    if (!open) return;
    setStep('details');
    setStreamId(preselected?.id ?? '');
    setPhone('');
    setText('');
    setWa({ mode: 'template', template: '', placeholders: {} });
    setTouched({});
    setSubmitted({ details: false, message: false, result: false });
    setServer({});
    setBanner(null);
    setAnswer(null);
    setStatus(null);
  }, [open, preselected?.id]);

  const picker = useApi(() => streamsApi.dropdown(), [], open && !preselected);
  const stream = useApi(() => streamsApi.stream(streamId as number), [streamId], open && streamId !== '');
  const s = stream.data && stream.data.id === streamId ? stream.data : undefined;
  const type = s?.streamType ?? 0;
  const sms = isSmsType(type);
  const senders = useApi(() => streamsApi.senderDropdown().catch(() => ({ items: [], total: 0 })), [], open && can(P.SenderView));
  const external = useApi(() => streamsApi.externalSenders(s?.id as number), [s?.id], open && !!s && !sms);
  const templates = useApi(() => streamsApi.externalTemplates(s?.id as number), [s?.id], open && type === StreamType.WhatsApp);

  // the stream's default sender, once it is known
  useEffect(() => {
    if (s) setSender(s.sender ?? '');
  }, [s]);

  const senderOptions = useMemo(() => (senders.data?.items ?? []).filter((o) => o.approved !== SenderApproval.Declined), [senders.data]);
  const providerSender = !sms && s ? (external.data ?? []).find((e) => e.id === s.params.phone_number) ?? (external.data ?? [])[0] : undefined;

  const detailErrors: Record<string, string | undefined> = {
    stream: streamId === '' ? 'errors.client.required' : undefined,
    sender: sms ? (sender.trim() ? senderId(sender) : 'errors.client.required') : undefined,
    phone: type === StreamType.TelegramBot ? check(phone, telegramChat) : check(phone, phoneRule),
  };
  const template = templates.data?.items.find((x) => `${x.name}|${x.language}` === wa.template);
  const messageErrors: Record<string, string | undefined> = {
    message:
      type === StreamType.WhatsApp && wa.mode === 'template'
        ? undefined
        : text.trim() === ''
          ? 'errors.client.required'
          : !sms && text.length > TELEGRAM_MAX
            ? 'errors.client.charLimit'
            : undefined,
    template: type === StreamType.WhatsApp && wa.mode === 'template' ? (!template ? 'errors.client.required' : missingPlaceholders(template, wa.placeholders) ? 'errors.client.placeholders' : undefined) : undefined,
  };
  const shown = (f: string, at: Step) => {
    const e = (at === 'details' ? detailErrors : messageErrors)[f];
    return server[f] || ((touched[f] || submitted[at]) && e ? messageText(e, translate, { limit: TELEGRAM_MAX }) : undefined);
  };

  const next = (e?: FormEvent) => {
    e?.preventDefault();
    setSubmitted((x) => ({ ...x, details: true }));
    if (Object.values(detailErrors).some(Boolean) || !s) return;
    if (!SENDABLE.has(s.status)) {
      setBanner(translate('streams.sendMessage.notReady'));
      return;
    }
    setBanner(null);
    setStep('message');
  };

  // Status poll: quickly once, then every 5 s until the message reaches a final status (spec 9).
  const uuid = answer?.response.message_uuid;
  useEffect(() => {
    if (!uuid || step !== 'result') return undefined;
    let stopped = false;
    let timer: number;
    const poll = async () => {
      try {
        const st = await streamsApi.messageStatus(uuid);
        if (stopped) return;
        setStatus(st);
        if (FINAL_STATUSES.has(st.status)) return;
      } catch (_e) {
        // a missed poll is retried at the next tick
      }
      if (!stopped) timer = window.setTimeout(() => void poll(), STATUS_POLL_MS);
    };
    timer = window.setTimeout(() => void poll(), FIRST_POLL_MS);
    return () => {
      stopped = true;
      window.clearTimeout(timer);
    };
  }, [uuid, step]);

  const send = async (e?: FormEvent) => {
    e?.preventDefault();
    setSubmitted((x) => ({ ...x, message: true }));
    if (Object.values(messageErrors).some(Boolean) || !s || busy) return;
    setBusy(true);
    setBanner(null);
    setServer({});
    try {
      const body: Parameters<typeof streamsApi.demo>[0] = { streamId: s.id, phone: phone.trim() };
      if (type === StreamType.WhatsApp && wa.mode === 'template' && template) body.payload = templatePayload(template, wa.placeholders);
      else body.message = text;
      if (sms && sender.trim()) body.sender = sender.trim();
      const a = await streamsApi.demo(body);
      if (a.code === 'OK' && a.response.success) {
        setAnswer(a);
        setStatus(null);
        setStep('result');
        onSent?.(a);
        return;
      }
      const violation = (field: string) => a.violations?.find((v) => v.propertyPath === field);
      const reason = translate(`streams.modalDemo.results.${a.result}`, { _: translate('streams.modalDemo.results.failed') });
      if (a.result === 'phone_not_entered' || a.result === 'phone_invalid' || violation('phone')) {
        setServer({ phone: reason });
        setStep('details');
        window.setTimeout(() => phoneRef.current?.focus(), 50);
      } else if (a.result === 'sender_not_exist' && sms) {
        // the server says why (0x17 names an unapproved sender): approval is what the user has to ask for
        const detail = a.response.error?.message ?? '';
        setServer({ sender: /not an approved sender/.test(detail) ? translate('streams.senderState.refused', { sender: sender.trim() || s.sender || '' }) : detail ? `${reason} ${translate('streams.modalDemo.detail', { detail })}` : reason });
        setStep('details');
      } else if (a.result === 'message_empty') {
        setServer({ message: reason });
      } else {
        const detail = a.response.error?.message ?? a.violations?.[0]?.message;
        setBanner(detail ? `${reason} ${translate('streams.modalDemo.detail', { detail })}` : reason);
      }
    } catch (error) {
      const known = errorText(error, translate);
      setBanner(`${translate('streams.notification.sentDemoFailed')} ${known === translate('streams.errors.generic') ? '' : known}`.trim());
    } finally {
      setBusy(false);
    }
  };

  const title = s || preselected ? translate('streams.modalDemo.title', { name: s?.name ?? preselected?.name ?? '' }) : translate('streams.modalDemo.titleNoStream');
  const current = status?.status ?? 'accepted';
  const failed = FINAL_STATUSES.has(current) && current !== 'delivered';

  const actions =
    step === 'details' ? (
      <>
        <Button color="inherit" onClick={onClose}>
          {translate('streams.ui.cancel')}
        </Button>
        <Button type="submit" form="send-details-form" variant="contained" data-testid="send-next" disabled={streamId !== '' && !s}>
          {translate('streams.ui.next')}
        </Button>
      </>
    ) : step === 'message' ? (
      <>
        <Button color="inherit" startIcon={<ArrowBackRoundedIcon />} onClick={() => setStep('details')} disabled={busy} sx={{ mr: 'auto' }} data-testid="send-back">
          {translate('streams.ui.back')}
        </Button>
        <Button type="submit" form="send-message-form" variant="contained" disabled={busy} data-testid="send-submit" startIcon={busy ? <CircularProgress size={16} color="inherit" /> : <SendRoundedIcon />}>
          {translate('streams.sendMessage.send')}
        </Button>
      </>
    ) : (
      <>
        <Button color="inherit" onClick={() => { setStep('message'); setAnswer(null); setStatus(null); setSubmitted((x) => ({ ...x, message: false })); }} sx={{ mr: 'auto' }} data-testid="send-another">
          {translate('streams.sendMessage.another')}
        </Button>
        <Button variant="contained" onClick={onClose} data-testid="send-close">
          {translate('streams.ui.done')}
        </Button>
      </>
    );

  return (
    <AppModal
      open={open}
      onClose={onClose}
      size="m"
      icon={s ? <TypeTile type={s.streamType} size={36} /> : <SendRoundedIcon fontSize="small" />}
      title={title}
      subtitle={s ? typeLabel(s.streamType) : translate('streams.sendMessage.subtitle')}
      testId="send-message-dialog"
      dismissible={!busy}
      actions={actions}
    >
      {step !== 'result' && <Steps step={step} />}
      {banner && (
        <Alert severity="error" sx={{ mb: 2 }} data-testid="send-error">
          {banner}
        </Alert>
      )}

      {step === 'details' && (
        <Box component="form" id="send-details-form" noValidate onSubmit={next}>
          {!preselected && (
            <TextField
              select
              label={translate('streams.sendMessage.stream')}
              value={streamId}
              onChange={(e) => {
                setStreamId(Number(e.target.value));
                setServer({});
                setBanner(null);
              }}
              error={!!shown('stream', 'details')}
              helperText={shown('stream', 'details') ?? ' '}
              slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'send-stream' } as object, MenuProps: { slotProps: { paper: { sx: { maxHeight: 360 } } } } } }}
            >
              {picker.loading && <MenuItem disabled>{translate('streams.ui.loading')}</MenuItem>}
              {(picker.data?.items ?? []).map((o) => (
                <MenuItem key={o.id} value={o.id} disabled={!SENDABLE.has(o.status)} data-testid="send-stream-option">
                  <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.25, width: '100%' }}>
                    <TypeTile type={o.streamType} size={26} />
                    <Box sx={{ flex: 1, minWidth: 0 }}>
                      <Typography variant="body2" sx={{ fontWeight: 600 }} noWrap>{o.name}</Typography>
                      <Typography variant="caption" color="text.secondary">{typeLabel(o.streamType)}</Typography>
                    </Box>
                    <StreamStatusChip status={o.status} />
                  </Box>
                </MenuItem>
              ))}
              {picker.data && picker.data.items.length === 0 && <MenuItem disabled>{translate('streams.sendMessage.noStreams')}</MenuItem>}
            </TextField>
          )}
          {streamId !== '' && !s ? (
            <Box>
              <Skeleton variant="rounded" height={56} sx={{ mb: 2 }} />
              <Skeleton variant="rounded" height={56} />
            </Box>
          ) : s ? (
            <>
              {sms ? (
                <Autocomplete
                  freeSolo
                  options={senderOptions}
                  value={sender}
                  inputValue={sender}
                  onInputChange={(_e, v) => {
                    setSender(v);
                    setServer((x) => ({ ...x, sender: '' }));
                  }}
                  getOptionLabel={(o) => (typeof o === 'string' ? o : o.value)}
                  renderOption={({ key, ...props }, o) => (
                    <li key={key} {...props}>
                      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, width: '100%' }}>
                        <Box component="span" sx={{ ...mono, fontWeight: 600 }}>{o.value}</Box>
                        <Typography variant="body2" color="text.secondary" sx={{ flex: 1 }} noWrap>{o.name}</Typography>
                        <ApprovalChip approved={o.approved} />
                      </Box>
                    </li>
                  )}
                  renderInput={(params) => (
                    <TextField
                      {...params}
                      label={translate('streams.sendMessage.sender')}
                      required
                      onBlur={() => setTouched((t) => ({ ...t, sender: true }))}
                      error={!!shown('sender', 'details')}
                      helperText={shown('sender', 'details') ?? translate(s.sender ? 'streams.sendMessage.senderDefault' : 'streams.sendMessage.senderHint', { sender: s.sender ?? '' })}
                      slotProps={{ htmlInput: { ...params.inputProps, 'data-testid': 'send-sender', style: mono } }}
                    />
                  )}
                />
              ) : (
                <TextField
                  label={translate('streams.sendMessage.sender')}
                  value={providerSender ? `${providerSender.display_phone_number}${providerSender.verified_name ? ` · ${providerSender.verified_name}` : ''}` : external.loading ? translate('streams.ui.loading') : (s.params.phone_number ?? '—')}
                  disabled
                  error={!!external.error}
                  helperText={external.error ? translate('streams.modalDemo.invalidToken') : translate('streams.sendMessage.providerSender')}
                  slotProps={{ htmlInput: { 'data-testid': 'send-sender' } }}
                />
              )}
              <TextField
                label={translate(type === StreamType.TelegramBot ? 'streams.sendMessage.chat' : 'streams.sendMessage.phone')}
                value={phone}
                required
                inputRef={phoneRef}
                placeholder={type === StreamType.TelegramBot ? '@username' : '+49 151 12345678'}
                onChange={(e) => {
                  setPhone(e.target.value);
                  setServer((x) => ({ ...x, phone: '' }));
                }}
                onBlur={() => setTouched((t) => ({ ...t, phone: true }))}
                error={!!shown('phone', 'details')}
                helperText={shown('phone', 'details') ?? translate(type === StreamType.TelegramBot ? 'streams.sendMessage.chatHint' : 'streams.sendMessage.phoneHint')}
                sx={{ mt: 1 }}
                slotProps={{ htmlInput: { 'data-testid': 'send-phone', inputMode: type === StreamType.TelegramBot ? 'text' : 'tel' } }}
              />
            </>
          ) : null}
        </Box>
      )}

      {step === 'message' && s && (
        <Box component="form" id="send-message-form" noValidate onSubmit={send}>
          <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', mb: 2, color: 'text.secondary', fontSize: 13.5 }}>
            <span>{translate('streams.sendMessage.to')}</span>
            <Box component="b" sx={{ color: 'text.primary' }} data-testid="send-to">{type === StreamType.TelegramBot ? phone : (flagNumber(phone.replace(/[\s().-]/g, '')) ?? phone)}</Box>
            {sms && sender && (
              <>
                <span>{translate('streams.sendMessage.from')}</span>
                <Box component="b" sx={{ color: 'text.primary', ...mono }}>{sender}</Box>
              </>
            )}
          </Box>
          {type === StreamType.WhatsApp ? (
            <>
              <WhatsAppMessage draft={wa} onChange={setWa} text={text} onText={setText} templates={templates.data?.items} loading={templates.loading} error={!!templates.error} textError={shown('message', 'message')} />
              {shown('template', 'message') && wa.mode === 'template' && (
                <Typography variant="caption" color="error" data-testid="send-template-error">{shown('template', 'message')}</Typography>
              )}
            </>
          ) : (
            <>
              <TextField
                label={translate('streams.sendMessage.message')}
                value={text}
                multiline
                minRows={5}
                autoFocus
                placeholder={translate('streams.sendMessage.messagePlaceholder')}
                onChange={(e) => {
                  setText(e.target.value);
                  setServer((x) => ({ ...x, message: '' }));
                }}
                onBlur={() => setTouched((t) => ({ ...t, message: true }))}
                error={!!shown('message', 'message')}
                helperText={shown('message', 'message')}
                slotProps={{ htmlInput: { 'data-testid': 'send-text' } }}
              />
              {sms ? (
                <SmsCounter text={text} />
              ) : (
                <Typography variant="caption" color="text.secondary" sx={{ display: 'block', textAlign: 'right', mt: 0.5 }} data-testid="send-count">
                  {text.length} / {TELEGRAM_MAX}
                </Typography>
              )}
            </>
          )}
        </Box>
      )}

      {step === 'result' && answer && (
        <Box data-testid="send-result">
          <Box sx={{ textAlign: 'center', mb: 3 }}>
            {failed ? <ErrorRoundedIcon sx={{ fontSize: 52, color: 'error.main' }} /> : <CheckCircleRoundedIcon sx={{ fontSize: 52, color: 'success.main' }} />}
            <Typography variant="h6" sx={{ mt: 0.5 }} data-testid="send-result-title">
              {translate(current === 'delivered' ? 'streams.modalDemo.deliveredTitle' : failed ? 'streams.modalDemo.failedTitle' : 'streams.modalDemo.sentTitle')}
            </Typography>
            <Typography variant="body2" color="text.secondary">
              {translate(current === 'delivered' ? 'streams.modalDemo.deliveredText' : failed ? 'streams.modalDemo.failedText' : 'streams.modalDemo.sentText', { phone: answer.response.destination ?? phone })}
            </Typography>
          </Box>
          <Box sx={{ p: 2.5, border: 1, borderColor: 'divider', borderRadius: '12px', mb: 2 }}>
            <DeliveryTracker status={current} error={status?.error} />
          </Box>
          <Box sx={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fit, minmax(130px, 1fr))', gap: 1.5 }}>
            {[
              { label: translate('streams.modalDemo.to'), value: answer.response.destination ?? phone },
              { label: translate('streams.modalDemo.from'), value: answer.response.sender ?? sender },
              {
                label: translate('streams.modalDemo.parts'),
                value: `${answer.response.parts ?? 1}${answer.response.encoding ? ` · ${translate(answer.response.encoding === 'UCS2' ? 'streams.sms.ucs2' : 'streams.sms.gsm7')}` : ''}`,
              },
              { label: translate('streams.modalDemo.price'), value: answer.response.price !== undefined ? money(answer.response.price, answer.response.currency) : '—' },
            ].map((x) => (
              <Box key={x.label} sx={{ p: 1.5, borderRadius: '10px', bgcolor: '#f8fafc' }}>
                <Typography variant="caption" color="text.secondary">{x.label}</Typography>
                <Typography sx={{ fontWeight: 600, fontSize: 14 }} noWrap>{x.value}</Typography>
              </Box>
            ))}
          </Box>
          {uuid && (
            <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mt: 1.5, color: 'text.secondary' }}>
              <Typography variant="caption">{translate('streams.modalDemo.messageId')}</Typography>
              <Typography variant="caption" sx={{ ...mono }} data-testid="send-message-uuid">{uuid}</Typography>
              <CopyButton value={uuid} />
            </Box>
          )}
          {!FINAL_STATUSES.has(current) && (
            <Typography variant="caption" color="text.secondary" sx={{ display: 'block', mt: 1 }}>
              {translate('streams.modalDemo.polling')}
            </Typography>
          )}
        </Box>
      )}
    </AppModal>
  );
};
