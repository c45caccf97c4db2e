import AddRoundedIcon from '@mui/icons-material/AddRounded';
import BlockRoundedIcon from '@mui/icons-material/BlockRounded';
import DeleteOutlineRoundedIcon from '@mui/icons-material/DeleteOutlineRounded';
import PlayArrowRoundedIcon from '@mui/icons-material/PlayArrowRounded';
import UploadFileRoundedIcon from '@mui/icons-material/UploadFileRounded';
import { Box, Typography } from '@mui/material';
import { useMemo, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import { contactsApi } from '../api';
import { ImportStatus, ImportType, P, PATHS, STATUS_POLL_MS } from '../constants';
import { ImportStatusChip } from '../lists/ListStatus';
import { useRealtime } from '../realtime';
import { useLookups } from '../segments/lookups';
import type { BlackListEntry, ImportList, ImportProgress } from '../types';
import { ActionMenu } from '../widgets/ActionMenu';
import { ConfirmDialog } from '../../../ui/modal/ConfirmDialog';
import { DataTable, NoResults, type Column } from '../../../ui/table/DataTable';
import { errorText } from '../widgets/errors';
import { formatDate, formatNumber } from '../widgets/format';
import { GatedButton } from '../../../ui/Gated';
import { PageHeading } from '../../../ui/PageHeading';
import { ProgressBar } from '../widgets/ProgressBar';
import { useCan } from '../../../ui/permissions';
import { useApi } from '../../../ui/useApi';
import { useDebounced, useInterval } from '../../../ui/useInterval';
import { usePageSize } from '../../../ui/table/useTable';
import { AddNumberDialog } from './AddNumberDialog';
import { LoadErrorBanner, SearchField, TableToolbar, ToolbarSpacer, ToolbarTabs } from '../../../ui/table/TableToolbar';

type Confirm = { kind: 'number'; entry: BlackListEntry } | { kind: 'import'; imp: ImportList };

/**
 * Blocked destinations (spec 7 "/black_lists"): the blocked numbers, searchable, one added by hand or many through an
 * import list of type blacklist (spec 9: its statuses mapped, processing, parsed), each one removable.
 */
export const BlacklistPage = () => {
  const translate = useTranslate();
  const notify = useNotify();
  const navigate = useNavigate();
  const can = useCan();
  const locale = translate('contacts.locale');
  const lookups = useLookups();
  const [tab, setTab] = useState<'numbers' | 'imports'>('numbers');
  const [search, setSearch] = useState('');
  const phone = useDebounced(search.trim(), 300);
  const [page, setPage] = useState(1);
  const [perPage, setPerPage] = usePageSize('blackLists');
  const [importPage, setImportPage] = useState(1);
  const [importPerPage, setImportPerPage] = usePageSize('blackListImports');
  const [adding, setAdding] = useState(false);
  const [confirm, setConfirm] = useState<Confirm | null>(null);
  const [busy, setBusy] = useState(false);
  const [live, setLive] = useState<Record<number, ImportProgress>>({});

  const numbers = useApi(() => contactsApi.blackLists({ page, itemsPerPage: perPage, phone: phone || undefined }), [page, perPage, phone]);
  const imports = useApi(() => contactsApi.importLists({ page: importPage, itemsPerPage: importPerPage, type: ImportType.Blacklist }), [importPage, importPerPage]);
  const importRows = useMemo(
    () =>
      (imports.data?.items ?? []).map((i) => {
        const f = live[i.id];
        if (!f || i.status !== ImportStatus.Processing) return i;
        return { ...i, ...f, progress: Math.max(i.progress, f.progress) };
      }),
    [imports.data, live],
  );
  const importNames = useMemo(() => new Map((imports.data?.items ?? []).map((i) => [i.id, i.name])), [imports.data]);
  const processing = importRows.some((i) => i.status === ImportStatus.Processing);

  const refreshAll = () => {
    void imports.reload();
    void numbers.reload();
  };
  useRealtime(['imports'], {
    onFrame: (f) => {
      const d = f.data as unknown as ImportProgress;
      if (f.type !== 'import_list.progress') return;
      setLive((s) => ({ ...s, [d.id]: d }));
      if (d.status !== ImportStatus.Processing) refreshAll();
    },
    onResync: refreshAll,
  });
  useInterval(refreshAll, STATUS_POLL_MS, processing);

  const run = async () => {
    if (!confirm) return;
    setBusy(true);
    try {
      if (confirm.kind === 'number') {
        await contactsApi.deleteBlackList(confirm.entry.id);
        notify('contacts.blacklist.removed', { type: 'success' });
      } else {
        await contactsApi.deleteImport(confirm.imp.id);
        notify('contacts.imports.deleted', { type: 'success' });
      }
      setConfirm(null);
      refreshAll();
    } catch (e) {
      notify(errorText(e, translate), { type: 'error' });
    } finally {
      setBusy(false);
    }
  };

  const numberColumns: Column<BlackListEntry>[] = [
    {
      key: 'phone',
      label: translate('contacts.blacklist.phone'),
      render: (b) => (
        <Typography component="span" sx={{ fontFamily: 'ui-monospace, monospace', fontWeight: 600, fontSize: 13.5 }} data-testid="blacklist-phone-cell">
          {b.normalizedPhone || b.phone}
        </Typography>
      ),
    },
    {
      key: 'source',
      label: translate('contacts.blacklist.source'),
      render: (b) =>
        b.importList ? (
          translate('contacts.blacklist.fromImport', { name: importNames.get(b.importList) ?? `#${b.importList}` })
        ) : (
          <Typography color="text.secondary" component="span">
            {translate('contacts.blacklist.manual')}
          </Typography>
        ),
    },
    { key: 'createdAt', label: translate('contacts.blacklist.added'), render: (b) => formatDate(b.createdAt, locale) },
    {
      key: 'actions',
      label: '',
      align: 'right',
      width: 56,
      render: (b) => (
        <ActionMenu
          items={[{ key: 'delete', label: translate('contacts.blacklist.unblock'), icon: <DeleteOutlineRoundedIcon fontSize="small" />, permission: P.BlockRemove, danger: true, onClick: () => setConfirm({ kind: 'number', entry: b }) }]}
        />
      ),
    },
  ];

  const importColumns: Column<ImportList>[] = [
    {
      key: 'name',
      label: translate('contacts.imports.file'),
      render: (i) => (
        <Box>
          <Typography sx={{ fontWeight: 600, fontSize: 14.5 }}>{i.name}</Typography>
          <Typography variant="body2" color="text.secondary">
            {i.fileName}
          </Typography>
        </Box>
      ),
    },
    {
      key: 'status',
      label: translate('contacts.lists.columns.status'),
      width: 200,
      render: (i) => (i.status === ImportStatus.Processing ? <ProgressBar value={i.progress} /> : <ImportStatusChip status={i.status} />),
    },
    { key: 'blocked', label: translate('contacts.imports.counters.blocked'), align: 'right', render: (i) => formatNumber(i.numberOfContacts, locale) },
    { key: 'failed', label: translate('contacts.imports.counters.failed'), align: 'right', render: (i) => formatNumber(i.failed, locale) },
    { key: 'createdAt', label: translate('contacts.lists.columns.created'), render: (i) => formatDate(i.createdAt, locale) },
    {
      key: 'actions',
      label: '',
      align: 'right',
      width: 56,
      render: (i) => (
        <ActionMenu
          items={[
            {
              key: 'resume',
              label: translate('contacts.imports.resume'),
              icon: <PlayArrowRoundedIcon fontSize="small" />,
              permission: P.BlockAddEdit,
              hidden: i.status !== ImportStatus.Uploaded && i.status !== ImportStatus.Mapped,
              onClick: () => navigate(`${PATHS.import}?type=${ImportType.Blacklist}&id=${i.id}`),
            },
            {
              key: 'delete',
              label: translate('contacts.actions.delete'),
              icon: <DeleteOutlineRoundedIcon fontSize="small" />,
              permission: P.BlockRemove,
              danger: true,
              disabled: i.status === ImportStatus.Processing,
              onClick: () => setConfirm({ kind: 'import', imp: i }),
            },
          ]}
        />
      ),
    },
  ];

  const tabs = (
    <TableToolbar sx={{ alignItems: 'flex-end', minHeight: 66 }}>
      <ToolbarTabs
        value={tab}
        onChange={setTab}
        tabSx={{ fontWeight: 600 }}
        tabs={[
          { value: 'numbers', label: translate('contacts.blacklist.tabs.numbers') },
          { value: 'imports', label: translate('contacts.blacklist.tabs.imports'), testId: 'blacklist-tab-imports' },
        ]}
      />
      <ToolbarSpacer />
      {tab === 'numbers' && (
        <SearchField
          value={search}
          onChange={(v) => {
            setSearch(v);
            setPage(1);
          }}
          placeholder={translate('contacts.blacklist.search')}
          sx={{ width: 260, pb: 1, alignSelf: 'center' }}
        />
      )}
    </TableToolbar>
  );

  const error = tab === 'numbers' ? numbers.error : imports.error;
  return (
    <Box>
      <PageHeading
        title={translate('contacts.blacklist.title')}
        subtitle={translate('contacts.blacklist.subtitle')}
        icon={<BlockRoundedIcon />}
        actions={
          <>
            <GatedButton permission={P.BlockAddEdit} variant="outlined" startIcon={<UploadFileRoundedIcon />} onClick={() => navigate(`${PATHS.import}?type=${ImportType.Blacklist}`)} data-testid="blacklist-import">
              {translate('contacts.blacklist.importFile')}
            </GatedButton>
            <GatedButton permission={P.BlockAddEdit} variant="contained" startIcon={<AddRoundedIcon />} onClick={() => setAdding(true)} data-testid="blacklist-add">
              {translate('contacts.blacklist.add')}
            </GatedButton>
          </>
        }
      />
      <LoadErrorBanner message={error != null ? errorText(error, translate) : null} />
      {tab === 'numbers' ? (
        <DataTable
          testId="blacklist-table"
          rowTestId="blacklist-row"
          columns={numberColumns}
          rows={numbers.data?.items ?? []}
          rowKey={(b) => b.id}
          loading={numbers.loading && !numbers.data}
          toolbar={tabs}
          empty={<NoResults title={translate(phone ? 'contacts.blacklist.noMatch' : 'contacts.blacklist.empty')} text={phone ? undefined : can(P.BlockAddEdit) ? translate('contacts.blacklist.emptyText') : translate('contacts.noData.missingAddPermission')} />}
          pagination={{
            page,
            perPage,
            total: numbers.data?.total ?? 0,
            onPageChange: setPage,
            onPerPageChange: (n) => {
              setPerPage(n);
              setPage(1);
            },
          }}
        />
      ) : (
        <DataTable
          testId="blacklist-imports-table"
          columns={importColumns}
          rows={importRows}
          rowKey={(i) => i.id}
          loading={imports.loading && !imports.data}
          toolbar={tabs}
          empty={<NoResults title={translate('contacts.blacklist.noImports')} />}
          pagination={{
            page: importPage,
            perPage: importPerPage,
            total: imports.data?.total ?? 0,
            onPageChange: setImportPage,
            onPerPageChange: (n) => {
              setImportPerPage(n);
              setImportPage(1);
            },
          }}
        />
      )}
      <AddNumberDialog open={adding} countries={lookups?.countries ?? []} onClose={() => setAdding(false)} onSaved={refreshAll} />
      <ConfirmDialog
        open={!!confirm}
        title={translate(confirm?.kind === 'import' ? 'contacts.imports.deleteTitle' : 'contacts.blacklist.unblockTitle')}
        text={
          confirm?.kind === 'import'
            ? translate('contacts.imports.deleteText', { name: confirm.imp.name })
            : translate('contacts.blacklist.unblockText', { phone: confirm?.kind === 'number' ? confirm.entry.phone : '' })
        }
        confirmLabel={translate(confirm?.kind === 'import' ? 'contacts.actions.delete' : 'contacts.blacklist.unblock')}
        danger
        busy={busy}
        onConfirm={() => void run()}
        onClose={() => setConfirm(null)}
      />
    </Box>
  );
};
