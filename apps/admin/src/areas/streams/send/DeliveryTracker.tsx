import CheckRoundedIcon from '@mui/icons-material/CheckRounded';
import CloseRoundedIcon from '@mui/icons-material/CloseRounded';
import { Box, CircularProgress, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { FINAL_STATUSES } from '../constants';
import { FailureReason } from '../labels';

const STEPS = ['accepted', 'sent', 'delivered'] as const;

/** Where a message is on its way: accepted, sent, delivered, or the final failure it ended in. */
export const DeliveryTracker = ({ status, error }: { status: string; error?: string | null }) => {
  const translate = useTranslate();
  const failed = FINAL_STATUSES.has(status) && status !== 'delivered';
  const reached = status === 'delivered' ? 3 : status === 'sent' ? 2 : failed ? (status === 'undelivered' ? 2 : 1) : 1;
  return (
    <Box data-testid="demo-status" data-status={status}>
      <Box sx={{ display: 'flex', alignItems: 'center' }}>
        {STEPS.map((s, i) => {
          const done = i < reached;
          const current = i === reached && !failed && !FINAL_STATUSES.has(status);
          const failedHere = failed && i === reached;
          const color = failedHere ? 'error.main' : done ? 'success.main' : current ? 'primary.main' : 'divider';
          return (
            <Box key={s} sx={{ display: 'flex', alignItems: 'center', flex: i < STEPS.length - 1 ? 1 : 'none' }}>
              <Box sx={{ display: 'flex', flexDirection: 'column', alignItems: 'center', gap: 0.75, minWidth: 86 }}>
                <Box sx={{ width: 30, height: 30, borderRadius: '50%', display: 'grid', placeItems: 'center', border: 2, borderColor: color, bgcolor: done ? 'success.main' : failedHere ? 'error.main' : 'background.paper', color: '#fff' }}>
                  {done ? <CheckRoundedIcon sx={{ fontSize: 18 }} /> : failedHere ? <CloseRoundedIcon sx={{ fontSize: 18 }} /> : current ? <CircularProgress size={16} thickness={5} /> : null}
                </Box>
                <Typography variant="caption" sx={{ fontWeight: done || current || failedHere ? 700 : 500, color: failedHere ? 'error.main' : done || current ? 'text.primary' : 'text.secondary' }}>
                  {failedHere ? translate(`streams.messageStatus.${status}`, { _: status }) : translate(`streams.tracker.${s}`)}
                </Typography>
              </Box>
              {i < STEPS.length - 1 && <Box sx={{ flex: 1, height: 2, mx: -2.5, mb: 2.75, bgcolor: i < reached - 1 ? 'success.main' : 'divider', borderRadius: 1 }} />}
            </Box>
          );
        })}
      </Box>
      <Typography variant="body2" color={failed ? 'error.main' : 'text.secondary'} sx={{ textAlign: 'center', mt: 1.5 }} data-testid="demo-status-text">
        {translate(`streams.tracker.text.${status}`, { _: translate(`streams.messageStatus.${status}`, { _: status }) })}
      </Typography>
      <Box sx={{ textAlign: 'center' }}>
        <FailureReason status={status} error={error} testId="demo-status-reason" />
      </Box>
    </Box>
  );
};
