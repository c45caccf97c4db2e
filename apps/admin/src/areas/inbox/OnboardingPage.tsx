import CheckCircleRoundedIcon from '@mui/icons-material/CheckCircleRounded';
import ForumRoundedIcon from '@mui/icons-material/ForumRounded';
import GroupsRoundedIcon from '@mui/icons-material/GroupsRounded';
import AltRouteRoundedIcon from '@mui/icons-material/AltRouteRounded';
import WorkspacesRoundedIcon from '@mui/icons-material/WorkspacesRounded';
import { Alert, Box, Button, Paper, TextField, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslate } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import { apiFetch } from '../../providers/http';
import { useCan } from '../../ui/permissions';
import { useProfile } from '../../ui/useProfile';
import { settingsApi } from './api';
import { P } from './constants';
import { InboxFrame } from './InboxFrame';
import { InboxProvider, useInbox } from './useInbox';

/** The profile preference that marks the inbox onboarding as done (spec 3 preference keys). */
export const ONBOARDING_DONE = 'HAS_COMPLETED_INBOX_ONBOARDING';

export function onboardingDone(preferences: string | undefined): boolean {
  try {
    return !!(JSON.parse(preferences || '{}') as Record<string, unknown>)[ONBOARDING_DONE];
  } catch {
    return false;
  }
}

const Step = ({ n, icon, title, text, done, children }: { n: number; icon: React.ReactNode; title: string; text: string; done: boolean; children?: React.ReactNode }) => (
  <Paper sx={{ p: 2.5, display: 'flex', gap: 2, alignItems: 'flex-start', borderColor: done ? 'success.light' : 'divider' }} variant="outlined" data-testid={`onboarding-step-${n}`} data-done={done}>
    <Box sx={{ width: 44, height: 44, borderRadius: 2, display: 'grid', placeItems: 'center', bgcolor: done ? '#dcfce7' : '#eef2ff', color: done ? 'success.main' : 'primary.main', flex: 'none' }}>
      {done ? <CheckCircleRoundedIcon /> : icon}
    </Box>
    <Box sx={{ flex: 1, minWidth: 0 }}>
      <Typography sx={{ fontWeight: 700 }}>{title}</Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: children ? 1.5 : 0 }}>{text}</Typography>
      {children}
    </Box>
  </Paper>
);

/**
 * /inbox/onboarding: the welcome of a new inbox (spec 2 "welcome and onboarding"): create the first space, add teams
 * and agents, route incoming messages, then mark it done in the profile's preferences and go to the inbox.
 */
const Onboarding = () => {
  const translate = useTranslate();
  const navigate = useNavigate();
  const can = useCan();
  const { profile, refetch } = useProfile();
  const { spaces, space, switchSpace } = useInbox();
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const hasSpace = spaces.length > 0;

  const createSpace = async () => {
    if (!name.trim()) return;
    setBusy(true);
    setError(null);
    try {
      const created = (await settingsApi.spaces.create({ name: name.trim() })) as { id?: number };
      if (created.id) await switchSpace(created.id);
      window.location.reload();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  const finish = async () => {
    const prefs = (() => {
      try {
        return JSON.parse(profile?.preferences || '{}') as Record<string, unknown>;
      } catch {
        return {};
      }
    })();
    await apiFetch('/users/connected_update', { method: 'PUT', body: { preferences: JSON.stringify({ ...prefs, [ONBOARDING_DONE]: true }) } }).catch(() => undefined);
    await refetch();
    navigate('/inbox');
  };

  return (
    <Box sx={{ flex: 1, overflow: 'auto', p: { xs: 2, md: 4 } }} data-testid="inbox-onboarding">
      <Box sx={{ maxWidth: 720, mx: 'auto' }}>
        <Box sx={{ textAlign: 'center', mb: 3 }}>
          <ForumRoundedIcon sx={{ fontSize: 48, color: 'primary.main' }} />
          <Typography variant="h5" sx={{ fontWeight: 800, mt: 1 }}>{translate('inbox.onboarding.title', { name: profile?.firstName ?? '' })}</Typography>
          <Typography color="text.secondary">{translate('inbox.onboarding.text')}</Typography>
        </Box>
        {error && <Alert severity="error" sx={{ mb: 2 }}>{error}</Alert>}
        <Box sx={{ display: 'grid', gap: 1.5 }}>
          <Step n={1} icon={<WorkspacesRoundedIcon />} title={translate('inbox.onboarding.space.title')} text={translate('inbox.onboarding.space.text')} done={hasSpace}>
            {!hasSpace && can(P.Admin) && (
              <Box sx={{ display: 'flex', gap: 1 }}>
                <TextField size="small" label={translate('inbox.settings.fields.name')} value={name} onChange={(e) => setName(e.target.value)} inputProps={{ 'data-testid': 'onboarding-space-name' }} sx={{ flex: 1 }} />
                <Button variant="contained" disabled={busy || !name.trim()} onClick={() => void createSpace()} data-testid="onboarding-space-create">{translate('inbox.settings.add')}</Button>
              </Box>
            )}
          </Step>
          <Step n={2} icon={<GroupsRoundedIcon />} title={translate('inbox.onboarding.teams.title')} text={translate('inbox.onboarding.teams.text')} done={(space?.teams.length ?? 0) > 0}>
            <Button size="small" variant="outlined" disabled={!hasSpace} onClick={() => navigate('/inbox/settings/teams')}>{translate('inbox.onboarding.open')}</Button>
          </Step>
          <Step n={3} icon={<AltRouteRoundedIcon />} title={translate('inbox.onboarding.routing.title')} text={translate('inbox.onboarding.routing.text')} done={false}>
            <Button size="small" variant="outlined" disabled={!hasSpace} onClick={() => navigate('/inbox/settings/incoming_routings')}>{translate('inbox.onboarding.open')}</Button>
          </Step>
        </Box>
        <Box sx={{ textAlign: 'center', mt: 3 }}>
          <Button variant="contained" size="large" onClick={() => void finish()} data-testid="onboarding-finish" sx={{ borderRadius: 5, px: 4 }}>
            {translate('inbox.onboarding.finish')}
          </Button>
        </Box>
      </Box>
    </Box>
  );
};

export const InboxOnboardingPage = () => (
  <InboxProvider workspace={false}>
    <InboxFrame section="onboarding">
      <Onboarding />
    </InboxFrame>
  </InboxProvider>
);
