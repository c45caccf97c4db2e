import AddRoundedIcon from '@mui/icons-material/AddRounded';
import BadgeRoundedIcon from '@mui/icons-material/BadgeRounded';
import DeleteOutlineRoundedIcon from '@mui/icons-material/DeleteOutlineRounded';
import EditRoundedIcon from '@mui/icons-material/EditRounded';
import MoreVertRoundedIcon from '@mui/icons-material/MoreVertRounded';
import { Alert, Box, Divider, IconButton, ListItemIcon, ListItemText, Menu, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { streamsApi } from '../api';
import { P, SenderApproval } from '../constants';
import { ApprovalChip, mono, useDateFormat } from '../labels';
import type { Sender } from '../types';
import { ConfirmDialog } from '../../../ui/modal/ConfirmDialog';
import { DataTable, NoResults, stop, type Column } from '../../../ui/table/DataTable';
import { errorText } from '../widgets/errors';
import { GatedButton, GatedMenuItem } from '../../../ui/Gated';
import { PageHeading } from '../../../ui/PageHeading';
import { useCan } from '../../../ui/permissions';
import { useServerTable } from '../../../ui/table/useTable';
import { SenderDialog } from './SenderDialog';
import { pageRoot } from '../widgets/page';
import { LoadErrorBanner, SearchField, TableToolbar, ToolbarSpacer, ToolbarTabs } from '../../../ui/table/TableToolbar';

const FILTERS = ['all', 'approved', 'pending', 'declined'] as const;
const FILTER_VALUE: Record<(typeof FILTERS)[number], number | undefined> = { all: undefined, approved: SenderApproval.Approved, pending: SenderApproval.Pending, declined: SenderApproval.Declined };

/** /senders: the account's sender IDs with their approval (pending, approved, declined with a reason). */
export const SendersPage = () => {
  const translate = useTranslate();
  const notify = useNotify();
  const can = useCan();
  const date = useDateFormat();
  const [tab, setTab] = useState<(typeof FILTERS)[number]>('all');
  const [search, setSearch] = useState('');
  const table = useServerTable<Sender>(
    'senders',
    (q) => streamsApi.senders({ page: q.page, perPage: q.perPage, sort: q.sort, filter: q.filter }),
    { field: 'id', order: 'desc' },
    {},
    can(P.SenderView),
  );
  const { setFilter } = table;
  useEffect(() => {
    const t = window.setTimeout(() => setFilter({ search: search.trim() || undefined }), 300);
    return () => window.clearTimeout(t);
  }, [search, setFilter]);

  const [dialog, setDialog] = useState<{ sender: Sender | null } | null>(null);
  const [menu, setMenu] = useState<{ sender: Sender; anchor: HTMLElement } | null>(null);
  const [removing, setRemoving] = useState<Sender | null>(null);
  const [busy, setBusy] = useState(false);

  const columns: Column<Sender>[] = [
    {
      key: 'name',
      label: translate('streams.senders.columns.name'),
      sortable: true,
      render: (s) => (
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5 }}>
          <Box sx={{ width: 34, height: 34, borderRadius: '9px', display: 'grid', placeItems: 'center', bgcolor: '#eef2ff', color: 'primary.main', flexShrink: 0, fontWeight: 700, fontSize: 13 }}>
            {s.value.slice(0, 2).toUpperCase()}
          </Box>
          <Typography sx={{ fontWeight: 600, fontSize: 14.5 }} noWrap data-testid="sender-row-name">
            {s.name}
          </Typography>
        </Box>
      ),
    },
    {
      key: 'value',
      label: translate('streams.senders.columns.senderId'),
      sortable: true,
      render: (s) => (
        <Box component="span" sx={{ ...mono, fontSize: 13.5, px: 1, py: 0.25, borderRadius: '6px', bgcolor: '#f2f4f7' }} data-testid="sender-row-value">
          {s.value}
        </Box>
      ),
    },
    { key: 'type', hideOnPhone: true, label: translate('streams.senders.columns.type'), sortable: true, render: (s) => <Typography variant="body2">{translate(`streams.senderType.${s.type}`, { _: s.type })}</Typography> },
    { key: 'country', hideOnPhone: true, label: translate('streams.senders.columns.country'), render: (s) => <Typography variant="body2" color={s.country ? 'text.primary' : 'text.secondary'}>{s.country ?? translate('streams.senders.anyCountry')}</Typography> },
    {
      key: 'approved',
      label: translate('streams.senders.columns.status'),
      sortable: true,
      render: (s) => (
        <Box>
          <ApprovalChip approved={s.approved} />
          {s.approved === SenderApproval.Declined && s.declinedReason && (
            <Typography variant="caption" color="error.main" sx={{ display: 'block', mt: 0.5, maxWidth: 260 }} data-testid="sender-declined-reason">
              {translate(`streams.declineReasons.${s.declinedReason}`, { _: s.declinedReason })}
            </Typography>
          )}
        </Box>
      ),
    },
    { key: 'createdAt', hideOnPhone: true, label: translate('streams.senders.columns.created'), sortable: true, render: (s) => <Typography variant="body2" color="text.secondary" noWrap>{date(s.createdAt)}</Typography> },
    {
      key: 'actions',
      label: '',
      align: 'right',
      width: 56,
      render: (s) => (
        <IconButton size="small" onClick={(e) => { stop(e); setMenu({ sender: s, anchor: e.currentTarget }); }} aria-label={translate('streams.ui.more')} data-testid="sender-menu">
          <MoreVertRoundedIcon fontSize="small" />
        </IconButton>
      ),
    },
  ];

  const remove = async () => {
    if (!removing) return;
    setBusy(true);
    try {
      await streamsApi.deleteSender(removing.id);
      notify('streams.senders.deleted', { type: 'success', messageArgs: { name: removing.value } });
      await table.reload();
    } catch (error) {
      notify(errorText(error, translate), { type: 'error' });
    } finally {
      setBusy(false);
      setRemoving(null);
    }
  };

  if (!can(P.SenderView)) {
    return (
      <Box>
        <PageHeading title={translate('streams.senders.title')} icon={<BadgeRoundedIcon />} />
        <Alert severity="warning">{translate('streams.ui.missingPermission', { permission: P.SenderView })}</Alert>
      </Box>
    );
  }

  return (
    <Box sx={pageRoot(1280)} data-testid="senders-page">
      <PageHeading
        title={translate('streams.senders.title')}
        subtitle={translate('streams.senders.subtitle')}
        icon={<BadgeRoundedIcon />}
        actions={
          <GatedButton permission={P.SenderAddEdit} variant="contained" startIcon={<AddRoundedIcon />} onClick={() => setDialog({ sender: null })} data-testid="add-sender">
            {translate('streams.senders.add')}
          </GatedButton>
        }
      />
      <LoadErrorBanner message={table.error ? errorText(table.error, translate) : null} />
      <DataTable
        testId="senders-table"
        rowTestId="sender-row"
        columns={columns}
        rows={table.rows}
        rowKey={(s) => s.id}
        loading={table.loading}
        sort={table.sort}
        onSort={table.toggleSort}
        pagination={table.pagination}
        toolbar={
          <TableToolbar>
            <ToolbarTabs
              value={tab}
              onChange={(v) => {
                setTab(v);
                table.setFilter({ approved: FILTER_VALUE[v] });
              }}
              tabs={FILTERS.map((f) => ({ value: f, label: translate(`streams.senders.filters.${f}`), testId: `senders-tab-${f}` }))}
            />
            <ToolbarSpacer />
            <SearchField value={search} onChange={setSearch} placeholder={translate('streams.senders.search')} sx={{ width: 280, mb: 1 }} />
          </TableToolbar>
        }
        empty={
          <NoResults
            icon={<BadgeRoundedIcon />}
            title={translate(search || tab !== 'all' ? 'streams.senders.noMatch' : 'streams.senders.empty')}
            text={search || tab !== 'all' ? undefined : translate(can(P.SenderAddEdit) ? 'streams.senders.emptyText' : 'streams.noData.missingAddPermission')}
          />
        }
      />

      <Menu anchorEl={menu?.anchor} open={!!menu} onClose={() => setMenu(null)} slotProps={{ paper: { sx: { minWidth: 200 } } }}>
        {menu && (
          <GatedMenuItem permission={P.SenderAddEdit} onClick={() => { setDialog({ sender: menu.sender }); setMenu(null); }}>
            <ListItemIcon><EditRoundedIcon fontSize="small" /></ListItemIcon>
            <ListItemText>{translate('streams.senders.edit')}</ListItemText>
          </GatedMenuItem>
        )}
        {menu && <Divider />}
        {menu && (
          <GatedMenuItem permission={P.SenderRemove} onClick={() => { setRemoving(menu.sender); setMenu(null); }} sx={{ color: 'error.main' }} data-testid="sender-delete">
            <ListItemIcon><DeleteOutlineRoundedIcon fontSize="small" color="error" /></ListItemIcon>
            <ListItemText>{translate('streams.senders.delete')}</ListItemText>
          </GatedMenuItem>
        )}
      </Menu>

      <SenderDialog
        open={!!dialog}
        sender={dialog?.sender ?? null}
        onClose={() => setDialog(null)}
        onSaved={(s) => {
          notify(dialog?.sender ? 'streams.senders.saved' : 'streams.notification.senders.added', { type: 'success', messageArgs: { name: s.value } });
          setDialog(null);
          void table.reload();
        }}
      />
      <ConfirmDialog
        open={!!removing}
        busy={busy}
        danger
        title={translate('streams.senders.confirmDelete.title')}
        text={removing ? translate('streams.senders.confirmDelete.text', { name: removing.value }) : ''}
        confirmLabel={translate('streams.senders.confirmDelete.ok')}
        onConfirm={() => void remove()}
        onClose={() => setRemoving(null)}
      />
    </Box>
  );
};
