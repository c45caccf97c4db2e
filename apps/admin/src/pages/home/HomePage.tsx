import CampaignRoundedIcon from '@mui/icons-material/CampaignRounded';
import ForumRoundedIcon from '@mui/icons-material/ForumRounded';
import InfoOutlinedIcon from '@mui/icons-material/InfoOutlined';
import StreamRoundedIcon from '@mui/icons-material/StreamRounded';
import SwapHorizRoundedIcon from '@mui/icons-material/SwapHorizRounded';
import { Box, Button, Card, CardContent, Chip, Grid, Skeleton, Stack, Typography } from '@mui/material';
import { useState, type ReactNode } from 'react';
import { Title, useTranslate } from 'react-admin';
import { Link as RouterLink } from 'react-router-dom';
import { isSuperAdmin, type AccountStatus } from '../../providers/types';
import { AccountAvatar } from '../../ui/AccountAvatar';
import { RightSidebar } from '../../ui/RightSidebar';
import { useProfile } from '../../ui/useProfile';

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

/** /home: the landing page after login, with the current account (spec 2). */
export const HomePage = () => {
  const translate = useTranslate();
  const { profile, isPending } = useProfile();
  const [detailsOpen, setDetailsOpen] = useState(false);
  const account = profile?.customer ?? null;
  const several = (profile?.customers.length ?? 0) > 1;

  const features = [
    { icon: <CampaignRoundedIcon />, title: 'home.cards.campaigns', text: 'home.cards.campaignsText' },
    { icon: <StreamRoundedIcon />, title: 'home.cards.streams', text: 'home.cards.streamsText' },
    { icon: <ForumRoundedIcon />, title: 'home.cards.inbox', text: 'home.cards.inboxText' },
  ];

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

      <Grid container spacing={2.5}>
        {features.map((f) => (
          <Grid key={f.title} size={{ xs: 12, md: 4 }}>
            <Card sx={{ height: '100%' }}>
              <CardContent sx={{ p: 3 }}>
                <Box sx={{ display: 'flex', justifyContent: 'space-between', alignItems: 'flex-start', mb: 2 }}>
                  <Box sx={{ width: 44, height: 44, borderRadius: '12px', display: 'grid', placeItems: 'center', bgcolor: '#eef2ff', color: 'primary.main' }}>
                    {f.icon}
                  </Box>
                  <Chip size="small" label={translate('home.cards.soon')} />
                </Box>
                <Typography variant="h6" gutterBottom>
                  {translate(f.title)}
                </Typography>
                <Typography color="text.secondary" variant="body2">
                  {translate(f.text)}
                </Typography>
              </CardContent>
            </Card>
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
