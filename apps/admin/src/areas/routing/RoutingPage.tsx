import AddRoundedIcon from '@mui/icons-material/AddRounded';
import AltRouteRoundedIcon from '@mui/icons-material/AltRouteRounded';
import ArrowForwardRoundedIcon from '@mui/icons-material/ArrowForwardRounded';
import EditRoundedIcon from '@mui/icons-material/EditRounded';
import PublicRoundedIcon from '@mui/icons-material/PublicRounded';
import SearchRoundedIcon from '@mui/icons-material/SearchRounded';
import { Alert, Autocomplete, Box, Button, Chip, CircularProgress, IconButton, InputAdornment, Paper, Tab, Tabs, TextField, ToggleButton, ToggleButtonGroup, Tooltip, Typography } from '@mui/material';
import { useMemo, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { mono, useDateFormat } from '../streams/labels';
import { DataTable, NoResults, type Column } from '../../ui/table/DataTable';
import { errorText } from '../streams/widgets/errors';
import { PageHeading } from '../../ui/PageHeading';
import { useIsSuperAdmin } from '../../ui/permissions';
import { useApi } from '../../ui/useApi';
import { useClientTable, usePageSize } from '../../ui/table/useTable';
import { routingApi } from './api';
import { SERVICE_TYPES, type ServiceType } from './constants';
import { RouteDialog } from './RouteDialog';
import type { Country, CountryRoute, CurrentRouting, CustomerOption, RoutingHistoryRow, Vendor } from './types';
import { pageRoot } from '../streams/widgets/page';

type TabKey = 'routes' | 'check' | 'history';

/** Vendor names of a route, in failover order, as arrows. */
const VendorChain = ({ ids, vendors }: { ids: string[] | null; vendors: Map<string, Vendor> }) => {
  const translate = useTranslate();
  if (!ids || ids.length === 0) return <Typography variant="body2" color="text.secondary">{translate('routing.routes.none')}</Typography>;
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 0.5, flexWrap: 'wrap' }}>
      {ids.map((id, i) => (
        <Box key={`${id}-${i}`} sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.5 }}>
          {i > 0 && <ArrowForwardRoundedIcon sx={{ fontSize: 14, color: 'text.disabled' }} />}
          <Chip size="small" label={vendors.get(id)?.name ?? `#${id}`} color={i === 0 ? 'primary' : 'default'} variant={i === 0 ? 'filled' : 'outlined'} sx={{ height: 24 }} data-testid="route-chain-vendor" />
        </Box>
      ))}
    </Box>
  );
};

const RoutesPanel = ({ customer, serviceType, countries, vendors }: { customer: CustomerOption | null; serviceType: ServiceType; countries: Country[]; vendors: Vendor[] }) => {
  const translate = useTranslate();
  const notify = useNotify();
  const date = useDateFormat();
  const [search, setSearch] = useState('');
  const [editing, setEditing] = useState<{ iso2: string | null; vendorIds: string[] } | null>(null);
  const routes = useApi(() => (customer ? routingApi.customerRoutes(customer.id) : routingApi.globalRoutes()), [customer?.id]);
  const byVendor = useMemo(() => new Map(vendors.map((v) => [String(v.id), v])), [vendors]);
  const names = useMemo(() => new Map(countries.map((c) => [c.iso2, c.name])), [countries]);
  const rows = useMemo(
    () =>
      (routes.data?.items ?? [])
        .filter((r) => r.serviceType === serviceType)
        .filter((r) => !search.trim() || `${names.get(r.iso2) ?? ''} ${r.iso2}`.toLowerCase().includes(search.trim().toLowerCase())),
    [routes.data, serviceType, search, names],
  );
  const taken = useMemo(() => new Set((routes.data?.items ?? []).filter((r) => r.serviceType === serviceType).map((r) => r.iso2)), [routes.data, serviceType]);
  const columns: Column<CountryRoute>[] = [
    {
      key: 'country',
      label: translate('routing.routes.country'),
      sortable: true,
      sortValue: (r) => names.get(r.iso2) ?? r.iso2,
      render: (r) => (
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.25 }}>
          <Box sx={{ ...mono, fontSize: 12, fontWeight: 700, width: 32, height: 24, borderRadius: '6px', display: 'grid', placeItems: 'center', bgcolor: '#eef2ff', color: 'primary.main' }}>{r.iso2}</Box>
          <Typography variant="body2" sx={{ fontWeight: 600 }} data-testid="route-row-country">{names.get(r.iso2) ?? r.iso2}</Typography>
        </Box>
      ),
    },
    { key: 'vendors', label: translate('routing.routes.vendors'), render: (r) => <VendorChain ids={r.vendorIds} vendors={byVendor} /> },
    {
      key: 'updatedAt',
      label: translate('routing.routes.updated'),
      sortable: true,
      sortValue: (r) => r.updatedAt,
      render: (r) => (
        <Box>
          <Typography variant="body2" color="text.secondary" noWrap>{date(r.updatedAt)}</Typography>
          {r.updatedBy && <Typography variant="caption" color="text.secondary">{r.updatedBy}</Typography>}
        </Box>
      ),
    },
    {
      key: 'actions',
      label: '',
      align: 'right',
      width: 56,
      render: (r) => (
        <Tooltip title={translate('routing.routes.editTitle')}>
          <IconButton size="small" onClick={() => setEditing({ iso2: r.iso2, vendorIds: r.vendorIds })} data-testid="route-edit" aria-label={translate('routing.routes.editTitle')}>
            <EditRoundedIcon fontSize="small" />
          </IconButton>
        </Tooltip>
      ),
    },
  ];
  const table = useClientTable(rows, columns, 'countryRoutes', { field: 'country', order: 'asc' });
  const scopeLabel = customer ? customer.name : translate('routing.scope.global');

  const save = async (iso2: string, vendorIds: string[]) => {
    if (customer) await routingApi.setCustomerRoute({ customerId: String(customer.id), iso2, serviceType, vendorIds });
    else await routingApi.setGlobalRoute({ iso2, serviceType, vendorIds });
    notify(vendorIds.length ? 'routing.routes.saved' : 'routing.routes.removed', { type: 'success', messageArgs: { country: names.get(iso2) ?? iso2 } });
    setEditing(null);
    await routes.refresh();
  };

  return (
    <Box>
      {routes.error ? <Alert severity="error" sx={{ mb: 2 }}>{errorText(routes.error, translate)}</Alert> : null}
      <DataTable
        testId="routes-table"
        rowTestId="route-row"
        columns={columns}
        rows={table.pageRows}
        rowKey={(r) => r.id}
        loading={routes.loading}
        sort={table.sort}
        onSort={table.toggleSort}
        pagination={table.pagination}
        toolbar={
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, px: 2, py: 1, borderBottom: 1, borderColor: 'divider', flexWrap: 'wrap' }}>
            <TextField size="small" value={search} onChange={(e) => setSearch(e.target.value)} placeholder={translate('routing.routes.search')} sx={{ width: 240 }} slotProps={{ input: { startAdornment: <InputAdornment position="start"><SearchRoundedIcon fontSize="small" /></InputAdornment> } }} />
            <Typography variant="caption" color="text.secondary" sx={{ flex: 1, minWidth: 200 }}>{translate(customer ? 'routing.routes.customerHint' : 'routing.routes.globalHint')}</Typography>
            <Button size="small" variant="contained" startIcon={<AddRoundedIcon />} onClick={() => setEditing({ iso2: null, vendorIds: [] })} data-testid="route-add">
              {translate('routing.routes.add')}
            </Button>
          </Box>
        }
        empty={<NoResults icon={<PublicRoundedIcon />} title={translate(search ? 'routing.routes.noMatch' : 'routing.routes.empty')} text={search ? undefined : translate('routing.routes.emptyText')} />}
      />
      <RouteDialog
        open={!!editing}
        iso2={editing?.iso2 ?? null}
        initial={editing?.vendorIds ?? []}
        serviceType={serviceType}
        scopeLabel={scopeLabel}
        countries={countries}
        taken={taken}
        vendors={vendors}
        onClose={() => setEditing(null)}
        onSave={save}
      />
    </Box>
  );
};

const SOURCE_TONE: Record<string, 'primary' | 'success' | 'default' | 'warning'> = { account: 'success', global: 'primary', channels: 'default', none: 'warning' };

const CheckPanel = ({ customer, serviceType, countries }: { customer: CustomerOption | null; serviceType: ServiceType; countries: Country[] }) => {
  const translate = useTranslate();
  const [country, setCountry] = useState<Country | null>(null);
  const [result, setResult] = useState<CurrentRouting | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      setResult(await routingApi.currentRouting({ customerId: customer?.id, iso2: country?.iso2, serviceType }));
    } catch (e) {
      setError(errorText(e, translate));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Paper sx={{ p: 2.5 }}>
      <Typography sx={{ fontWeight: 700 }}>{translate('routing.check.title')}</Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>{translate('routing.check.text', { scope: customer?.name ?? translate('routing.scope.global'), type: translate(`routing.serviceTypes.${serviceType}`) })}</Typography>
      <Box sx={{ display: 'flex', gap: 1.5, alignItems: 'flex-start', flexWrap: 'wrap' }}>
        <Autocomplete
          sx={{ width: 320 }}
          size="small"
          options={countries}
          value={country}
          onChange={(_e, c) => setCountry(c)}
          getOptionLabel={(c) => `${c.name} (${c.iso2})`}
          isOptionEqualToValue={(a, b) => a.iso2 === b.iso2}
          renderInput={(params) => <TextField {...params} label={translate('routing.routes.country')} slotProps={{ htmlInput: { ...params.inputProps, 'data-testid': 'check-country' } }} />}
        />
        <Button variant="contained" onClick={() => void run()} disabled={busy} data-testid="check-run" startIcon={busy ? <CircularProgress size={16} color="inherit" /> : <AltRouteRoundedIcon />}>
          {translate('routing.check.run')}
        </Button>
      </Box>
      {error && <Alert severity="error" sx={{ mt: 2 }}>{error}</Alert>}
      {result && (
        <Box sx={{ mt: 2.5, p: 2, borderRadius: '10px', bgcolor: '#f8fafc', border: 1, borderColor: 'divider' }} data-testid="check-result">
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 1.5 }}>
            <Typography variant="body2" color="text.secondary">{translate('routing.check.source')}</Typography>
            <Chip size="small" color={SOURCE_TONE[result.source] ?? 'default'} label={translate(`routing.check.sources.${result.source}`, { _: result.source })} />
          </Box>
          {result.vendors.length === 0 ? (
            <Alert severity="warning">{translate('routing.check.noVendor')}</Alert>
          ) : (
            <VendorChain ids={result.vendors.map((v) => String(v.id))} vendors={new Map(result.vendors.map((v) => [String(v.id), v]))} />
          )}
        </Box>
      )}
    </Paper>
  );
};

const HistoryPanel = ({ customer, vendors, countries, customers }: { customer: CustomerOption | null; vendors: Vendor[]; countries: Country[]; customers: CustomerOption[] }) => {
  const translate = useTranslate();
  const date = useDateFormat();
  const [page, setPage] = useState(1);
  const [perPage, setPerPage] = usePageSize('routingHistory');
  const history = useApi(() => routingApi.history({ page, perPage, customerId: customer?.id }), [page, perPage, customer?.id]);
  const byVendor = useMemo(() => new Map(vendors.map((v) => [String(v.id), v])), [vendors]);
  const names = useMemo(() => new Map(countries.map((c) => [c.iso2, c.name])), [countries]);
  const accounts = useMemo(() => new Map(customers.map((c) => [String(c.id), c.name])), [customers]);
  const columns: Column<RoutingHistoryRow>[] = [
    { key: 'changedAt', label: translate('routing.history.when'), render: (r) => <Typography variant="body2" noWrap>{date(r.changedAt)}</Typography> },
    { key: 'scope', label: translate('routing.history.scope'), render: (r) => (r.accountId ? accounts.get(r.accountId) ?? `#${r.accountId}` : <Chip size="small" label={translate('routing.scope.global')} sx={{ height: 22 }} />) },
    { key: 'country', label: translate('routing.routes.country'), render: (r) => `${names.get(r.iso2) ?? r.iso2} (${r.iso2})` },
    { key: 'serviceType', label: translate('routing.vendors.serviceType'), render: (r) => translate(`routing.serviceTypes.${r.serviceType}`, { _: r.serviceType }) },
    {
      key: 'change',
      label: translate('routing.history.change'),
      render: (r) => (
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
          <Box sx={{ opacity: 0.65 }}><VendorChain ids={r.previousVendorIds} vendors={byVendor} /></Box>
          <ArrowForwardRoundedIcon fontSize="small" sx={{ color: 'text.secondary' }} />
          <VendorChain ids={r.vendorIds} vendors={byVendor} />
        </Box>
      ),
    },
    { key: 'changedBy', label: translate('routing.history.by'), render: (r) => <Typography variant="body2" color="text.secondary">{r.changedBy ?? '—'}</Typography> },
  ];
  return (
    <Box>
      {history.error ? <Alert severity="error" sx={{ mb: 2 }}>{errorText(history.error, translate)}</Alert> : null}
      <DataTable
        testId="history-table"
        columns={columns}
        rows={history.data?.items ?? []}
        rowKey={(r) => r.id}
        loading={history.loading}
        pagination={{ page, perPage, total: history.data?.total ?? 0, onPageChange: setPage, onPerPageChange: (n) => { setPerPage(n); setPage(1); } }}
        empty={<NoResults icon={<AltRouteRoundedIcon />} title={translate('routing.history.empty')} />}
      />
    </Box>
  );
};

/** /superadmin/routing: country routes per service type, globally or for one account; their history; a route check. */
export const RoutingPage = () => {
  const translate = useTranslate();
  const superAdmin = useIsSuperAdmin();
  const [tab, setTab] = useState<TabKey>('routes');
  const [serviceType, setServiceType] = useState<ServiceType>('sms');
  const [scope, setScope] = useState<'global' | 'customer'>('global');
  const [customer, setCustomer] = useState<CustomerOption | null>(null);
  const countries = useApi(() => routingApi.countries(), [], superAdmin);
  const vendors = useApi(() => routingApi.vendors(), [], superAdmin);
  const customers = useApi(() => routingApi.customers(), [], superAdmin);
  if (!superAdmin) return <Alert severity="warning">{translate('routing.superAdminOnly')}</Alert>;
  const chosen = scope === 'customer' ? customer : null;
  const countryList = countries.data?.items ?? [];
  const vendorList = vendors.data?.items ?? [];

  return (
    <Box sx={pageRoot(1360)} data-testid="routing-page">
      <PageHeading title={translate('routing.routes.title')} subtitle={translate('routing.routes.subtitle')} icon={<AltRouteRoundedIcon />} />
      <Paper sx={{ p: 2, mb: 2.5, display: 'flex', alignItems: 'center', gap: 2, flexWrap: 'wrap' }}>
        <Box>
          <Typography variant="caption" color="text.secondary" sx={{ display: 'block', mb: 0.5, fontWeight: 600 }}>{translate('routing.scope.label')}</Typography>
          <ToggleButtonGroup size="small" exclusive value={scope} onChange={(_e, v: 'global' | 'customer' | null) => v && setScope(v)}>
            <ToggleButton value="global" data-testid="scope-global">{translate('routing.scope.global')}</ToggleButton>
            <ToggleButton value="customer" data-testid="scope-customer">{translate('routing.scope.customer')}</ToggleButton>
          </ToggleButtonGroup>
        </Box>
        {scope === 'customer' && (
          <Autocomplete
            sx={{ width: 300, mt: 2.25 }}
            size="small"
            options={customers.data?.items ?? []}
            value={customer}
            onChange={(_e, c) => setCustomer(c)}
            getOptionLabel={(c) => `${c.name} (#${c.id})`}
            isOptionEqualToValue={(a, b) => a.id === b.id}
            renderInput={(params) => <TextField {...params} label={translate('routing.scope.account')} />}
          />
        )}
        <Box sx={{ flex: 1 }} />
        <Box>
          <Typography variant="caption" color="text.secondary" sx={{ display: 'block', mb: 0.5, fontWeight: 600 }}>{translate('routing.vendors.serviceType')}</Typography>
          <ToggleButtonGroup size="small" exclusive value={serviceType} onChange={(_e, v: ServiceType | null) => v && setServiceType(v)}>
            {SERVICE_TYPES.map((s) => <ToggleButton key={s} value={s} data-testid={`service-${s}`}>{translate(`routing.serviceTypes.${s}`)}</ToggleButton>)}
          </ToggleButtonGroup>
        </Box>
      </Paper>
      <Tabs value={tab} onChange={(_e, v: TabKey) => setTab(v)} sx={{ mb: 2.5, borderBottom: 1, borderColor: 'divider' }}>
        <Tab value="routes" label={translate('routing.tabs.routes')} data-testid="tab-routes" />
        <Tab value="check" label={translate('routing.tabs.check')} data-testid="tab-check" />
        <Tab value="history" label={translate('routing.tabs.history')} data-testid="tab-history" />
      </Tabs>
      {scope === 'customer' && !customer ? (
        <Alert severity="info">{translate('routing.scope.pickAccount')}</Alert>
      ) : tab === 'routes' ? (
        <RoutesPanel key={`${chosen?.id ?? 'global'}`} customer={chosen} serviceType={serviceType} countries={countryList} vendors={vendorList} />
      ) : tab === 'check' ? (
        <CheckPanel customer={chosen} serviceType={serviceType} countries={countryList} />
      ) : (
        <HistoryPanel customer={chosen} vendors={vendorList} countries={countryList} customers={customers.data?.items ?? []} />
      )}
    </Box>
  );
};
