import AddRoundedIcon from '@mui/icons-material/AddRounded';
import HubRoundedIcon from '@mui/icons-material/HubRounded';
import MoreVertRoundedIcon from '@mui/icons-material/MoreVertRounded';
import SendRoundedIcon from '@mui/icons-material/SendRounded';
import StarRoundedIcon from '@mui/icons-material/StarRounded';
import VpnKeyRoundedIcon from '@mui/icons-material/VpnKeyRounded';
import { Alert, Box, Chip, IconButton, MenuItem, TextField, Tooltip, Typography } from '@mui/material';
import { useEffect, useMemo, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import { useProfile } from '../../../ui/useProfile';
import { streamsApi } from '../api';
import { P, STREAM_TYPES, StreamStatus, isSmsType, type TimeSlice } from '../constants';
import { StreamStatusChip, TypeTile, mono, useDateFormat, useTypeLabel } from '../labels';
import { SendMessageDialog } from '../send/SendMessageDialog';
import type { Stream } from '../types';
import { DataTable, NoResults, stop, type Column } from '../../../ui/table/DataTable';
import { errorText } from '../widgets/errors';
import { GatedButton, GatedIconButton } from '../../../ui/Gated';
import { PageHeading } from '../../../ui/PageHeading';
import { useCan } from '../../../ui/permissions';
import { useApi } from '../../../ui/useApi';
import { useInterval } from '../../../ui/useInterval';
import { useServerTable } from '../../../ui/table/useTable';
import { SliceToggle, StatsCards } from './StatsCards';
import { StreamDialog } from './StreamDialog';
import { StreamMenu, useStreamActions } from './StreamActions';
import { useSenderStates } from '../widgets/SenderState';
import { pageRoot } from '../widgets/page';
import { SearchField, TableToolbar, ToolbarSpacer, ToolbarTabs } from '../../../ui/table/TableToolbar';

/** The list's tabs: "active" is what spec 4 says the list shows (ready and sending: stored as ready, 0). */
const TABS = [
  { key: 'active', status: StreamStatus.Ready },
  { key: 'draft', status: StreamStatus.Draft },
  { key: 'disabled', status: StreamStatus.Disabled },
  { key: 'all', status: undefined },
] as const;
type TabKey = (typeof TABS)[number]['key'];

/** Statistics refresh while the page is open (the spec leaves the interval open; the status poll's 5 s is used). */
const STATS_POLL_MS = 5000;

/** /streams: the figures of a time slice, then the streams (ready and sending first) with their actions. */
export const StreamsPage = () => {
  const translate = useTranslate();
  const notify = useNotify();
  const navigate = useNavigate();
  const can = useCan();
  const typeLabel = useTypeLabel();
  const date = useDateFormat();
  const { profile } = useProfile();
  const [tab, setTab] = useState<TabKey>('active');
  const [search, setSearch] = useState('');
  const [slice, setSlice] = useState<TimeSlice>('day');
  const [creating, setCreating] = useState(false);
  const [sending, setSending] = useState(false);
  const [menu, setMenu] = useState<{ anchor: HTMLElement; stream: Stream } | null>(null);

  const table = useServerTable<Stream>(
    'streams',
    (q) => streamsApi.streams({ page: q.page, perPage: q.perPage, sort: q.sort, filter: q.filter }),
    { field: 'id', order: 'desc' },
    { status: StreamStatus.Ready },
    can(P.StreamView),
  );
  const { setFilter } = table;
  useEffect(() => {
    const t = window.setTimeout(() => setFilter({ name: search.trim() || undefined }), 300);
    return () => window.clearTimeout(t);
  }, [search, setFilter]);

  const stats = useApi(() => streamsApi.statistics(slice), [slice], can(P.StreamView));
  useInterval(() => void stats.refresh(), STATS_POLL_MS, can(P.StreamView), true);
  const byStream = useMemo(() => new Map((stats.data?.streams ?? []).map((s) => [s.streamId, s])), [stats.data]);

  const senderStates = useSenderStates();
  const actions = useStreamActions((action) => {
    void table.refresh();
    void senderStates.reload();
    if (action === 'send') void stats.refresh();
  });

  const columns: Column<Stream>[] = [
    {
      key: 'name',
      label: translate('streams.list.columns.name'),
      sortable: true,
      render: (s) => (
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, minWidth: 220 }}>
          <TypeTile type={s.streamType} />
          <Box sx={{ minWidth: 0 }}>
            <Box sx={{ display: 'flex', alignItems: 'center', gap: 0.75 }}>
              <Typography sx={{ fontWeight: 600, fontSize: 14.5 }} noWrap data-testid="stream-row-name">
                {s.name}
              </Typography>
              {s.isDefault && (
                <Tooltip title={translate('streams.list.default')}>
                  <StarRoundedIcon sx={{ fontSize: 16, color: '#f59e0b' }} />
                </Tooltip>
              )}
            </Box>
            <Typography variant="caption" color="text.secondary" noWrap component="div" sx={{ maxWidth: 320 }}>
              {typeLabel(s.streamType)}
              {s.description ? ` · ${s.description}` : ''}
            </Typography>
          </Box>
        </Box>
      ),
    },
    {
      key: 'status',
      label: translate('streams.list.columns.status'),
      sortable: true,
      render: (s) => {
        const state = senderStates.stateOf(s);
        return (
          <Box sx={{ display: 'flex', flexDirection: 'column', alignItems: 'flex-start', gap: 0.5 }}>
            <StreamStatusChip status={s.status} />
            {state && state !== 'approved' && (
              <Tooltip title={translate(`streams.senderState.${state}`, { sender: s.sender ?? '' })}>
                <Chip size="small" color={state === 'declined' ? 'error' : 'warning'} variant="outlined" label={translate(`streams.senderState.short.${state}`)} sx={{ height: 20, fontSize: 11 }} data-testid="stream-sender-state" />
              </Tooltip>
            )}
          </Box>
        );
      },
    },
    {
      key: 'sender', hideOnPhone: true,
      label: translate('streams.list.columns.sender'),
      render: (s) => {
        const v = isSmsType(s.streamType) ? s.sender : (s.params.phone_number as string | undefined);
        return v ? <Box component="span" sx={{ ...mono, fontSize: 13 }}>{v}</Box> : <Typography variant="body2" color="text.secondary">—</Typography>;
      },
    },
    {
      key: 'traffic', hideOnPhone: true,
      label: translate('streams.list.columns.traffic', { slice: translate(`streams.slices.${slice}`) }),
      align: 'right',
      render: (s) => {
        const st = byStream.get(s.id);
        if (!st || !st.total) return <Typography variant="body2" color="text.secondary">0</Typography>;
        return (
          <Tooltip title={translate('streams.list.trafficTooltip', { delivered: st.delivered, total: st.total })}>
            <Box>
              <Typography variant="body2" sx={{ fontWeight: 600 }}>{st.total}</Typography>
              <Typography variant="caption" color="success.main">{Math.round((st.delivered / st.total) * 100)}%</Typography>
            </Box>
          </Tooltip>
        );
      },
    },
    { key: 'lastSentTime', hideOnPhone: true, label: translate('streams.list.columns.lastSent'), sortable: true, render: (s) => <Typography variant="body2" color="text.secondary" noWrap data-testid="stream-last-sent">{s.lastSentTime ? date(s.lastSentTime) : translate('streams.list.never')}</Typography> },
    {
      key: 'actions',
      label: '',
      align: 'right',
      width: 140,
      render: (s) => (
        <Box sx={{ display: 'flex', justifyContent: 'flex-end', gap: 0.25 }} onClick={stop}>
          <GatedIconButton permission={P.StreamTester} title={translate('streams.list.sendTest')} onClick={() => actions.open('send', s)} data-testid="stream-send" disabled={s.status !== StreamStatus.Ready && s.status !== StreamStatus.Sending}>
            <SendRoundedIcon fontSize="small" />
          </GatedIconButton>
          <GatedIconButton permission={P.StreamToken} title={translate('streams.list.token')} onClick={() => actions.open('token', s)} data-testid="stream-token">
            <VpnKeyRoundedIcon fontSize="small" />
          </GatedIconButton>
          <IconButton size="small" onClick={(e) => setMenu({ anchor: e.currentTarget, stream: s })} aria-label={translate('streams.ui.more')} data-testid="stream-menu">
            <MoreVertRoundedIcon fontSize="small" />
          </IconButton>
        </Box>
      ),
    },
  ];

  if (!can(P.StreamView)) {
    return (
      <Box>
        <PageHeading title={translate('streams.list.title')} icon={<HubRoundedIcon />} />
        <Alert severity="warning">{translate('streams.ui.missingPermission', { permission: P.StreamView })}</Alert>
      </Box>
    );
  }

  const filtered = tab !== 'active' || !!search || table.filter.streamType !== undefined;
  return (
    <Box sx={pageRoot(1360)} data-testid="streams-page">
      <PageHeading
        title={translate('streams.list.title')}
        subtitle={translate('streams.list.subtitle')}
        icon={<HubRoundedIcon />}
        actions={
          <>
            <GatedButton permission={P.StreamTester} variant="outlined" startIcon={<SendRoundedIcon />} onClick={() => setSending(true)} data-testid="open-send-message">
              {translate('streams.list.sendMessage')}
            </GatedButton>
            <GatedButton permission={P.StreamAddEdit} variant="contained" startIcon={<AddRoundedIcon />} onClick={() => setCreating(true)} data-testid="create-stream">
              {translate('streams.list.create')}
            </GatedButton>
          </>
        }
      />

      <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', flexWrap: 'wrap', gap: 1, mb: 1.5 }}>
        <Typography sx={{ fontWeight: 700 }}>{translate('streams.stats.title')}</Typography>
        <SliceToggle value={slice} onChange={setSlice} />
      </Box>
      <StatsCards stats={stats.data} loading={stats.loading} currency={profile?.customer?.currency} />

      {table.error ? (
        <Alert severity="error" sx={{ mt: 3 }}>
          {errorText(table.error, translate)}
        </Alert>
      ) : null}
      <Box sx={{ mt: 3 }}>
        <DataTable
          testId="streams-table"
          rowTestId="stream-row"
          columns={columns}
          rows={table.rows}
          rowKey={(s) => s.id}
          loading={table.loading}
          sort={table.sort}
          onSort={table.toggleSort}
          pagination={table.pagination}
          onRowClick={(s) => navigate(`/streams/${s.id}`)}
          toolbar={
            <TableToolbar sx={{ gap: 1.5 }}>
              <ToolbarTabs<TabKey>
                value={tab}
                onChange={(v) => {
                  setTab(v);
                  table.setFilter({ status: TABS.find((t) => t.key === v)?.status });
                }}
                tabs={TABS.map((t) => ({ value: t.key, label: translate(`streams.list.tabs.${t.key}`), testId: `streams-tab-${t.key}` }))}
              />
              <ToolbarSpacer />
              <TextField
                select
                size="small"
                value={table.filter.streamType ?? ''}
                onChange={(e) => table.setFilter({ streamType: e.target.value === '' ? undefined : Number(e.target.value) })}
                sx={{ width: 190, mb: 1 }}
                slotProps={{ select: { displayEmpty: true } }}
              >
                <MenuItem value="">{translate('streams.list.allTypes')}</MenuItem>
                {STREAM_TYPES.map((t) => (
                  <MenuItem key={t} value={t}>
                    {typeLabel(t)}
                  </MenuItem>
                ))}
              </TextField>
              <SearchField value={search} onChange={setSearch} placeholder={translate('streams.list.search')} sx={{ width: 240, mb: 1 }} />
            </TableToolbar>
          }
          empty={
            <NoResults
              icon={<HubRoundedIcon />}
              title={translate(filtered ? 'streams.list.noMatch' : 'streams.list.empty')}
              text={filtered ? undefined : translate(can(P.StreamAddEdit) ? 'streams.list.emptyText' : 'streams.noData.missingAddPermission')}
              action={
                !filtered && can(P.StreamAddEdit) ? (
                  <GatedButton permission={P.StreamAddEdit} variant="contained" startIcon={<AddRoundedIcon />} onClick={() => setCreating(true)}>
                    {translate('streams.list.create')}
                  </GatedButton>
                ) : undefined
              }
            />
          }
        />
      </Box>

      <StreamMenu anchor={menu?.anchor ?? null} stream={menu?.stream ?? null} onClose={() => setMenu(null)} onAction={actions.open} onOpen={(s) => navigate(`/streams/${s.id}`)} />
      {actions.modals}
      <StreamDialog
        open={creating}
        stream={null}
        onClose={() => setCreating(false)}
        onSaved={(s) => {
          setCreating(false);
          notify('streams.list.created', { type: 'success', messageArgs: { name: s.name } });
          if (tab !== 'all' && TABS.find((t) => t.key === tab)?.status !== (s.status === StreamStatus.Sending ? StreamStatus.Ready : s.status)) {
            const target = TABS.find((t) => t.status === s.status)?.key ?? 'all';
            setTab(target);
            table.setFilter({ status: TABS.find((t) => t.key === target)?.status });
          } else void table.reload();
        }}
      />
      <SendMessageDialog open={sending} stream={null} onClose={() => setSending(false)} onSent={() => void stats.refresh()} />
    </Box>
  );
};
