import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ContactOptedOutV1, ContactState, TaskType, type ContactStateValue } from '@switchboard/contracts';
import { PROCESS_ROLES, type ProcessRoles } from '@switchboard/platform';
import { CONTACTS_CONNECTION, CONTACTS_OPTIONS, type ResolvedContactsOptions } from '../contacts.options';
import { rows } from '../db/sql';
import { PhoneState } from '../import/phone';
import { CONTACT_COLUMNS, type ContactRow, type RejectedRow } from '../repositories/contact.repository';
import { ImportListRepository } from '../repositories/import-list.repository';
import { ContactListRepository } from '../repositories/contact-list.repository';
import { TaskRepository, type TaskRow } from '../repositories/task.repository';
import { parseFilter, SqlParams } from '../segments/filter';
import { SelectionService, type ContactSelection } from '../segments/selection.service';
import { csvLine, UTF8_BOM } from '@switchboard/platform';
import { ContactListService } from './contact-list.service';
import { ContactsRealtime, ContactsUnitOfWork } from './contacts-events.service';
import { PollLoop } from './poll-loop';
import { CONTACT_TASKS, type TaskParams } from './task.service';
import { VariableService, type VariableCatalog } from './variable.service';
import { STATE_NAMES } from './contact.service';

const PAGE = 5000;

class TaskStopped extends Error {}

/**
 * Runs tasks in the background (schedulers role), one at a time per process, each held through a lease like
 * imports. Exports restart from the beginning when taken over; deletions and opt-outs continue where they were
 * (what they already changed no longer matches), appending to their CSV of affected contacts.
 */
@Injectable()
export class TaskJobsService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger('contacts');
  private readonly owner = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly loop: PollLoop;
  private stopping = false;

  constructor(
    @InjectDataSource(CONTACTS_CONNECTION) private readonly ds: DataSource,
    @Inject(CONTACTS_OPTIONS) private readonly options: ResolvedContactsOptions,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly repo: TaskRepository,
    private readonly imports: ImportListRepository,
    private readonly lists: ContactListRepository,
    private readonly listService: ContactListService,
    private readonly selection: SelectionService,
    private readonly variables: VariableService,
    private readonly uow: ContactsUnitOfWork,
    private readonly realtime: ContactsRealtime,
  ) {
    this.loop = new PollLoop('contacts-tasks', () => this.tick(), options.pollIntervalMs);
  }

  onApplicationBootstrap(): void {
    if (this.roles.schedulers) this.loop.start();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    await this.loop.stop();
  }

  kick(): void {
    if (this.roles.schedulers) this.loop.kick();
  }

  selectionOf(p: TaskParams): ContactSelection {
    return {
      contactList: p.contactList,
      importList: p.importList,
      ids: p.ids,
      country: p.country,
      optedOut: p.optedOut,
      search: p.search,
      filter: p.filter === undefined ? undefined : parseFilter(p.filter, 'params.filter'),
    };
  }

  async tick(): Promise<boolean> {
    if (this.stopping) return false;
    const t = await this.repo.claim(this.owner, this.options.leaseSeconds, CONTACT_TASKS);
    if (!t) return false;
    const accountId = String(t.account_id);
    if (t.attempts > this.options.maxAttempts) {
      await this.repo.fail(String(t.id), 'the task was interrupted too many times');
      this.publish(t, 'error', t.progress);
      return true;
    }
    try {
      const params = t.params as TaskParams;
      const dir = path.join(this.options.storageDir, 'tasks', accountId);
      await fs.promises.mkdir(dir, { recursive: true });
      const file = path.join(dir, `${t.id}.csv`);
      const fileName = `${t.type.replace(/_/g, '-')}-${t.id}-${new Date().toISOString().slice(0, 19).replace(/[-:T]/g, '')}.csv`;
      let result: { total: number; processed: number };
      if (t.type === TaskType.ExportContacts) result = await this.exportContacts(t, params, file, fileName);
      else if (t.type === TaskType.DeleteContacts || t.type === TaskType.OptOutContacts) result = await this.changeContacts(t, params, file, fileName);
      else throw new Error(`${t.type} is not available`);
      if (!(await this.repo.finish(String(t.id), this.owner, result))) {
        await fs.promises.rm(file, { force: true });
        return true;
      }
      this.publish({ ...t, ...result }, 'done', 100);
      if (t.type !== TaskType.ExportContacts) {
        await this.listService.refreshCounts(accountId);
        this.realtime.publish(accountId, 'contacts', 'contacts.changed', { task: Number(t.id), type: t.type, count: result.processed });
      }
    } catch (e) {
      if (e instanceof TaskStopped) {
        if (this.stopping) await this.repo.release(String(t.id), this.owner).catch(() => undefined);
        return false;
      }
      this.log.error(`task ${t.id} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      await this.repo.fail(String(t.id), e instanceof Error ? e.message : String(e));
      this.publish(t, 'error', t.progress);
    }
    return true;
  }

  private publish(t: Pick<TaskRow, 'id' | 'account_id' | 'type' | 'total' | 'processed'>, status: string, progress: number): void {
    this.realtime.publish(String(t.account_id), 'tasks', 'task.progress', { id: Number(t.id), type: t.type, status, progress, total: t.total, processed: t.processed }, String(t.id));
  }

  private async report(t: TaskRow, total: number, processed: number, extra: { filePath?: string; fileName?: string } = {}): Promise<void> {
    if (this.stopping) throw new TaskStopped();
    const progress = total ? Math.min(99, Math.floor((processed / total) * 100)) : 99;
    if (!(await this.repo.progress(String(t.id), this.owner, this.options.leaseSeconds, { total, processed, progress, ...extra }))) throw new TaskStopped();
    this.publish({ ...t, total, processed }, 'running', progress);
  }

  /** A CSV of the selected contacts (standard fields and every custom variable), or of an import's rejected rows. */
  private async exportContacts(t: TaskRow, p: TaskParams, file: string, fileName: string): Promise<{ total: number; processed: number }> {
    const accountId = String(t.account_id);
    const out = fs.createWriteStream(file, { flags: 'w' });
    const write = writer(out);
    try {
      await write(UTF8_BOM);
      if (p.state && p.state !== ContactState.NoError) return await this.exportRejected(t, p, write, file, fileName);
      const catalog = await this.variables.catalog(accountId);
      const custom = catalog.custom();
      await write(csvLine(['id', 'phone', 'firstName', 'lastName', 'email', 'country', 'timezone', 'optedOutAt', 'blocked', 'createdAt', ...custom.map((v) => v.name)]));
      const params = new SqlParams([accountId]);
      const where = await this.selection.where(accountId, this.selectionOf(p), params);
      const [{ n: total }] = await rows<{ n: number }>(this.ds, `SELECT count(*)::int AS n FROM contacts.contact c WHERE ${where}`, params.values);
      await this.report(t, total, 0, { filePath: file, fileName });
      let last = '0';
      let processed = 0;
      for (;;) {
        const page = await rows<ContactRow>(
          this.ds,
          `SELECT ${CONTACT_COLUMNS} FROM contacts.contact c WHERE ${where} AND c.id > $${params.values.length + 1} ORDER BY c.id LIMIT ${PAGE}`,
          [...params.values, last],
        );
        if (!page.length) break;
        let chunk = '';
        for (const c of page) chunk += csvLine(exportCells(c, custom));
        await write(chunk);
        processed += page.length;
        last = String(page[page.length - 1].id);
        await this.report(t, Math.max(total, processed), processed);
      }
      return { total: Math.max(total, processed), processed };
    } finally {
      await new Promise<void>((resolve) => out.end(() => resolve()));
    }
  }

  private async exportRejected(t: TaskRow, p: TaskParams, write: (s: string) => Promise<void>, file: string, fileName: string): Promise<{ total: number; processed: number }> {
    const accountId = String(t.account_id);
    let importId = p.importList;
    if (!importId && p.contactList) importId = (await this.lists.find(accountId, p.contactList))?.import_list_id ?? undefined;
    const states = p.state === 'failed' ? [PhoneState.Invalid, PhoneState.NotMobile, PhoneState.Blacklist] : [STATE_NAMES.indexOf(p.state as ContactStateValue)];
    await write(csvLine(['rowNumber', 'phone', 'normalizedPhone', 'state', 'error', 'firstName', 'lastName', 'email']));
    if (!importId || !(await this.imports.find(accountId, importId))) return { total: 0, processed: 0 };
    const [{ n: total }] = await rows<{ n: number }>(this.ds, `SELECT count(*)::int AS n FROM contacts.import_row_error WHERE account_id = $1 AND import_list_id = $2 AND state = ANY($3::smallint[])`, [accountId, importId, states]);
    await this.report(t, total, 0, { filePath: file, fileName });
    let last = '0';
    let processed = 0;
    for (;;) {
      const page = await rows<RejectedRow>(
        this.ds,
        `SELECT id, import_list_id, row_no, state, error, phone, normalized_phone, country, first_name, last_name, email, created_at FROM contacts.import_row_error
          WHERE account_id = $1 AND import_list_id = $2 AND state = ANY($3::smallint[]) AND id > $4 ORDER BY id LIMIT ${PAGE}`,
        [accountId, importId, states, last],
      );
      if (!page.length) break;
      await write(page.map((r) => csvLine([r.row_no, r.phone, r.normalized_phone, STATE_NAMES[r.state], r.error, r.first_name, r.last_name, r.email])).join(''));
      processed += page.length;
      last = String(page[page.length - 1].id);
      await this.report(t, total, processed);
    }
    return { total, processed };
  }

  /**
   * Deletes or opts out the selected contacts in batches, each batch one transaction with its events (opt-outs) and
   * its progress; the CSV lists every contact changed.
   */
  private async changeContacts(t: TaskRow, p: TaskParams, file: string, fileName: string): Promise<{ total: number; processed: number }> {
    const accountId = String(t.account_id);
    const optOut = t.type === TaskType.OptOutContacts;
    const resumed = t.attempts > 1 && fs.existsSync(file);
    const out = fs.createWriteStream(file, { flags: resumed ? 'a' : 'w' });
    const write = writer(out);
    try {
      if (!resumed) await write(UTF8_BOM + csvLine(['id', 'phone', 'firstName', 'lastName', 'email', optOut ? 'optedOutAt' : 'deletedAt']));
      const params = new SqlParams([accountId]);
      let where = await this.selection.where(accountId, this.selectionOf(p), params);
      if (optOut) where += ' AND c.opted_out_at IS NULL';
      const [{ n: remaining }] = await rows<{ n: number }>(this.ds, `SELECT count(*)::int AS n FROM contacts.contact c WHERE ${where}`, params.values);
      let processed = resumed ? t.processed : 0;
      const total = processed + remaining;
      await this.report(t, total, processed, { filePath: file, fileName });
      const next = params.values.length + 1;
      for (;;) {
        const changed = await this.uow.run(async (m, emit) => {
          const batch = optOut
            ? await rows<ContactRow>(
                m,
                `UPDATE contacts.contact c SET opted_out_at = now(), updated_at = now()
                  WHERE c.id IN (SELECT c.id FROM contacts.contact c WHERE ${where} ORDER BY c.id LIMIT $${next} FOR UPDATE SKIP LOCKED)
                  RETURNING ${CONTACT_COLUMNS}`,
                [...params.values, PAGE],
              )
            : await rows<ContactRow>(
                m,
                `DELETE FROM contacts.contact c WHERE c.id IN (SELECT c.id FROM contacts.contact c WHERE ${where} ORDER BY c.id LIMIT $${next} FOR UPDATE SKIP LOCKED)
                  RETURNING ${CONTACT_COLUMNS}`,
                [...params.values, PAGE],
              );
          const at = new Date().toISOString();
          if (optOut) {
            for (const c of batch) emit(ContactOptedOutV1, { accountId, contactId: String(c.id), phone: c.normalized_phone, optedOutAt: (c.opted_out_at ?? new Date()).toISOString(), source: 'task' }, accountId);
          }
          const progress = total ? Math.min(99, Math.floor(((processed + batch.length) / total) * 100)) : 99;
          // progress, lease and the batch commit together: a takeover continues from exactly here
          if (!(await this.repo.progress(String(t.id), this.owner, this.options.leaseSeconds, { total, processed: processed + batch.length, progress }, m))) throw new TaskStopped();
          return { n: batch.length, csv: batch.map((c) => csvLine([c.id, c.normalized_phone, c.first_name, c.last_name, c.email, optOut ? (c.opted_out_at?.toISOString() ?? at) : at])).join('') };
        });
        if (!changed.n) break;
        await write(changed.csv);
        processed += changed.n;
        this.publish({ ...t, total, processed }, 'running', total ? Math.min(99, Math.floor((processed / total) * 100)) : 99);
        if (this.stopping) throw new TaskStopped();
      }
      return { total: Math.max(total, processed), processed };
    } finally {
      await new Promise<void>((resolve) => out.end(() => resolve()));
    }
  }
}

/** Writes with back-pressure: waits for 'drain' when the stream's buffer is full. */
function writer(out: fs.WriteStream): (s: string) => Promise<void> {
  return (s) =>
    new Promise<void>((resolve, reject) => {
      const onError = (e: Error) => reject(e);
      out.once('error', onError);
      const done = () => {
        out.off('error', onError);
        resolve();
      };
      if (out.write(s)) done();
      else out.once('drain', done);
    });
}

function exportCells(c: ContactRow, custom: ReturnType<VariableCatalog['custom']>): unknown[] {
  return [
    c.id,
    c.normalized_phone,
    c.first_name,
    c.last_name,
    c.email,
    c.country,
    c.timezone,
    c.opted_out_at,
    c.blocked ? 'true' : 'false',
    c.created_at,
    ...custom.map((v) => c.variables?.[String(v.id)] ?? ''),
  ];
}
