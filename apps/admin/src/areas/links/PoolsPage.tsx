import AddRoundedIcon from '@mui/icons-material/AddRounded';
import DeleteOutlineRoundedIcon from '@mui/icons-material/DeleteOutlineRounded';
import EditRoundedIcon from '@mui/icons-material/EditRounded';
import WorkspacesRoundedIcon from '@mui/icons-material/WorkspacesRounded';
import InfoOutlinedIcon from '@mui/icons-material/InfoOutlined';
import LinkOffRoundedIcon from '@mui/icons-material/LinkOffRounded';
import { Alert, Autocomplete, Box, Button, Chip, MenuItem, Table, TableBody, TableCell, TableHead, TableRow, TextField, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { isApiError } from '../../providers/http';
import { GatedButton, GatedIconButton } from '../../ui/Gated';
import { AppModal } from '../../ui/modal/AppModal';
import { ConfirmDialog } from '../../ui/modal/ConfirmDialog';
import { FormDialog } from '../../ui/modal/FormDialog';
import { PageHeading } from '../../ui/PageHeading';
import { useCan } from '../../ui/permissions';
import { DataTable, NoResults, type Column } from '../../ui/table/DataTable';
import { useClientTable } from '../../ui/table/useTable';
import { useApi } from '../../ui/useApi';
import { linksApi, P } from './api';
import { DomainDistribution, type Domain, type DomainOption, type DomainPool } from './types';
import { Ctr, DomainStateChip, Figure, mono } from './widgets';

const errText = (e: unknown) => (isApiError(e) ? (e.body?.message ?? e.message) : String(e));

/** Spec 2: create pool (and edit): name, description, distribution (10 spread evenly, 1 one by one), domains in order. */
const PoolDialog = ({ open, pool, onClose, onSaved }: { open: boolean; pool: DomainPool | null; onClose: () => void; onSaved: () => void }) => {
  const translate = useTranslate();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [distribution, setDistribution] = useState<number>(DomainDistribution.SpreadEvenly);
  const [domains, setDomains] = useState<DomainOption[]>([]);
  const [options, setOptions] = useState<DomainOption[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [touched, setTouched] = useState(false);
  useEffect(() => {
    if (!open) return;
    setName(pool?.name ?? '');
    setDescription(pool?.description ?? '');
    setDistribution(pool?.distribution ?? DomainDistribution.SpreadEvenly);
    setDomains(pool?.domains ?? []);
    setError(null);
    setTouched(false);
    void linksApi.domainsDropdown().then((r) => setOptions(r.items), () => setOptions([]));
  }, [open, pool]);
  return (
    <FormDialog
      open={open}
      onClose={onClose}
      size="m"
      title={translate(pool ? 'links.pools.editTitle' : 'links.pools.createTitle')}
      testId="pool-dialog"
      busy={busy}
      error={error}
      submitLabel={translate('links.actions.save')}
      submitTestId="pool-save"
      onSubmit={() => {
        setTouched(true);
        if (!name.trim()) return;
        setBusy(true);
        const body = { name: name.trim(), description, distribution, domains: domains.map((d) => d.id) };
        void (pool ? linksApi.updatePool(pool.id, body) : linksApi.createPool(body)).then(
          () => {
            setBusy(false);
            onSaved();
          },
          (e: unknown) => {
            setBusy(false);
            setError(errText(e));
          },
        );
      }}
    >
      <Box sx={{ display: 'grid', gap: 2 }}>
        <TextField label={translate('links.fields.poolName')} value={name} onChange={(e) => setName(e.target.value)} error={touched && !name.trim()} helperText={touched && !name.trim() ? translate('errors.client.required', { _: 'Required' }) : ' '} slotProps={{ htmlInput: { 'data-testid': 'pool-name' } }} />
        <TextField label={translate('links.fields.description')} value={description} onChange={(e) => setDescription(e.target.value)} multiline minRows={2} />
        <TextField select label={translate('links.fields.distribution')} value={distribution} onChange={(e) => setDistribution(Number(e.target.value))} slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'pool-distribution' } as object } }}>
          <MenuItem value={DomainDistribution.SpreadEvenly} data-testid="distribution-10">{translate('links.distribution.10')}</MenuItem>
          <MenuItem value={DomainDistribution.OneByOne} data-testid="distribution-1">{translate('links.distribution.1')}</MenuItem>
        </TextField>
        <Autocomplete
          multiple
          options={options}
          value={domains}
          getOptionLabel={(o) => o.name}
          isOptionEqualToValue={(a, b) => a.id === b.id}
          onChange={(_, v) => setDomains(v)}
          renderTags={(value, getTagProps) => value.map((o, i) => <Chip {...getTagProps({ index: i })} key={o.id} size="small" label={o.name} sx={mono} />)}
          renderInput={(params) => <TextField {...params} label={translate('links.pools.domains')} slotProps={{ htmlInput: { ...params.inputProps, 'data-testid': 'pool-domains' } }} />}
        />
      </Box>
    </FormDialog>
  );
};

/** Spec 2: pool info: the pool's domains in order, with state, usages and CTR; a domain can be taken out. */
const PoolInfoModal = ({ pool, onClose, onChanged }: { pool: DomainPool | null; onClose: () => void; onChanged: () => void }) => {
  const translate = useTranslate();
  const notify = useNotify();
  const info = useApi(() => (pool ? linksApi.poolDomains(pool.id) : Promise.resolve({ items: [] as Domain[], total: 0 })), [pool?.id], !!pool);
  return (
    <AppModal open={!!pool} onClose={onClose} size="l" title={pool?.name ?? ''} subtitle={pool ? `${translate(`links.distribution.${pool.distribution}`)} · ${pool.description}` : ''} testId="pool-info" actions={<Button onClick={onClose}>{translate('ui.actions.close')}</Button>}>
      {pool && (
        <Box sx={{ display: 'flex', gap: 1.5, mb: 2, flexWrap: 'wrap' }}>
          <Figure label={translate('links.pools.totalDomains')} value={`${pool.validDomains} / ${pool.totalDomains}`} />
          <Figure label={translate('links.fields.usages')} value={pool.usages.toLocaleString()} />
          <Figure label={translate('links.fields.ctr')} value={<Ctr value={pool.ctr} usages={pool.usages} />} />
        </Box>
      )}
      {pool && pool.validDomains === 0 ? <Alert severity="warning" sx={{ mb: 2 }}>{translate('links.pools.noValid')}</Alert> : null}
      <Table size="small" data-testid="pool-info-domains">
        <TableHead>
          <TableRow>
            <TableCell>{translate('links.fields.domain')}</TableCell>
            <TableCell>{translate('links.fields.state')}</TableCell>
            <TableCell align="right">{translate('links.fields.usages')}</TableCell>
            <TableCell align="right">{translate('links.fields.ctr')}</TableCell>
            <TableCell />
          </TableRow>
        </TableHead>
        <TableBody>
          {(info.data?.items ?? []).map((d) => (
            <TableRow key={d.id} data-testid="pool-info-domain">
              <TableCell sx={mono}>{d.name}</TableCell>
              <TableCell><DomainStateChip state={d.state} /></TableCell>
              <TableCell align="right">{d.totalUsages.toLocaleString()}</TableCell>
              <TableCell align="right"><Ctr value={d.ctr} usages={d.totalUsages} /></TableCell>
              <TableCell align="right">
                <GatedIconButton
                  permission={P.DomainAddEdit}
                  title={translate('links.pools.removeDomain')}
                  onClick={() =>
                    pool &&
                    void linksApi.removeFromPool(pool.id, d.id).then(
                      () => {
                        void info.reload();
                        onChanged();
                      },
                      (e: unknown) => notify(errText(e), { type: 'error' }),
                    )
                  }
                >
                  <LinkOffRoundedIcon fontSize="small" />
                </GatedIconButton>
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </AppModal>
  );
};

/** /domain-pools: pools of domains with their distribution, usages and CTR (spec 2, 3, 9), the pools dashboard. */
export const PoolsPage = () => {
  const translate = useTranslate();
  const notify = useNotify();
  const can = useCan();
  const allowed = can(P.DomainView);
  const list = useApi(() => linksApi.pools(), [], allowed);
  const dashboard = useApi(() => linksApi.poolsDashboard(), [], allowed);
  const [dialog, setDialog] = useState<{ pool: DomainPool | null } | null>(null);
  const [info, setInfo] = useState<DomainPool | null>(null);
  const [removing, setRemoving] = useState<DomainPool | null>(null);
  const reload = async () => {
    await Promise.all([list.refresh(), dashboard.refresh()]);
  };

  const columns: Column<DomainPool>[] = [
    { key: 'name', label: translate('links.fields.poolName'), sortable: true, sortValue: (p) => p.name.toLowerCase(), render: (p) => <Typography sx={{ fontWeight: 600 }} data-testid="pool-row-name">{p.name}</Typography> },
    { key: 'distribution', label: translate('links.fields.distribution'), render: (p) => translate(`links.distribution.${p.distribution}`) },
    { key: 'domains', label: translate('links.pools.totalDomains'), align: 'right', sortable: true, sortValue: (p) => p.totalDomains, render: (p) => <span data-testid="pool-row-domains">{`${p.validDomains} / ${p.totalDomains}`}</span> },
    { key: 'usages', label: translate('links.fields.usages'), align: 'right', sortable: true, sortValue: (p) => p.usages, render: (p) => p.usages.toLocaleString() },
    { key: 'ctr', label: translate('links.fields.ctr'), align: 'right', sortable: true, sortValue: (p) => p.ctr, render: (p) => <Ctr value={p.ctr} usages={p.usages} /> },
    {
      key: 'actions',
      label: '',
      align: 'right',
      render: (p) => (
        <Box sx={{ display: 'flex', justifyContent: 'flex-end' }}>
          <GatedIconButton permission={P.DomainView} title={translate('links.pools.info')} onClick={() => setInfo(p)} data-testid="pool-info-open">
            <InfoOutlinedIcon fontSize="small" />
          </GatedIconButton>
          <GatedIconButton permission={P.DomainAddEdit} title={translate('links.actions.edit')} onClick={() => setDialog({ pool: p })} data-testid="pool-edit">
            <EditRoundedIcon fontSize="small" />
          </GatedIconButton>
          <GatedIconButton permission={P.DomainRemove} title={translate('links.actions.delete')} onClick={() => setRemoving(p)} data-testid="pool-delete">
            <DeleteOutlineRoundedIcon fontSize="small" />
          </GatedIconButton>
        </Box>
      ),
    },
  ];
  const table = useClientTable(list.data?.items ?? [], columns, 'domain-pools', { field: 'name', order: 'asc' });

  if (!allowed) {
    return (
      <Box>
        <PageHeading title={translate('links.pools.title')} icon={<WorkspacesRoundedIcon />} />
        <Alert severity="warning">{translate('ui.permission.missing', { permission: P.DomainView })}</Alert>
      </Box>
    );
  }
  const dash = dashboard.data;
  return (
    <Box sx={{ maxWidth: 1280 }} data-testid="pools-page">
      <PageHeading
        title={translate('links.pools.title')}
        subtitle={translate('links.pools.subtitle')}
        icon={<WorkspacesRoundedIcon />}
        actions={
          <GatedButton permission={P.DomainAddEdit} variant="contained" startIcon={<AddRoundedIcon />} onClick={() => setDialog({ pool: null })} data-testid="new-pool">
            {translate('links.pools.create')}
          </GatedButton>
        }
      />
      {dash && (
        <Box sx={{ display: 'flex', gap: 1.5, flexWrap: 'wrap', mb: 2 }} data-testid="pools-dashboard">
          <Figure label={translate('links.pools.title')} value={dash.total} />
          <Figure label={translate('links.pools.domainsInPools')} value={dash.totalDomains} />
          <Figure label={translate('links.fields.usages')} value={dash.usages.toLocaleString()} />
          <Figure label={translate('links.fields.ctr')} value={<Ctr value={dash.ctr} usages={dash.usages} />} />
          <Figure label={translate('links.pools.withoutValid')} value={dash.withoutValidDomains} />
          <Figure label={translate('links.pools.max')} value={dash.maxDomainsPerPool} />
        </Box>
      )}
      {list.error ? <Alert severity="error" sx={{ mb: 2 }}>{errText(list.error)}</Alert> : null}
      <DataTable
        testId="pools-table"
        rowTestId="pool-row"
        columns={columns}
        rows={table.pageRows}
        rowKey={(p) => p.id}
        loading={list.loading}
        sort={table.sort}
        onSort={table.toggleSort}
        pagination={table.pagination}
        empty={<NoResults title={translate('links.pools.empty')} text={translate('links.pools.emptyText')} />}
      />
      <PoolDialog open={!!dialog} pool={dialog?.pool ?? null} onClose={() => setDialog(null)} onSaved={() => { setDialog(null); notify('links.notify.saved', { type: 'success' }); void reload(); }} />
      <PoolInfoModal pool={info} onClose={() => setInfo(null)} onChanged={() => void reload()} />
      <ConfirmDialog
        open={!!removing}
        danger
        title={translate('links.pools.deleteTitle')}
        text={translate('links.pools.deleteText', { name: removing?.name ?? '' })}
        onConfirm={() => {
          const p = removing;
          setRemoving(null);
          if (p) void linksApi.removePool(p.id).then(() => reload(), (e: unknown) => notify(errText(e), { type: 'error' }));
        }}
        onClose={() => setRemoving(null)}
      />
    </Box>
  );
};
