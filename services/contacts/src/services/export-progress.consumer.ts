import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { ExportFinishedV1, ExportProgressedV1, Topics, type EventEnvelope } from '@switchboard/contracts';
import { EventBus, PROCESS_ROLES, type ProcessRoles } from '@switchboard/platform';
import { TaskRepository } from '../repositories/task.repository';
import { ContactsRealtime } from './contacts-events.service';

const GROUP = 'contacts.export_progress';

/**
 * Message exports run by stats (docs/decisions/0046): their progress and end (`stats.export.progressed`,
 * `stats.export.finished`) are applied to the task row, and the console's task list is told (`tasks` realtime), as for
 * the exports contacts runs itself. Idempotent without a ledger: a report never moves a task back (from an end, or to
 * a lower progress), so a repeated or late one changes nothing. A report naming another account's task changes nothing.
 */
@Injectable()
export class ExportProgressConsumer implements OnModuleInit {
  constructor(
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly repo: TaskRepository,
    private readonly realtime: ContactsRealtime,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    await this.bus.subscribe({ group: GROUP, topics: [Topics.Stats], types: [ExportProgressedV1.type, ExportFinishedV1.type], handler: (e) => this.handle(e) });
  }

  async handle(e: EventEnvelope): Promise<void> {
    let row;
    if (e.type === ExportProgressedV1.type) {
      const d = ExportProgressedV1.schema.parse(e.data);
      row = await this.repo.applyExport(d.accountId, d.taskId, { status: 'running', total: d.total, processed: d.processed, progress: d.progress });
    } else if (e.type === ExportFinishedV1.type) {
      const d = ExportFinishedV1.schema.parse(e.data);
      row = await this.repo.applyExport(d.accountId, d.taskId, { status: d.outcome, total: d.total, processed: d.processed, progress: d.outcome === 'done' ? 100 : 0, fileName: d.fileName, error: d.error });
    }
    if (row) {
      this.realtime.publish(String(row.account_id), 'tasks', 'task.progress', { id: Number(row.id), type: row.type, status: row.status, progress: row.progress, total: row.total, processed: row.processed }, String(row.id));
    }
  }
}
