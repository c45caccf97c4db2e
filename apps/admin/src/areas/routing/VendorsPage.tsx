import AddRoundedIcon from '@mui/icons-material/AddRounded';
import EditRoundedIcon from '@mui/icons-material/EditRounded';
import LanRoundedIcon from '@mui/icons-material/LanRounded';
import RefreshRoundedIcon from '@mui/icons-material/RefreshRounded';
import StorefrontRoundedIcon from '@mui/icons-material/StorefrontRounded';
import SyncRoundedIcon from '@mui/icons-material/SyncRounded';
import { Alert, Box, Button, Chip, IconButton, MenuItem, Select, Switch, Tab, Tabs, Tooltip, Typography } from '@mui/material';
import { useMemo, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { mono } from '../streams/labels';
import { DataTable, NoResults, type Column } from '../../ui/table/DataTable';
import { errorText } from '../streams/widgets/errors';
import { PageHeading } from '../../ui/PageHeading';
import { useIsSuperAdmin } from '../../ui/permissions';
import { StatusChip } from '../../ui/StatusChip';
import { useApi } from '../../ui/useApi';
import { useClientTable } from '../../ui/table/useTable';
import { routingApi } from './api';
import { ROUTING_PROVIDERS, SERVICE_TYPES } from './constants';
import type { Channel, Vendor } from './types';
import { VendorDialog } from './VendorDialog';
import { pageRoot } from '../streams/widgets/page';

export const SERVICE_TONE: Record<string, 'primary' | 'success' | 'info' | 'neutral'> = { sms: 'primary', whatsapp: 'success', telegram: 'info', telegram_private: 'neutral' };

export const ServiceChip = ({ type }: { type: string }) => {
  const translate = useTranslate();
  return <StatusChip tone={SERVICE_TONE[type] ?? 'neutral'}>{translate(`routing.serviceTypes.${type}`, { _: type })}</StatusChip>;
};

const VendorsPanel = () => {
  const translate = useTranslate();
  const notify = useNotify();
  const vendors = useApi(() => routingApi.vendors(), []);
  const [dialog, setDialog] = useState<{ vendor: Vendor | null } | null>(null);
  const [type, setType] = useState<string>('');
  const rows = useMemo(() => (vendors.data?.items ?? []).filter((v) => !type || v.service_type === type), [vendors.data, type]);

  const setActive = async (v: Vendor, active: boolean) => {
    try {
      await routingApi.updateVendor(v.id, { active });
      await vendors.refresh();
    } catch (e) {
      notify(errorText(e, translate), { type: 'error' });
    }
  };
  const refresh = async () => {
    try {
      const r = await routingApi.refresh();
      notify('routing.vendors.refreshed', { type: 'success', messageArgs: { smart_count: r.vendors } });
      await vendors.refresh();
    } catch (e) {
      notify(errorText(e, translate), { type: 'error' });
    }
  };

  const columns: Column<Vendor>[] = [
    {
      key: 'name',
      label: translate('routing.vendors.name'),
      sortable: true,
      sortValue: (v) => v.name.toLowerCase(),
      render: (v) => (
        <Box>
          <Typography sx={{ fontWeight: 600, fontSize: 14.5 }} data-testid="vendor-row-name">{v.name}</Typography>
          <Typography variant="caption" color="text.secondary">#{v.id} · {translate(`routing.adapters.${v.adapter}`, { _: v.adapter })}</Typography>
        </Box>
      ),
    },
    { key: 'service_type', label: translate('routing.vendors.serviceType'), sortable: true, sortValue: (v) => v.service_type, render: (v) => <ServiceChip type={v.service_type} /> },
    { key: 'carrier', label: translate('routing.vendors.carrier'), sortable: true, sortValue: (v) => v.carrier, render: (v) => v.carrier || '—' },
    {
      key: 'product',
      label: translate('routing.vendors.product'),
      render: (v) => (
        <Box>
          <Typography variant="body2">{v.product_name || '—'}</Typography>
          {v.product_id && <Typography variant="caption" color="text.secondary" sx={mono}>{v.product_id}</Typography>}
        </Box>
      ),
    },
    { key: 'currency', label: translate('routing.vendors.currency'), render: (v) => <Chip size="small" label={v.currency} sx={{ ...mono, height: 22 }} /> },
    {
      key: 'active',
      label: translate('routing.vendors.status'),
      sortable: true,
      sortValue: (v) => (v.active ? 1 : 0),
      render: (v) => (
        <Box sx={{ display: 'flex', alignItems: 'center' }}>
          <Switch size="small" checked={v.active} onChange={(e) => void setActive(v, e.target.checked)} slotProps={{ input: { 'aria-label': translate('routing.vendors.active') } }} />
          <StatusChip tone={v.active ? 'success' : 'neutral'}>{translate(v.active ? 'routing.vendors.on' : 'routing.vendors.off')}</StatusChip>
        </Box>
      ),
    },
    {
      key: 'actions',
      label: '',
      align: 'right',
      width: 56,
      render: (v) => (
        <Tooltip title={translate('routing.vendors.edit')}>
          <IconButton size="small" onClick={() => setDialog({ vendor: v })} data-testid="vendor-edit" aria-label={translate('routing.vendors.edit')}>
            <EditRoundedIcon fontSize="small" />
          </IconButton>
        </Tooltip>
      ),
    },
  ];
  const table = useClientTable(rows, columns, 'vendors', { field: 'service_type', order: 'asc' });

  return (
    <Box>
      {vendors.error ? <Alert severity="error" sx={{ mb: 2 }}>{errorText(vendors.error, translate)}</Alert> : null}
      <DataTable
        testId="vendors-table"
        rowTestId="vendor-row"
        columns={columns}
        rows={table.pageRows}
        rowKey={(v) => v.id}
        loading={vendors.loading}
        sort={table.sort}
        onSort={table.toggleSort}
        pagination={table.pagination}
        toolbar={
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, px: 2, py: 1, borderBottom: 1, borderColor: 'divider' }}>
            <Select size="small" value={type} displayEmpty onChange={(e) => setType(e.target.value)} sx={{ width: 200 }}>
              <MenuItem value="">{translate('routing.allServiceTypes')}</MenuItem>
              {SERVICE_TYPES.map((s) => <MenuItem key={s} value={s}>{translate(`routing.serviceTypes.${s}`)}</MenuItem>)}
            </Select>
            <Box sx={{ flex: 1 }} />
            <Button size="small" color="inherit" startIcon={<RefreshRoundedIcon />} onClick={() => void refresh()} data-testid="vendors-refresh">{translate('routing.vendors.refresh')}</Button>
            <Button size="small" variant="contained" startIcon={<AddRoundedIcon />} onClick={() => setDialog({ vendor: null })} data-testid="vendor-create">{translate('routing.vendors.create')}</Button>
          </Box>
        }
        empty={<NoResults icon={<StorefrontRoundedIcon />} title={translate('routing.vendors.empty')} />}
      />
      <VendorDialog
        open={!!dialog}
        vendor={dialog?.vendor ?? null}
        onClose={() => setDialog(null)}
        onSaved={(v) => {
          notify(dialog?.vendor ? 'routing.vendors.saved' : 'routing.vendors.created', { type: 'success', messageArgs: { name: v.name } });
          setDialog(null);
          void vendors.refresh();
        }}
      />
    </Box>
  );
};

const ChannelsPanel = () => {
  const translate = useTranslate();
  const notify = useNotify();
  const channels = useApi(() => routingApi.channels(), []);
  const update = async (c: Channel, patch: Partial<Channel>) => {
    try {
      await routingApi.updateChannel(c.id, patch);
      await channels.refresh();
    } catch (e) {
      notify(errorText(e, translate), { type: 'error' });
    }
  };
  const sync = async () => {
    try {
      const r = await routingApi.syncChannels();
      notify('routing.channels.synced', { type: 'success', messageArgs: { smart_count: r.created } });
      await channels.refresh();
    } catch (e) {
      notify(errorText(e, translate), { type: 'error' });
    }
  };
  const columns: Column<Channel>[] = [
    { key: 'name', label: translate('routing.channels.name'), sortable: true, sortValue: (c) => c.name.toLowerCase(), render: (c) => <Typography sx={{ fontWeight: 600, fontSize: 14.5 }} data-testid="channel-row-name">{c.name}</Typography> },
    {
      key: 'routingProvider',
      label: translate('routing.channels.routingProvider'),
      sortable: true,
      sortValue: (c) => c.routingProvider,
      render: (c) => (
        <Select size="small" value={c.routingProvider} onChange={(e) => void update(c, { routingProvider: Number(e.target.value) })} sx={{ minWidth: 90 }} inputProps={{ 'aria-label': translate('routing.channels.routingProvider') }}>
          {ROUTING_PROVIDERS.map((p) => <MenuItem key={p} value={p}>{translate('routing.channels.priority', { n: p })}</MenuItem>)}
        </Select>
      ),
    },
    { key: 'stsMethods', label: translate('routing.channels.stsMethods'), render: (c) => <Box sx={{ display: 'flex', gap: 0.5, flexWrap: 'wrap' }}>{c.stsMethods.map((m) => <Chip key={m} size="small" label={m} sx={{ ...mono, height: 22, fontSize: 12 }} />)}</Box> },
    {
      key: 'active',
      label: translate('routing.vendors.status'),
      sortable: true,
      sortValue: (c) => (c.active ? 1 : 0),
      render: (c) => (
        <Box sx={{ display: 'flex', alignItems: 'center' }}>
          <Switch size="small" checked={c.active} onChange={(e) => void update(c, { active: e.target.checked })} />
          <StatusChip tone={c.active ? 'success' : 'neutral'}>{translate(c.active ? 'routing.vendors.on' : 'routing.vendors.off')}</StatusChip>
        </Box>
      ),
    },
  ];
  const table = useClientTable(channels.data?.items ?? [], columns, 'channels', { field: 'routingProvider', order: 'asc' });
  return (
    <Box>
      {channels.error ? <Alert severity="error" sx={{ mb: 2 }}>{errorText(channels.error, translate)}</Alert> : null}
      <DataTable
        testId="channels-table"
        rowTestId="channel-row"
        columns={columns}
        rows={table.pageRows}
        rowKey={(c) => c.id}
        loading={channels.loading}
        sort={table.sort}
        onSort={table.toggleSort}
        pagination={table.pagination}
        toolbar={
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, px: 2, py: 1, borderBottom: 1, borderColor: 'divider' }}>
            <Typography variant="body2" color="text.secondary" sx={{ flex: 1 }}>{translate('routing.channels.hint')}</Typography>
            <Button size="small" variant="outlined" startIcon={<SyncRoundedIcon />} onClick={() => void sync()} data-testid="channels-sync">{translate('routing.channels.sync')}</Button>
          </Box>
        }
        empty={<NoResults icon={<LanRoundedIcon />} title={translate('routing.channels.empty')} />}
      />
    </Box>
  );
};

/** /superadmin/vendors: the providers messages leave through, and their channels (spec 3 Vendor, Channel). */
export const VendorsPage = () => {
  const translate = useTranslate();
  const superAdmin = useIsSuperAdmin();
  const [tab, setTab] = useState<'vendors' | 'channels'>('vendors');
  if (!superAdmin) return <Alert severity="warning">{translate('routing.superAdminOnly')}</Alert>;
  return (
    <Box sx={pageRoot(1360)} data-testid="vendors-page">
      <PageHeading title={translate('routing.vendors.title')} subtitle={translate('routing.vendors.subtitle')} icon={<StorefrontRoundedIcon />} />
      <Tabs value={tab} onChange={(_e, v: 'vendors' | 'channels') => setTab(v)} sx={{ mb: 2.5, borderBottom: 1, borderColor: 'divider' }}>
        <Tab value="vendors" label={translate('routing.vendors.tab')} data-testid="tab-vendors" />
        <Tab value="channels" label={translate('routing.channels.tab')} data-testid="tab-channels" />
      </Tabs>
      {tab === 'vendors' ? <VendorsPanel /> : <ChannelsPanel />}
    </Box>
  );
};
