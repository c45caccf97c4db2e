import ChevronRightRoundedIcon from '@mui/icons-material/ChevronRightRounded';
import InfoOutlinedIcon from '@mui/icons-material/InfoOutlined';
import SwapHorizRoundedIcon from '@mui/icons-material/SwapHorizRounded';
import { Box, Button, Card, CardActionArea, CardContent, Chip, Grid, Skeleton, Stack, Typography } from '@mui/material';
import { useState, type ReactNode } from 'react';
import { Title, useTranslate } from 'react-admin';
import { Link as RouterLink } from 'react-router-dom';
import type { AreaMenuItem } from '../../areas';
import { apiFetch } from '../../providers/http';
import { isSuperAdmin, type AccountStatus } from '../../providers/types';
import { AccountAvatar } from '../../ui/AccountAvatar';
import { useMenuItems } from '../../ui/AppLayout';
import { RightSidebar } from '../../ui/RightSidebar';
import { useApi } from '../../ui/useApi';
import { useProfile } from '../../ui/useProfile';
import { useCan } from '../../ui/permissions';
import { DASHBOARD_VIEW } from '../../areas/stats';
import { StatsDashboard } from '../../areas/stats/StatsDashboard';

const statusColour: Record<AccountStatus, 'success' | 'warning' | 'error' | 'default'> = {
  active: 'success',
  restrict: 'warning',
  disable: 'error',
  delete: 'default',
};

const Detail = ({ label, children }: { label: string; children: ReactNode }) => (
  <Box sx={{ display: 'flex', justifyContent: 'space-between', py: 1.5, borderBottom: 1, borderColor: 'divider', gap: 2 }}>
    <Typography color="text.secondary">{label}</Typography>
    <Typography sx={{ fontWeight: 500, textAlign: 'right' }} component="div">
      {children}
    </Typography>
  </Box>
);

/** One working section of the console as a card linking to it, with how many it holds where that is cheap to ask. */
const SectionCard = ({ item }: { item: AreaMenuItem }) => {
  const translate = useTranslate();
  const count = useApi(() => apiFetch<{ total: number }>(item.count as string), [item.count], !!item.count);
  return (
    <Card sx={{ height: '100%' }}>
      <CardActionArea component={RouterLink} to={item.to} sx={{ height: '100%', p: 2.25, display: 'flex', alignItems: 'center', justifyContent: 'flex-start', gap: 2 }} data-testid={`home-section-${item.testId ?? item.to}`}>
        <Box sx={{ width: 44, height: 44, borderRadius: '12px', display: 'grid', placeItems: 'center', bgcolor: '#eef2ff', color: 'primary.main', flexShrink: 0 }}>{item.icon}</Box>
        <Box sx={{ minWidth: 0, flex: 1 }}>
          <Typography sx={{ fontWeight: 650 }}>{translate(item.label)}</Typography>
          {item.count && (
            <Typography variant="body2" color="text.secondary" data-testid="home-section-count">
              {count.data ? translate('home.count', { smart_count: count.data.total }) : '\u00a0'}
            </Typography>
          )}
        </Box>
        <ChevronRightRoundedIcon color="action" />
      </CardActionArea>
    </Card>
  );
};

/**
 * /home: the landing page after login, with the current account (spec 2), the statistics dashboard (issue 16) and
 * the sections this user can open (decision 0026).
 */
export const HomePage = () => {
  const translate = useTranslate();
  const { profile, isPending } = useProfile();
  const [detailsOpen, setDetailsOpen] = useState(false);
  const account = profile?.customer ?? null;
  const several = (profile?.customers.length ?? 0) > 1;
  const sections = useMenuItems().filter((item) => item.to !== '/profile');
  const can = useCan();

  return (
    <Box sx={{ maxWidth: 1200, mt: 1 }} data-testid="home-page">
      <Title title={translate('menu.home')} />
      <Typography variant="h4" component="h1" gutterBottom>
        {isPending ? <Skeleton width={280} /> : translate('home.welcome', { name: profile?.firstName || profile?.email || '' })}
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 3 }}>
        {translate('home.subtitle')}
      </Typography>

      <Card sx={{ mb: 3 }}>
        <CardContent sx={{ display: 'flex', alignItems: 'center', gap: 2.5, flexWrap: 'wrap', p: 3, '&:last-child': { pb: 3 } }}>
          {account ? <AccountAvatar name={account.name} size={56} /> : <Skeleton variant="rounded" width={56} height={56} />}
          <Box sx={{ flex: 1, minWidth: 200 }}>
            <Typography variant="overline" color="text.secondary" sx={{ lineHeight: 1.5 }}>
              {translate('home.currentAccount')}
            </Typography>
            <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
              <Typography variant="h5" component="p" data-testid="current-account">
                {account ? account.name : isPending ? <Skeleton width={200} /> : translate('home.noAccount')}
              </Typography>
              {account && (
                <Chip size="small" color={statusColour[account.status]} label={translate(`accounts.status.${account.status}`)} variant="outlined" />
              )}
            </Stack>
          </Box>
          <Stack direction="row" spacing={1}>
            <Button variant="outlined" startIcon={<InfoOutlinedIcon />} onClick={() => setDetailsOpen(true)} disabled={!profile} data-testid="open-details">
              {translate('home.details')}
            </Button>
            {several && (
              <Button component={RouterLink} to="/select-account" variant="contained" startIcon={<SwapHorizRoundedIcon />} data-testid="switch-account">
                {translate('home.switchAccount')}
              </Button>
            )}
          </Stack>
        </CardContent>
      </Card>

      {account && can(DASHBOARD_VIEW) && (
        <Box sx={{ mb: 3 }}>
          <StatsDashboard compact />
        </Box>
      )}

      <Typography variant="h6" component="h2" sx={{ mb: 1.5 }}>
        {translate('home.sections')}
      </Typography>
      <Grid container spacing={2} data-testid="home-sections">
        {sections.map((item) => (
          <Grid key={item.to} size={{ xs: 12, sm: 6, md: 4 }}>
            <SectionCard item={item} />
          </Grid>
        ))}
      </Grid>

      <RightSidebar open={detailsOpen} onClose={() => setDetailsOpen(false)} title={translate('home.details')}>
        {profile && (
          <>
            {account && (
              <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, mb: 3 }}>
                <AccountAvatar name={account.name} size={56} />
                <Box>
                  <Typography variant="h6">{account.name}</Typography>
                  <Typography color="text.secondary">{account.shortName}</Typography>
                </Box>
              </Box>
            )}
            {account && (
              <>
                <Detail label={translate('home.status')}>{translate(`accounts.status.${account.status}`)}</Detail>
                <Detail label={translate('home.currency')}>{account.currency}</Detail>
                <Detail label={translate('home.shortName')}>{account.shortName}</Detail>
              </>
            )}
            <Detail label={translate('home.email')}>
              {profile.email}
              {isSuperAdmin(profile) && <Chip size="small" color="primary" label={translate('home.superAdmin')} sx={{ ml: 1 }} />}
            </Detail>
          </>
        )}
      </RightSidebar>
    </Box>
  );
};
