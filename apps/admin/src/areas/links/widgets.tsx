import { Box, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import { useTranslate } from 'react-admin';
import { StatusChip, type Tone } from '../../ui/StatusChip';
import { ctrClass, DEFAULT_CTR_INDICATORS, DomainState, type DomainStateValue, type OfferStateValue } from './types';

const STATE_TONE: Record<DomainStateValue, Tone> = {
  [DomainState.NotConfigured]: 'neutral',
  [DomainState.Configured]: 'success',
  [DomainState.Pending]: 'info',
  [DomainState.ValidPending]: 'secondary',
  [DomainState.Declined]: 'danger',
  [DomainState.Archived]: 'neutral',
  [DomainState.ReachedLimit]: 'warning',
  [DomainState.Blocked]: 'danger',
};

/** A domain's state (spec 4) as a chip; pending ones pulse while DNS is being checked. */
export const DomainStateChip = ({ state }: { state: DomainStateValue }) => {
  const translate = useTranslate();
  return (
    <StatusChip tone={STATE_TONE[state]} pulse={state === DomainState.Pending} testId={`domain-state-${state}`}>
      {translate(`links.domainStates.${state}`)}
    </StatusChip>
  );
};

const OFFER_TONE: Record<OfferStateValue, Tone> = { active: 'success', about_to_expire: 'warning', expired: 'danger', disabled: 'neutral' };

export const OfferStateChip = ({ state }: { state: OfferStateValue }) => {
  const translate = useTranslate();
  return (
    <StatusChip tone={OFFER_TONE[state]} testId={`offer-state-${state}`}>
      {translate(`links.offerStates.${state}`)}
    </StatusChip>
  );
};

const CTR_COLOR = { bad: '#b42318', mid: '#b54708', good: '#067647' } as const;

/** A CTR coloured by the indicators (spec 9: bad at or below bad, good at or above good, else mid). */
export const Ctr = ({ value, usages, indicators = DEFAULT_CTR_INDICATORS }: { value: number; usages: number; indicators?: { bad: number; good: number } }) => {
  if (!usages) return <Typography color="text.disabled">—</Typography>;
  const cls = ctrClass(value, indicators);
  return (
    <Typography component="span" sx={{ fontWeight: 600, color: CTR_COLOR[cls], fontVariantNumeric: 'tabular-nums' }} data-testid={`ctr-${cls}`}>
      {value.toFixed(2)}%
    </Typography>
  );
};

/** A small figure card of the dashboards. */
export const Figure = ({ label, value, testId }: { label: string; value: ReactNode; testId?: string }) => (
  <Box sx={{ px: 2, py: 1.5, border: '1px solid', borderColor: 'divider', borderRadius: 2, minWidth: 140, bgcolor: 'background.paper' }} data-testid={testId}>
    <Typography variant="caption" color="text.secondary">{label}</Typography>
    <Typography variant="h6" sx={{ fontVariantNumeric: 'tabular-nums' }}>{value}</Typography>
  </Box>
);

export const mono = { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', fontSize: 13 };
