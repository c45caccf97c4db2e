import { Alert, Button, Dialog, DialogActions, DialogContent, DialogTitle, MenuItem, Stack, TextField, Typography } from '@mui/material';
import { useState, type HTMLAttributes } from 'react';
import { useTranslate } from 'react-admin';
import { isApiError } from '../../providers/http';
import { integrationsApi, type IntegrationInstallResponse, type IntegrationOptionDto } from './api';

/**
 * The connect flows (issue 18): OAuth where the vendor uses it and this platform has an app for it (the browser goes
 * to the vendor, which comes back to /complete-integration), a key form where not (checked against the vendor at
 * once), and the dialer, whose token the platform issues and shows once.
 */
export const ConnectDialog = ({
  options,
  isAdmin,
  onClose,
  onInstalled,
}: {
  options: IntegrationOptionDto[];
  isAdmin: boolean;
  onClose: () => void;
  onInstalled: (answer: IntegrationInstallResponse) => void;
}) => {
  const translate = useTranslate();
  const [type, setType] = useState(options[0]?.type ?? '');
  const [name, setName] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [domain, setDomain] = useState('');
  const [busy, setBusy] = useState(false);
  const [fields, setFields] = useState<Record<string, string>>({});
  const [banner, setBanner] = useState<string | null>(null);
  const [token, setToken] = useState<string | null>(null);
  const option = options.find((o) => o.type === type);

  const install = async (mode: 'oauth' | 'key') => {
    if (!option) return;
    const missing: Record<string, string> = {};
    if (mode === 'key' && option.type !== 'dialer' && !apiKey.trim()) missing.apiKey = translate('integrations.connect.required');
    if (option.domain?.required && !domain.trim()) missing.domain = translate('integrations.connect.required');
    setFields(missing);
    if (Object.keys(missing).length) return;
    setBusy(true);
    setBanner(null);
    try {
      const answer = await integrationsApi.install({
        type: option.type,
        ...(name.trim() ? { name: name.trim() } : {}),
        ...(mode === 'key' && apiKey.trim() ? { apiKey: apiKey.trim() } : {}),
        ...(domain.trim() ? { domain: domain.trim() } : {}),
      });
      if (answer.authorizeUrl) {
        window.location.assign(answer.authorizeUrl);
        return;
      }
      if (answer.token) setToken(answer.token);
      onInstalled(answer);
    } catch (err) {
      const violations = isApiError(err) ? (err.body?.violations ?? []) : [];
      setFields(Object.fromEntries(violations.map((v) => [v.propertyPath, v.message])));
      if (!violations.length) setBanner(isApiError(err) ? (err.body?.message ?? err.message) : String(err));
    } finally {
      setBusy(false);
    }
  };

  if (token) {
    return (
      <Dialog open onClose={onClose} fullWidth maxWidth="sm">
        <DialogTitle>{translate('integrations.connect.title')}</DialogTitle>
        <DialogContent>
          <Typography sx={{ mb: 2 }}>{translate('integrations.connect.dialerToken')}</Typography>
          <TextField fullWidth value={token} InputProps={{ readOnly: true }} inputProps={{ 'data-testid': 'dialer-token' }} />
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>{translate('integrations.connect.done')}</Button>
        </DialogActions>
      </Dialog>
    );
  }

  const adminBlocked = !!option?.adminOnly && !isAdmin;
  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="sm" data-testid="connect-dialog">
      <DialogTitle>{translate('integrations.connect.title')}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <TextField select label={translate('integrations.connect.vendor')} value={type} onChange={(e) => { setType(e.target.value as typeof type); setFields({}); setBanner(null); }} SelectProps={{ SelectDisplayProps: { 'data-testid': 'connect-vendor' } as HTMLAttributes<HTMLDivElement> }}>
            {options.map((o) => (
              <MenuItem key={o.type} value={o.type} data-testid={`vendor-${o.type}`}>
                {o.name}
              </MenuItem>
            ))}
          </TextField>
          {adminBlocked && <Alert severity="info">{translate('integrations.connect.adminOnly', { name: option?.name })}</Alert>}
          <TextField label={translate('integrations.connect.name')} value={name} onChange={(e) => setName(e.target.value)} inputProps={{ maxLength: 100 }} />
          {option?.domain && (
            <TextField
              label={option.domain.label}
              required={option.domain.required}
              value={domain}
              onChange={(e) => setDomain(e.target.value)}
              error={!!fields.domain}
              helperText={fields.domain}
              inputProps={{ 'data-testid': 'connect-domain' }}
            />
          )}
          {option?.apiKey && (
            <TextField
              label={translate('integrations.connect.apiKey')}
              value={apiKey}
              onChange={(e) => setApiKey(e.target.value)}
              error={!!fields.apiKey}
              helperText={fields.apiKey}
              type="password"
              autoComplete="off"
              inputProps={{ 'data-testid': 'connect-api-key' }}
            />
          )}
          {option?.oauth && !option.oauth.available && (
            <Alert severity="info" data-testid="connect-oauth-unavailable">
              {translate('integrations.connect.oauthUnavailable', { reason: option.oauth.reason ?? '' })}
            </Alert>
          )}
          {fields.type && <Alert severity="error">{fields.type}</Alert>}
          {banner && <Alert severity="error" data-testid="connect-error">{banner}</Alert>}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{translate('integrations.connections.cancel')}</Button>
        {option?.oauth?.available && (
          <Button variant="outlined" disabled={busy || adminBlocked} onClick={() => void install('oauth')} data-testid="connect-oauth">
            {translate('integrations.connect.oauth', { name: option.name })}
          </Button>
        )}
        {(option?.apiKey || option?.type === 'dialer') && (
          <Button variant="contained" disabled={busy || adminBlocked} onClick={() => void install('key')} data-testid="connect-key">
            {translate('integrations.connect.withKey')}
          </Button>
        )}
      </DialogActions>
    </Dialog>
  );
};
