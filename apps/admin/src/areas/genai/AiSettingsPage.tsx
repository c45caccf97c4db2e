import AutoAwesomeRoundedIcon from '@mui/icons-material/AutoAwesomeRounded';
import { Alert, Box, Button, CircularProgress, MenuItem, Paper, Tab, Tabs, TextField, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import { useTranslate } from 'react-admin';
import { Permission } from '@switchboard/contracts/src/permissions';
import { GENAI_SERVICES } from '@switchboard/contracts/src/genai';
import { PageHeading } from '../../ui/PageHeading';
import { useCan } from '../../ui/permissions';
import { aiErrorKey, genaiApi, type GenAiService, type GenAiSettingsDto, type GenAiUsageRow } from './api';

type Notice = { severity: 'success' | 'error'; text: string } | null;

/** One provider's form: key (never shown back), base URL, model; Verify asks the vendor, Save checks and stores. */
const ProviderForm = ({ service, settings, onSaved, canEdit }: { service: GenAiService; settings: GenAiSettingsDto; onSaved: (s: GenAiSettingsDto) => void; canEdit: boolean }) => {
  const translate = useTranslate();
  const stored = settings.providers.find((p) => p.service === service);
  const [key, setKey] = useState('');
  const [baseUrl, setBaseUrl] = useState(stored?.base_url ?? '');
  const [model, setModel] = useState(stored?.model ?? '');
  const [busy, setBusy] = useState<'verify' | 'save' | null>(null);
  const [notice, setNotice] = useState<Notice>(null);
  // another provider's tab starts clean; a save that changed the stored values shows them (and keeps its notice)
  useEffect(() => {
    setKey('');
    setNotice(null);
  }, [service]);
  useEffect(() => {
    setBaseUrl(stored?.base_url ?? '');
    setModel(stored?.model ?? '');
  }, [service, stored?.base_url, stored?.model]);

  const run = async (what: 'verify' | 'save') => {
    setBusy(what);
    setNotice(null);
    const body = { base_url: baseUrl.trim() || null, model: model.trim() || null };
    try {
      if (what === 'verify') {
        await genaiApi.verify(service, key.trim(), body);
        setNotice({ severity: 'success', text: translate('genai.settings.verified') });
      } else {
        const s = await genaiApi.save({ service, ...body, ...(key.trim() ? { api_key: key.trim() } : {}) });
        setKey('');
        onSaved(s);
        setNotice({ severity: 'success', text: translate('genai.settings.saved') });
      }
    } catch (e) {
      setNotice({ severity: 'error', text: translate(aiErrorKey(e)) });
    } finally {
      setBusy(null);
    }
  };

  return (
    <Box sx={{ display: 'grid', gap: 2, maxWidth: 560 }} data-testid={`genai-form-${service}`}>
      <Typography variant="body2" color="text.secondary">{translate(`genai.settings.serviceHint.${service}`)}</Typography>
      {service !== 'ollama' && (
        <TextField
          label={translate('genai.settings.apiKey')}
          type="password"
          autoComplete="off"
          value={key}
          disabled={!canEdit}
          onChange={(e) => setKey(e.target.value)}
          helperText={stored?.has_key ? translate('genai.settings.keyStored') : ' '}
          slotProps={{ htmlInput: { 'data-testid': 'genai-key' } }}
        />
      )}
      <TextField label={translate('genai.settings.baseUrl')} value={baseUrl} disabled={!canEdit} onChange={(e) => setBaseUrl(e.target.value)} slotProps={{ htmlInput: { 'data-testid': 'genai-base-url' } }} />
      <TextField label={translate('genai.settings.model')} value={model} disabled={!canEdit} onChange={(e) => setModel(e.target.value)} slotProps={{ htmlInput: { 'data-testid': 'genai-model' } }} />
      {stored?.verified_at && <Typography variant="caption" color="text.secondary">{translate('genai.settings.verifiedAt', { date: new Date(stored.verified_at).toLocaleString() })}</Typography>}
      {notice && <Alert severity={notice.severity} data-testid={`genai-notice-${notice.severity}`}>{notice.text}</Alert>}
      {canEdit && (
        <Box sx={{ display: 'flex', gap: 1 }}>
          <Button variant="outlined" onClick={() => void run('verify')} disabled={!!busy || (service !== 'ollama' && !key.trim())} data-testid="genai-verify" startIcon={busy === 'verify' ? <CircularProgress size={14} /> : undefined}>
            {translate('genai.settings.verify')}
          </Button>
          <Button variant="contained" onClick={() => void run('save')} disabled={!!busy || (service !== 'ollama' && !key.trim() && !stored?.has_key)} data-testid="genai-save" startIcon={busy === 'save' ? <CircularProgress size={14} color="inherit" /> : undefined}>
            {translate('genai.settings.save')}
          </Button>
        </Box>
      )}
    </Box>
  );
};

/** /settings/ai: the account's generative-AI provider, the default one, and the tokens used (docs/decisions/0041). */
export const AiSettingsPage = () => {
  const translate = useTranslate();
  const can = useCan();
  const canEdit = can(Permission.SettingsEdit);
  const [settings, setSettings] = useState<GenAiSettingsDto | null>(null);
  const [usage, setUsage] = useState<GenAiUsageRow[]>([]);
  const [tab, setTab] = useState<GenAiService>('openai');
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    genaiApi.settings().then((s) => {
      setSettings(s);
      if (s.default_generative_service) setTab(s.default_generative_service);
    }, (e) => setError(translate(aiErrorKey(e))));
    genaiApi.usage().then(setUsage, () => setUsage([]));
  }, [translate]);

  const setDefault = async (service: GenAiService) => {
    try {
      setSettings(await genaiApi.save({ default_generative_service: service }));
    } catch (e) {
      setError(translate(aiErrorKey(e)));
    }
  };

  return (
    <Box sx={{ p: { xs: 2, md: 3 } }} data-testid="genai-settings">
      <PageHeading title={translate('genai.settings.title')} subtitle={translate('genai.settings.subtitle')} icon={<AutoAwesomeRoundedIcon />} />
      {error && <Alert severity="error" sx={{ mb: 2 }}>{error}</Alert>}
      {!settings ? (
        !error && <CircularProgress />
      ) : (
        <Box sx={{ display: 'grid', gap: 3 }}>
          {!settings.allow_generative_ai && <Alert severity="info" data-testid="genai-disabled">{translate('genai.settings.disabled')}</Alert>}
          <Paper variant="outlined" sx={{ p: 2.5, borderRadius: 3 }}>
            <TextField
              select
              label={translate('genai.settings.defaultService')}
              value={settings.default_generative_service ?? ''}
              disabled={!canEdit}
              onChange={(e) => void setDefault(e.target.value as GenAiService)}
              sx={{ minWidth: 260, mb: 2 }}
              slotProps={{ htmlInput: { 'data-testid': 'genai-default' } }}
            >
              {GENAI_SERVICES.map((s) => (
                <MenuItem key={s} value={s} data-testid={`genai-default-${s}`}>
                  {translate(`genai.settings.service.${s}`)}
                </MenuItem>
              ))}
            </TextField>
            <Tabs value={tab} onChange={(_, v: GenAiService) => setTab(v)} sx={{ mb: 2 }}>
              {GENAI_SERVICES.map((s) => (
                <Tab key={s} value={s} label={translate(`genai.settings.service.${s}`)} data-testid={`genai-tab-${s}`} />
              ))}
            </Tabs>
            <ProviderForm service={tab} settings={settings} onSaved={setSettings} canEdit={canEdit} />
          </Paper>
          <Paper variant="outlined" sx={{ p: 2.5, borderRadius: 3 }} data-testid="genai-usage">
            <Typography variant="subtitle1" sx={{ fontWeight: 600, mb: 1 }}>{translate('genai.settings.usage')}</Typography>
            {usage.length === 0 ? (
              <Typography variant="body2" color="text.secondary">{translate('genai.settings.usageEmpty')}</Typography>
            ) : (
              <Box component="table" sx={{ width: '100%', borderCollapse: 'collapse', '& td, & th': { textAlign: 'left', py: 0.75, borderBottom: 1, borderColor: 'divider', fontSize: 14 } }}>
                <thead>
                  <tr>
                    <th>{translate('genai.settings.day')}</th>
                    <th>{translate('genai.settings.provider')}</th>
                    <th>{translate('genai.settings.requests')}</th>
                    <th>{translate('genai.settings.inputTokens')}</th>
                    <th>{translate('genai.settings.outputTokens')}</th>
                  </tr>
                </thead>
                <tbody>
                  {usage.map((u) => (
                    <tr key={`${u.day}-${u.service}`} data-testid="genai-usage-row">
                      <td>{u.day}</td>
                      <td>{translate(`genai.settings.service.${u.service}`)}</td>
                      <td>{u.requests}</td>
                      <td>{u.input_tokens}</td>
                      <td>{u.output_tokens}</td>
                    </tr>
                  ))}
                </tbody>
              </Box>
            )}
          </Paper>
        </Box>
      )}
    </Box>
  );
};
