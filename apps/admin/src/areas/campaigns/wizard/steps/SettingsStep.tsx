import { Box, TextField, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { StatusChip } from '../../../../ui/StatusChip';
import type { StepProps } from './types';

/** Settings: auto-pause after N messages and after every N messages, and the CTR indicators [bad, good]. */
export const SettingsStep = ({ v, set, errors }: StepProps) => {
  const translate = useTranslate();
  const digits = (s: string) => s.replace(/[^\d.]/g, '').slice(0, 9);
  return (
    <Box sx={{ display: 'grid', gridTemplateColumns: 'minmax(0, 1fr)', gap: 2.5 }} data-testid="wizard-step-settings">
      <Box>
        <Typography variant="subtitle2" sx={{ fontWeight: 700, mb: 0.5 }}>{translate('campaigns.settings.autoPause')}</Typography>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>{translate('campaigns.settings.autoPauseHint')}</Typography>
        <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' }, gap: 2 }}>
          <TextField label={translate('campaigns.settings.after')} value={v.autoPauseAfter} onChange={(e) => set({ autoPauseAfter: digits(e.target.value) })} error={!!errors.autoPauseAfter} helperText={errors.autoPauseAfter || translate('campaigns.settings.afterHint')} slotProps={{ htmlInput: { inputMode: 'numeric', 'data-testid': 'auto-pause-after' } }} />
          <TextField label={translate('campaigns.settings.every')} value={v.autoPauseEvery} onChange={(e) => set({ autoPauseEvery: digits(e.target.value) })} error={!!errors.autoPauseEvery} helperText={errors.autoPauseEvery || translate('campaigns.settings.everyHint')} slotProps={{ htmlInput: { inputMode: 'numeric', 'data-testid': 'auto-pause-every' } }} />
        </Box>
      </Box>
      <Box>
        <Typography variant="subtitle2" sx={{ fontWeight: 700, mb: 0.5 }}>{translate('campaigns.settings.ctr')}</Typography>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>{translate('campaigns.settings.ctrHint')}</Typography>
        <Box sx={{ display: 'grid', gridTemplateColumns: '1fr 1fr', gap: 2 }}>
          <TextField label={translate('campaigns.settings.bad')} value={v.ctrBad} onChange={(e) => set({ ctrBad: digits(e.target.value) })} error={!!errors.ctr} slotProps={{ htmlInput: { inputMode: 'decimal', 'data-testid': 'ctr-bad' }, input: { endAdornment: <Typography variant="body2" color="text.secondary">%</Typography> } }} />
          <TextField label={translate('campaigns.settings.good')} value={v.ctrGood} onChange={(e) => set({ ctrGood: digits(e.target.value) })} error={!!errors.ctr} slotProps={{ htmlInput: { inputMode: 'decimal', 'data-testid': 'ctr-good' }, input: { endAdornment: <Typography variant="body2" color="text.secondary">%</Typography> } }} />
        </Box>
        {errors.ctr && <Typography variant="caption" color="error" data-testid="ctr-error">{errors.ctr}</Typography>}
        <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', mt: 1.5 }}>
          <StatusChip tone="danger">{translate('campaigns.settings.levels.bad', { value: v.ctrBad || '—' })}</StatusChip>
          <StatusChip tone="warning">{translate('campaigns.settings.levels.mid', { bad: v.ctrBad || '—', good: v.ctrGood || '—' })}</StatusChip>
          <StatusChip tone="success">{translate('campaigns.settings.levels.good', { value: v.ctrGood || '—' })}</StatusChip>
        </Box>
      </Box>
    </Box>
  );
};
