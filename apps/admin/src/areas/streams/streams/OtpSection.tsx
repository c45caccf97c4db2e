import AddRoundedIcon from '@mui/icons-material/AddRounded';
import { Box, Button, Chip, MenuItem, TextField, Typography } from '@mui/material';
import { useRef } from 'react';
import { useTranslate } from 'react-admin';
import { OTP_COOL_DOWNS, OTP_GENERATORS, OTP_GENERATOR_KEY, OTP_LENGTHS, OTP_PLACEHOLDER } from '../constants';
import { FormSection } from '../widgets/InfoBox';
import { bind, type FormKit } from './form-kit';

/** A sample code of the chosen generator and length, to show what recipients will get. */
function sampleCode(generator: number, length: number): string {
  const base = generator === 1 ? 'K7P2X9M4' : generator === 3 ? 'KXPTMRWH' : '48273916';
  return base.slice(0, length);
}

/**
 * The OTP options of spec 9: generator, length 4..8, TTL, attempts (per destination and per IP), failures and the
 * cool-down (60, 180, 300, 600, 1200, 1800 s). The message must hold the {{code}} placeholder, which is not editable.
 */
export const OtpSection = ({ kit }: { kit: FormKit }) => {
  const translate = useTranslate();
  const { values, set } = kit;
  const messageRef = useRef<HTMLTextAreaElement | null>(null);
  const insertCode = () => {
    const el = messageRef.current;
    const at = el?.selectionStart ?? values.otp_message.length;
    const end = el?.selectionEnd ?? at;
    const before = values.otp_message.slice(0, at);
    const after = values.otp_message.slice(end);
    // the code reads as its own word
    const gapBefore = before && !/\s$/.test(before) ? ' ' : '';
    const gapAfter = after && !/^[\s.,!?]/.test(after) ? ' ' : '';
    set({ otp_message: `${before}${gapBefore}${OTP_PLACEHOLDER}${gapAfter}${after}` });
  };
  const minutes = (s: number) => translate('streams.otp.minutes', { smart_count: s / 60 });
  const preview = values.otp_message.split(OTP_PLACEHOLDER).join(sampleCode(values.code_generator, values.code_length));
  return (
    <FormSection title={translate('streams.otp.title')} hint={translate('streams.otp.hint')}>
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr 1fr' }, columnGap: 2 }}>
        <TextField select label={translate('streams.otp.generator')} value={values.code_generator} onChange={(e) => set({ code_generator: Number(e.target.value) })} helperText=" " slotProps={{ htmlInput: { 'data-testid': 'stream-code_generator' } }}>
          {OTP_GENERATORS.map((g) => (
            <MenuItem key={g} value={g}>
              {translate(`streams.otp.generators.${OTP_GENERATOR_KEY[g]}`)}
            </MenuItem>
          ))}
        </TextField>
        <TextField select label={translate('streams.otp.length')} value={values.code_length} onChange={(e) => set({ code_length: Number(e.target.value) })} helperText=" " slotProps={{ htmlInput: { 'data-testid': 'stream-code_length' } }}>
          {OTP_LENGTHS.map((n) => (
            <MenuItem key={n} value={n}>
              {translate('streams.otp.digits', { smart_count: n })}
            </MenuItem>
          ))}
        </TextField>
        <TextField label={translate('streams.otp.ttl')} {...bind(kit, 'ttl', translate('streams.otp.ttlHint'))} slotProps={{ htmlInput: { 'data-testid': 'stream-ttl', inputMode: 'numeric' } }} />
        <TextField label={translate('streams.otp.maxAttempts')} {...bind(kit, 'max_attempts', translate('streams.otp.maxAttemptsHint'))} slotProps={{ htmlInput: { 'data-testid': 'stream-max_attempts', inputMode: 'numeric' } }} />
        <TextField label={translate('streams.otp.maxAttemptsIp')} {...bind(kit, 'max_attempts_ip', translate('streams.otp.maxAttemptsIpHint'))} slotProps={{ htmlInput: { 'data-testid': 'stream-max_attempts_ip', inputMode: 'numeric' } }} />
        <TextField label={translate('streams.otp.maxFailures')} {...bind(kit, 'max_failures', translate('streams.otp.maxFailuresHint'))} slotProps={{ htmlInput: { 'data-testid': 'stream-max_failures', inputMode: 'numeric' } }} />
        <TextField select label={translate('streams.otp.coolDown')} value={values.cool_down_time} onChange={(e) => set({ cool_down_time: Number(e.target.value) })} helperText={translate('streams.otp.coolDownHint')} slotProps={{ htmlInput: { 'data-testid': 'stream-cool_down_time' } }}>
          {OTP_COOL_DOWNS.map((s) => (
            <MenuItem key={s} value={s}>
              {minutes(s)}
            </MenuItem>
          ))}
        </TextField>
      </Box>
      <Box sx={{ mt: 1 }}>
        <TextField
          label={translate('streams.otp.message')}
          multiline
          minRows={2}
          {...bind(kit, 'otp_message', translate('streams.otp.messageHint'))}
          inputRef={messageRef}
          slotProps={{ htmlInput: { 'data-testid': 'stream-otp_message' } }}
        />
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap', mt: -0.5 }}>
          <Chip size="small" label={OTP_PLACEHOLDER} sx={{ fontFamily: 'ui-monospace, monospace', bgcolor: '#fffbeb', color: '#b45309', fontWeight: 600 }} />
          <Button size="small" startIcon={<AddRoundedIcon />} onClick={insertCode} disabled={values.otp_message.includes(OTP_PLACEHOLDER)}>
            {translate('streams.otp.insertCode')}
          </Button>
          <Box sx={{ flex: 1 }} />
          <Typography variant="caption" color="text.secondary" sx={{ maxWidth: 340 }} noWrap title={preview}>
            {translate('streams.otp.preview')}: <b>{preview}</b>
          </Typography>
        </Box>
      </Box>
    </FormSection>
  );
};
