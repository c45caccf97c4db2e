import AddRoundedIcon from '@mui/icons-material/AddRounded';
import CampaignRoundedIcon from '@mui/icons-material/CampaignRounded';
import PushPinOutlinedIcon from '@mui/icons-material/PushPinOutlined';
import PushPinRoundedIcon from '@mui/icons-material/PushPinRounded';
import SearchRoundedIcon from '@mui/icons-material/SearchRounded';
import { Alert, Box, Button, IconButton, InputAdornment, Link, Tab, Tabs, TextField, Tooltip, Typography } from '@mui/material';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { Link as RouterLink, useNavigate, useSearchParams } from 'react-router-dom';
import { GatedButton } from '../../../ui/Gated';
import { PageHeading } from '../../../ui/PageHeading';
import { useCan } from '../../../ui/permissions';
import { DataTable, NoResults, type Column } from '../../../ui/table/DataTable';
import { ActionMenu } from '../../contacts/widgets/ActionMenu';
import { formatDate } from '../../contacts/widgets/format';
import { campaignsApi, P, PATHS, REALTIME_PAGE } from '../api';
import { applyPatch, useCampaignRefetch, useCampaignsRealtime } from '../realtime';
import { FILTER_TABS, TYPE_NAMES, type FilterTab } from '../status';
import type { Campaign } from '../types';
import { CampaignWizard } from '../wizard/CampaignWizard';
import { CampaignCtr } from '../widgets/CampaignCtr';
import { CampaignProgress } from '../widgets/CampaignProgress';
import { CampaignStatusChip } from '../widgets/CampaignStatusChip';
import { errorText } from '../widgets/errors';
import { useCampaignActions } from '../widgets/useCampaignActions';
import { usePinned } from '../widgets/usePinned';

const TABS: FilterTab[] = ['all', 'active', 'pending', 'rejected', 'finished'];

/**
 * /campaigns: the filter tabs of spec 4 (all, active, pending, rejected, finished), status chips, the sent, clicked
 * and opted-out bars, pinned campaigns first, the actions each status allows, and live updates from /realtime. A
 * realtime list (spec 7): 10 per page, "load more" adds the next 10.
 */
export const CampaignsPage = () => {
  const translate = useTranslate();
  const notify = useNotify();
  const navigate = useNavigate();
  const can = useCan();
  const locale = translate('campaigns.locale');
  const [params, setParams] = useSearchParams();
  const tab = (TABS.includes(params.get('tab') as FilterTab) ? params.get('tab') : 'all') as FilterTab;
  const [search, setSearch] = useState('');
  const [name, setName] = useState('');
  const [rows, setRows] = useState<Campaign[]>([]);
  const [total, setTotal] = useState(0);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>(null);
  const [wizard, setWizard] = useState<{ campaign: Campaign | null } | null>(params.get('new') === '1' ? { campaign: null } : null);
  const { pinned, toggle } = usePinned();
  const seq = useRef(0);
  const allowed = can(P.CampaignView);

  useEffect(() => {
    const t = window.setTimeout(() => setName(search.trim()), 300);
    return () => window.clearTimeout(t);
  }, [search]);

  const pinnedKey = pinned.join(',');
  const query = useCallback((page: number, perPage: number) => campaignsApi.list({ page, perPage, tab: tab === 'all' ? undefined : tab, name: name || undefined, pinned: pinnedKey ? pinnedKey.split(',').map(Number) : undefined }), [tab, name, pinnedKey]);

  /** Loads pages 1..`pages` again (after a change or a resync), so what is shown stays as long as it was. */
  const load = useCallback(
    async (pages: number, quiet = false) => {
      const mine = ++seq.current;
      if (!quiet) setLoading(true);
      try {
        const r = await query(1, REALTIME_PAGE * pages);
        if (mine !== seq.current) return;
        setRows(r.items);
        setTotal(r.total);
        setError(null);
      } catch (e) {
        if (mine === seq.current) setError(e);
      } finally {
        if (mine === seq.current) setLoading(false);
      }
    },
    [query],
  );
  const pagesShown = Math.max(1, Math.ceil(rows.length / REALTIME_PAGE));
  const pagesRef = useRef(pagesShown);
  pagesRef.current = pagesShown;

  // a new tab or search starts at the first page; a pin keeps what is shown
  const pagesKeep = useRef(1);
  const hasRows = useRef(false);
  hasRows.current = rows.length > 0;
  useEffect(() => {
    if (allowed) void load(pagesKeep.current, hasRows.current);
    pagesKeep.current = 1;
  }, [load, allowed]);

  const more = async () => {
    setLoading(true);
    try {
      const r = await query(pagesShown + 1, REALTIME_PAGE);
      setRows((prev) => [...prev, ...r.items.filter((c) => !prev.some((p) => p.id === c.id))]);
      setTotal(r.total);
    } catch (e) {
      setError(e);
    } finally {
      setLoading(false);
    }
  };

  const refreshSoon = useRef<number | undefined>(undefined);
  const scheduleRefresh = useCallback(() => {
    window.clearTimeout(refreshSoon.current);
    refreshSoon.current = window.setTimeout(() => void load(pagesRef.current, true), 500);
  }, [load]);
  useEffect(() => () => window.clearTimeout(refreshSoon.current), []);

  const refetch = useCampaignRefetch(async (id) => {
    const c = await campaignsApi.get(id);
    setRows((prev) => prev.map((x) => (x.id === id ? c : x)));
  });

  const live = useCampaignsRealtime(
    (p) => {
      let known = false;
      setRows((prev) =>
        prev.map((c) => {
          if (c.id !== p.id) return c;
          known = true;
          return applyPatch(c, p);
        }),
      );
      // a campaign this page does not show yet, or one whose status moved it to another tab
      const tabStatuses = FILTER_TABS[tab];
      if (!known || (p.status !== undefined && tabStatuses && !tabStatuses.includes(p.status))) scheduleRefresh();
      else refetch(p.id);
    },
    () => void load(pagesRef.current, true),
    allowed,
  );

  const changed = (c?: Campaign) => {
    if (c) {
      setRows((prev) => prev.map((x) => (x.id === c.id ? c : x)));
    }
    void load(pagesRef.current, true);
  };
  const actions = useCampaignActions({ onChanged: changed, onEdit: (c) => setWizard({ campaign: c }) });


  const columns: Column<Campaign>[] = [
    {
      key: 'pin',
      label: '',
      width: 44,
      render: (c) => {
        const on = pinned.includes(c.id);
        return (
          <Tooltip title={translate(on ? 'campaigns.list.unpin' : 'campaigns.list.pin')}>
            <IconButton
              size="small"
              aria-label={translate(on ? 'campaigns.list.unpin' : 'campaigns.list.pin')}
              aria-pressed={on}
              data-testid="campaign-pin"
              onClick={(e) => {
                e.stopPropagation();
                pagesKeep.current = pagesRef.current;
                toggle(c.id).then(() => undefined, (err: unknown) => notify(errorText(err, translate), { type: 'error' }));
              }}
              sx={{ color: on ? 'primary.main' : 'text.disabled' }}
            >
              {on ? <PushPinRoundedIcon fontSize="small" /> : <PushPinOutlinedIcon fontSize="small" />}
            </IconButton>
          </Tooltip>
        );
      },
    },
    {
      key: 'name',
      label: translate('campaigns.fields.name'),
      render: (c) => (
        <Box sx={{ minWidth: 0 }}>
          <Link component={RouterLink} to={PATHS.campaign(c.id)} underline="hover" sx={{ fontWeight: 600, color: 'text.primary', overflowWrap: 'anywhere' }} data-testid="campaign-name" onClick={(e) => e.stopPropagation()}>
            {c.name}
          </Link>
          <Typography variant="caption" color="text.secondary" component="div">
            {translate(`campaigns.types.${TYPE_NAMES[c.type] ?? 'outbound'}`)} · #{c.id}
          </Typography>
        </Box>
      ),
    },
    { key: 'status', label: translate('campaigns.fields.status'), render: (c) => <CampaignStatusChip status={c.status} haltReasonId={c.haltReasonId} declinedReason={c.declinedReason} /> },
    { key: 'progress', label: translate('campaigns.fields.progress'), hideOnPhone: true, render: (c) => <CampaignProgress stats={c.stats} compact /> },
    { key: 'ctr', label: translate('campaigns.stats.ctr'), align: 'right', hideOnPhone: true, render: (c) => <CampaignCtr campaign={c} /> },
    { key: 'createdAt', label: translate('campaigns.fields.createdAt'), hideOnPhone: true, render: (c) => <Typography variant="body2" sx={{ whiteSpace: 'nowrap' }}>{formatDate(c.startedAt ?? c.createdAt, locale)}</Typography> },
    { key: 'actions', label: '', align: 'right', width: 56, render: (c) => <ActionMenu items={actions.items(c)} testId="campaign-actions" /> },
  ];

  if (!allowed) {
    return (
      <Box>
        <PageHeading title={translate('campaigns.list.title')} icon={<CampaignRoundedIcon />} />
        <Alert severity="warning">{translate('ui.permission.missing', { permission: P.CampaignView })}</Alert>
      </Box>
    );
  }

  return (
    <Box sx={{ maxWidth: 1280 }} data-testid="campaigns-page" data-live={live ? 'true' : 'false'}>
      <PageHeading
        title={translate('campaigns.list.title')}
        subtitle={translate('campaigns.list.subtitle')}
        icon={<CampaignRoundedIcon />}
        actions={
          <GatedButton permission={P.CampaignAddEdit} variant="contained" startIcon={<AddRoundedIcon />} onClick={() => setWizard({ campaign: null })} data-testid="new-campaign">
            {translate('campaigns.list.create')}
          </GatedButton>
        }
      />
      {error != null && <Alert severity="error" sx={{ mb: 2 }}>{errorText(error, translate)}</Alert>}
      <DataTable
        testId="campaigns-table"
        rowTestId="campaign-row"
        columns={columns}
        rows={rows}
        rowKey={(c) => c.id}
        loading={loading && rows.length === 0}
        onRowClick={(c) => navigate(PATHS.campaign(c.id))}
        toolbar={
          <Box sx={{ borderBottom: 1, borderColor: 'divider' }}>
            <Tabs
              value={tab}
              onChange={(_e, v: FilterTab) => setParams(v === 'all' ? {} : { tab: v }, { replace: true })}
              variant="scrollable"
              allowScrollButtonsMobile
              sx={{ px: 1 }}
            >
              {TABS.map((t) => (
                <Tab key={t} value={t} label={translate(`campaigns.tabs.${t}`)} data-testid={`campaigns-tab-${t}`} />
              ))}
            </Tabs>
            <Box sx={{ p: 1.5, pt: 1 }}>
              <TextField
                size="small"
                placeholder={translate('campaigns.list.search')}
                value={search}
                onChange={(e) => setSearch(e.target.value)}
                sx={{ width: { xs: '100%', sm: 320 } }}
                slotProps={{ input: { startAdornment: <InputAdornment position="start"><SearchRoundedIcon fontSize="small" /></InputAdornment> }, htmlInput: { 'data-testid': 'campaigns-search', 'aria-label': translate('campaigns.list.search') } }}
              />
            </Box>
          </Box>
        }
        empty={
          <NoResults
            title={translate(name ? 'campaigns.list.noMatch' : 'campaigns.list.empty')}
            text={name ? undefined : can(P.CampaignAddEdit) ? translate('campaigns.list.emptyText') : translate('campaigns.noData.missingAddPermission')}
            icon={<CampaignRoundedIcon />}
          />
        }
        footer={
          rows.length < total ? (
            <Box sx={{ p: 1.5, textAlign: 'center', borderTop: 1, borderColor: 'divider' }}>
              <Button onClick={() => void more()} disabled={loading} data-testid="campaigns-more">
                {translate('campaigns.list.more', { shown: rows.length, total })}
              </Button>
            </Box>
          ) : null
        }
      />
      {actions.dialogs}
      <CampaignWizard
        open={!!wizard}
        campaign={wizard?.campaign ?? null}
        onClose={() => {
          setWizard(null);
          if (params.get('new')) setParams({}, { replace: true });
        }}
        onSaved={(c, created) => {
          setWizard(null);
          changed(c);
          if (created) navigate(PATHS.campaign(c.id));
        }}
      />
    </Box>
  );
};
