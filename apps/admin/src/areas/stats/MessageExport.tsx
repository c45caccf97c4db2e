import DownloadRoundedIcon from '@mui/icons-material/DownloadRounded';
import FileDownloadOutlinedIcon from '@mui/icons-material/FileDownloadOutlined';
import { Alert, Box, Button, FormControlLabel, Link, Radio, RadioGroup, Typography } from '@mui/material';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { Link as RouterLink } from 'react-router-dom';
import type { MessageExportParams, MessageExportType } from '@switchboard/contracts/src/message-exports';
import { contactsApi } from '../contacts/api';
import { EXPORT_WAIT_MS, PATHS, TASK_POLL_MS } from '../contacts/constants';
import { exportTask, TaskNotReadyError } from '../contacts/exports/useExport';
import { useRealtime } from '../contacts/realtime';
import type { Task, TaskProgress } from '../contacts/types';
import { ProgressBar } from '../contacts/widgets/ProgressBar';
import { errorText } from '../contacts/widgets/errors';
import { GatedButton } from '../../ui/Gated';
import { AppModal } from '../../ui/modal/AppModal';
import { useInterval } from '../../ui/useInterval';

/** The permission a message export needs (spec 6 "messages ... export"). */
export const MESSAGE_EXPORT = 'MESSAGE_EXPORT';

const finished = (t: Pick<Task, 'status'>) => t.status === 'done' || t.status === 'error';

/**
 * The console's button for the message exports of spec 2 ("export messages", "export stream messages", "export
 * incoming messages"), with the filters of the page it sits on. Spec 4: the task is created, the console waits 5 s,
 * and if its progress is 100 it downloads the file and deletes the task; otherwise it says "task is not ready yet" and
 * keeps showing the task's progress (pushed on `/realtime` topic tasks, polled every 10 s) with a download button for
 * when it is done. The task also stays on the exports page.
 */
export const MessageExportButton = ({ types, params, summary, testId = 'message-export' }: { types: MessageExportType[]; params: MessageExportParams; summary?: string; testId?: string }) => {
  const translate = useTranslate();
  const notify = useNotify();
  const [open, setOpen] = useState(false);
  const [type, setType] = useState<MessageExportType>(types[0]);
  const [task, setTask] = useState<Task | null>(null);
  const [waiting, setWaiting] = useState(false);
  const [error, setError] = useState('');
  const live = useRef<number | null>(null);
  live.current = task?.id ?? null;

  useEffect(() => {
    if (open) {
      setType(types[0]);
      setTask(null);
      setWaiting(false);
      setError('');
    }
  }, [open]);

  const refresh = useCallback(async () => {
    const id = live.current;
    if (id === null) return;
    try {
      setTask(await contactsApi.task(id));
    } catch (e) {
      setError(errorText(e, translate));
    }
  }, [translate]);
  const pending = open && !!task && !finished(task);
  useRealtime(
    ['tasks'],
    {
      onFrame: (f) => {
        const d = f.data as unknown as TaskProgress;
        if (f.type !== 'task.progress' || d.id !== live.current) return;
        setTask((t) => (t && !finished(t) ? { ...t, ...d, progress: Math.max(t.progress, d.progress) } : t));
      },
      onResync: () => void refresh(),
    },
    pending,
  );
  // spec 9: the task poll is 10 s
  useInterval(() => void refresh(), TASK_POLL_MS, pending && !waiting);

  const start = async () => {
    setWaiting(true);
    setError('');
    try {
      const name = await exportTask(type, params, setTask, EXPORT_WAIT_MS);
      notify(translate('statistics.export.downloaded', { name }), { type: 'success' });
      setOpen(false);
    } catch (e) {
      if (e instanceof TaskNotReadyError) {
        notify('statistics.export.notReady', { type: 'warning' });
        await refresh();
      } else setError(errorText(e, translate));
    } finally {
      setWaiting(false);
    }
  };
  const download = async () => {
    if (!task) return;
    try {
      const name = await contactsApi.downloadTask(task.id);
      await contactsApi.deleteTask(task.id).catch(() => undefined);
      notify(translate('statistics.export.downloaded', { name }), { type: 'success' });
      setOpen(false);
    } catch (e) {
      setError(errorText(e, translate));
    }
  };

  return (
    <>
      <GatedButton permission={MESSAGE_EXPORT} variant="outlined" color="inherit" size="small" startIcon={<FileDownloadOutlinedIcon />} onClick={() => setOpen(true)} sx={{ borderColor: 'divider' }} data-testid={testId}>
        {translate('statistics.export.button')}
      </GatedButton>
      <AppModal
        open={open}
        onClose={() => setOpen(false)}
        dismissible={!waiting}
        title={translate('statistics.export.title')}
        icon={<FileDownloadOutlinedIcon />}
        testId="message-export-dialog"
        actions={
          task ? (
            <>
              <Button color="inherit" onClick={() => setOpen(false)} disabled={waiting}>
                {translate('statistics.export.close')}
              </Button>
              <Button variant="contained" startIcon={<DownloadRoundedIcon />} disabled={waiting || task.status !== 'done'} onClick={() => void download()} data-testid="message-export-download">
                {translate('statistics.export.download')}
              </Button>
            </>
          ) : (
            <>
              <Button color="inherit" onClick={() => setOpen(false)}>
                {translate('statistics.export.cancel')}
              </Button>
              <Button variant="contained" disabled={waiting} onClick={() => void start()} data-testid="message-export-start">
                {translate('statistics.export.start')}
              </Button>
            </>
          )
        }
      >
        <Box sx={{ display: 'grid', gap: 2 }}>
          {types.length > 1 && !task && (
            <RadioGroup value={type} onChange={(e) => setType(e.target.value as MessageExportType)}>
              {types.map((t) => (
                <FormControlLabel key={t} value={t} control={<Radio />} label={translate(`statistics.export.types.${t}`)} data-testid={`message-export-type-${t}`} />
              ))}
            </RadioGroup>
          )}
          {summary && (
            <Typography variant="body2" color="text.secondary" data-testid="message-export-summary">
              {summary}
            </Typography>
          )}
          {task && (
            <Box data-testid="message-export-task" data-status={task.status}>
              <Typography variant="body2" sx={{ mb: 1 }}>
                {translate(task.status === 'done' ? 'statistics.export.ready' : task.status === 'error' ? 'statistics.export.failed' : 'statistics.export.running', { id: task.id })}
              </Typography>
              <ProgressBar value={task.status === 'done' ? 100 : task.progress} width="100%" testId="message-export-progress" />
              {task.total > 0 && (
                <Typography variant="caption" color="text.secondary">
                  {translate('statistics.export.rows', { processed: task.processed, total: task.total })}
                </Typography>
              )}
              {!waiting && task.status !== 'done' && (
                <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
                  {translate('statistics.export.later')}{' '}
                  <Link component={RouterLink} to={PATHS.exports}>
                    {translate('statistics.export.exportsPage')}
                  </Link>
                </Typography>
              )}
            </Box>
          )}
          {error && (
            <Alert severity="error" data-testid="message-export-error">
              {error}
            </Alert>
          )}
        </Box>
      </AppModal>
    </>
  );
};
