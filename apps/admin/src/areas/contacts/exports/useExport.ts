import { useCallback, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { contactsApi } from '../api';
import { EXPORT_WAIT_MS, TaskType } from '../constants';
import type { MessageExportParams } from '@switchboard/contracts/src/message-exports';
import type { Task, TaskParams } from '../types';
import { errorText } from '../widgets/errors';

export class TaskNotReadyError extends Error {
  constructor(readonly taskId: number) {
    super('task is not ready yet');
  }
}

const sleep = (ms: number) => new Promise((resolve) => window.setTimeout(resolve, ms));

/**
 * Spec 4: an export creates a task, waits 5 s, and if its progress is 100 downloads the file and deletes the task;
 * otherwise it rejects with "task is not ready yet" (the task stays on the exports page, polled every 10 s).
 */
export async function exportContacts(params: TaskParams, onCreated?: (task: Task) => void, wait = EXPORT_WAIT_MS): Promise<string> {
  return exportTask(TaskType.ExportContacts, params, onCreated, wait);
}

/** The same flow for any export task type (contacts, or the message exports stats writes). */
export async function exportTask(type: string, params: TaskParams | MessageExportParams, onCreated?: (task: Task) => void, wait = EXPORT_WAIT_MS): Promise<string> {
  const task = await contactsApi.createTask(type, params);
  onCreated?.(task);
  await sleep(wait);
  const current = await contactsApi.task(task.id);
  if (current.progress < 100 || current.status !== 'done') throw new TaskNotReadyError(task.id);
  const name = await contactsApi.downloadTask(task.id);
  await contactsApi.deleteTask(task.id).catch(() => undefined);
  return name;
}

/** The export action with its notifications; `busy` while the task runs. */
export function useExport(onCreated?: (task: Task) => void): { run: (params: TaskParams) => Promise<void>; busy: boolean } {
  const notify = useNotify();
  const translate = useTranslate();
  const [busy, setBusy] = useState(false);
  const run = useCallback(
    async (params: TaskParams) => {
      setBusy(true);
      notify('contacts.exports.preparing', { type: 'info' });
      try {
        const name = await exportContacts(params, onCreated);
        notify(translate('contacts.exports.downloaded', { name }), { type: 'success' });
      } catch (e) {
        if (e instanceof TaskNotReadyError) notify('contacts.exports.notReady', { type: 'warning' });
        else notify(errorText(e, translate), { type: 'error' });
      } finally {
        setBusy(false);
      }
    },
    [notify, translate, onCreated],
  );
  return { run, busy };
}
