import AddRoundedIcon from '@mui/icons-material/AddRounded';
import DeleteOutlineRoundedIcon from '@mui/icons-material/DeleteOutlineRounded';
import DownloadRoundedIcon from '@mui/icons-material/DownloadRounded';
import FileDownloadOutlinedIcon from '@mui/icons-material/FileDownloadOutlined';
import { Alert, Box, Button, Typography } from '@mui/material';
import { useCallback, useMemo, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { contactsApi } from '../api';
import { P, TASK_POLL_MS, TaskType } from '../constants';
import { useRealtime } from '../realtime';
import { useLookups } from '../segments/lookups';
import type { Task, TaskProgress } from '../types';
import { ActionMenu } from '../widgets/ActionMenu';
import { DataTable, NoResults, type Column } from '../../../ui/table/DataTable';
import { errorText } from '../widgets/errors';
import { formatDate, formatNumber } from '../widgets/format';
import { GatedButton } from '../../../ui/Gated';
import { PageHeading } from '../../../ui/PageHeading';
import { ProgressBar } from '../widgets/ProgressBar';
import { StatusChip } from '../../../ui/StatusChip';
import { useApi } from '../../../ui/useApi';
import { useInterval } from '../../../ui/useInterval';
import { usePageSize } from '../../../ui/table/useTable';
import { NewExportDialog } from './NewExportDialog';
import { useExport } from './useExport';

/** Task types whose finished task has a file (contacts' export, and the message exports stats writes). */
const DOWNLOADABLE: string[] = [TaskType.ExportContacts, TaskType.ExportMessages, TaskType.ExportStreamMessages, TaskType.ExportIncomingMessages];

const finished = (t: Pick<Task, 'status'>) => t.status === 'done' || t.status === 'error';

/**
 * Exports and other background tasks (spec 4 "Task types"): each task's progress, polled every 10 s (and pushed by
 * `/realtime` topic tasks); a finished export downloads from GET /api/task/download.
 */
export const ExportsPage = () => {
  const translate = useTranslate();
  const notify = useNotify();
  const locale = translate('contacts.locale');
  const lookups = useLookups();
  const [page, setPage] = useState(1);
  const [perPage, setPerPage] = usePageSize('tasks');
  const [live, setLive] = useState<Record<number, TaskProgress>>({});
  const [dialog, setDialog] = useState(false);
  const tasks = useApi(() => contactsApi.tasks({ page, itemsPerPage: perPage }), [page, perPage]);
  const reload = tasks.reload;
  const refresh = useCallback(() => void reload(), [reload]);
  const exporter = useExport(refresh);
  const rows = useMemo(
    () =>
      (tasks.data?.items ?? []).map((t) => {
        const f = live[t.id];
        if (!f || finished(t)) return t;
        return { ...t, ...f, progress: Math.max(t.progress, f.progress) };
      }),
    [tasks.data, live],
  );
  const pending = rows.some((t) => !finished(t));

  useRealtime(['tasks'], {
    onFrame: (f) => {
      const d = f.data as unknown as TaskProgress;
      if (f.type !== 'task.progress') return;
      setLive((s) => ({ ...s, [d.id]: d }));
      if (finished(d)) refresh();
    },
    onResync: refresh,
  });
  // Spec 9: the task poll is 10 s.
  useInterval(refresh, TASK_POLL_MS, pending);

  const download = async (t: Task) => {
    try {
      if (t.progress < 100) throw new Error('task is not ready yet');
      await contactsApi.downloadTask(t.id);
    } catch (e) {
      notify(errorText(e, translate), { type: 'error' });
    }
  };
  const remove = async (t: Task) => {
    try {
      await contactsApi.deleteTask(t.id);
      notify('contacts.exports.deleted', { type: 'success' });
      refresh();
    } catch (e) {
      notify(errorText(e, translate), { type: 'error' });
    }
  };

  const listName = (id: unknown) => [...(lookups?.lists ?? []), ...(lookups?.segments ?? [])].find((l) => String(l.id) === String(id))?.name ?? `#${String(id)}`;
  const scope = (t: Task) => {
    const p = t.params ?? {};
    const parts: string[] = [];
    if (p.contactList !== undefined) parts.push(listName(p.contactList));
    if (p.importList !== undefined) parts.push(translate('contacts.exports.importScope', { id: String(p.importList) }));
    if (typeof p.state === 'string' && p.state !== 'no_error') parts.push(translate(`contacts.contactState.${p.state}`, { _: p.state }));
    if (typeof p.search === 'string') parts.push(`“${p.search}”`);
    if (typeof p.country === 'string') parts.push(p.country);
    if (p.filter !== undefined) parts.push(translate('contacts.exports.filterScope'));
    // message exports (their parameters are MessageExportParams)
    const m = p as Record<string, unknown>;
    if (m.streamId !== undefined) parts.push(translate('contacts.exports.streamScope', { id: String(m.streamId) }));
    if (Array.isArray(m.status)) parts.push(m.status.map(String).join(', '));
    if (typeof m.start === 'string' || typeof m.end === 'string') parts.push(`${typeof m.start === 'string' ? formatDate(m.start, locale) : '…'} – ${typeof m.end === 'string' ? formatDate(m.end, locale) : '…'}`);
    return parts.length ? parts.join(' · ') : translate('contacts.exports.scopeAll');
  };

  const columns: Column<Task>[] = [
    {
      key: 'type',
      label: translate('contacts.exports.columns.task'),
      render: (t) => (
        <Box>
          <Typography sx={{ fontWeight: 600, fontSize: 14.5 }}>{translate(`contacts.taskTypes.${t.type}`, { _: t.type })}</Typography>
          <Typography variant="body2" color="text.secondary">
            #{t.id}
          </Typography>
        </Box>
      ),
    },
    { key: 'scope', label: translate('contacts.exports.columns.scope'), render: scope },
    {
      key: 'progress',
      label: translate('contacts.exports.columns.progress'),
      width: 200,
      render: (t) =>
        t.status === 'error' ? (
          <StatusChip tone="danger">{translate('contacts.exports.status.error')}</StatusChip>
        ) : t.status === 'done' ? (
          <StatusChip tone="success" testId="task-done">
            {translate('contacts.exports.status.done')}
          </StatusChip>
        ) : (
          <ProgressBar value={t.progress} testId="task-progress" />
        ),
    },
    { key: 'rows', label: translate('contacts.exports.columns.rows'), align: 'right', render: (t) => (t.total ? `${formatNumber(t.processed, locale)} / ${formatNumber(t.total, locale)}` : '—') },
    { key: 'createdAt', label: translate('contacts.lists.columns.created'), render: (t) => formatDate(t.createdAt, locale) },
    {
      key: 'actions',
      label: '',
      align: 'right',
      width: 150,
      render: (t) => (
        <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'flex-end', gap: 0.5 }}>
          {DOWNLOADABLE.includes(t.type) && t.fileType === 'CSV' && (
            <Button size="small" startIcon={<DownloadRoundedIcon />} disabled={t.status !== 'done'} onClick={() => void download(t)} data-testid="task-download">
              {translate('contacts.exports.download')}
            </Button>
          )}
          <ActionMenu items={[{ key: 'delete', label: translate('contacts.actions.delete'), icon: <DeleteOutlineRoundedIcon fontSize="small" />, danger: true, onClick: () => remove(t) }]} />
        </Box>
      ),
    },
  ];

  return (
    <Box>
      <PageHeading
        title={translate('contacts.exports.title')}
        subtitle={translate('contacts.exports.subtitle')}
        icon={<FileDownloadOutlinedIcon />}
        actions={
          <GatedButton permission={P.ListExport} variant="contained" startIcon={<AddRoundedIcon />} disabled={exporter.busy} onClick={() => setDialog(true)} data-testid="new-export">
            {translate('contacts.exports.new')}
          </GatedButton>
        }
      />
      {tasks.error != null && (
        <Alert severity="error" sx={{ mb: 2 }}>
          {errorText(tasks.error, translate)}
        </Alert>
      )}
      <DataTable
        testId="tasks-table"
        rowTestId="task-row"
        columns={columns}
        rows={rows}
        rowKey={(t) => t.id}
        loading={tasks.loading && !tasks.data}
        empty={<NoResults title={translate('contacts.exports.empty')} text={translate('contacts.exports.emptyText')} />}
        pagination={{
          page,
          perPage,
          total: tasks.data?.total ?? 0,
          onPageChange: setPage,
          onPerPageChange: (n) => {
            setPerPage(n);
            setPage(1);
          },
        }}
      />
      <NewExportDialog open={dialog} lookups={lookups} onClose={() => setDialog(false)} onStart={(params) => void exporter.run(params).then(refresh)} />
    </Box>
  );
};
