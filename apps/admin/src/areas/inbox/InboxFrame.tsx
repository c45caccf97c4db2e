import ForumRoundedIcon from '@mui/icons-material/ForumRounded';
import InsightsRoundedIcon from '@mui/icons-material/InsightsRounded';
import SettingsRoundedIcon from '@mui/icons-material/SettingsRounded';
import WorkspacesRoundedIcon from '@mui/icons-material/WorkspacesRounded';
import { Box, MenuItem, Select, Tab, Tabs, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import { useTranslate } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import { useCan } from '../../ui/permissions';
import { P } from './constants';
import { useInbox } from './useInbox';

export type InboxSection = 'main' | 'statistics' | 'settings' | 'onboarding';

/** The space switcher (spec 3 "switching space"): changing space resets the conversation store. */
export const SpaceSwitcher = () => {
  const translate = useTranslate();
  const { spaces, space, switchSpace } = useInbox();
  if (spaces.length === 0) return null;
  return (
    <Select
      size="small"
      value={space?.space.id ?? ''}
      onChange={(e) => void switchSpace(Number(e.target.value))}
      renderValue={(k) => (
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
          <WorkspacesRoundedIcon sx={{ fontSize: 18, color: 'primary.main' }} />
          <Typography noWrap sx={{ fontWeight: 600, fontSize: 14, maxWidth: 160 }}>{spaces.find((s) => s.id === k)?.name ?? ''}</Typography>
        </Box>
      )}
      inputProps={{ 'data-testid': 'space-switcher', 'aria-label': translate('inbox.space') }}
      sx={{ minWidth: 150, bgcolor: '#fff', '& .MuiSelect-select': { py: 0.75 } }}
    >
      {spaces.map((s) => (
        <MenuItem key={s.id} value={s.id} data-testid="space-option">
          {s.name}
        </MenuItem>
      ))}
    </Select>
  );
};

/**
 * The inbox's own frame inside the console shell: its sections (conversations, statistics, settings) as tabs, the
 * space switcher, and a slot on the right (the live state). It fills the height below the app bar so the panes
 * scroll on their own.
 */
export const InboxFrame = ({ section, right, children }: { section: InboxSection; right?: ReactNode; children: ReactNode }) => {
  const translate = useTranslate();
  const navigate = useNavigate();
  const can = useCan();
  const tabs: Array<{ key: InboxSection; to: string; icon: ReactNode; show: boolean }> = [
    { key: 'main', to: '/inbox', icon: <ForumRoundedIcon fontSize="small" />, show: true },
    { key: 'statistics', to: '/inbox/statistics', icon: <InsightsRoundedIcon fontSize="small" />, show: can(P.Statistics) || can(P.AgentStatistics) },
    { key: 'settings', to: '/inbox/settings', icon: <SettingsRoundedIcon fontSize="small" />, show: can(P.ManagerSettings) || can(P.Admin) },
  ];
  return (
    <Box
      sx={{ display: 'flex', flexDirection: 'column', height: { xs: 'calc(100dvh - 56px)', sm: 'calc(100dvh - 64px)' }, mx: { xs: -1, sm: -2, md: -3 }, mt: { xs: -1, sm: -2 }, mb: -2, bgcolor: '#f7f8fa', overflow: 'hidden' }}
      data-testid="inbox-frame"
    >
      {/* the page's heading for screen readers (the tabs show the section visually) */}
      <Typography component="h1" sx={{ position: 'absolute', width: 1, height: 1, overflow: 'hidden', clip: 'rect(0 0 0 0)', whiteSpace: 'nowrap', m: -1, p: 0, border: 0 }} data-testid="page-title">
        {translate('inbox.menu')} · {translate(`inbox.sections.${section}`)}
      </Typography>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, px: { xs: 1, sm: 2 }, minHeight: 52, borderBottom: 1, borderColor: 'divider', bgcolor: '#fff', flex: 'none' }}>
        <SpaceSwitcher />
        <Tabs value={section === 'onboarding' ? false : section} variant="scrollable" scrollButtons={false} sx={{ minHeight: 52, flex: 1, '& .MuiTab-root': { minHeight: 52, textTransform: 'none', fontWeight: 600, minWidth: 0, px: { xs: 1, sm: 2 } } }}>
          {tabs
            .filter((t) => t.show)
            .map((t) => (
              <Tab key={t.key} value={t.key} icon={t.icon as never} iconPosition="start" label={<Box component="span" sx={{ display: { xs: 'none', sm: 'inline' } }}>{translate(`inbox.sections.${t.key}`)}</Box>} onClick={() => navigate(t.to)} data-testid={`inbox-tab-${t.key}`} aria-label={translate(`inbox.sections.${t.key}`)} />
            ))}
        </Tabs>
        {right}
      </Box>
      <Box sx={{ flex: 1, minHeight: 0, display: 'flex', flexDirection: 'column' }}>{children}</Box>
    </Box>
  );
};
