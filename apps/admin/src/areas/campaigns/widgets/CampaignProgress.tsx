import { Box, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { ProgressBar } from '../../contacts/widgets/ProgressBar';
import type { CampaignStats } from '../types';

/**
 * Spec 2 progress bars of types sent, clicked and optedOut: sent against the audience, clicked and opted out against
 * the sent messages (multi bars "{progress} / {total}").
 */
export const CampaignProgress = ({ stats, compact }: { stats: Partial<Pick<CampaignStats, 'sent' | 'clicked' | 'optedOut' | 'total' | 'created'>> | undefined; compact?: boolean }) => {
  const translate = useTranslate();
  const total = stats?.total || stats?.created || 0;
  const sent = stats?.sent ?? 0;
  const rows: Array<{ type: 'sent' | 'clicked' | 'optedOut'; value: number; of: number }> = [
    { type: 'sent', value: sent, of: total },
    { type: 'clicked', value: stats?.clicked ?? 0, of: sent },
    { type: 'optedOut', value: stats?.optedOut ?? 0, of: sent },
  ];
  return (
    <Box sx={{ display: 'grid', gap: compact ? 0.25 : 0.5 }}>
      {rows.map((r) => (
        <Box key={r.type} sx={{ display: 'flex', alignItems: 'center', gap: 1 }} data-testid={`progress-${r.type}`} data-value={r.value} data-total={r.of}>
          <Typography variant="caption" color="text.secondary" sx={{ width: 84, flexShrink: 0 }} noWrap>
            {translate(`campaigns.progress.${r.type}`)}
          </Typography>
          <ProgressBar value={r.value} total={r.of} type={r.type} size={compact ? 's' : 'm'} />
        </Box>
      ))}
    </Box>
  );
};
