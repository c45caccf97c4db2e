import TranslateRoundedIcon from '@mui/icons-material/TranslateRounded';
import { Alert, Box, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { analyzeSms } from '../sms';

/** Characters outside GSM 03.38, to name them in the warning. */
function nonGsm(text: string): string[] {
  const out = new Set<string>();
  for (const ch of text) {
    if (analyzeSms(ch).encoding === 'UCS2') out.add(ch);
    if (out.size >= 6) break;
  }
  return [...out];
}

/**
 * Spec 2: the SMS demo shows a UTF-8 warning and a live character count. The count is the shared encoder's (GSM-7
 * septets or UCS-2 units), so the parts shown are the parts priced and sent.
 */
export const SmsCounter = ({ text }: { text: string }) => {
  const translate = useTranslate();
  const a = analyzeSms(text);
  const unicode = a.encoding === 'UCS2';
  const chars = nonGsm(text);
  return (
    <Box>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, flexWrap: 'wrap', mt: 0.75 }} data-testid="sms-counter" data-encoding={a.encoding} data-segments={a.segments} data-units={a.units}>
        <Typography variant="caption" color="text.secondary" data-testid="sms-count-chars">
          {translate('streams.sms.characters', { smart_count: a.units })}
        </Typography>
        <Box sx={{ width: 3, height: 3, borderRadius: '50%', bgcolor: 'text.disabled' }} />
        <Typography variant="caption" sx={{ fontWeight: 700, color: a.segments > 1 ? 'warning.dark' : 'text.primary' }} data-testid="sms-count-segments">
          {translate('streams.sms.segments', { smart_count: a.segments })}
        </Typography>
        <Box sx={{ width: 3, height: 3, borderRadius: '50%', bgcolor: 'text.disabled' }} />
        <Typography variant="caption" color="text.secondary">
          {translate('streams.sms.remaining', { smart_count: a.remaining })}
        </Typography>
        <Box sx={{ flex: 1 }} />
        <Box component="span" data-testid="sms-encoding" sx={{ fontSize: 11, fontWeight: 700, letterSpacing: '.04em', px: 0.9, py: 0.2, borderRadius: '6px', bgcolor: unicode ? '#fffaeb' : '#f2f4f7', color: unicode ? '#b54708' : '#475467' }}>
          {translate(unicode ? 'streams.sms.ucs2' : 'streams.sms.gsm7')}
        </Box>
      </Box>
      {unicode && (
        <Alert severity="warning" icon={<TranslateRoundedIcon fontSize="small" />} sx={{ mt: 1.25 }} data-testid="sms-utf8-warning">
          <Typography variant="body2" sx={{ fontWeight: 600 }}>{translate('streams.sms.utf8Title')}</Typography>
          <Typography variant="body2">
            {translate('streams.sms.utf8Text', { chars: chars.join(' ') })}
          </Typography>
        </Alert>
      )}
    </Box>
  );
};
