import * as fs from 'node:fs';
import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { z } from 'zod';
import { CONTACT_STATES, ErrorCode, MESSAGE_EXPORT_TYPES, MessageExportParams, Permission, TaskDeletedV1, TaskRequestedV1, TaskType, TASK_TYPES, type MessageExportType, type Violation } from '@switchboard/contracts';
import { AppError, parseListQuery, type ListResult, type Principal } from '@switchboard/platform';
import type { CreateTaskDto, TaskDto } from '../dtos/task.dto';
import { TaskRepository, type TaskRow } from '../repositories/task.repository';
import { parseFilter, SqlParams } from '../segments/filter';
import { SelectionService } from '../segments/selection.service';
import { parseId, requireAnyPermission } from './access';
import { ContactsUnitOfWork } from './contacts-events.service';
import { TaskJobsService } from './task-jobs.service';

/** The permission each task type needs, to be created and to be seen or downloaded. */
export const TASK_PERMISSION: Record<string, string> = {
  [TaskType.ExportContacts]: Permission.ContactListSegmentExport,
  [TaskType.DeleteContacts]: Permission.ContactRemove,
  [TaskType.OptOutContacts]: Permission.ContactAddEdit,
  [TaskType.ExportMessages]: Permission.MessageExport,
  [TaskType.DeleteMessages]: Permission.MessageExport,
  [TaskType.ExportStreamMessages]: Permission.MessageExport,
  [TaskType.ExportIncomingMessages]: Permission.MessageExport,
};

/** The task types contacts runs itself; the message exports are run by stats (docs/decisions/0046). */
export const CONTACT_TASKS: readonly string[] = [TaskType.ExportContacts, TaskType.DeleteContacts, TaskType.OptOutContacts];
const MESSAGE_EXPORTS: readonly string[] = MESSAGE_EXPORT_TYPES;

const id = z.union([z.number().int().positive(), z.string().regex(/^(?:\/api\/[a-z_]+\/)?\d{1,18}$/, 'must be an id')]).transform((v) => String(v).replace(/^.*\//, ''));
export const TaskParamsSchema = z
  .object({
    contactList: id.optional(),
    importList: id.optional(),
    ids: z.array(id).min(1).max(100_000).optional(),
    filter: z.unknown().optional(),
    country: z.string().regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166 alpha-2 code').optional(),
    optedOut: z.boolean().optional(),
    search: z.string().max(200).optional(),
    state: z.enum([...(CONTACT_STATES as [string, ...string[]]), 'failed']).optional(),
    all: z.literal(true).optional(),
  })
  .strict();
export type TaskParams = z.infer<typeof TaskParamsSchema>;

export function taskDto(t: TaskRow): TaskDto {
  return {
    id: Number(t.id),
    type: t.type,
    status: t.status,
    progress: t.progress,
    fileType: t.file_type,
    params: t.params,
    filePath: t.status === 'done' && t.file_path ? `/api/task/download?id=${t.id}` : null,
    fileName: t.file_name,
    total: t.total,
    processed: t.processed,
    error: t.error,
    createdAt: t.created_at.toISOString(),
    finishedAt: t.finished_at ? t.finished_at.toISOString() : null,
  };
}

@Injectable()
export class TaskService {
  constructor(
    private readonly repo: TaskRepository,
    private readonly selection: SelectionService,
    private readonly jobs: TaskJobsService,
    private readonly uow: ContactsUnitOfWork,
  ) {}

  async create(accountId: string, p: Principal, dto: CreateTaskDto): Promise<TaskDto> {
    requireAnyPermission(p, TASK_PERMISSION[dto.type]);
    let raw = dto.params ?? {};
    if (typeof raw === 'string') {
      try {
        raw = JSON.parse(raw);
      } catch {
        throw AppError.validation([{ propertyPath: 'params', message: 'must be a JSON object' }]);
      }
    }
    if (MESSAGE_EXPORTS.includes(dto.type)) return this.createMessageExport(accountId, p, dto, raw);
    if (!CONTACT_TASKS.includes(dto.type)) throw AppError.validation([{ propertyPath: 'type', message: `${dto.type} is not available` }]);
    const r = TaskParamsSchema.safeParse(raw);
    if (!r.success) throw AppError.validation(r.error.issues.map((i): Violation => ({ propertyPath: ['params', ...i.path].join('.'), message: i.message })));
    const params = r.data;
    const selectors = ['contactList', 'importList', 'ids', 'filter', 'country', 'optedOut', 'search'].filter((k) => params[k as keyof TaskParams] !== undefined);
    if (dto.type !== TaskType.ExportContacts && !selectors.length && !params.all) {
      throw AppError.validation([{ propertyPath: 'params', message: 'say which contacts (contactList, importList, ids, filter, ...) or all: true' }]);
    }
    if (params.state && params.state !== 'no_error') {
      if (dto.type !== TaskType.ExportContacts) throw AppError.validation([{ propertyPath: 'params.state', message: 'rejected rows can only be exported' }]);
      if (!params.importList && !params.contactList) throw AppError.validation([{ propertyPath: 'params.importList', message: 'rejected rows are exported per import' }]);
    }
    if (params.filter !== undefined) params.filter = parseFilter(params.filter, 'params.filter');
    // every reference (lists, segments, imports, variables) is checked now, not when the task runs
    await this.selection.where(accountId, this.jobs.selectionOf(params), new SqlParams([accountId]));
    const row = await this.repo.insert(accountId, { userId: p.userId, type: dto.type, fileType: dto.fileType ?? 'CSV', params });
    this.jobs.kick();
    return taskDto(row);
  }

  /**
   * A message export (docs/decisions/0046): the task is recorded here, in the one task list, and stats is asked to
   * write the file (`contacts.task.requested`, in the same transaction); its progress comes back as `stats.export.*`.
   */
  private async createMessageExport(accountId: string, p: Principal, dto: CreateTaskDto, raw: unknown): Promise<TaskDto> {
    const r = MessageExportParams.safeParse(raw);
    if (!r.success) throw AppError.validation(r.error.issues.map((i): Violation => ({ propertyPath: ['params', ...i.path].join('.'), message: i.message })));
    const params = r.data;
    if (dto.type === TaskType.ExportStreamMessages && !params.streamId) throw AppError.validation([{ propertyPath: 'params.streamId', message: 'the stream whose messages to export', code: 'required' }]);
    if (dto.type === TaskType.ExportIncomingMessages && (params.status || params.campaign)) {
      throw AppError.validation([{ propertyPath: params.status ? 'params.status' : 'params.campaign', message: 'incoming messages have no status or campaign' }]);
    }
    if (params.start && params.end && params.start > params.end && params.start.length === params.end.length) throw AppError.validation([{ propertyPath: 'params.start', message: 'start is after end' }]);
    const row = await this.uow.run(async (m, emit) => {
      const t = await this.repo.insert(accountId, { userId: p.userId, type: dto.type, fileType: 'CSV', params }, m);
      emit(TaskRequestedV1, { taskId: String(t.id), accountId, type: dto.type as (typeof MESSAGE_EXPORT_TYPES)[number], params, requestedAt: new Date().toISOString() }, accountId);
      return t;
    });
    return taskDto(row);
  }

  async list(accountId: string, p: Principal, query: Record<string, unknown>): Promise<ListResult<TaskDto>> {
    const q = parseListQuery(query, { sortable: ['id'], defaultItemsPerPage: 25 });
    const type = typeof query.type === 'string' && query.type ? query.type : undefined;
    if (type && !TASK_TYPES.includes(type as never)) throw AppError.validation([{ propertyPath: 'type', message: `one of ${TASK_TYPES.join(', ')}` }]);
    const status = typeof query.status === 'string' && query.status ? query.status : undefined;
    if (status && !['pending', 'running', 'done', 'error'].includes(status)) throw AppError.validation([{ propertyPath: 'status', message: 'one of pending, running, done, error' }]);
    const [items, total] = await Promise.all([this.repo.list(accountId, { type, status }, { skip: q.skip, take: q.take, dir: q.order.id ?? 'DESC' }), this.repo.count(accountId, { type, status })]);
    // a task of a type the caller may not run is listed without its parameters
    return { items: items.map((t) => (canSee(p, t) ? taskDto(t) : { ...taskDto(t), params: {}, filePath: null })), total };
  }

  async get(accountId: string, p: Principal, rawId: string): Promise<TaskDto> {
    const t = await this.load(accountId, rawId);
    requireAnyPermission(p, TASK_PERMISSION[t.type]);
    return taskDto(t);
  }

  async delete(accountId: string, p: Principal, rawId: string): Promise<void> {
    const t = await this.load(accountId, rawId);
    requireAnyPermission(p, TASK_PERMISSION[t.type]);
    if (MESSAGE_EXPORTS.includes(t.type)) {
      // stats holds the file: it is told in the transaction that deletes the task, and deletes it (docs/decisions/0055)
      await this.uow.run(async (m, emit) => {
        const row = await this.repo.delete(accountId, String(t.id), m);
        if (row) emit(TaskDeletedV1, { taskId: String(row.id), accountId, type: row.type as MessageExportType, deletedAt: new Date().toISOString() }, accountId);
      });
      return;
    }
    const row = await this.repo.delete(accountId, String(t.id));
    if (row?.file_path) await fs.promises.rm(row.file_path, { force: true });
  }

  /** GET /api/task/download?id=: the task's CSV once its progress is 100; before that "task is not ready yet". */
  async download(accountId: string, p: Principal, rawId: unknown, res: Response): Promise<void> {
    if (rawId === undefined || rawId === '') throw AppError.validation([{ propertyPath: 'id', message: 'errors.client.required' }]);
    const t = await this.load(accountId, typeof rawId === 'string' ? rawId : '');
    requireAnyPermission(p, TASK_PERMISSION[t.type]);
    if (t.status === 'error') throw new AppError(409, ErrorCode.Conflict, `task failed: ${t.error ?? 'unknown error'}`);
    if (t.progress < 100 || t.status !== 'done') throw new AppError(409, ErrorCode.Conflict, 'task is not ready yet');
    if (MESSAGE_EXPORTS.includes(t.type)) {
      // the file is with stats, which checks the same permission and account (docs/decisions/0046)
      const token = typeof res.req?.query?.access_token === 'string' ? `&access_token=${encodeURIComponent(res.req.query.access_token)}` : '';
      res.setHeader('Cache-Control', 'no-store');
      res.redirect(307, `/api/message_exports/download?id=${t.id}${token}`);
      return;
    }
    if (!t.file_path || !fs.existsSync(t.file_path)) throw AppError.notFound('task file');
    const name = (t.file_name ?? `task-${t.id}.csv`).replace(/[^\w.-]/g, '_');
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="${name}"`);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    await new Promise<void>((resolve, reject) => {
      const s = fs.createReadStream(t.file_path as string);
      s.on('error', reject);
      res.on('finish', () => resolve());
      res.on('close', () => resolve());
      s.pipe(res);
    });
  }

  private async load(accountId: string, rawId: string): Promise<TaskRow> {
    const t = await this.repo.find(accountId, parseId(rawId, 'task'));
    if (!t) throw AppError.notFound('task');
    return t;
  }
}

function canSee(p: Principal, t: TaskRow): boolean {
  return p.superAdmin || p.permissions.includes(TASK_PERMISSION[t.type]);
}
