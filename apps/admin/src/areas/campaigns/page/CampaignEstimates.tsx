import PublicOffRoundedIcon from '@mui/icons-material/PublicOffRounded';
import { Alert, Box, CircularProgress, Paper, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { useCallback, useEffect, useState } from 'react';
import { useTranslate } from 'react-admin';
import { useInterval } from '../../../ui/useInterval';
import { campaignsApi } from '../api';
import { useCampaignsRealtime } from '../realtime';
import type { EstimatedCost, UnreachableTimezones } from '../types';
import { errorText } from '../widgets/errors';
import { countryName, formatCost, formatNumber } from '../widgets/format';

/** While contacts counts the audience, asked again this often besides the `campaign.estimate_ready` live update. */
const PENDING_POLL_MS = 2000;

/**
 * Before a campaign starts: its audience (duplicates and blocked numbers out), the cost per country with the account's
 * prices, and the time zones its sending hours never reach (`get_estimated_cost`, `get_unreachable_timezones`). The
 * server counts the saved campaign's lists; `version` changes when the campaign was saved again.
 */
export const CampaignEstimates = ({ campaignId, version, flat }: { campaignId: number; version: string; flat?: boolean }) => {
  const translate = useTranslate();
  const locale = translate('campaigns.locale');
  const [cost, setCost] = useState<EstimatedCost | null>(null);
  const [zones, setZones] = useState<UnreachableTimezones | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = useCallback(async () => {
    try {
      const [c, z] = await Promise.all([campaignsApi.estimatedCost(campaignId), campaignsApi.unreachableTimezones(campaignId)]);
      setCost(c);
      setZones(z);
      setError(null);
    } catch (e) {
      setError(e);
    }
  }, [campaignId]);
  useEffect(() => {
    setCost(null);
    setZones(null);
    void load();
  }, [load, version]);
  const pending = !error && (!cost || cost.status === 'pending' || !zones || zones.status === 'pending');
  useInterval(() => void load(), PENDING_POLL_MS, pending);
  useCampaignsRealtime((p, frame) => {
    if (p.id === campaignId && frame.type === 'campaign.estimate_ready') void load();
  });

  const money = (micros: number) => formatCost(micros / 1_000_000, cost?.currency, locale);
  const body = error ? (
    <Alert severity="warning" sx={{ overflowWrap: 'anywhere' }}>{errorText(error, translate)}</Alert>
  ) : pending ? (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, color: 'text.secondary' }} data-testid="estimates-pending">
      <CircularProgress size={16} />
      <Typography variant="body2">{translate('campaigns.audience.counting')}</Typography>
    </Box>
  ) : cost?.status === 'error' ? (
    <Alert severity="warning">{cost.error ?? translate('campaigns.errors.generic')}</Alert>
  ) : (
    <Box sx={{ display: 'grid', gridTemplateColumns: 'minmax(0, 1fr)', gap: 2 }}>
      <Box sx={{ overflowX: 'auto' }}>
        <Table size="small" data-testid="estimated-cost">
          <TableHead>
            <TableRow>
              <TableCell>{translate('campaigns.audience.country')}</TableCell>
              <TableCell align="right">{translate('campaigns.audience.contacts')}</TableCell>
              <TableCell align="right">{translate('campaigns.audience.costColumn')}</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {cost?.countries.map((r) => (
              <TableRow key={r.country} data-testid="cost-row">
                <TableCell>{r.country ? countryName(r.country, locale) : translate('campaigns.audience.unknownCountry')}</TableCell>
                <TableCell align="right">{formatNumber(r.recipients, locale)}</TableCell>
                <TableCell align="right">{r.priceMicros === null ? translate('campaigns.audience.noPrice') : money(r.costMicros)}</TableCell>
              </TableRow>
            ))}
            <TableRow sx={{ '& td': { fontWeight: 700 } }}>
              <TableCell>{translate('campaigns.audience.total')} · {translate('campaigns.message.segments', { smart_count: cost?.segments ?? 1 })}</TableCell>
              <TableCell align="right" data-testid="estimate-recipients">{formatNumber(cost?.total ?? 0, locale)}</TableCell>
              <TableCell align="right" data-testid="estimate-cost">{money(cost?.totalCostMicros ?? 0)}</TableCell>
            </TableRow>
          </TableBody>
        </Table>
      </Box>
      <Box data-testid="unreachable-timezones">
        <Typography variant="subtitle2" sx={{ fontWeight: 700, mb: 1 }}>{translate('campaigns.audience.unreachable')}</Typography>
        {zones && zones.items.length === 0 ? (
          <Typography variant="body2" color="text.secondary" data-testid="unreachable-none">{translate('campaigns.audience.allReachable')}</Typography>
        ) : (
          <Alert severity="warning" icon={<PublicOffRoundedIcon fontSize="small" />}>
            {translate('campaigns.audience.unreachableText')}
            <Box component="ul" sx={{ m: 0, mt: 0.5, pl: 2.5 }}>
              {zones?.items.map((z) => (
                <li key={z.timezone} data-testid="unreachable-zone">
                  {z.timezone} · {translate('campaigns.audience.contactsCount', { smart_count: z.count, count: formatNumber(z.count, locale) })}
                </li>
              ))}
            </Box>
          </Alert>
        )}
      </Box>
    </Box>
  );
  if (flat) return <Box data-testid="campaign-estimates">{body}</Box>;
  return (
    <Paper sx={{ p: 2, mb: 2 }} data-testid="campaign-estimates">
      <Typography variant="subtitle1" sx={{ fontWeight: 700, mb: 1.5 }}>{translate('campaigns.audience.cost')}</Typography>
      {body}
    </Paper>
  );
};
