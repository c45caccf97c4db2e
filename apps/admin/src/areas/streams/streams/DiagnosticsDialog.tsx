import CancelRoundedIcon from '@mui/icons-material/CancelRounded';
import CheckCircleRoundedIcon from '@mui/icons-material/CheckCircleRounded';
import HealthAndSafetyRoundedIcon from '@mui/icons-material/HealthAndSafetyRounded';
import RefreshRoundedIcon from '@mui/icons-material/RefreshRounded';
import { Alert, Box, Button, Skeleton, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { streamsApi } from '../api';
import type { Stream } from '../types';
import { AppModal } from '../../../ui/modal/AppModal';
import { errorText } from '../widgets/errors';
import { useApi } from '../../../ui/useApi';

/**
 * The diagnostics modal (GET /stream/diagnostics): each check the server runs on why a stream can or cannot send,
 * with a verdict on top; the checks are named from the catalogue, the server's detail under each.
 */
export const DiagnosticsDialog = ({ stream, onClose }: { stream: Pick<Stream, 'id' | 'name'> | null; onClose: () => void }) => {
  const translate = useTranslate();
  const d = useApi(() => streamsApi.diagnostics(stream?.id as number), [stream?.id], !!stream);
  const failed = d.data?.checks.filter((c) => !c.ok).length ?? 0;
  return (
    <AppModal
      open={!!stream}
      onClose={onClose}
      size="m"
      icon={<HealthAndSafetyRoundedIcon fontSize="small" />}
      title={translate('streams.diagnostics.title')}
      subtitle={stream?.name}
      testId="diagnostics-dialog"
      actions={
        <>
          <Button color="inherit" startIcon={<RefreshRoundedIcon />} onClick={() => void d.reload()} disabled={d.loading} sx={{ mr: 'auto' }} data-testid="diagnostics-rerun">
            {translate('streams.diagnostics.rerun')}
          </Button>
          <Button variant="contained" onClick={onClose}>
            {translate('streams.ui.done')}
          </Button>
        </>
      }
    >
      {d.error ? <Alert severity="error">{errorText(d.error, translate)}</Alert> : null}
      {d.data && (
        <Alert severity={d.data.ok ? 'success' : 'warning'} sx={{ mb: 2 }} data-testid="diagnostics-verdict">
          <Typography sx={{ fontWeight: 600, fontSize: 14 }}>{translate(d.data.ok ? 'streams.diagnostics.ok' : 'streams.diagnostics.problems', { smart_count: failed })}</Typography>
          <Typography variant="body2">{translate(d.data.ok ? 'streams.diagnostics.okText' : 'streams.diagnostics.problemsText')}</Typography>
        </Alert>
      )}
      <Box sx={{ border: 1, borderColor: 'divider', borderRadius: '10px', overflow: 'hidden' }}>
        {d.loading && !d.data
          ? [0, 1, 2, 3, 4].map((i) => (
              <Box key={i} sx={{ px: 2, py: 1.25, borderBottom: 1, borderColor: 'divider' }}>
                <Skeleton width={`${50 + i * 7}%`} />
              </Box>
            ))
          : (d.data?.checks ?? []).map((c) => (
              <Box key={c.key} data-testid={`diagnostic-${c.key}`} data-ok={c.ok} sx={{ display: 'flex', alignItems: 'flex-start', gap: 1.5, px: 2, py: 1.25, borderBottom: 1, borderColor: 'divider', '&:last-of-type': { borderBottom: 0 }, bgcolor: c.ok ? undefined : '#fffbfa' }}>
                {c.ok ? <CheckCircleRoundedIcon fontSize="small" sx={{ color: 'success.main', mt: 0.25 }} /> : <CancelRoundedIcon fontSize="small" sx={{ color: 'error.main', mt: 0.25 }} />}
                <Box sx={{ minWidth: 0, flex: 1 }}>
                  <Typography sx={{ fontWeight: 600, fontSize: 14 }}>{translate(`streams.diagnostics.checks.${c.key}`, { _: c.key })}</Typography>
                  <Typography variant="body2" color="text.secondary" sx={{ wordBreak: 'break-word' }}>
                    {c.message}
                  </Typography>
                </Box>
              </Box>
            ))}
      </Box>
    </AppModal>
  );
};
