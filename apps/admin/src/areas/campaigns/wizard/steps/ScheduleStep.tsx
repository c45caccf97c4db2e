import { Autocomplete, Box, FormControl, FormControlLabel, FormHelperText, FormLabel, Radio, RadioGroup, TextField, ToggleButton, ToggleButtonGroup, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { TIMEZONE_MODES, type TimezoneMode } from '../model';
import type { StepProps } from './types';

const DAYS = [1, 2, 3, 4, 5, 6, 7];

/** Schedule and activity time: working days and hours, dates, and the time zone mode (recipient, local, selected). */
export const ScheduleStep = ({ v, set, errors, lookups }: StepProps) => {
  const translate = useTranslate();
  const zone = lookups.timezones.find((t) => t.name === v.timezone) ?? null;
  return (
    <Box sx={{ display: 'grid', gridTemplateColumns: 'minmax(0, 1fr)', gap: 2.5 }} data-testid="wizard-step-schedule">
      <FormControl>
        <FormLabel sx={{ fontWeight: 600, mb: 0.5 }}>{translate('campaigns.schedule.timezoneMode')}</FormLabel>
        <RadioGroup value={v.timezoneMode} onChange={(e) => set({ timezoneMode: e.target.value as TimezoneMode })}>
          {TIMEZONE_MODES.map((m) => (
            <FormControlLabel
              key={m}
              value={m}
              control={<Radio size="small" slotProps={{ input: { 'data-testid': `tz-mode-${m}` } as object }} />}
              label={
                <Box>
                  <Typography variant="body2" sx={{ fontWeight: 600 }}>{translate(`campaigns.schedule.modes.${m}`)}</Typography>
                  <Typography variant="caption" color="text.secondary">{translate(`campaigns.schedule.modesHint.${m}`)}</Typography>
                </Box>
              }
              sx={{ alignItems: 'flex-start', mb: 0.75, '& .MuiRadio-root': { pt: 0.25 } }}
            />
          ))}
        </RadioGroup>
      </FormControl>
      {v.timezoneMode === 'selected' && (
        <Autocomplete
          options={lookups.timezones}
          value={zone}
          onChange={(_e, t) => set({ timezone: t?.name ?? '' })}
          getOptionLabel={(t) => t.name}
          isOptionEqualToValue={(a, b) => a.name === b.name}
          renderInput={(params) => <TextField {...params} label={translate('campaigns.schedule.timezone')} required error={!!errors.timezone} helperText={errors.timezone || ' '} slotProps={{ htmlInput: { ...params.inputProps, 'data-testid': 'campaign-timezone' } }} />}
        />
      )}
      <Box>
        <FormLabel sx={{ fontWeight: 600, display: 'block', mb: 1 }}>{translate('campaigns.schedule.workingDays')}</FormLabel>
        <ToggleButtonGroup
          value={v.workingDays}
          onChange={(_e, days: number[]) => set({ workingDays: days })}
          size="small"
          aria-label={translate('campaigns.schedule.workingDays')}
          sx={{ flexWrap: 'wrap', '& .MuiToggleButton-root.Mui-selected': { bgcolor: 'primary.main', color: 'primary.contrastText', '&:hover': { bgcolor: 'primary.dark' } } }}
        >
          {DAYS.map((d) => (
            <ToggleButton key={d} value={d} data-testid={`day-${d}`} sx={{ px: 1.25, minWidth: 44 }}>
              {translate(`campaigns.schedule.days.${d}`)}
            </ToggleButton>
          ))}
        </ToggleButtonGroup>
        {errors.workingDays && <FormHelperText error>{errors.workingDays}</FormHelperText>}
      </Box>
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr 1fr', sm: '160px 160px' }, gap: 2 }}>
        <TextField type="time" label={translate('campaigns.schedule.from')} value={v.hoursStart} onChange={(e) => set({ hoursStart: e.target.value })} error={!!errors.hours} slotProps={{ inputLabel: { shrink: true }, htmlInput: { 'data-testid': 'hours-start' } }} />
        <TextField type="time" label={translate('campaigns.schedule.to')} value={v.hoursEnd} onChange={(e) => set({ hoursEnd: e.target.value })} error={!!errors.hours} slotProps={{ inputLabel: { shrink: true }, htmlInput: { 'data-testid': 'hours-end' } }} />
      </Box>
      {errors.hours && <FormHelperText error sx={{ mt: -1.5 }} data-testid="hours-error">{errors.hours}</FormHelperText>}
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr 1fr' }, gap: 2 }}>
        <TextField type="datetime-local" label={translate('campaigns.schedule.start')} value={v.dateStart} onChange={(e) => set({ dateStart: e.target.value })} slotProps={{ inputLabel: { shrink: true } }} />
        <TextField type="datetime-local" label={translate('campaigns.schedule.end')} value={v.dateEnd} onChange={(e) => set({ dateEnd: e.target.value })} error={!!errors.dateEnd} helperText={errors.dateEnd} slotProps={{ inputLabel: { shrink: true } }} />
        <TextField type="datetime-local" label={translate('campaigns.schedule.scheduled')} value={v.scheduled} onChange={(e) => set({ scheduled: e.target.value })} helperText={translate('campaigns.schedule.scheduledHint')} slotProps={{ inputLabel: { shrink: true }, htmlInput: { 'data-testid': 'scheduled-at' } }} />
      </Box>
    </Box>
  );
};
