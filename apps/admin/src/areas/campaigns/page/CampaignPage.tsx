import ArrowBackRoundedIcon from '@mui/icons-material/ArrowBackRounded';
import BalanceRoundedIcon from '@mui/icons-material/BalanceRounded';
import CampaignRoundedIcon from '@mui/icons-material/CampaignRounded';
import ContentCopyRoundedIcon from '@mui/icons-material/ContentCopyRounded';
import DeleteOutlineRoundedIcon from '@mui/icons-material/DeleteOutlineRounded';
import EditRoundedIcon from '@mui/icons-material/EditRounded';
import PauseRoundedIcon from '@mui/icons-material/PauseRounded';
import PlayArrowRoundedIcon from '@mui/icons-material/PlayArrowRounded';
import RocketLaunchRoundedIcon from '@mui/icons-material/RocketLaunchRounded';
import StopRoundedIcon from '@mui/icons-material/StopRounded';
import { Alert, Box, Link, Paper, Skeleton, Table, TableBody, TableCell, TableHead, TableRow, Tooltip, Typography } from '@mui/material';
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { useTranslate } from 'react-admin';
import { Link as RouterLink, useNavigate, useParams } from 'react-router-dom';
import { GatedButton } from '../../../ui/Gated';
import { PageHeading } from '../../../ui/PageHeading';
import { useCan } from '../../../ui/permissions';
import { useInterval } from '../../../ui/useInterval';
import { useProfile } from '../../../ui/useProfile';
import { ProgressBar } from '../../contacts/widgets/ProgressBar';
import { campaignsApi, P, PATHS } from '../api';
import { applyPatch, useCampaignRefetch, useCampaignsRealtime } from '../realtime';
import { campaignCtr, CTR_COLORS } from '../widgets/ctr';
import { can, CampaignStatus as S, haltReasonKey, TYPE_NAMES } from '../status';
import type { Campaign, CampaignStats, VariantStats } from '../types';
import { CampaignWizard } from '../wizard/CampaignWizard';
import { CampaignEstimates } from './CampaignEstimates';
import { CampaignReport } from './CampaignReport';
import { RatiosDialog } from './RatiosDialog';
import { CampaignProgress } from '../widgets/CampaignProgress';
import { CampaignStatusChip } from '../widgets/CampaignStatusChip';
import { waitingFor } from '../widgets/waiting';
import { errorText } from '../widgets/errors';
import { formatCost, formatDate, formatNumber } from '../widgets/format';
import { useCampaignActions } from '../widgets/useCampaignActions';

/** Spec 9 "Status poll 5 s": the page also polls while the campaign runs, so it stays right without realtime. */
const POLL_MS = 5000;
const RUNNING = new Set<number>([S.scheduled, S.started, S.processing, S.ready, S.sending, S.halt]);

const Figure = ({ label, value, testId, tone, hint }: { label: string; value: ReactNode; testId: string; tone?: string; hint?: string }) => (
  <Tooltip title={hint ?? ''}>
    <Box sx={{ p: 1.75, border: 1, borderColor: 'divider', borderRadius: '10px', minWidth: 0 }}>
      <Typography variant="caption" color="text.secondary" sx={{ fontWeight: 600, textTransform: 'uppercase', letterSpacing: '.04em' }} noWrap component="div">
        {label}
      </Typography>
      <Typography sx={{ fontSize: 22, fontWeight: 700, lineHeight: 1.3, fontVariantNumeric: 'tabular-nums', color: tone }} data-testid={testId}>
        {value}
      </Typography>
    </Box>
  </Tooltip>
);

const failedOf = (s: Partial<Pick<CampaignStats, 'sentFailed' | 'undelivered' | 'dlrFailed'>> | undefined) => (s?.sentFailed ?? 0) + (s?.undelivered ?? 0) + (s?.dlrFailed ?? 0);

/** /campaigns/:id: live counts, the progress bars, per-variant results and the actions the status allows. */
export const CampaignPage = () => {
  const translate = useTranslate();
  const navigate = useNavigate();
  const canDo = useCan();
  const { profile } = useProfile();
  const locale = translate('campaigns.locale');
  const id = Number(useParams().id);
  const [campaign, setCampaign] = useState<Campaign | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [variants, setVariants] = useState<VariantStats[] | null>(null);
  const [editing, setEditing] = useState(false);
  const [ratios, setRatios] = useState(false);
  const allowed = canDo(P.CampaignView);

  const load = useCallback(async (): Promise<Campaign | null> => {
    try {
      const c = await campaignsApi.get(id);
      setCampaign((prev) => (prev && prev.id === c.id ? { ...c, ...pickHigher(prev, c) } : c));
      setError(null);
      return c;
    } catch (e) {
      setError(e);
      return null;
    }
  }, [id]);
  /** Per-variant results: analytics are not for scheduled or draft campaigns (spec 4), so those show zeros. */
  const loadVariants = useCallback(async (c: Campaign | null) => {
    if (!c || !can('analytics', c)) return setVariants((v) => v ?? []);
    try {
      setVariants((await campaignsApi.analytics(id)).variants);
    } catch (_e) {
      setVariants((v) => v ?? []);
    }
  }, [id]);
  useEffect(() => {
    if (!allowed || !Number.isInteger(id)) return;
    setCampaign(null);
    setVariants(null);
    void load().then(loadVariants);
  }, [id, allowed, load, loadVariants]);

  // a finished campaign's figures still arrive while dispatch reports the last messages
  const settling = !!campaign && campaign.status === S.finished && (campaign.stats?.sent ?? 0) + (campaign.stats?.sentFailed ?? 0) < (campaign.stats?.created ?? 0);
  const running = !!campaign && (RUNNING.has(campaign.status) || settling);
  useInterval(() => void load().then(loadVariants), POLL_MS, running && allowed);

  const refetch = useCampaignRefetch(async () => {
    await load().then(loadVariants);
  });
  const live = useCampaignsRealtime(
    (p) => {
      if (p.id !== id) return;
      setCampaign((c) => (c ? applyPatch(c, p) : c));
      refetch(id);
    },
    () => void load(),
    allowed,
  );

  const actions = useCampaignActions({
    onChanged: (c) => {
      if (c && c.id === id) setCampaign(c);
      void load();
    },
    onEdit: () => setEditing(true),
    onDeleted: () => navigate(PATHS.campaigns),
  });

  if (!allowed) {
    return <Alert severity="warning">{translate('ui.permission.missing', { permission: P.CampaignView })}</Alert>;
  }
  const back = (
    <Link component={RouterLink} to={PATHS.campaigns} underline="hover" sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.5, mb: 1.5, fontSize: 14 }} data-testid="back-to-campaigns">
      <ArrowBackRoundedIcon sx={{ fontSize: 16 }} />
      {translate('campaigns.page.back')}
    </Link>
  );
  if (error != null && !campaign) {
    return (
      <Box>
        {back}
        <Alert severity="error">{errorText(error, translate)}</Alert>
      </Box>
    );
  }
  if (!campaign) {
    return (
      <Box>
        {back}
        <Skeleton height={48} width="40%" />
        <Skeleton variant="rounded" height={120} sx={{ my: 2 }} />
        <Skeleton variant="rounded" height={200} />
      </Box>
    );
  }

  const c = campaign;
  const st = c.stats;
  const waiting = waitingFor(c, locale);
  const currency = c.currency ?? profile?.customer?.currency;
  const { ctr, level } = campaignCtr(c);
  const button = (action: 'start' | 'pause' | 'play' | 'abort' | 'edit' | 'duplicate' | 'delete', icon: ReactNode, variant: 'contained' | 'outlined' = 'outlined') => {
    if (!can(action, c)) return null;
    const item = actions.items(c).find((i) => i.key === action);
    if (!item) return null;
    return (
      <GatedButton key={action} permission={item.permission ?? P.CampaignAddEdit} variant={variant} color={item.danger ? 'error' : 'primary'} startIcon={icon} onClick={() => void item.onClick()} data-testid={`campaign-${action}`}>
        {item.label}
      </GatedButton>
    );
  };

  return (
    <Box sx={{ maxWidth: 1280 }} data-testid="campaign-page" data-status={c.status} data-live={live ? 'true' : 'false'}>
      <PageHeading
        above={back}
        title={c.name}
        icon={<CampaignRoundedIcon />}
        subtitle={
          <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
            <CampaignStatusChip status={c.status} haltReasonId={c.haltReasonId} declinedReason={c.declinedReason} testId="campaign-page-status" />
            <span>{translate(`campaigns.types.${TYPE_NAMES[c.type] ?? 'outbound'}`)}</span>
            <span>· {formatDate(c.startedAt ?? c.createdAt, locale)}</span>
          </Box>
        }
        actions={
          <>
            {button('start', <RocketLaunchRoundedIcon />, 'contained')}
            {button('pause', <PauseRoundedIcon />)}
            {button('play', <PlayArrowRoundedIcon />, 'contained')}
            {button('edit', <EditRoundedIcon />)}
            {!can('edit', c) && can('ratio', c) && c.campaignVariants.length > 1 && (
              <GatedButton permission={P.CampaignAddEdit} variant="outlined" startIcon={<BalanceRoundedIcon />} onClick={() => setRatios(true)} data-testid="campaign-ratios">
                {translate('campaigns.ratios.action')}
              </GatedButton>
            )}
            {button('duplicate', <ContentCopyRoundedIcon />)}
            {button('abort', <StopRoundedIcon />)}
            {button('delete', <DeleteOutlineRoundedIcon />)}
          </>
        }
      />
      {c.status === S.halt && c.haltReasonId != null && (
        <Alert severity="error" sx={{ mb: 2 }} data-testid="halt-reason">
          {translate('campaigns.page.halted', { reason: translate(`campaigns.haltReasons.${haltReasonKey(c.haltReasonId) ?? 'unknown'}`) })}
        </Alert>
      )}
      {c.status === S.sending && waiting && (
        <Alert severity="info" sx={{ mb: 2 }} data-testid="waiting-for-hours">
          {waiting.recipient ? translate('campaigns.page.waitingInRecipientZone', { at: waiting.at, zone: waiting.zone }) : waiting.zone ? translate('campaigns.page.waitingZone', { at: waiting.at, zone: waiting.zone }) : translate('campaigns.page.waitingRecipient', { at: waiting.at })}
        </Alert>
      )}
      {c.status === S.rejected && c.declinedReason && (
        <Alert severity="error" sx={{ mb: 2 }}>
          {translate('campaigns.page.rejected', { reason: c.declinedReason })}
        </Alert>
      )}
      {(c.status === S.draft || c.status === S.scheduled || c.status === S.suspended || c.status === S.rejected) && <CampaignEstimates campaignId={c.id} version={c.updatedAt} />}
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: 'repeat(2, minmax(0, 1fr))', sm: 'repeat(4, minmax(0, 1fr))', lg: 'repeat(7, minmax(0, 1fr))' }, gap: 1.5, mb: 2 }}>
        <Figure label={translate('campaigns.stats.created')} value={formatNumber(st?.created || st?.total || 0, locale)} testId="stat-created" />
        <Figure label={translate('campaigns.stats.sent')} value={formatNumber(st?.sent ?? 0, locale)} testId="stat-sent" />
        <Figure label={translate('campaigns.stats.delivered')} value={formatNumber(st?.delivered ?? 0, locale)} testId="stat-delivered" tone="#067647" />
        <Figure
          label={translate('campaigns.stats.failed')}
          value={formatNumber(failedOf(st), locale)}
          testId="stat-failed"
          tone={failedOf(st) ? '#b42318' : undefined}
          hint={translate('campaigns.stats.failedHint', { sentFailed: st?.sentFailed ?? 0, undelivered: st?.undelivered ?? 0, dlrFailed: st?.dlrFailed ?? 0 })}
        />
        <Figure label={translate('campaigns.stats.clicked')} value={formatNumber(st?.clicked ?? 0, locale)} testId="stat-clicked" />
        <Figure label={translate('campaigns.stats.optedOut')} value={formatNumber(st?.optedOut ?? 0, locale)} testId="stat-opted-out" />
        {canDo(P.CostView) && <Figure label={translate('campaigns.stats.cost')} value={formatCost(st?.cost ?? c.cost ?? '0', currency, locale)} testId="stat-cost" />}
      </Box>
      <Paper sx={{ p: 2, mb: 2, display: 'flex', gap: 3, flexWrap: 'wrap', alignItems: 'center' }}>
        <CampaignProgress stats={st} />
        <Box>
          <Typography variant="caption" color="text.secondary" sx={{ fontWeight: 600, textTransform: 'uppercase' }} component="div">
            {translate('campaigns.stats.ctr')}
          </Typography>
          {level === 'none' ? (
            <Typography sx={{ fontWeight: 700 }} color="text.disabled" data-testid="stat-ctr" data-level={level}>—</Typography>
          ) : (
            <Typography sx={{ fontWeight: 700, color: CTR_COLORS[level] }} data-testid="stat-ctr" data-level={level}>
              {ctr.toLocaleString(locale, { maximumFractionDigits: 2 })}% · {translate(`campaigns.settings.levelNames.${level}`)}
            </Typography>
          )}
        </Box>
      </Paper>
      <Paper sx={{ mb: 2, overflow: 'hidden' }}>
        <Typography variant="subtitle1" sx={{ fontWeight: 700, px: 2, pt: 1.75, pb: 1 }}>
          {translate('campaigns.page.variants')}
        </Typography>
        <Box sx={{ overflowX: 'auto' }}>
          <Table size="small" data-testid="variant-results">
            <TableHead>
              <TableRow>
                <TableCell>{translate('campaigns.page.variant')}</TableCell>
                <TableCell align="right">{translate('campaigns.message.ratio')}</TableCell>
                <TableCell align="right">{translate('campaigns.stats.sent')}</TableCell>
                <TableCell align="right">{translate('campaigns.stats.delivered')}</TableCell>
                <TableCell align="right">{translate('campaigns.stats.failed')}</TableCell>
                <TableCell align="right">{translate('campaigns.stats.clicked')}</TableCell>
                <TableCell align="right">{translate('campaigns.stats.optedOut')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {c.campaignVariants.map((v) => {
                const s = variants?.find((x) => x.id === v.id)?.stats;
                return (
                  <TableRow key={v.id} data-testid="variant-result">
                    <TableCell>
                      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
                        <Box sx={{ width: 10, height: 10, borderRadius: '50%', bgcolor: v.color, flexShrink: 0 }} />
                        <Box sx={{ minWidth: 0 }}>
                          <Typography variant="body2" sx={{ fontWeight: 600 }}>{v.name}</Typography>
                          <Typography variant="caption" color="text.secondary" sx={{ display: 'block', maxWidth: 360, overflowWrap: 'anywhere' }}>{v.text}</Typography>
                        </Box>
                      </Box>
                    </TableCell>
                    <TableCell align="right">{v.ratio}%</TableCell>
                    <TableCell align="right" data-testid="variant-sent">{formatNumber(s?.sent ?? 0, locale)}</TableCell>
                    <TableCell align="right" data-testid="variant-delivered">{formatNumber(s?.delivered ?? 0, locale)}</TableCell>
                    <TableCell align="right">{formatNumber(s ? failedOf(s) : 0, locale)}</TableCell>
                    <TableCell align="right">{formatNumber(s?.clicked ?? 0, locale)}</TableCell>
                    <TableCell align="right">{formatNumber(s?.optedOut ?? 0, locale)}</TableCell>
                  </TableRow>
                );
              })}
            </TableBody>
          </Table>
        </Box>
      </Paper>
      {c.status !== S.draft && <CampaignReport campaignId={c.id} variants={c.campaignVariants} version={`${c.status}:${st?.sent ?? 0}:${st?.delivered ?? 0}:${failedOf(st)}:${st?.clicked ?? 0}`} final={(st?.delivered ?? 0) + failedOf(st)} />}
      <Paper sx={{ p: 2 }}>
        <Typography variant="subtitle1" sx={{ fontWeight: 700, mb: 1 }}>
          {translate('campaigns.page.details')}
        </Typography>
        <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '200px 1fr' }, rowGap: 1, columnGap: 2, fontSize: 14 }}>
          <Typography variant="body2" color="text.secondary">{translate('campaigns.fields.description')}</Typography>
          <Typography variant="body2" sx={{ whiteSpace: 'pre-wrap' }}>{c.description || '—'}</Typography>
          <Typography variant="body2" color="text.secondary">{translate('campaigns.schedule.hours')}</Typography>
          <Typography variant="body2">
            {c.activityTime?.working_days?.map((d) => translate(`campaigns.schedule.days.${d}`)).join(', ')} · {c.activityTime?.working_hours?.start}–{c.activityTime?.working_hours?.end}
          </Typography>
          <Typography variant="body2" color="text.secondary">{translate('campaigns.schedule.timezoneMode')}</Typography>
          <Typography variant="body2">
            {translate(`campaigns.schedule.modes.${c.activityTime?.timezone_mode ?? 'recipient'}`)}
            {c.activityTime?.timezone ? ` (${c.activityTime.timezone})` : ''}
          </Typography>
          {c.activityTime?.dates?.scheduled && (
            <>
              <Typography variant="body2" color="text.secondary">{translate('campaigns.schedule.scheduled')}</Typography>
              <Typography variant="body2">{formatDate(c.activityTime.dates.scheduled, locale)}</Typography>
            </>
          )}
          <Typography variant="body2" color="text.secondary">{translate('campaigns.stats.total')}</Typography>
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
            <ProgressBar value={st?.sent ?? 0} total={st?.total || st?.created || 0} type="sent" testId="campaign-sent-bar" />
          </Box>
        </Box>
      </Paper>
      {actions.dialogs}
      <RatiosDialog
        campaign={ratios ? c : null}
        onClose={() => setRatios(false)}
        onSaved={(saved) => {
          setRatios(false);
          setCampaign(saved);
        }}
      />
      <CampaignWizard
        open={editing}
        campaign={editing ? c : null}
        onClose={() => setEditing(false)}
        onSaved={(saved) => {
          setEditing(false);
          setCampaign(saved);
          void load();
        }}
      />
    </Box>
  );
};

/** Counters from a poll never go below what a realtime frame already showed. */
function pickHigher(prev: Campaign, next: Campaign): Partial<Campaign> {
  if (prev.status !== next.status || !prev.stats || !next.stats) return {};
  const stats = { ...next.stats };
  for (const k of ['total', 'created', 'sent', 'delivered', 'sentFailed', 'undelivered', 'dlrFailed', 'optedOut', 'clicked'] as const) {
    if (prev.stats[k] > next.stats[k]) stats[k] = prev.stats[k];
  }
  return { stats };
}
