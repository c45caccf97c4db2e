import PublicOffRoundedIcon from '@mui/icons-material/PublicOffRounded';
import { Alert, Box, CircularProgress, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import { useTranslate } from 'react-admin';
import { isApiError } from '../../../../providers/http';
import { useProfile } from '../../../../ui/useProfile';
import { campaignsApi } from '../../api';
import type { EstimatedCost, UnreachableTimezones } from '../../types';
import { errorText } from '../../widgets/errors';
import { countryName, formatCost, formatNumber } from '../../widgets/format';
import { activityTime, type WizardValues } from '../model';

const DEBOUNCE_MS = 400;

/** A server without this estimate yet (404): said plainly, not as a failed request. */
const unavailable = (e: unknown): boolean => isApiError(e) && e.status === 404;

/** Loads `load` 400 ms after `key` last changed; an older answer never overwrites a newer one. */
function useDebounced<T>(key: string, load: () => Promise<T>, enabled: boolean): { data: T | null; error: unknown; loading: boolean } {
  const [state, setState] = useState<{ data: T | null; error: unknown; loading: boolean }>({ data: null, error: null, loading: false });
  useEffect(() => {
    if (!enabled) {
      setState({ data: null, error: null, loading: false });
      return undefined;
    }
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    const t = window.setTimeout(() => {
      load().then(
        (data) => live && setState({ data, error: null, loading: false }),
        (error: unknown) => live && setState({ data: null, error, loading: false }),
      );
    }, DEBOUNCE_MS);
    return () => {
      live = false;
      window.clearTimeout(t);
    };
    // `key` stands for everything `load` reads
  }, [key, enabled]);
  return state;
}

/** Cost per country with the account's prices (`/campaigns/get_estimated_cost`). */
export const CostPerCountry = ({ v, parts }: { v: WizardValues; parts: number }) => {
  const translate = useTranslate();
  const locale = translate('campaigns.locale');
  const { profile } = useProfile();
  const key = JSON.stringify([v.contactLists, v.stream, v.sendDuplicates, parts]);
  const cost = useDebounced<EstimatedCost>(key, () => campaignsApi.estimatedCost({ contactLists: v.contactLists, stream: v.stream === '' ? null : v.stream, sendDuplicates: v.sendDuplicates ? 1 : 0, parts }), v.contactLists.length > 0);
  const currency = cost.data?.currency ?? profile?.customer?.currency;
  return (
    <Box data-testid="estimated-cost" data-loading={cost.loading ? 'true' : 'false'}>
      <Typography variant="subtitle2" sx={{ fontWeight: 700, mb: 1, display: 'flex', alignItems: 'center', gap: 1 }}>
        {translate('campaigns.audience.cost')}
        {cost.loading && <CircularProgress size={14} />}
      </Typography>
      {cost.error != null ? (
        <Alert severity="warning" sx={{ overflowWrap: 'anywhere' }}>{unavailable(cost.error) ? translate('campaigns.audience.unavailable') : errorText(cost.error, translate)}</Alert>
      ) : !cost.data ? (
        <Typography variant="body2" color="text.secondary">{translate(v.contactLists.length ? 'campaigns.audience.counting' : 'campaigns.audience.pickLists')}</Typography>
      ) : (
        <Box sx={{ overflowX: 'auto' }}>
          <Table size="small">
            <TableHead>
              <TableRow>
                <TableCell>{translate('campaigns.audience.country')}</TableCell>
                <TableCell align="right">{translate('campaigns.audience.contacts')}</TableCell>
                <TableCell align="right">{translate('campaigns.audience.costColumn')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {cost.data.items.map((r) => (
                <TableRow key={r.country} data-testid="cost-row">
                  <TableCell>{r.country ? countryName(r.country, locale) : translate('campaigns.audience.unknownCountry')}</TableCell>
                  <TableCell align="right">{formatNumber(r.contacts, locale)}</TableCell>
                  <TableCell align="right">{formatCost(r.cost, currency, locale)}</TableCell>
                </TableRow>
              ))}
              <TableRow sx={{ '& td': { fontWeight: 700 } }}>
                <TableCell>{translate('campaigns.audience.total')}</TableCell>
                <TableCell align="right" data-testid="cost-total-contacts">{formatNumber(cost.data.total.contacts, locale)}</TableCell>
                <TableCell align="right" data-testid="cost-total">{formatCost(cost.data.total.cost, currency, locale)}</TableCell>
              </TableRow>
            </TableBody>
          </Table>
        </Box>
      )}
    </Box>
  );
};

/** Time zones where no recipient can be reached in the chosen working days and hours (`get_unreachable_timezones`). */
export const UnreachableZones = ({ v }: { v: WizardValues }) => {
  const translate = useTranslate();
  const locale = translate('campaigns.locale');
  const at = JSON.stringify(activityTime(v));
  const key = JSON.stringify([v.contactLists, at]);
  const zones = useDebounced<UnreachableTimezones>(key, () => campaignsApi.unreachableTimezones({ contactLists: v.contactLists, activityTime: at }), v.contactLists.length > 0);
  if (!v.contactLists.length) return null;
  return (
    <Box data-testid="unreachable-timezones" data-loading={zones.loading ? 'true' : 'false'}>
      <Typography variant="subtitle2" sx={{ fontWeight: 700, mb: 1, display: 'flex', alignItems: 'center', gap: 1 }}>
        {translate('campaigns.audience.unreachable')}
        {zones.loading && <CircularProgress size={14} />}
      </Typography>
      {zones.error != null ? (
        <Alert severity="warning" sx={{ overflowWrap: 'anywhere' }}>{unavailable(zones.error) ? translate('campaigns.audience.unavailable') : errorText(zones.error, translate)}</Alert>
      ) : zones.data && zones.data.items.length === 0 ? (
        <Typography variant="body2" color="text.secondary" data-testid="unreachable-none">{translate('campaigns.audience.allReachable')}</Typography>
      ) : zones.data ? (
        <Alert severity="warning" icon={<PublicOffRoundedIcon fontSize="small" />}>
          {translate('campaigns.audience.unreachableText')}
          <Box component="ul" sx={{ m: 0, mt: 0.5, pl: 2.5 }}>
            {zones.data.items.map((z) => (
              <li key={z.timezone} data-testid="unreachable-zone">
                {z.timezone}
                {z.country ? ` (${countryName(z.country, locale)})` : ''} · {translate('campaigns.audience.contactsCount', { smart_count: z.contacts ?? z.count ?? 0, count: formatNumber(z.contacts ?? z.count ?? 0, locale) })}
              </li>
            ))}
          </Box>
        </Alert>
      ) : null}
    </Box>
  );
};
