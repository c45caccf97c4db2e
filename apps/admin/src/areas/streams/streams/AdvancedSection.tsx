import { Box, TextField, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { STREAM_TPS_MAX } from '../constants';
import { FormSection } from '../widgets/InfoBox';
import { bind, type FormKit } from './form-kit';

/**
 * The stream's advanced params: settings the spec's stream params do not list (docs/decisions/0017): the stream's own
 * sending rate (`params.tps`), held at the stream API (0x31) and by dispatch inside the account's TPS.
 */
export const AdvancedSection = ({ kit, accountTps }: { kit: FormKit; accountTps?: number }) => {
  const translate = useTranslate();
  const typed = kit.values.tps.trim();
  const rate = /^\d+$/.test(typed) ? Number(typed) : null;
  const known = typeof accountTps === 'number' && accountTps > 0;
  const hint = !typed
    ? known
      ? translate('streams.form.tpsHintAccount', { tps: accountTps })
      : translate('streams.form.tpsHint')
    : known && rate !== null && rate > accountTps
      ? translate('streams.form.tpsAboveAccount', { tps: accountTps })
      : translate('streams.form.tpsRange', { max: STREAM_TPS_MAX.toLocaleString() });
  const field = bind(kit, 'tps', hint);
  return (
    <FormSection title={translate('streams.form.advanced')} hint={translate('streams.form.advancedHint')}>
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' }, columnGap: 2, alignItems: 'start' }}>
        <TextField
          label={translate('streams.form.tps')}
          size="small"
          {...field}
          slotProps={{ htmlInput: { 'data-testid': 'stream-tps', inputMode: 'numeric' } }}
        />
        <Typography variant="body2" color="text.secondary" sx={{ pt: 0.75 }}>
          {translate('streams.form.tpsExplain')}
        </Typography>
      </Box>
    </FormSection>
  );
};
