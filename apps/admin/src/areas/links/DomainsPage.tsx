import AddRoundedIcon from '@mui/icons-material/AddRounded';
import ArchiveOutlinedIcon from '@mui/icons-material/ArchiveOutlined';
import DnsRoundedIcon from '@mui/icons-material/DnsRounded';
import LanguageRoundedIcon from '@mui/icons-material/LanguageRounded';
import RefreshRoundedIcon from '@mui/icons-material/RefreshRounded';
import UnarchiveOutlinedIcon from '@mui/icons-material/UnarchiveOutlined';
import { Alert, Box, Checkbox, Tab, Tabs, TextField, Tooltip, Typography } from '@mui/material';
import { useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { isApiError } from '../../providers/http';
import { GatedButton, GatedIconButton } from '../../ui/Gated';
import { PageHeading } from '../../ui/PageHeading';
import { useCan } from '../../ui/permissions';
import { DataTable, NoResults, type Column } from '../../ui/table/DataTable';
import { useServerTable } from '../../ui/table/useTable';
import { useApi } from '../../ui/useApi';
import { useInterval } from '../../ui/useInterval';
import { linksApi, P } from './api';
import { AddDomainsDialog, AddToPoolDialog, BulkActionDialog, DnsInstructionsModal, GlobalLimitDialog } from './DomainDialogs';
import { formatDate } from '../contacts/widgets/format';
import { useDomainsRealtime } from './realtime';
import { DomainState, type Domain } from './types';
import { Ctr, DomainStateChip, Figure, mono } from './widgets';

const errText = (e: unknown) => (isApiError(e) ? (e.body?.message ?? e.message) : String(e));

/** /domains: the account's short-link domains (spec 2, 3, 4): state chips, DNS instructions, bulk actions, the archive view. */
export const DomainsPage = () => {
  const translate = useTranslate();
  const notify = useNotify();
  const can = useCan();
  const allowed = can(P.DomainView);
  const [archiveView, setArchiveView] = useState(false);
  const table = useServerTable<Domain>('domains', (q) => linksApi.domains(q), { field: 'id', order: 'desc' }, { archived: 0 }, allowed);
  const dashboard = useApi(() => linksApi.domainsDashboard(), [], allowed);
  const [selected, setSelected] = useState<number[]>([]);
  const [adding, setAdding] = useState(false);
  const [dns, setDns] = useState<Domain[] | null>(null);
  const [limit, setLimit] = useState(false);
  const [bulk, setBulk] = useState<number[] | null>(null);
  const [toPool, setToPool] = useState<number[] | null>(null);
  const [search, setSearch] = useState('');

  const refresh = async () => {
    await Promise.all([table.refresh(), dashboard.refresh()]);
  };
  // state changes made elsewhere (the DNS scheduler, minting reaching a limit, another user) arrive on the `domains`
  // topic; while the stream is down, pending domains are followed by polling until they settle
  const live = useDomainsRealtime(() => void refresh(), allowed);
  useInterval(() => void refresh(), 5000, !live && table.rows.some((d) => d.state === DomainState.Pending));

  const switchView = (archived: boolean) => {
    setArchiveView(archived);
    setSelected([]);
    table.setFilter({ archived: archived ? 1 : 0 });
  };
  const act = (p: Promise<unknown>, okMessage: string) =>
    void p.then(
      () => {
        notify(okMessage, { type: 'success' });
        void refresh();
      },
      (e: unknown) => notify(errText(e), { type: 'error' }),
    );

  const pageIds = table.rows.map((d) => d.id);
  const allChosen = pageIds.length > 0 && pageIds.every((id) => selected.includes(id));
  const columns: Column<Domain>[] = [
    {
      key: 'select',
      label: <Checkbox size="small" checked={allChosen} indeterminate={!allChosen && selected.length > 0} onChange={() => setSelected(allChosen ? [] : pageIds)} slotProps={{ input: { 'aria-label': 'select all' } }} />,
      width: 48,
      render: (d) => <Checkbox size="small" checked={selected.includes(d.id)} onChange={() => setSelected((s) => (s.includes(d.id) ? s.filter((x) => x !== d.id) : [...s, d.id]))} data-testid="domain-select" />,
    },
    { key: 'name', label: translate('links.fields.domain'), sortable: true, render: (d) => <Typography sx={{ ...mono, fontWeight: 600 }} data-testid="domain-row-name">{d.name}</Typography> },
    {
      key: 'state',
      label: translate('links.fields.state'),
      sortable: true,
      render: (d) => (
        <Tooltip title={d.declinedReason ?? ''}>
          <span>
            <DomainStateChip state={d.state} />
          </span>
        </Tooltip>
      ),
    },
    { key: 'type', label: translate('links.fields.type'), hideOnPhone: true, render: (d) => `${d.type}${d.ip ? ` · ${d.ip}` : ''}` },
    { key: 'totalUsages', label: translate('links.fields.usages'), sortable: true, align: 'right', render: (d) => d.totalUsages.toLocaleString() },
    { key: 'ctr', label: translate('links.fields.ctr'), sortable: true, align: 'right', render: (d) => <Ctr value={d.ctr} usages={d.totalUsages} /> },
    { key: 'messagesLimit', label: translate('links.fields.messagesLimit'), align: 'right', hideOnPhone: true, render: (d) => (d.messagesLimit === null ? '∞' : d.messagesLimit.toLocaleString()) },
    { key: 'lastUsedAt', label: translate('links.fields.lastUsedAt'), sortable: true, hideOnPhone: true, render: (d) => formatDate(d.lastUsedAt, translate('links.locale')) },
    {
      key: 'actions',
      label: '',
      align: 'right',
      render: (d) => (
        <Box sx={{ display: 'flex', justifyContent: 'flex-end' }}>
          <GatedIconButton permission={P.DomainView} title={translate('links.actions.dns')} onClick={() => setDns([d])} data-testid="domain-dns">
            <DnsRoundedIcon fontSize="small" />
          </GatedIconButton>
          {!archiveView && (
            <GatedIconButton permission={P.DomainAddEdit} title={translate('links.actions.check')} onClick={() => act(linksApi.check(d.id), 'links.notify.checked')} data-testid="domain-check" disabled={d.state === DomainState.Blocked}>
              <RefreshRoundedIcon fontSize="small" />
            </GatedIconButton>
          )}
          <GatedIconButton
            permission={P.DomainAddEdit}
            title={translate(archiveView ? 'links.actions.restore' : 'links.actions.archive')}
            onClick={() => act(linksApi.archive(d.id, !archiveView), archiveView ? 'links.notify.restored' : 'links.notify.archived')}
            data-testid={archiveView ? 'domain-restore' : 'domain-archive'}
          >
            {archiveView ? <UnarchiveOutlinedIcon fontSize="small" /> : <ArchiveOutlinedIcon fontSize="small" />}
          </GatedIconButton>
        </Box>
      ),
    },
  ];

  if (!allowed) {
    return (
      <Box>
        <PageHeading title={translate('links.domains.title')} icon={<LanguageRoundedIcon />} />
        <Alert severity="warning">{translate('ui.permission.missing', { permission: P.DomainView })}</Alert>
      </Box>
    );
  }

  const dash = dashboard.data;
  return (
    <Box sx={{ maxWidth: 1280 }} data-testid="domains-page" data-live={live ? 'true' : 'false'}>
      <PageHeading
        title={translate('links.domains.title')}
        subtitle={translate('links.domains.subtitle')}
        icon={<LanguageRoundedIcon />}
        actions={
          <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap' }}>
            <GatedButton permission={P.DomainAddEdit} variant="outlined" onClick={() => setLimit(true)} data-testid="global-limit">
              {translate('links.limit.button')}
            </GatedButton>
            <GatedButton permission={P.DomainAddEdit} variant="contained" startIcon={<AddRoundedIcon />} onClick={() => setAdding(true)} data-testid="add-domains">
              {translate('links.addDomains.button')}
            </GatedButton>
          </Box>
        }
      />
      {dash && (
        <Box sx={{ display: 'flex', gap: 1.5, flexWrap: 'wrap', mb: 2 }} data-testid="domains-dashboard">
          <Figure label={translate('links.dashboard.total')} value={dash.total} />
          <Figure label={translate('links.domainStates.1')} value={dash.byState['1'] ?? 0} testId="dashboard-configured" />
          <Figure label={translate('links.dashboard.waiting')} value={(dash.byState['0'] ?? 0) + (dash.byState['2'] ?? 0) + (dash.byState['3'] ?? 0)} />
          <Figure label={translate('links.dashboard.usages')} value={dash.totalUsages.toLocaleString()} />
          <Figure label={translate('links.fields.ctr')} value={<Ctr value={dash.ctr} usages={dash.totalUsages} />} />
          <Figure label={translate('links.fields.messagesLimit')} value={dash.messagesLimit === null ? '∞' : dash.messagesLimit.toLocaleString()} />
        </Box>
      )}
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, mb: 1, flexWrap: 'wrap' }}>
        <Tabs value={archiveView ? 1 : 0} onChange={(_, v: number) => switchView(v === 1)}>
          <Tab label={translate('links.domains.tabActive')} data-testid="domains-tab-active" />
          <Tab label={translate('links.domains.tabArchive')} data-testid="domains-tab-archive" />
        </Tabs>
        <TextField size="small" placeholder={translate('links.domains.search')} value={search} onChange={(e) => { setSearch(e.target.value); table.setFilter({ name: e.target.value || undefined }); }} sx={{ ml: 'auto', minWidth: 220 }} />
        {selected.length > 0 && (
          <Box sx={{ display: 'flex', gap: 1 }}>
            {!archiveView && (
              <GatedButton permission={P.DomainAddEdit} variant="outlined" onClick={() => setToPool(selected)} data-testid="add-to-pool">
                {translate('links.addToPool.button', { count: selected.length })}
              </GatedButton>
            )}
            <GatedButton permission={P.DomainAddEdit} variant="contained" color="secondary" onClick={() => setBulk(selected)} data-testid="bulk-action">
              {translate('links.bulk.button', { count: selected.length })}
            </GatedButton>
          </Box>
        )}
      </Box>
      {table.error ? <Alert severity="error" sx={{ mb: 2 }}>{errText(table.error)}</Alert> : null}
      <DataTable
        testId="domains-table"
        rowTestId="domain-row"
        columns={columns}
        rows={table.rows}
        rowKey={(d) => d.id}
        loading={table.loading}
        sort={table.sort}
        onSort={table.toggleSort}
        pagination={table.pagination}
        empty={<NoResults title={translate(archiveView ? 'links.domains.emptyArchive' : 'links.domains.empty')} text={archiveView ? undefined : translate('links.domains.emptyText')} />}
      />

      <AddDomainsDialog
        open={adding}
        onClose={() => setAdding(false)}
        onAdded={(added) => {
          setAdding(false);
          setDns(added);
          void refresh();
        }}
      />
      <DnsInstructionsModal domains={dns} onClose={() => setDns(null)} />
      <GlobalLimitDialog open={limit} onClose={() => setLimit(false)} onSaved={() => { setLimit(false); notify('links.notify.saved', { type: 'success' }); void refresh(); }} />
      <BulkActionDialog
        ids={bulk}
        archiveView={archiveView}
        onClose={() => setBulk(null)}
        onDone={(n) => {
          setBulk(null);
          setSelected([]);
          notify('links.notify.bulkDone', { type: 'success', messageArgs: { count: n } });
          void refresh();
        }}
      />
      <AddToPoolDialog
        ids={toPool}
        onClose={() => setToPool(null)}
        onDone={() => {
          setToPool(null);
          setSelected([]);
          notify('links.notify.pooled', { type: 'success' });
        }}
      />
    </Box>
  );
};
