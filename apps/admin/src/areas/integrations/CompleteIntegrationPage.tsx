import ErrorOutlineRoundedIcon from '@mui/icons-material/ErrorOutlineRounded';
import {
  Alert,
  Box,
  Button,
  Checkbox,
  CircularProgress,
  FormControl,
  FormControlLabel,
  FormLabel,
  InputLabel,
  ListItemText,
  MenuItem,
  OutlinedInput,
  Paper,
  Radio,
  RadioGroup,
  Select,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslate } from 'react-admin';
import { Link as RouterLink, Navigate, useNavigate, useParams } from 'react-router-dom';
import { isApiError } from '../../providers/http';
import { integrationsApi, isHandledType, VENDOR_NAMES, type IntegrationConfigDto, type IntegrationTypeValue } from './api';
import { completionBody, completionErrors, takesNotes, type CompletionForm, type ImportMode } from './model';

type Phase = 'loading' | 'error' | 'ready' | 'submitting' | 'completed';

/** How long "completed" shows before the connections page (spec 4: completed, then redirect). */
const COMPLETED_MS = 600;

/**
 * /complete-integration/:type/:integrationKey (spec 2 "Integration completion screen", spec 4 states, spec 5
 * validation, spec 8 load errors): loads the integration config by key; a loader, or an error screen with a title, a
 * description and a link back; otherwise the company name and which CRM users to import. Submit saves the config,
 * then starts the integration, then goes to /integration-connections. Every integration type of the contracts is
 * handled (issue 18: an account connecting any CRM picks its users here); an unknown type is /404.
 */
export const CompleteIntegrationPage = () => {
  const { type, integrationKey = '' } = useParams();
  if (!isHandledType(type)) return <Navigate to="/404" replace />;
  return <Completion vendor={type} integrationKey={integrationKey} />;
};

const Completion = ({ vendor, integrationKey }: { vendor: IntegrationTypeValue; integrationKey: string }) => {
  const translate = useTranslate();
  const navigate = useNavigate();
  const [phase, setPhase] = useState<Phase>('loading');
  const [config, setConfig] = useState<IntegrationConfigDto | null>(null);
  const [form, setForm] = useState<CompletionForm>({ companyName: '', mode: '', profiles: [], noteOnClose: true });
  const [submitted, setSubmitted] = useState(false);
  const [serverError, setServerError] = useState<string | null>(null);
  const loaded = useRef('');

  useEffect(() => {
    if (loaded.current === integrationKey) return;
    loaded.current = integrationKey;
    setPhase('loading');
    integrationsApi
      .config(integrationKey)
      .then((answer) => {
        // spec 8: the load fails when status or data is missing
        if (!answer || !answer.status || !answer.data) return setPhase('error');
        const d = answer.data;
        setConfig(d);
        setForm({ companyName: d.company_name ?? '', mode: d.import_users?.type ?? '', profiles: d.import_users?.profiles ?? [], noteOnClose: d.note_on_close !== false });
        setPhase('ready');
      })
      .catch(() => setPhase('error'));
  }, [integrationKey]);

  useEffect(() => {
    if (phase !== 'completed') return undefined;
    const timer = window.setTimeout(() => void navigate('/integration-connections'), COMPLETED_MS);
    return () => window.clearTimeout(timer);
  }, [phase, navigate]);

  const errors = completionErrors(form);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    if (errors.mode || errors.profiles || phase !== 'ready') return;
    setPhase('submitting');
    setServerError(null);
    try {
      await integrationsApi.saveConfig(integrationKey, completionBody(form));
      await integrationsApi.start(integrationKey);
      setPhase('completed');
    } catch (err) {
      // spec 8: a failed save is the field error error.server
      const message = isApiError(err) ? (err.body?.violations?.[0]?.message ?? err.body?.message ?? err.message) : String(err);
      setServerError(translate('integrations.complete.serverError', { message }));
      setPhase('ready');
    }
  };

  const vendorName = VENDOR_NAMES[vendor];
  return (
    <Box sx={{ display: 'flex', justifyContent: 'center', p: { xs: 2, md: 4 } }}>
      <Paper sx={{ width: '100%', maxWidth: 560, p: { xs: 3, sm: 4 } }} data-testid="complete-integration" data-phase={phase}>
        {phase === 'loading' && (
          <Box sx={{ display: 'grid', placeItems: 'center', py: 6 }} data-testid="complete-integration-loading">
            <CircularProgress />
          </Box>
        )}
        {phase === 'error' && (
          <Stack spacing={2} alignItems="flex-start" data-testid="complete-integration-error">
            <ErrorOutlineRoundedIcon color="error" fontSize="large" />
            <Typography variant="h5" component="h1">
              {translate('integrations.complete.error.title')}
            </Typography>
            <Typography color="text.secondary">{translate('integrations.complete.error.description')}</Typography>
            <Button component={RouterLink} to="/integration-connections" variant="outlined" data-testid="complete-integration-back">
              {translate('integrations.complete.back')}
            </Button>
          </Stack>
        )}
        {(phase === 'ready' || phase === 'submitting') && config && (
          <Box component="form" noValidate onSubmit={(e) => void submit(e)}>
            <Stack spacing={3}>
              <Typography variant="h5" component="h1">
                {translate('integrations.complete.title')} · {vendorName}
              </Typography>
              <TextField
                label={translate('integrations.complete.company')}
                value={form.companyName}
                onChange={(e) => setForm({ ...form, companyName: e.target.value })}
                disabled={phase === 'submitting'}
                inputProps={{ 'data-testid': 'complete-integration-company', maxLength: 200 }}
              />
              <FormControl error={submitted && errors.mode} disabled={phase === 'submitting'}>
                <FormLabel id="import-users-label">{translate('integrations.complete.importUsers', { vendor: vendorName })}</FormLabel>
                <RadioGroup aria-labelledby="import-users-label" value={form.mode} onChange={(e) => setForm({ ...form, mode: e.target.value as ImportMode })} data-testid="complete-integration-mode">
                  {(['admins', 'all', 'profiles'] as const).map((m) => (
                    <FormControlLabel key={m} value={m} control={<Radio inputProps={{ 'data-testid': `import-${m}` } as Record<string, string>} />} label={translate(`integrations.complete.${m}`)} />
                  ))}
                </RadioGroup>
              </FormControl>
              {form.mode === 'profiles' && (
                // outlined like the Select's input: react-admin's theme makes form controls "filled", whose label sits
                // inside the box and covered the chosen profiles
                <FormControl variant="outlined" fullWidth error={submitted && errors.profiles} disabled={phase === 'submitting'}>
                  <InputLabel id="profiles-label">{translate('integrations.complete.chooseProfiles')}</InputLabel>
                  <Select
                    labelId="profiles-label"
                    multiple
                    value={form.profiles}
                    onChange={(e) => setForm({ ...form, profiles: typeof e.target.value === 'string' ? e.target.value.split(',') : e.target.value })}
                    input={<OutlinedInput label={translate('integrations.complete.chooseProfiles')} />}
                    renderValue={(ids) => ids.map((id) => config.profiles.find((p) => p.id === id)?.name ?? id).join(', ')}
                    data-testid="complete-integration-profiles"
                  >
                    {config.profiles.map((p) => (
                      <MenuItem key={p.id} value={p.id} data-testid="profile-option">
                        <Checkbox checked={form.profiles.includes(p.id)} />
                        <ListItemText primary={p.name} />
                      </MenuItem>
                    ))}
                  </Select>
                </FormControl>
              )}
              {takesNotes(vendor) && (
                <FormControlLabel
                  control={
                    <Checkbox
                      checked={form.noteOnClose}
                      onChange={(e) => setForm({ ...form, noteOnClose: e.target.checked })}
                      disabled={phase === 'submitting'}
                      inputProps={{ 'data-testid': 'complete-integration-note-on-close' } as Record<string, string>}
                    />
                  }
                  label={translate('integrations.complete.noteOnClose', { vendor: vendorName })}
                />
              )}
              {serverError && (
                <Alert severity="error" data-testid="complete-integration-server-error">
                  {serverError}
                </Alert>
              )}
              <Button type="submit" variant="contained" size="large" disabled={phase === 'submitting'} data-testid="complete-integration-submit">
                {translate(phase === 'submitting' ? 'integrations.complete.submitting' : 'integrations.complete.submit')}
              </Button>
            </Stack>
          </Box>
        )}
        {phase === 'completed' && (
          <Stack spacing={2} alignItems="center" sx={{ py: 4 }} data-testid="complete-integration-completed">
            <CircularProgress size={28} />
            <Typography>{translate('integrations.complete.completed')}</Typography>
          </Stack>
        )}
      </Paper>
    </Box>
  );
};
