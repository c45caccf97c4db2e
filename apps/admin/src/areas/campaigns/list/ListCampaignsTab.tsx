import CampaignOutlinedIcon from '@mui/icons-material/CampaignOutlined';
import { Alert, Box, Link, Skeleton, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslate } from 'react-admin';
import { Link as RouterLink } from 'react-router-dom';
import { useApi } from '../../../ui/useApi';
import { campaignsApi, PATHS } from '../api';
import { applyPatch, useCampaignRefetch, useCampaignsRealtime } from '../realtime';
import type { Campaign } from '../types';
import { CampaignProgress } from '../widgets/CampaignProgress';
import { CampaignStatusChip } from '../widgets/CampaignStatusChip';
import { errorText } from '../widgets/errors';

/**
 * The campaigns tab of the contact list side panel (spec 2, shown with CAMPAIGN_VIEW): the campaigns that send to
 * this list or segment, with their status and progress, live.
 */
export const ListCampaignsTab = ({ listId }: { listId: number }) => {
  const translate = useTranslate();
  const loaded = useApi(() => campaignsApi.list({ page: 1, perPage: 100, contactList: listId }), [listId]);
  const [patches, setPatches] = useState<Record<number, Campaign>>({});
  const refetch = useCampaignRefetch(async (id) => {
    const c = await campaignsApi.get(id);
    setPatches((m) => ({ ...m, [id]: c }));
  });
  useCampaignsRealtime((p) => {
    const c = loaded.data?.items.find((x) => x.id === p.id);
    if (!c) return;
    setPatches((m) => ({ ...m, [p.id]: applyPatch(m[p.id] ?? c, p) }));
    refetch(p.id);
  });
  if (loaded.error != null) return <Alert severity="error">{errorText(loaded.error, translate)}</Alert>;
  if (!loaded.data) return <Skeleton variant="rounded" height={80} />;
  const rows = loaded.data.items.filter((c) => c.contactLists.includes(listId));
  if (rows.length === 0) {
    return (
      <Box sx={{ textAlign: 'center', py: 6, color: 'text.secondary' }} data-testid="list-campaigns-empty">
        <CampaignOutlinedIcon sx={{ fontSize: 40, color: '#98a2b3' }} />
        <Typography sx={{ fontWeight: 600, color: 'text.primary', mt: 1 }}>{translate('campaigns.listPanel.none')}</Typography>
        <Typography variant="body2">{translate('campaigns.listPanel.noneText')}</Typography>
      </Box>
    );
  }
  return (
    <Box data-testid="list-campaigns">
      {rows.map((row) => {
        const c = patches[row.id] ?? row;
        return (
          <Box key={c.id} sx={{ py: 1.5, borderBottom: 1, borderColor: 'divider', display: 'grid', gap: 1 }} data-testid="list-campaign">
            <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, flexWrap: 'wrap' }}>
              <CampaignOutlinedIcon fontSize="small" color="primary" />
              <Link component={RouterLink} to={PATHS.campaign(c.id)} sx={{ fontWeight: 600, flex: 1, minWidth: 0, overflowWrap: 'anywhere' }}>
                {c.name}
              </Link>
              <CampaignStatusChip status={c.status} haltReasonId={c.haltReasonId} declinedReason={c.declinedReason} />
            </Box>
            <CampaignProgress stats={c.stats} compact />
          </Box>
        );
      })}
    </Box>
  );
};
