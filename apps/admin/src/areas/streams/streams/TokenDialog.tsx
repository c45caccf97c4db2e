import AutorenewRoundedIcon from '@mui/icons-material/AutorenewRounded';
import VisibilityOffRoundedIcon from '@mui/icons-material/VisibilityOffRounded';
import VisibilityRoundedIcon from '@mui/icons-material/VisibilityRounded';
import VpnKeyRoundedIcon from '@mui/icons-material/VpnKeyRounded';
import { Alert, Box, Button, IconButton, Skeleton, Tooltip, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import { useTranslate } from 'react-admin';
import { streamsApi } from '../api';
import { P } from '../constants';
import { mono } from '../labels';
import type { Stream, StreamToken } from '../types';
import { AppModal } from '../../../ui/modal/AppModal';
import { ConfirmDialog } from '../../../ui/modal/ConfirmDialog';
import { CopyButton } from '../../../ui/CopyButton';
import { errorText } from '../widgets/errors';
import { GatedButton } from '../../../ui/Gated';
import { useApi } from '../../../ui/useApi';
import { CodeSnippets, maskToken } from './CodeSnippets';

/**
 * The token display modal of spec 2: the stream's API token (GET /streams/token/{id}) hidden until shown, a copy
 * button, a reset with a confirm (POST /streams/reset_token), and the code snippets that use it.
 */
export const TokenDialog = ({ stream, onClose }: { stream: Pick<Stream, 'id' | 'name' | 'streamType' | 'streamUid'> | null; onClose: () => void }) => {
  const translate = useTranslate();
  const open = !!stream;
  const token = useApi(() => streamsApi.token(stream?.id as number), [stream?.id], open);
  const snippets = useApi(() => streamsApi.snippets(stream?.id as number), [stream?.id], open);
  const [fresh, setFresh] = useState<StreamToken | null>(null);
  const [visible, setVisible] = useState(false);
  const [confirm, setConfirm] = useState(false);
  const [busy, setBusy] = useState(false);
  const [resetError, setResetError] = useState<string | null>(null);

  useEffect(() => {
    setFresh(null);
    setVisible(false);
    setResetError(null);
  }, [stream?.id]);

  const value = fresh?.token ?? token.data?.token ?? '';
  const reset = async () => {
    if (!stream) return;
    setBusy(true);
    setResetError(null);
    try {
      setFresh(await streamsApi.resetToken(stream.id));
      setVisible(true);
      await snippets.refresh();
    } catch (error) {
      setResetError(errorText(error, translate));
    } finally {
      setBusy(false);
      setConfirm(false);
    }
  };

  return (
    <>
      <AppModal
        open={open}
        onClose={onClose}
        size="l"
        icon={<VpnKeyRoundedIcon fontSize="small" />}
        title={translate('streams.token.title')}
        subtitle={stream?.name}
        testId="token-dialog"
        actions={
          <>
            <GatedButton permission={P.StreamResetToken} color="error" startIcon={<AutorenewRoundedIcon />} onClick={() => setConfirm(true)} disabled={busy || !value} data-testid="token-reset" sx={{ mr: 'auto' }}>
              {translate('streams.token.reset')}
            </GatedButton>
            <Button variant="outlined" onClick={onClose} data-testid="token-done">
              {translate('streams.ui.done')}
            </Button>
          </>
        }
      >
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>
          {translate('streams.token.subtitle')}
        </Typography>
        {token.error ? (
          <Alert severity="error" sx={{ mb: 2 }}>{errorText(token.error, translate)}</Alert>
        ) : (
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, p: 1, pl: 2, borderRadius: '8px', bgcolor: '#0f172a', border: '1px solid #1e293b', mb: 1.5 }}>
            <Box data-testid="token-value" data-token={visible ? value : undefined} sx={{ ...mono, flex: 1, minWidth: 0, fontSize: 14, color: '#e2e8f0', wordBreak: 'break-all', userSelect: visible ? 'all' : 'none', py: 0.5 }}>
              {token.loading && !value ? <Skeleton variant="text" sx={{ bgcolor: '#1e293b' }} width="70%" /> : visible ? value : maskToken(value)}
            </Box>
            <Tooltip title={translate(visible ? 'streams.token.hide' : 'streams.token.show')}>
              <IconButton size="small" onClick={() => setVisible((v) => !v)} sx={{ color: '#cbd5e1' }} data-testid="token-toggle" aria-label={translate(visible ? 'streams.token.hide' : 'streams.token.show')}>
                {visible ? <VisibilityOffRoundedIcon fontSize="small" /> : <VisibilityRoundedIcon fontSize="small" />}
              </IconButton>
            </Tooltip>
            <CopyButton value={value} dark testId="token-copy" />
          </Box>
        )}
        {fresh && (
          <Alert severity="success" sx={{ mb: 1.5 }} data-testid="token-reset-done">
            {translate('streams.token.resetDone')}
          </Alert>
        )}
        {resetError && <Alert severity="error" sx={{ mb: 1.5 }}>{resetError}</Alert>}
        {stream && (
          <Typography variant="caption" color="text.secondary" sx={{ display: 'block', mb: 2.5 }}>
            {translate('streams.token.uid')}: <Box component="span" sx={{ ...mono }}>{stream.streamUid}</Box>
          </Typography>
        )}
        <Typography sx={{ fontWeight: 700, fontSize: 14.5, mb: 0.5 }}>{translate('streams.snippets.title')}</Typography>
        <CodeSnippets snippets={snippets.data} loading={snippets.loading} error={snippets.error} streamType={stream?.streamType ?? 1} revealed={visible} />
      </AppModal>
      <ConfirmDialog
        open={confirm}
        busy={busy}
        danger
        title={translate('streams.token.confirmTitle')}
        text={translate('streams.token.confirmText')}
        confirmLabel={translate('streams.token.reset')}
        onConfirm={() => void reset()}
        onClose={() => setConfirm(false)}
        testId="token-reset-confirm"
      />
    </>
  );
};
