import ArrowBackRoundedIcon from '@mui/icons-material/ArrowBackRounded';
import HubRoundedIcon from '@mui/icons-material/HubRounded';
import TelegramIcon from '@mui/icons-material/Telegram';
import { Alert, Autocomplete, Box, Button, Chip, CircularProgress, FormControlLabel, MenuItem, Switch, TextField, Typography } from '@mui/material';
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { useTranslate } from 'react-admin';
import { useProfile } from '../../../ui/useProfile';
import { streamsApi } from '../api';
import { DOCS_ROUTE_TYPES, P, SenderApproval, STATUS_KEY, StreamStatus, StreamType, TYPE_KEY, USER_STATUSES, isSmsType } from '../constants';
import { ApprovalChip, TypeTile, mono, useTypeLabel } from '../labels';
import { isIpEntry } from '../rules';
import type { Stream } from '../types';
import { AppModal } from '../../../ui/modal/AppModal';
import { enterPicksNotSubmits } from '../../../ui/modal/FormDialog';
import { ChipsField } from '../widgets/ChipsField';
import { errorText, fieldErrors, messageText } from '../widgets/errors';
import { FormSection, InfoBox } from '../widgets/InfoBox';
import { useCan, useIsSuperAdmin } from '../../../ui/permissions';
import { useApi } from '../../../ui/useApi';
import { AdvancedSection } from './AdvancedSection';
import { bind, type FormKit } from './form-kit';
import { OtpSection } from './OtpSection';
import { TelegramBotSection, TelegramPrivateSection, WhatsAppSection } from './ProviderSections';
import { fieldOf, initialValues, toInput, validateStream, type StreamField, type StreamFormValues } from './stream-form';
import { TypePicker } from './TypePicker';

type Step = 'type' | 'form' | 'otp';

interface Props {
  open: boolean;
  /** null: the create-stream modal; a stream: the stream edit modal. */
  stream: Stream | null;
  /** Opens on the Telegram login code step (a Telegram private stream still in draft). */
  otpStep?: boolean;
  onClose: () => void;
  onSaved: (stream: Stream, created: boolean) => void;
}

const LIMITS = { limit: 255, min: 1, max: 100000 };

/**
 * The create-stream modal (a type first, then its form) and the stream edit modal (spec 2): general fields, the
 * default sender of SMS streams, OTP options, WhatsApp / Telegram provider settings with token previews, the IP
 * ACL, and, for Telegram private, the login code step after the phone (spec 4: draft until the code is supplied).
 */
export const StreamDialog = ({ open, stream, otpStep, onClose, onSaved }: Props) => {
  const translate = useTranslate();
  const typeLabel = useTypeLabel();
  const can = useCan();
  const superAdmin = useIsSuperAdmin();
  const { profile } = useProfile();
  const editing = !!stream;
  const [step, setStep] = useState<Step>('type');
  const [values, setValues] = useState<StreamFormValues>(initialValues(StreamType.Marketing));
  const [touched, setTouched] = useState<Partial<Record<StreamField, boolean>>>({});
  const [submitted, setSubmitted] = useState(false);
  const inFlight = useRef(false);
  const [server, setServer] = useState<Partial<Record<StreamField, string>>>({});
  const [banner, setBanner] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState<Stream | null>(null);
  const [code, setCode] = useState('');
  const [codeError, setCodeError] = useState<string | null>(null);

  const accountId = profile?.customer?.id;
  // the type picker reads its settings, the rate field its TPS
  const account = useApi(() => streamsApi.account(accountId as number).catch(() => null), [accountId], open && !!accountId);
  const senders = useApi(() => streamsApi.senderDropdown().catch(() => ({ items: [], total: 0 })), [], open && can(P.SenderView));

  useEffect(() => {
    if (!open) return;
    setValues(initialValues(stream?.streamType ?? StreamType.Marketing, stream));
    setStep(stream ? (otpStep ? 'otp' : 'form') : 'type');
    setTouched({});
    setSubmitted(false);
    setServer({});
    setBanner(null);
    setSaved(stream);
    setCode('');
    setCodeError(null);
  }, [open, stream, otpStep]);

  const errors = validateStream(values, editing);
  const kit: FormKit = {
    values,
    set: (patch) => setValues((v) => ({ ...v, ...patch })),
    error: (f) => server[f] || ((touched[f] || submitted) && errors[f] ? messageText(errors[f] as string, translate, LIMITS) : undefined),
    touch: (f) => setTouched((t) => ({ ...t, [f]: true })),
    setServerError: (f, message) => setServer((s) => ({ ...s, [f]: message ?? undefined })),
    editing,
    stream,
  };
  const senderOptions = useMemo(() => senders.data?.items ?? [], [senders.data]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    // a second submit before the first one re-rendered `busy` would create the stream twice
    if (Object.keys(errors).length || busy || inFlight.current) return;
    inFlight.current = true;
    setBusy(true);
    setBanner(null);
    setServer({});
    try {
      const body = toInput(values, stream);
      const result = stream ? await streamsApi.updateStream(stream.id, body) : await streamsApi.createStream(body);
      if (result.streamType === StreamType.TelegramPrivate && result.status === StreamStatus.Draft && (!stream || values.phone_number !== (stream.params.phone_number ?? ''))) {
        setSaved(result);
        setStep('otp');
      } else {
        onSaved(result, !stream);
      }
    } catch (error) {
      const fields = fieldErrors(error, translate, LIMITS);
      const mapped: Partial<Record<StreamField, string>> = {};
      const rest: string[] = [];
      for (const [path, message] of Object.entries(fields)) {
        const f = fieldOf(path);
        if (f === '_') rest.push(message);
        else mapped[f] = message;
      }
      setServer(mapped);
      if (rest.length || !Object.keys(mapped).length) setBanner(rest[0] ?? errorText(error, translate));
    } finally {
      inFlight.current = false;
      setBusy(false);
    }
  };

  const submitCode = async (e: FormEvent) => {
    e.preventDefault();
    if (!saved) return;
    if (!/^\d{4,8}$/.test(code.trim())) {
      setCodeError(translate('streams.telegramAuth.codeInvalid'));
      return;
    }
    setBusy(true);
    setCodeError(null);
    try {
      const result = await streamsApi.updateStream(saved.id, { params: { otp_code: code.trim() } });
      onSaved(result, !stream);
    } catch (error) {
      setCodeError(fieldErrors(error, translate)['params.otp_code'] ?? errorText(error, translate));
    } finally {
      setBusy(false);
    }
  };

  const type = values.streamType;
  const title =
    step === 'type' ? translate('streams.createStream.title') : step === 'otp' ? translate('streams.telegramAuth.title') : editing ? translate('streams.editStream.title') : translate('streams.createStream.titleType', { type: typeLabel(type) });
  const subtitle = step === 'type' ? translate('streams.createStream.subtitle') : editing ? stream?.name : translate(`streams.types.${TYPE_KEY[type]}.description`);
  const statuses: number[] = [...USER_STATUSES, ...(superAdmin || stream?.status === StreamStatus.Restricted ? [StreamStatus.Restricted] : [])];

  const actions =
    step === 'type' ? (
      <>
        <Button color="inherit" onClick={onClose}>
          {translate('streams.ui.cancel')}
        </Button>
        <Button variant="contained" onClick={() => setStep('form')} data-testid="stream-type-next">
          {translate('streams.ui.next')}
        </Button>
      </>
    ) : step === 'otp' ? (
      <>
        <Button color="inherit" onClick={() => saved && onSaved(saved, !stream)} disabled={busy} data-testid="telegram-code-later">
          {translate('streams.telegramAuth.later')}
        </Button>
        <Button type="submit" form="telegram-code-form" variant="contained" disabled={busy} data-testid="telegram-code-submit" startIcon={busy ? <CircularProgress size={16} color="inherit" /> : undefined}>
          {translate('streams.telegramAuth.confirm')}
        </Button>
      </>
    ) : (
      <>
        {!editing && (
          <Button color="inherit" startIcon={<ArrowBackRoundedIcon />} onClick={() => setStep('type')} disabled={busy} sx={{ mr: 'auto' }}>
            {translate('streams.ui.back')}
          </Button>
        )}
        <Button color="inherit" onClick={onClose} disabled={busy}>
          {translate('streams.ui.cancel')}
        </Button>
        <Button type="submit" form="stream-form" variant="contained" disabled={busy} data-testid="stream-submit" startIcon={busy ? <CircularProgress size={16} color="inherit" /> : undefined}>
          {translate(editing ? 'streams.ui.saveChanges' : 'streams.createStream.submit')}
        </Button>
      </>
    );

  return (
    <AppModal
      open={open}
      // the stream exists once the code step shows: closing then is "later", and the list must learn about it
      onClose={step === 'otp' && saved ? () => onSaved(saved, !stream) : onClose}
      size={step === 'otp' ? 's' : 'm'}
      icon={step === 'type' ? <HubRoundedIcon fontSize="small" /> : step === 'otp' ? <TelegramIcon fontSize="small" /> : undefined}
      title={
        step === 'form' ? (
          <Box component="span" sx={{ display: 'inline-flex', alignItems: 'center', gap: 1.25 }}>
            <TypeTile type={type} size={30} />
            {title}
          </Box>
        ) : (
          title
        )
      }
      subtitle={subtitle}
      testId={editing ? 'stream-edit-dialog' : 'stream-create-dialog'}
      dismissible={!busy}
      actions={actions}
    >
      {step === 'type' && <TypePicker value={type} onChange={(t) => setValues((v) => ({ ...initialValues(t), name: v.name, description: v.description, streamType: t }))} settings={account.data?.customSettings} />}

      {step === 'otp' && saved && (
        <Box component="form" id="telegram-code-form" noValidate onSubmit={submitCode}>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
            {translate('streams.telegramAuth.text', { phone: saved.params.phone_number ?? '' })}
          </Typography>
          <TextField
            label={translate('streams.telegramAuth.code')}
            value={code}
            autoFocus
            onChange={(e) => setCode(e.target.value.replace(/\D/g, '').slice(0, 8))}
            error={!!codeError}
            helperText={codeError ?? translate('streams.telegramAuth.codeHint')}
            slotProps={{ htmlInput: { 'data-testid': 'telegram-code', inputMode: 'numeric', style: { ...mono, fontSize: 22, letterSpacing: '.4em', textAlign: 'center' } } }}
          />
        </Box>
      )}

      {step === 'form' && (
        <Box component="form" id="stream-form" noValidate onSubmit={submit} onKeyDown={enterPicksNotSubmits}>
          {banner && (
            <Alert severity="error" sx={{ mb: 2 }} data-testid="stream-error">
              {banner}
            </Alert>
          )}
          <FormSection title={translate('streams.form.general')}>
            <TextField label={translate('streams.form.name')} required autoFocus={!editing} {...bind(kit, 'name')} placeholder={translate('streams.form.namePlaceholder')} />
            <TextField label={translate('streams.form.description')} multiline minRows={2} {...bind(kit, 'description', translate('streams.form.descriptionHint'))} />
          </FormSection>

          {isSmsType(type) && (
            <FormSection title={translate('streams.form.smsTitle')} hint={translate(type === StreamType.TwoWay ? 'streams.form.twoWayHint' : 'streams.form.smsHint')}>
              <Autocomplete
                freeSolo
                options={senderOptions}
                value={values.sender}
                inputValue={values.sender}
                onInputChange={(_e, v) => {
                  kit.set({ sender: v });
                  kit.setServerError('sender', null);
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
                    label={translate('streams.form.sender')}
                    onBlur={() => kit.touch('sender')}
                    error={!!kit.error('sender')}
                    helperText={kit.error('sender') ?? (senderOptions.some((o) => o.value === values.sender && o.approved !== SenderApproval.Approved) ? translate('streams.form.senderNotApproved') : translate('streams.form.senderHint'))}
                    slotProps={{ htmlInput: { ...params.inputProps, 'data-testid': 'stream-sender', style: mono } }}
                  />
                )}
              />
            </FormSection>
          )}

          {type === StreamType.Otp && <OtpSection kit={kit} />}
          {type === StreamType.WhatsApp && <WhatsAppSection kit={kit} />}
          {type === StreamType.TelegramBot && <TelegramBotSection kit={kit} />}
          {type === StreamType.TelegramPrivate && <TelegramPrivateSection kit={kit} />}

          <FormSection title={translate('streams.form.security')} hint={translate('streams.form.securityHint')}>
            <ChipsField
              label={translate('streams.form.ipAcl')}
              values={values.ipAcl}
              onChange={(ipAcl) => {
                kit.set({ ipAcl });
                kit.touch('ipAcl');
                kit.setServerError('ipAcl', null);
              }}
              invalid={(v) => !isIpEntry(v)}
              placeholder="203.0.113.10, 10.0.0.0/8, 2001:db8::/32"
              error={!!kit.error('ipAcl')}
              helperText={kit.error('ipAcl') ?? translate(values.ipAcl.length ? 'streams.form.ipAclHint' : 'streams.form.ipAclEmpty')}
              testId="stream-ipAcl"
              addLabel={translate('streams.form.addIp')}
              mono
            />
            <Box sx={{ mt: 1 }}>
              <FormControlLabel
                control={<Switch checked={values.checkIpAcl} onChange={(e) => kit.set({ checkIpAcl: e.target.checked })} slotProps={{ input: { 'data-testid': 'stream-checkIpAcl' } as object }} />}
                label={<Typography variant="body2">{translate('streams.form.checkIpAcl')}</Typography>}
                disabled={!values.ipAcl.length}
              />
            </Box>
          </FormSection>

          <AdvancedSection kit={kit} accountTps={account.data?.tps} />

          <FormSection title={translate('streams.form.options')}>
            <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' }, columnGap: 2, rowGap: 1, alignItems: 'start' }}>
              <Box>
                <FormControlLabel control={<Switch checked={values.enableSending} onChange={(e) => kit.set({ enableSending: e.target.checked })} />} label={<Typography variant="body2">{translate('streams.form.enableSending')}</Typography>} />
                <FormControlLabel control={<Switch checked={values.isDefault} onChange={(e) => kit.set({ isDefault: e.target.checked })} />} label={<Typography variant="body2">{translate('streams.form.isDefault')}</Typography>} />
              </Box>
              {editing && (
                <TextField select size="small" label={translate('streams.form.status')} value={values.status} onChange={(e) => kit.set({ status: Number(e.target.value) })} helperText={translate('streams.form.statusHint')} slotProps={{ htmlInput: { 'data-testid': 'stream-status-select' } }}>
                  {statuses.map((s) => (
                    <MenuItem key={s} value={s} disabled={s === StreamStatus.Restricted && !superAdmin}>
                      {translate(`streams.status.${STATUS_KEY[s]}`)}
                    </MenuItem>
                  ))}
                </TextField>
              )}
            </Box>
          </FormSection>

          {!editing && isSmsType(type) && (
            <Box sx={{ mt: 2.5 }}>
              <InfoBox title={translate('streams.info.routeTypesTitle')} text={translate('streams.info.routeTypesText')} cta={translate('streams.info.learnMore')} href={DOCS_ROUTE_TYPES} />
            </Box>
          )}
          {editing && stream && (
            <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', mt: 2.5 }}>
              <Chip size="small" variant="outlined" label={`UID ${stream.streamUid}`} sx={{ ...mono, fontSize: 11.5 }} />
            </Box>
          )}
        </Box>
      )}
    </AppModal>
  );
};
