import { Tooltip } from '@mui/material';
import { useTranslate } from 'react-admin';
import { StatusChip, type Tone } from '../../../ui/StatusChip';
import { CampaignStatus as S, haltReasonKey, STATUS_NAMES } from '../status';

const TONE: Record<number, Tone> = {
  [S.scheduled]: 'info',
  [S.started]: 'primary',
  [S.processing]: 'primary',
  [S.paused]: 'warning',
  [S.aborted]: 'neutral',
  [S.ready]: 'secondary',
  [S.sending]: 'success',
  [S.finished]: 'success',
  [S.draft]: 'neutral',
  [S.suspended]: 'warning',
  [S.halt]: 'danger',
  [S.rejected]: 'danger',
};
const LIVE = new Set<number>([S.started, S.processing, S.ready, S.sending]);

/** Spec 4: one chip per campaign status; a halt names its reason, a rejection its declined reason, in the tooltip. */
export const CampaignStatusChip = ({ status, haltReasonId, declinedReason, testId = 'campaign-status' }: { status: number; haltReasonId?: number | null; declinedReason?: string | null; testId?: string }) => {
  const translate = useTranslate();
  const name = STATUS_NAMES[status] ?? 'draft';
  const halt = status === S.halt ? haltReasonKey(haltReasonId) : undefined;
  const tip = halt ? translate(`campaigns.haltReasons.${halt}`) : status === S.rejected && declinedReason ? declinedReason : '';
  return (
    <Tooltip title={tip}>
      <span data-status={name}>
        <StatusChip tone={TONE[status] ?? 'neutral'} pulse={LIVE.has(status)} testId={testId}>
          {translate(`campaigns.status.${name}`)}
        </StatusChip>
      </span>
    </Tooltip>
  );
};
