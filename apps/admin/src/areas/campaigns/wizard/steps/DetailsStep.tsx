import { Box, MenuItem, TextField } from '@mui/material';
import { useTranslate } from 'react-admin';
import { CampaignType } from '../../status';
import { TagsDropdown } from '../../widgets/TagsDropdown';
import type { StepProps } from './types';

/** Details and stream: name, description, type, the stream it sends through, tags. */
export const DetailsStep = ({ v, set, errors, lookups, setLookups }: StepProps) => {
  const translate = useTranslate();
  return (
    <Box sx={{ display: 'grid', gridTemplateColumns: 'minmax(0, 1fr)', gap: 2.5 }} data-testid="wizard-step-details">
      <TextField
        label={translate('campaigns.fields.name')}
        required
        autoFocus
        value={v.name}
        onChange={(e) => set({ name: e.target.value })}
        error={!!errors.name}
        helperText={errors.name || ' '}
        slotProps={{ htmlInput: { maxLength: 255, 'data-testid': 'campaign-name-input' } }}
      />
      <TextField
        label={translate('campaigns.fields.description')}
        multiline
        minRows={2}
        value={v.description}
        onChange={(e) => set({ description: e.target.value })}
        slotProps={{ htmlInput: { maxLength: 2000, 'data-testid': 'campaign-description' } }}
      />
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' }, gap: 2 }}>
        <TextField select label={translate('campaigns.fields.type')} value={v.type} onChange={(e) => set({ type: Number(e.target.value) })} slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'campaign-type' } as object } }}>
          {Object.entries(CampaignType).map(([name, id]) => (
            <MenuItem key={id} value={id} data-testid={`campaign-type-${name}`}>
              {translate(`campaigns.types.${name}`)}
            </MenuItem>
          ))}
        </TextField>
        <TextField
          select
          required
          label={translate('campaigns.fields.stream')}
          value={v.stream}
          onChange={(e) => set({ stream: Number(e.target.value) })}
          error={!!errors.stream}
          helperText={errors.stream || (lookups.streams.length ? ' ' : translate('campaigns.wizard.noStreams'))}
          slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'campaign-stream' } as object } }}
        >
          {lookups.streams.map((s) => (
            <MenuItem key={s.id} value={s.id} data-testid={`stream-option-${s.id}`}>
              {s.name}
            </MenuItem>
          ))}
        </TextField>
      </Box>
      <TagsDropdown tags={lookups.tags} value={v.tags} onChange={(tags) => set({ tags })} onCreated={(t) => setLookups({ tags: [...lookups.tags, t] })} />
    </Box>
  );
};
