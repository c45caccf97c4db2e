import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ImportStatus } from '@switchboard/contracts';
import { PROCESS_ROLES, type ProcessRoles } from '@switchboard/platform';
import { CONTACTS_CONNECTION, CONTACTS_OPTIONS, type ResolvedContactsOptions } from '../contacts.options';
import { ImportInterrupted, runImport } from '../import/import-runner';
import { RowWorkerPool } from '../import/worker-pool';
import { ContactListRepository } from '../repositories/contact-list.repository';
import { ImportListRepository, type ImportCounters, type ImportListRow } from '../repositories/import-list.repository';
import { ContactListService } from './contact-list.service';
import { ContactsRealtime, ContactsUnitOfWork } from './contacts-events.service';
import { PollLoop } from './poll-loop';
import { VariableService } from './variable.service';

export function importProgressData(row: Pick<ImportListRow, 'id' | 'status' | 'contact_list_id' | 'error'>, progress: number, c: ImportCounters): Record<string, unknown> {
  return {
    id: Number(row.id),
    status: row.status,
    progress,
    contactList: row.contact_list_id ? Number(row.contact_list_id) : null,
    error: row.error,
    ...c,
  };
}

/**
 * Runs started imports in the background, one at a time per process, in processes with the schedulers role.
 * Each import is held through a lease renewed while it runs: an import whose process died is taken over when
 * its lease runs out and run again from the start (its earlier run left nothing, being one transaction), at most
 * `maxAttempts` times; then it fails with no list left behind.
 */
@Injectable()
export class ImportJobsService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger('contacts');
  private readonly owner = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly loop: PollLoop;
  private readonly pool: RowWorkerPool;
  private abort!: () => void;
  private readonly aborted: Promise<void>;
  private stopping = false;

  constructor(
    @InjectDataSource(CONTACTS_CONNECTION) private readonly ds: DataSource,
    @Inject(CONTACTS_OPTIONS) private readonly options: ResolvedContactsOptions,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly imports: ImportListRepository,
    private readonly lists: ContactListRepository,
    private readonly listService: ContactListService,
    private readonly variables: VariableService,
    private readonly uow: ContactsUnitOfWork,
    private readonly realtime: ContactsRealtime,
  ) {
    this.pool = new RowWorkerPool(options.workers);
    this.aborted = new Promise<void>((resolve) => {
      this.abort = resolve;
    });
    this.loop = new PollLoop('contacts-imports', () => this.tick(), options.pollIntervalMs);
  }

  onApplicationBootstrap(): void {
    if (this.roles.schedulers) this.loop.start();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    this.abort();
    await this.loop.stop();
    await this.pool.close();
  }

  /** Start looking now (an import was just started). */
  kick(): void {
    if (this.roles.schedulers) this.loop.kick();
  }

  /** One pass: takes one waiting import and runs it. True when it did (there may be more). */
  async tick(): Promise<boolean> {
    if (this.stopping) return false;
    const row = await this.imports.claim(this.owner, this.options.leaseSeconds);
    if (!row) return false;
    const accountId = String(row.account_id);
    if (row.attempts > this.options.maxAttempts) {
      await this.fail(row, `the import was interrupted ${row.attempts - 1} times; upload the file again`);
      return true;
    }
    if (row.attempts > 1) this.log.warn(`import ${row.id} of account ${accountId}: resuming (attempt ${row.attempts})`);
    try {
      const catalog = await this.variables.catalog(accountId);
      const outcome = await runImport(row, this.owner, {
        ds: this.ds,
        options: this.options,
        pool: this.pool,
        imports: this.imports,
        catalog,
        envelope: (def, data, acc) => this.uow.envelope(def, data, acc),
        onProgress: (r, progress, counters) => this.publishProgress(r, progress, counters),
        aborted: this.aborted,
        isAborted: () => this.stopping,
      });
      this.uow.kick();
      this.removeFile(row.file_path);
      this.publishProgress({ ...row, status: ImportStatus.Parsed, error: null }, 100, outcome.counters);
      if (row.contact_list_id) {
        this.realtime.publish(accountId, 'contact_lists', 'contact_list.ready', { id: Number(row.contact_list_id), status: 2, progress: 100, numOfContacts: outcome.counters.numberOfContacts }, String(row.contact_list_id));
      }
      await this.maintain(outcome.counters.numberOfContacts);
      // segments and, after a blacklist import, lists count differently now
      await this.listService.refreshCounts(accountId);
    } catch (e) {
      if (e instanceof ImportInterrupted) {
        this.log.warn(`import ${row.id} stopped: ${e.message}`);
        if (this.stopping) await this.imports.release(String(row.id), this.owner).catch(() => undefined);
        return false;
      }
      this.log.error(`import ${row.id} of account ${accountId} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      await this.fail(row, e instanceof Error ? e.message : String(e));
    }
    return true;
  }

  /**
   * After a large import: VACUUM sets the new rows' hint bits and visibility once, instead of the first segment
   * counts paying for it, and ANALYZE gives the planner the table's new size (it would otherwise plan for an
   * empty table until autovacuum passes).
   */
  private async maintain(added: number): Promise<void> {
    if (added < 10_000 || this.stopping) return;
    try {
      await this.ds.query('VACUUM (ANALYZE) contacts.contact');
    } catch (e) {
      this.log.warn(`VACUUM after an import failed: ${String(e)}`);
    }
  }

  /** The import ends in error and its list disappears; nothing of its rows was kept (the run rolled back). */
  private async fail(row: ImportListRow, message: string): Promise<void> {
    const accountId = String(row.account_id);
    const failed = await this.ds.transaction(async (m) => {
      const r = await this.imports.fail(String(row.id), message, m);
      if (r && row.contact_list_id) await this.lists.hardDelete(accountId, String(row.contact_list_id), m);
      return r;
    });
    this.removeFile(row.file_path);
    if (failed) {
      this.publishProgress(failed, 0, { parsed: 0, failed: 0, duplicates: 0, invalid: 0, notMobile: 0, blacklisted: 0, numberOfContacts: 0 });
      if (row.contact_list_id) this.realtime.publish(accountId, 'contact_lists', 'contact_list.deleted', { id: Number(row.contact_list_id) }, String(row.contact_list_id));
    }
  }

  private publishProgress(row: Pick<ImportListRow, 'id' | 'account_id' | 'status' | 'contact_list_id' | 'error'>, progress: number, counters: ImportCounters): void {
    const accountId = String(row.account_id);
    this.realtime.publish(accountId, 'imports', 'import_list.progress', importProgressData(row, progress, counters), String(row.id));
    if (row.contact_list_id && row.status === ImportStatus.Processing) {
      this.realtime.publish(accountId, 'contact_lists', 'contact_list.progress', { id: Number(row.contact_list_id), status: 1, progress }, String(row.contact_list_id));
    }
  }

  private removeFile(file: string | null): void {
    if (file) fs.promises.rm(file, { force: true }).catch(() => undefined);
  }
}
