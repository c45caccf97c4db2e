import { z } from 'zod';
import { defineEvent, Topics } from './events';

/**
 * Message exports (spec 2 tasks `export_messages`, `export_stream_messages`, `export_incoming_messages`;
 * docs/decisions/0046-campaign-reports.md, "Message exports"). Contacts keeps the task list: it records the task and
 * asks stats with `contacts.task.requested`; stats writes the CSV from its read models and reports
 * `stats.export.progressed` and `stats.export.finished`, which contacts applies to the task. The file stays with stats,
 * which serves it at `GET /api/message_exports/download?id=` (contacts' `/api/task/download` sends the caller there
 * once the task is done). Deleting the task (`contacts.task.deleted`) deletes stats' file.
 */
export const MESSAGE_EXPORT_TYPES = ['export_messages', 'export_stream_messages', 'export_incoming_messages'] as const;
export type MessageExportType = (typeof MESSAGE_EXPORT_TYPES)[number];

const id = z.string().regex(/^\d+$/, 'a decimal id');
const idIn = z
  .union([z.number().int().positive(), z.string().regex(/^(?:\/api\/[a-z_]+\/)?\d{1,18}$/, 'must be an id')])
  .transform((v) => String(v).replace(/^.*\//, ''));
const dateOrInstant = z.string().refine((s) => /^\d{4}-\d{2}-\d{2}$/.test(s) ? !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) : /^\d{4}-\d{2}-\d{2}T/.test(s) && !Number.isNaN(Date.parse(s)), 'a date (YYYY-MM-DD) or an ISO date-time');

/** Filters as on the messages lists: streams, statuses, campaign, destination, dates (date-only in the account's zone). */
export const MessageExportParams = z
  .object({
    streamId: idIn.optional(),
    streams: z.array(idIn).min(1).max(500).optional(),
    status: z.array(z.enum(['accepted', 'sent', 'delivered', 'sent_failed', 'undelivered', 'no_routes', 'rejected'])).min(1).optional(),
    campaign: idIn.optional(),
    destination: z.string().min(1).max(64).optional(),
    start: dateOrInstant.optional(),
    end: dateOrInstant.optional(),
  })
  .strict();
export type MessageExportParams = z.infer<typeof MessageExportParams>;

export const TaskRequestedV1 = defineEvent({
  type: 'contacts.task.requested',
  version: 1,
  topic: Topics.Contacts,
  key: (d) => d.taskId,
  schema: z.object({
    taskId: id,
    accountId: id,
    type: z.enum(MESSAGE_EXPORT_TYPES),
    /** Already validated by contacts (ids as decimal strings). */
    params: z.object({
      streamId: id.optional(),
      streams: z.array(id).optional(),
      status: z.array(z.string()).optional(),
      campaign: id.optional(),
      destination: z.string().optional(),
      start: z.string().optional(),
      end: z.string().optional(),
    }),
    requestedAt: z.string(),
  }),
});

export const ExportProgressedV1 = defineEvent({
  type: 'stats.export.progressed',
  version: 1,
  topic: Topics.Stats,
  key: (d) => d.taskId,
  schema: z.object({ taskId: id, accountId: id, total: z.number().int().nonnegative(), processed: z.number().int().nonnegative(), progress: z.number().int().min(0).max(99) }),
});

export const ExportFinishedV1 = defineEvent({
  type: 'stats.export.finished',
  version: 1,
  topic: Topics.Stats,
  key: (d) => d.taskId,
  schema: z.object({
    taskId: id,
    accountId: id,
    outcome: z.enum(['done', 'error']),
    total: z.number().int().nonnegative(),
    processed: z.number().int().nonnegative(),
    fileName: z.string().nullable(),
    error: z.string().nullable(),
  }),
});

/**
 * A message export task was deleted from the task list (contacts, in the transaction that deletes it): stats forgets the
 * export, stops it if it is running and deletes its file. Same topic and key as the request, so it never overtakes it.
 */
export const TaskDeletedV1 = defineEvent({
  type: 'contacts.task.deleted',
  version: 1,
  topic: Topics.Contacts,
  key: (d) => d.taskId,
  schema: z.object({ taskId: id, accountId: id, type: z.enum(MESSAGE_EXPORT_TYPES), deletedAt: z.string() }),
});

export const MessageExportEvents = [TaskRequestedV1, TaskDeletedV1, ExportProgressedV1, ExportFinishedV1] as const;
