import AddRoundedIcon from '@mui/icons-material/AddRounded';
import DeleteOutlineRoundedIcon from '@mui/icons-material/DeleteOutlineRounded';
import FileDownloadOutlinedIcon from '@mui/icons-material/FileDownloadOutlined';
import FilterAltOutlinedIcon from '@mui/icons-material/FilterAltOutlined';
import ListAltRoundedIcon from '@mui/icons-material/ListAltRounded';
import UploadFileRoundedIcon from '@mui/icons-material/UploadFileRounded';
import VisibilityOutlinedIcon from '@mui/icons-material/VisibilityOutlined';
import { Box, Typography } from '@mui/material';
import { useCallback, useMemo, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { contactsApi } from '../api';
import { ListStatus, ListType, P, PATHS, STATUS_POLL_MS } from '../constants';
import { useExport } from '../exports/useExport';
import { useRealtime } from '../realtime';
import type { ContactList, ListProgress } from '../types';
import { ActionMenu } from '../widgets/ActionMenu';
import { ConfirmDialog } from '../../../ui/modal/ConfirmDialog';
import { DataTable, NoResults, type Column } from '../../../ui/table/DataTable';
import { errorText } from '../widgets/errors';
import { formatDate, formatNumber } from '../widgets/format';
import { GatedButton } from '../../../ui/Gated';
import { PageHeading } from '../../../ui/PageHeading';
import { useCan } from '../../../ui/permissions';
import { useApi } from '../../../ui/useApi';
import { useDebounced, useInterval } from '../../../ui/useInterval';
import { usePageSize } from '../../../ui/table/useTable';
import { ListSidePanel } from './ListSidePanel';
import { ListStatusCell, TypeChip } from './ListStatus';
import { LoadErrorBanner, SearchField, TableToolbar, ToolbarSpacer, ToolbarTabs } from '../../../ui/table/TableToolbar';

type TabKey = 'all' | 'list' | 'segment';

/**
 * Contact lists and segments (spec 1, 2, 3): a server-paged table showing each list's ready status or its progress
 * bar, kept live through `/realtime` (topics contact_lists and imports) with a 5 s status poll while anything is
 * processing; a row opens the 600 px side panel.
 */
export const ContactListsPage = () => {
  const translate = useTranslate();
  const notify = useNotify();
  const navigate = useNavigate();
  const can = useCan();
  const locale = translate('contacts.locale');
  const [params, setParams] = useSearchParams();
  const [tab, setTab] = useState<TabKey>('all');
  const [search, setSearch] = useState('');
  const name = useDebounced(search.trim(), 300);
  const [page, setPage] = useState(1);
  const [perPage, setPerPage] = usePageSize('contactLists');
  const [live, setLive] = useState<Record<number, ListProgress>>({});
  const [deleting, setDeleting] = useState<ContactList | null>(null);
  const [busy, setBusy] = useState(false);
  const exporter = useExport();

  const openId = Number(params.get('open')) || null;
  const setOpenId = (id: number | null) => {
    const next = new URLSearchParams(params);
    if (id) next.set('open', String(id));
    else next.delete('open');
    setParams(next, { replace: true });
  };

  const lists = useApi(
    () => contactsApi.contactLists({ page, itemsPerPage: perPage, type: tab === 'all' ? undefined : tab, name: name || undefined }),
    [page, perPage, tab, name],
  );
  const reload = lists.reload;
  const reloadFresh = useCallback(async () => {
    await reload();
  }, [reload]);

  // A poll may answer a progress older than the last realtime frame: a list being made never goes backwards, and
  // once the server says ready its row wins.
  const rows = useMemo(
    () =>
      (lists.data?.items ?? []).map((l) => {
        const f = live[l.id];
        if (!f || l.status === ListStatus.Ready) return l;
        return { ...l, status: f.status ?? l.status, progress: Math.max(l.progress, f.progress ?? 0) };
      }),
    [lists.data, live],
  );
  const processing = rows.some((r) => r.status !== ListStatus.Ready);

  useRealtime(['contact_lists', 'imports'], {
    onFrame: (f) => {
      if (f.topic !== 'contact_lists') return;
      const d = f.data as unknown as ListProgress;
      if (f.type === 'contact_list.progress') setLive((s) => ({ ...s, [d.id]: { ...s[d.id], ...d } }));
      else void reloadFresh();
    },
    onResync: () => void reloadFresh(),
  });
  // Spec 9: status poll 5 s, while a list is being made (realtime may be unavailable behind some proxies).
  useInterval(() => void reloadFresh(), STATUS_POLL_MS, processing);

  const remove = async () => {
    if (!deleting) return;
    setBusy(true);
    try {
      await contactsApi.deleteContactList(deleting.id);
      notify('contacts.lists.deleted', { type: 'success' });
      if (openId === deleting.id) setOpenId(null);
      setDeleting(null);
      await reloadFresh();
    } catch (e) {
      notify(errorText(e, translate), { type: 'error' });
    } finally {
      setBusy(false);
    }
  };

  const columns: Column<ContactList>[] = [
    {
      key: 'name',
      label: translate('contacts.lists.columns.name'),
      render: (l) => (
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, minWidth: 0 }}>
          <Box
            sx={{
              width: 34,
              height: 34,
              borderRadius: '9px',
              display: 'grid',
              placeItems: 'center',
              flexShrink: 0,
              bgcolor: l.type === ListType.Segment ? '#f4f3ff' : '#eff8ff',
              color: l.type === ListType.Segment ? '#6941c6' : '#175cd3',
            }}
          >
            {l.type === ListType.Segment ? <FilterAltOutlinedIcon fontSize="small" /> : <ListAltRoundedIcon fontSize="small" />}
          </Box>
          <Box sx={{ minWidth: 0 }}>
            <Typography sx={{ fontWeight: 600, fontSize: 14.5 }} noWrap data-testid="list-name">
              {l.name}
            </Typography>
            {l.description && (
              <Typography variant="body2" color="text.secondary" noWrap sx={{ maxWidth: 360 }}>
                {l.description}
              </Typography>
            )}
          </Box>
        </Box>
      ),
    },
    { key: 'type', hideOnPhone: true, label: translate('contacts.lists.columns.type'), render: (l) => <TypeChip type={l.type} />, width: 120 },
    {
      key: 'status',
      label: translate('contacts.lists.columns.status'),
      render: (l) => <ListStatusCell status={l.status} progress={l.progress} testId="list-status" />,
      width: 190,
    },
    {
      key: 'numOfContacts',
      label: translate('contacts.lists.columns.contacts'),
      align: 'right',
      width: 120,
      render: (l) => (
        <Typography component="span" sx={{ fontWeight: 600, fontVariantNumeric: 'tabular-nums' }} data-testid="list-count">
          {l.status === ListStatus.Ready ? formatNumber(l.numOfContacts, locale) : '—'}
        </Typography>
      ),
    },
    { key: 'createdAt', hideOnPhone: true, label: translate('contacts.lists.columns.created'), width: 180, render: (l) => formatDate(l.createdAt, locale) },
    {
      key: 'actions',
      label: '',
      width: 56,
      align: 'right',
      render: (l) => (
        <ActionMenu
          items={[
            { key: 'open', label: translate('contacts.actions.open'), icon: <VisibilityOutlinedIcon fontSize="small" />, onClick: () => setOpenId(l.id) },
            {
              key: 'filter',
              label: translate('contacts.segments.editFilter'),
              icon: <FilterAltOutlinedIcon fontSize="small" />,
              onClick: () => navigate(PATHS.segment(l.id)),
              permission: P.ListEdit,
              hidden: l.type !== ListType.Segment,
            },
            {
              key: 'export',
              label: translate('contacts.actions.exportCsv'),
              icon: <FileDownloadOutlinedIcon fontSize="small" />,
              onClick: () => exporter.run({ contactList: l.id }),
              permission: P.ListExport,
              disabled: l.status !== ListStatus.Ready || exporter.busy,
              testId: 'list-export',
            },
            {
              key: 'delete',
              label: translate('contacts.actions.delete'),
              icon: <DeleteOutlineRoundedIcon fontSize="small" />,
              onClick: () => setDeleting(l),
              permission: P.ListRemove,
              disabled: l.status === ListStatus.Processing,
              danger: true,
            },
          ]}
        />
      ),
    },
  ];

  const toolbar = (
    <TableToolbar>
      <ToolbarTabs<TabKey>
        value={tab}
        onChange={(v) => {
          setTab(v);
          setPage(1);
        }}
        tabSx={{ fontWeight: 600 }}
        tabs={[
          { value: 'all', label: translate('contacts.lists.tabs.all') },
          { value: 'list', label: translate('contacts.lists.tabs.lists') },
          { value: 'segment', label: translate('contacts.lists.tabs.segments') },
        ]}
      />
      <ToolbarSpacer />
      <SearchField
        value={search}
        onChange={(v) => {
          setSearch(v);
          setPage(1);
        }}
        placeholder={translate('contacts.lists.search')}
        sx={{ width: 260, pb: 1 }}
        testId="lists-search"
      />
    </TableToolbar>
  );

  return (
    <Box>
      <PageHeading
        title={translate('contacts.lists.title')}
        subtitle={translate('contacts.lists.subtitle')}
        icon={<ListAltRoundedIcon />}
        actions={
          <>
            <GatedButton permission={P.ListAdd} variant="outlined" startIcon={<AddRoundedIcon />} onClick={() => navigate(PATHS.newSegment)} data-testid="new-segment">
              {translate('contacts.segments.new')}
            </GatedButton>
            <GatedButton permission={P.ListAdd} variant="contained" startIcon={<UploadFileRoundedIcon />} onClick={() => navigate(PATHS.import)} data-testid="import-contacts">
              {translate('contacts.imports.start')}
            </GatedButton>
          </>
        }
      />
      <LoadErrorBanner message={lists.error != null ? errorText(lists.error, translate) : null} />
      <DataTable
        testId="lists-table"
        rowTestId="list-row"
        columns={columns}
        rows={rows}
        rowKey={(l) => l.id}
        loading={lists.loading && !lists.data}
        toolbar={toolbar}
        onRowClick={(l) => setOpenId(l.id)}
        empty={
          <NoResults
            title={translate(name ? 'contacts.lists.noMatch' : 'contacts.lists.empty')}
            text={name ? undefined : can(P.ListAdd) ? translate('contacts.lists.emptyText') : translate('contacts.noData.missingAddPermission')}
          />
        }
        pagination={{
          page,
          perPage,
          total: lists.data?.total ?? 0,
          onPageChange: setPage,
          onPerPageChange: (n) => {
            setPerPage(n);
            setPage(1);
          },
        }}
      />
      <ListSidePanel
        listId={openId}
        live={openId ? rows.find((r) => r.id === openId) : undefined}
        onClose={() => setOpenId(null)}
        onChanged={() => void reloadFresh()}
      />
      <ConfirmDialog
        open={!!deleting}
        title={translate('contacts.lists.deleteTitle')}
        text={translate('contacts.lists.deleteText', { name: deleting?.name ?? '' })}
        confirmLabel={translate('contacts.actions.delete')}
        danger
        busy={busy}
        onConfirm={() => void remove()}
        onClose={() => setDeleting(null)}
      />
    </Box>
  );
};
