import { Alert, Box, TextField, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import { useTranslate } from 'react-admin';
import { FormDialog } from '../../../ui/modal/FormDialog';
import { campaignsApi } from '../api';
import { parseRatio, ratiosError } from '../rules';
import type { Campaign } from '../types';
import { clientError, errorText } from '../widgets/errors';

/**
 * Spec 4: variant ratios stay editable while the campaign runs (all statuses but aborted, finished, suspended and
 * rejected); a change applies to the recipients not sent yet.
 */
export const RatiosDialog = ({ campaign, onClose, onSaved }: { campaign: Campaign | null; onClose: () => void; onSaved: (c: Campaign) => void }) => {
  const translate = useTranslate();
  const [ratios, setRatios] = useState<string[]>([]);
  const [tried, setTried] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!campaign) return;
    setRatios(campaign.campaignVariants.map((v) => String(v.ratio)));
    setTried(false);
    setError(null);
  }, [campaign]);
  const problem = ratiosError(ratios.map(parseRatio));
  const submit = async () => {
    setTried(true);
    if (!campaign || problem) return;
    setBusy(true);
    try {
      onSaved(await campaignsApi.ratios(campaign.id, campaign.campaignVariants.map((v, i) => ({ id: v.id, ratio: parseRatio(ratios[i]) }))));
    } catch (e) {
      setError(errorText(e, translate));
    } finally {
      setBusy(false);
    }
  };
  return (
    <FormDialog
      open={!!campaign}
      onClose={onClose}
      title={translate('campaigns.ratios.title')}
      submitLabel={translate('campaigns.ui.save')}
      onSubmit={() => void submit()}
      busy={busy}
      formId="campaign-ratios"
      error={error}
      testId="ratios-dialog"
      submitTestId="ratios-submit"
      intro={<Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>{translate('campaigns.ratios.intro')}</Typography>}
    >
      {tried && problem && <Alert severity="error" sx={{ mb: 2 }} data-testid="ratios-error">{clientError(problem, translate)}</Alert>}
      <Box sx={{ display: 'grid', gap: 1.5 }}>
        {campaign?.campaignVariants.map((v, i) => (
          <Box key={v.id} sx={{ display: 'grid', gridTemplateColumns: 'minmax(0, 1fr) 96px', gap: 1.5, alignItems: 'center' }}>
            <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, minWidth: 0 }}>
              <Box sx={{ width: 10, height: 10, borderRadius: '50%', bgcolor: v.color, flexShrink: 0 }} />
              <Typography variant="body2" noWrap sx={{ fontWeight: 600 }}>{v.name}</Typography>
            </Box>
            <TextField
              size="small"
              value={ratios[i] ?? ''}
              onChange={(e) => setRatios((r) => r.map((x, j) => (j === i ? e.target.value.replace(/[^\d]/g, '').slice(0, 3) : x)))}
              slotProps={{ htmlInput: { inputMode: 'numeric', 'aria-label': translate('campaigns.message.ratioOf', { name: v.name }), 'data-testid': 'ratio-input' }, input: { endAdornment: <Typography variant="body2" color="text.secondary">%</Typography> } }}
            />
          </Box>
        ))}
      </Box>
    </FormDialog>
  );
};
