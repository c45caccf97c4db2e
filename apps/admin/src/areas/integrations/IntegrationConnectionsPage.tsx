import AddRoundedIcon from '@mui/icons-material/AddRounded';
import { Alert, Box, Button, Card, CardContent, Chip, CircularProgress, Dialog, DialogActions, DialogContent, LinearProgress, Stack, Typography } from '@mui/material';
import { useCallback, useEffect, useState } from 'react';
import { usePermissions, useTranslate } from 'react-admin';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { ConnectDialog as ConnectDialog } from './ConnectDialog';
import { integrationsApi, P, type IntegrationKeyDto, type IntegrationOptionDto } from './api';
import HubRoundedIcon from '@mui/icons-material/HubRounded';
import { PageHeading } from '../../ui/PageHeading';

/** While a sync runs, the list is read again this often (the bars move). */
const POLL_MS = 2000;

const STATUS_COLOR: Record<IntegrationKeyDto['status'], 'default' | 'success' | 'warning' | 'error' | 'info'> = {
  pending: 'default',
  authorised: 'info',
  syncing: 'info',
  active: 'success',
  paused: 'warning',
  error: 'error',
  disconnected: 'default',
};

/** /integration-connections (spec 2): the account's integrations with their sync progress, and the connect flows. */
export const IntegrationConnectionsPage = () => {
  const translate = useTranslate();
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const { permissions } = usePermissions<{ permissions?: string[]; roles?: string[] }>();
  const isAdmin = !!permissions?.permissions?.includes(P.TenantOwner) || !!permissions?.roles?.includes('ROLE_SUPER_ADMIN');
  const [items, setItems] = useState<IntegrationKeyDto[] | null>(null);
  const [options, setOptions] = useState<IntegrationOptionDto[]>([]);
  const [connecting, setConnecting] = useState(false);
  const [removing, setRemoving] = useState<IntegrationKeyDto | null>(null);
  const [error, setError] = useState<string | null>(null);
  const oauthError = params.get('error');

  const load = useCallback(async () => {
    try {
      const list = await integrationsApi.list();
      setItems(list.items.filter((i) => i.status !== 'disconnected'));
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }, []);

  useEffect(() => {
    void load();
    integrationsApi.options().then(setOptions).catch(() => setOptions([]));
  }, [load]);

  const running = !!items?.some((i) => i.sync.state === 'running' || i.status === 'syncing');
  useEffect(() => {
    if (!running) return undefined;
    const timer = window.setInterval(() => void load(), POLL_MS);
    return () => window.clearInterval(timer);
  }, [running, load]);

  const remove = async (i: IntegrationKeyDto) => {
    setRemoving(null);
    await integrationsApi.remove(i.key).catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)));
    await load();
  };

  return (
    <Box sx={{ p: { xs: 2, md: 3 } }} data-testid="integration-connections">
      <PageHeading
        title={translate('integrations.connections.title')}
        subtitle={translate('integrations.connections.intro')}
        icon={<HubRoundedIcon />}
        actions={
          <Button variant="contained" startIcon={<AddRoundedIcon />} onClick={() => setConnecting(true)} disabled={!options.length} data-testid="integration-connect">
            {translate('integrations.connections.connect')}
          </Button>
        }
      />
      {oauthError && (
        <Alert severity="error" sx={{ mb: 2 }} onClose={() => setParams({}, { replace: true })} data-testid="integration-oauth-error">
          {translate('integrations.connections.oauthFailed', { reason: oauthError })}
        </Alert>
      )}
      {error && (
        <Alert severity="error" sx={{ mb: 2 }} onClose={() => setError(null)}>
          {error}
        </Alert>
      )}
      {items === null && <CircularProgress />}
      {items?.length === 0 && <Typography data-testid="integrations-empty">{translate('integrations.connections.empty')}</Typography>}
      <Stack spacing={2}>
        {items?.map((i) => (
          <Card key={i.key} variant="outlined" data-testid="integration-card" data-key={i.key}>
            <CardContent>
              <Stack direction="row" alignItems="center" spacing={1.5} sx={{ mb: 1 }}>
                <Typography variant="h6" sx={{ flex: 1 }}>
                  {i.name}
                </Typography>
                <Chip size="small" color={STATUS_COLOR[i.status]} label={translate(`integrations.connections.status.${i.status}`)} data-testid="integration-status" />
              </Stack>
              {i.companyName && (
                <Typography color="text.secondary" variant="body2">
                  {translate('integrations.connections.company')}: {i.companyName}
                </Typography>
              )}
              {i.sync.steps.length > 0 && (
                <Box sx={{ mt: 2 }}>
                  <LinearProgress variant="determinate" value={i.sync.progress} sx={{ height: 8, borderRadius: 4 }} data-testid="integration-progress" aria-valuenow={i.sync.progress} />
                  <Stack spacing={0.5} sx={{ mt: 1.5 }}>
                    {i.sync.steps.map((s) => (
                      <Stack key={s.name} direction="row" alignItems="center" spacing={2}>
                        <Typography variant="body2" sx={{ width: 110 }}>
                          {translate(`integrations.connections.steps.${s.name}`)}
                        </Typography>
                        <LinearProgress variant="determinate" value={s.progress} sx={{ flex: 1, height: 4, borderRadius: 2 }} color={s.state === 'failed' ? 'error' : s.state === 'paused' ? 'warning' : 'primary'} />
                        <Typography variant="caption" sx={{ width: 90, textAlign: 'right' }}>
                          {s.total === null ? s.done : `${s.done} / ${s.total}`}
                        </Typography>
                      </Stack>
                    ))}
                  </Stack>
                  {i.sync.retryAt && (
                    <Typography variant="caption" color="warning.main">
                      {translate('integrations.connections.retryAt', { at: new Date(i.sync.retryAt).toLocaleTimeString() })}
                    </Typography>
                  )}
                  {i.sync.error && (
                    <Alert severity="error" sx={{ mt: 1 }}>
                      {i.sync.error.message}
                    </Alert>
                  )}
                </Box>
              )}
              <Stack direction="row" spacing={1} sx={{ mt: 2 }}>
                {i.status === 'authorised' && (
                  <Button size="small" variant="contained" onClick={() => void navigate(`/complete-integration/${i.type}/${i.key}`)} data-testid="integration-configure">
                    {translate('integrations.connections.configure')}
                  </Button>
                )}
                <Button size="small" color="error" onClick={() => setRemoving(i)} disabled={i.adminOnly && !isAdmin} data-testid="integration-remove">
                  {translate('integrations.connections.remove')}
                </Button>
              </Stack>
            </CardContent>
          </Card>
        ))}
      </Stack>
      {connecting && (
        <ConnectDialog
          options={options}
          isAdmin={isAdmin}
          onClose={() => {
            setConnecting(false);
            void load();
          }}
          onInstalled={(answer) => {
            void load();
            if (!answer.token) {
              setConnecting(false);
              void navigate(`/complete-integration/${answer.integration.type}/${answer.key}`);
            }
          }}
        />
      )}
      {removing && (
        <Dialog open onClose={() => setRemoving(null)}>
          <DialogContent>{translate('integrations.connections.removeConfirm', { name: removing.name })}</DialogContent>
          <DialogActions>
            <Button onClick={() => setRemoving(null)}>{translate('integrations.connections.cancel')}</Button>
            <Button color="error" onClick={() => void remove(removing)} data-testid="integration-remove-confirm">
              {translate('integrations.connections.remove')}
            </Button>
          </DialogActions>
        </Dialog>
      )}
    </Box>
  );
};
