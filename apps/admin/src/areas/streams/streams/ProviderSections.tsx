import CheckCircleRoundedIcon from '@mui/icons-material/CheckCircleRounded';
import PhoneIphoneRoundedIcon from '@mui/icons-material/PhoneIphoneRounded';
import VerifiedRoundedIcon from '@mui/icons-material/VerifiedRounded';
import VisibilityOffRoundedIcon from '@mui/icons-material/VisibilityOffRounded';
import VisibilityRoundedIcon from '@mui/icons-material/VisibilityRounded';
import { Alert, Box, Button, CircularProgress, IconButton, InputAdornment, Radio, TextField, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslate } from 'react-admin';
import { streamsApi } from '../api';
import { mono } from '../labels';
import type { TelegramPreview, WhatsAppPreview } from '../types';
import { errorCode, errorText } from '../widgets/errors';
import { FormSection } from '../widgets/InfoBox';
import { bind, type FormKit } from './form-kit';

/** A secret input: hidden by default, with an eye toggle; when editing, empty keeps the saved (masked) value. */
const TokenField = ({ kit, label, saved, hint }: { kit: FormKit; label: string; saved?: string; hint: string }) => {
  const translate = useTranslate();
  const [visible, setVisible] = useState(false);
  const b = bind(kit, 'auth_token', saved ? translate('streams.provider.keepToken', { token: saved }) : hint);
  return (
    <TextField
      label={label}
      required={!kit.editing}
      {...b}
      type={visible ? 'text' : 'password'}
      autoComplete="off"
      placeholder={saved ? '••••••••••••' : undefined}
      slotProps={{
        htmlInput: { 'data-testid': 'stream-auth_token', style: { ...mono, fontSize: 13.5 } },
        inputLabel: saved ? { shrink: true } : undefined,
        input: {
          endAdornment: (
            <InputAdornment position="end">
              <IconButton size="small" edge="end" onClick={() => setVisible((v) => !v)} aria-label={translate(visible ? 'streams.provider.hideToken' : 'streams.provider.showToken')}>
                {visible ? <VisibilityOffRoundedIcon fontSize="small" /> : <VisibilityRoundedIcon fontSize="small" />}
              </IconButton>
            </InputAdornment>
          ),
        },
      }}
    />
  );
};

/**
 * WhatsApp Cloud API settings: business account id, phone number id and access token. "Check" previews the token
 * against the business account (POST /streams/preview-whatsapp-token) and lists its phone numbers to pick the sender;
 * E-0158 is shown on the business id, E-0159 on the token.
 */
export const WhatsAppSection = ({ kit }: { kit: FormKit }) => {
  const translate = useTranslate();
  const [busy, setBusy] = useState(false);
  const [preview, setPreview] = useState<WhatsAppPreview | null>(null);
  const [banner, setBanner] = useState<string | null>(null);
  const { values, set } = kit;
  const canCheck = !!values.auth_token.trim() && /^\d{5,32}$/.test(values.business_id.trim());

  const check = async () => {
    setBusy(true);
    setBanner(null);
    setPreview(null);
    kit.setServerError('business_id', null);
    kit.setServerError('auth_token', null);
    try {
      const p = await streamsApi.previewWhatsApp({ auth_token: values.auth_token.trim(), business_id: values.business_id.trim() });
      setPreview(p);
      if (p.phone_numbers.length === 1 || (p.phone_numbers.length && !p.phone_numbers.some((n) => n.id === values.phone_number))) set({ phone_number: p.phone_numbers[0].id });
    } catch (error) {
      const code = errorCode(error);
      if (code === 'E-0158') kit.setServerError('business_id', translate('streams.errors.server.E-0158'));
      else if (code === 'E-0159') kit.setServerError('auth_token', translate('streams.errors.server.E-0159'));
      else setBanner(errorText(error, translate));
    } finally {
      setBusy(false);
    }
  };

  return (
    <FormSection
      title={translate('streams.provider.whatsappTitle')}
      hint={translate('streams.provider.whatsappHint')}
      action={
        <Button variant="outlined" size="small" onClick={() => void check()} disabled={!canCheck || busy} data-testid="whatsapp-preview" startIcon={busy ? <CircularProgress size={14} /> : <VerifiedRoundedIcon fontSize="small" />}>
          {translate('streams.provider.check')}
        </Button>
      }
    >
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' }, columnGap: 2 }}>
        <TextField label={translate('streams.provider.businessId')} required {...bind(kit, 'business_id', translate('streams.provider.businessIdHint'))} slotProps={{ htmlInput: { 'data-testid': 'stream-business_id', inputMode: 'numeric', style: mono } }} />
        <TextField label={translate('streams.provider.phoneNumberId')} required {...bind(kit, 'phone_number', translate('streams.provider.phoneNumberIdHint'))} slotProps={{ htmlInput: { 'data-testid': 'stream-phone_number', inputMode: 'numeric', style: mono } }} />
      </Box>
      <TokenField kit={kit} label={translate('streams.provider.accessToken')} saved={kit.editing ? kit.stream?.params.auth_token : undefined} hint={translate('streams.provider.accessTokenHint')} />
      {banner && <Alert severity="error" sx={{ mt: 1 }}>{banner}</Alert>}
      {preview && (
        <Box sx={{ mt: 1, border: 1, borderColor: '#abefc6', bgcolor: '#f6fef9', borderRadius: '10px', p: 1.5 }} data-testid="whatsapp-preview-result">
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: preview.phone_numbers.length ? 1 : 0 }}>
            <CheckCircleRoundedIcon fontSize="small" color="success" />
            <Typography variant="body2" sx={{ fontWeight: 600 }}>
              {translate('streams.provider.connectedTo', { name: preview.business.name ?? preview.business.id })}
            </Typography>
          </Box>
          {preview.phone_numbers.length === 0 && <Typography variant="body2" color="text.secondary">{translate('streams.provider.noNumbers')}</Typography>}
          {preview.phone_numbers.map((n) => (
            <Box key={n.id} onClick={() => set({ phone_number: n.id })} sx={{ display: 'flex', alignItems: 'center', gap: 1, px: 1, py: 0.5, borderRadius: '8px', cursor: 'pointer', '&:hover': { bgcolor: 'rgba(0,0,0,.03)' } }}>
              <Radio size="small" checked={values.phone_number === n.id} />
              <PhoneIphoneRoundedIcon fontSize="small" sx={{ color: 'text.secondary' }} />
              <Box>
                <Typography variant="body2" sx={{ fontWeight: 600 }}>{n.display_phone_number}</Typography>
                <Typography variant="caption" color="text.secondary">{n.verified_name} · ID {n.id}</Typography>
              </Box>
            </Box>
          ))}
        </Box>
      )}
    </FormSection>
  );
};

/** Telegram bot settings: the token from @BotFather, previewed with getMe (E-0160 on the token). */
export const TelegramBotSection = ({ kit }: { kit: FormKit }) => {
  const translate = useTranslate();
  const [busy, setBusy] = useState(false);
  const [bot, setBot] = useState<TelegramPreview | null>(null);
  const [banner, setBanner] = useState<string | null>(null);
  const check = async () => {
    setBusy(true);
    setBanner(null);
    setBot(null);
    kit.setServerError('auth_token', null);
    try {
      setBot(await streamsApi.previewTelegram(kit.values.auth_token.trim()));
    } catch (error) {
      if (errorCode(error) === 'E-0160') kit.setServerError('auth_token', translate('streams.errors.server.E-0160'));
      else setBanner(errorText(error, translate));
    } finally {
      setBusy(false);
    }
  };
  return (
    <FormSection
      title={translate('streams.provider.telegramBotTitle')}
      hint={translate('streams.provider.telegramBotHint')}
      action={
        <Button variant="outlined" size="small" onClick={() => void check()} disabled={!kit.values.auth_token.trim() || busy} data-testid="telegram-preview" startIcon={busy ? <CircularProgress size={14} /> : <VerifiedRoundedIcon fontSize="small" />}>
          {translate('streams.provider.checkToken')}
        </Button>
      }
    >
      <TokenField kit={kit} label={translate('streams.provider.botToken')} saved={kit.editing ? kit.stream?.params.auth_token : undefined} hint={translate('streams.provider.botTokenHint')} />
      {banner && <Alert severity="error" sx={{ mt: 1 }}>{banner}</Alert>}
      {bot && (
        <Alert severity="success" icon={<CheckCircleRoundedIcon fontSize="small" />} sx={{ mt: 1 }} data-testid="telegram-preview-result">
          {translate('streams.provider.botFound', { name: bot.first_name ?? '', username: bot.username ? `@${bot.username}` : String(bot.id) })}
        </Alert>
      )}
    </FormSection>
  );
};

/** Telegram private: the account's phone; the login code Telegram then sends is entered in the next step. */
export const TelegramPrivateSection = ({ kit }: { kit: FormKit }) => {
  const translate = useTranslate();
  return (
    <FormSection title={translate('streams.provider.telegramPrivateTitle')} hint={translate('streams.provider.telegramPrivateHint')}>
      <TextField label={translate('streams.provider.accountPhone')} required placeholder="+49 151 12345678" {...bind(kit, 'phone_number', translate('streams.provider.accountPhoneHint'))} slotProps={{ htmlInput: { 'data-testid': 'stream-phone_number', inputMode: 'tel' } }} />
    </FormSection>
  );
};
