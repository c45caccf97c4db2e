import * as fs from 'node:fs';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { DataSource, QueryRunner } from 'typeorm';
import { BlacklistChangedV1, ContactListReadyV1, ContactsImportedV1, StandardVariable, type EventDefinition } from '@switchboard/contracts';
import { counter, Outbox, type OutgoingEvent } from '@switchboard/platform';
import { CONTACTS_SCHEMA, type ResolvedContactsOptions } from '../contacts.options';
import type { ImportCounters, ImportListRepository, ImportListRow } from '../repositories/import-list.repository';
import type { VariableCatalog } from '../services/variable.service';
import type { Delimiter, FileRow } from './csv-parser';
import { readRows } from './file-source';
import { recordEnds } from './record-splitter';
import { CREATE_STAGE_SQL, MERGE_BLACKLIST_SQL, MERGE_CONTACTS_SQL, type MergeResult } from './merge-sql';
import { STAGE_COLUMNS, type RowMapping } from './row-processor';
import type { RowWorkerPool, WorkerBatch, WorkerResult } from './worker-pool';

/** Thrown when a run must stop without failing the import: shutdown, or another process took it over. */
export class ImportInterrupted extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'ImportInterrupted';
  }
}

/** What the import job needs from the service, passed in so the run is a plain object that tests can follow. */
export interface ImportRunDeps {
  ds: DataSource;
  options: ResolvedContactsOptions;
  pool: RowWorkerPool;
  imports: ImportListRepository;
  catalog: VariableCatalog;
  envelope: <T>(def: EventDefinition<T>, data: T, accountId: string) => OutgoingEvent;
  onProgress: (row: ImportListRow, progress: number, counters: ImportCounters) => void;
  /** Resolves when the run must stop (shutdown). */
  aborted: Promise<void>;
  isAborted: () => boolean;
}

export interface ImportOutcome {
  counters: ImportCounters;
  createdContacts: number;
}

/** Column indexes of each mapped field, from the stored mapping (validated when it was saved). */
export function rowMapping(row: ImportListRow, catalog: VariableCatalog): RowMapping {
  const m: RowMapping = { requireMobile: row.type === 'contacts', phone: -1, custom: [], defaultCountry: row.default_country };
  for (const entry of row.mapping ?? []) {
    const v = catalog.byIdString(String(entry.variable));
    if (!v) continue;
    switch (Number(v.id)) {
      case StandardVariable.phone:
        m.phone = entry.column;
        break;
      case StandardVariable.firstName:
        m.firstName = entry.column;
        break;
      case StandardVariable.lastName:
        m.lastName = entry.column;
        break;
      case StandardVariable.email:
        m.email = entry.column;
        break;
      case StandardVariable.country:
        m.country = entry.column;
        break;
      case StandardVariable.timezone:
        m.timezone = entry.column;
        break;
      default:
        if (!v.is_standard && row.type === 'contacts') m.custom.push([entry.column, String(v.id)]);
    }
  }
  if (m.phone < 0) throw new Error('the mapping has no phone column');
  return m;
}

/** Prometheus: import rows by what became of them (docs/decisions/0039-observability.md). */
export const ImportMetrics = {
  rows: () => counter('switchboard_contacts_import_rows_total', 'Rows of contact and blacklist imports, by outcome (added, rejected, duplicate)', ['outcome']),
};

const emptyCounters = (): ImportCounters => ({ parsed: 0, failed: 0, duplicates: 0, invalid: 0, notMobile: 0, blacklisted: 0, numberOfContacts: 0 });

/**
 * One import, start to end, in ONE database transaction: either the whole file lands (contacts, list membership,
 * rejected rows, the import's final counters and its events) or nothing does. A crash or a restart mid-way leaves
 * no trace but the import row still `processing`, which the job loop takes over and runs again from the start.
 *
 * Pipeline: the main thread streams the file and cuts it into batches (a UTF-8 CSV as raw bytes of whole records,
 * other files as rows); worker threads parse them, validate the numbers and write COPY lines, a few batches ahead;
 * the main thread COPYs each batch, in order, into a session temp table and merges it into the contacts with one
 * set-based statement. Memory holds a few batches, whatever the file size.
 */
export async function runImport(row: ImportListRow, owner: string, deps: ImportRunDeps): Promise<ImportOutcome> {
  const { ds, options, pool } = deps;
  const accountId = String(row.account_id);
  const importId = String(row.id);
  const listId = row.contact_list_id ? String(row.contact_list_id) : null;
  if (row.type === 'contacts' && !listId) throw new Error('the import has no contact list');
  if (!row.file_path || !fs.existsSync(row.file_path)) throw new Error('the uploaded file is no longer available');
  const mapping = rowMapping(row, deps.catalog);
  const mergeSql = row.type === 'contacts' ? MERGE_CONTACTS_SQL : MERGE_BLACKLIST_SQL;
  const mergeParams = row.type === 'contacts' ? [accountId, importId, listId] : [accountId, importId];

  const qr: QueryRunner = ds.createQueryRunner();
  await qr.connect();
  const client = (qr as unknown as { databaseConnection: PoolClient }).databaseConnection;
  const counters = emptyCounters();
  let createdContacts = 0;
  const addedPhones: string[] = [];
  let finished = false;
  try {
    await qr.startTransaction();
    await client.query(CREATE_STAGE_SQL);

    const inflight: Array<{ promise: Promise<WorkerResult>; fraction: number }> = [];
    const maxInflight = options.workers + 1;
    let batchNo = 0;
    let lastReport = 0;

    const interruptible = <T>(p: Promise<T>): Promise<T> =>
      Promise.race([p, deps.aborted.then((): never => { throw new ImportInterrupted('the service is stopping'); })]);

    const applyNext = async (): Promise<void> => {
      const next = inflight.shift() as { promise: Promise<WorkerResult>; fraction: number };
      const result = await interruptible(next.promise);
      if (result.copy.length) await interruptible(copyInto(client, result.copy));
      const [r] = (await interruptible(client.query<MergeResult>(mergeSql, mergeParams))).rows;
      await client.query('TRUNCATE stage');
      batchNo++;
      counters.parsed += result.rows;
      counters.invalid += r.invalid;
      counters.notMobile += r.not_mobile;
      counters.blacklisted += r.blacklisted;
      counters.duplicates += r.duplicates;
      counters.failed = counters.invalid + counters.notMobile + counters.blacklisted;
      counters.numberOfContacts += r.added;
      createdContacts += r.created;
      ImportMetrics.rows().inc({ outcome: 'added' }, r.added);
      ImportMetrics.rows().inc({ outcome: 'rejected' }, r.invalid + r.not_mobile + r.blacklisted);
      ImportMetrics.rows().inc({ outcome: 'duplicate' }, r.duplicates);
      if (row.type === 'blacklist') addedPhones.push(...r.added_phones);
      if (options.hooks.afterBatch) await interruptible(Promise.resolve(options.hooks.afterBatch(importId, batchNo)));
      if (deps.isAborted()) throw new ImportInterrupted('the service is stopping');
      const now = Date.now();
      if (now - lastReport >= 500) {
        lastReport = now;
        // the lease is renewed with each report: losing it means another process runs this import now
        if (!(await deps.imports.renew(importId, owner, options.leaseSeconds))) throw new ImportInterrupted('another process took the import over');
        const pct = Math.min(99, Math.floor(next.fraction * 100));
        await deps.imports.progress(importId, owner, pct, counters);
        deps.onProgress(row, pct, { ...counters });
      }
    };

    /**
     * Hands a batch to a worker; several run ahead while PostgreSQL takes the earlier ones, in order. Resolves once
     * there is room for the next batch, with the batch's own result to await if needed.
     */
    const submit: Submit = async (batch, fraction) => {
      const promise = pool.run(batch, mapping);
      inflight.push({ promise, fraction });
      while (inflight.length >= maxInflight) await applyNext();
      if (deps.isAborted()) throw new ImportInterrupted('the service is stopping');
      return { result: promise };
    };

    if (row.file_format === 'csv' && (await isUtf8(row.file_path))) {
      await splitCsv(row.file_path, (row.delimiter ?? ',') as Delimiter, options.batchSize, row.ignore_first_line, submit);
    } else {
      const progress = { fraction: 0 };
      let skipFirst = row.ignore_first_line;
      let pending: FileRow[] = [];
      for await (const chunk of readRows(row.file_path, row.file_format, row.delimiter ?? ',', progress)) {
        let rows = chunk;
        if (skipFirst) {
          skipFirst = false;
          rows = rows.slice(1);
        }
        for (const r of rows) {
          pending.push(r);
          if (pending.length >= options.batchSize) {
            await submit({ kind: 'rows', rows: pending }, progress.fraction);
            pending = [];
          }
        }
      }
      if (pending.length) await submit({ kind: 'rows', rows: pending }, 1);
    }
    while (inflight.length) await applyNext();

    // the end, in the same transaction: the list turns ready, the import parsed, the events leave with them
    const events: OutgoingEvent[] = [];
    const completedAt = new Date().toISOString();
    if (row.type === 'contacts') {
      const [l] = (
        await client.query<{ name: string }>(
          `UPDATE contacts.contact_list SET status = 2, progress = 100, num_of_contacts = $3, created_contacts = $4, updated_at = now()
            WHERE account_id = $1 AND id = $2 RETURNING name`,
          [accountId, listId, counters.numberOfContacts, createdContacts],
        )
      ).rows;
      if (!l) throw new Error('the import list lost its contact list');
      events.push(
        deps.envelope(
          ContactListReadyV1,
          { accountId, contactListId: listId as string, type: 'list', name: l.name, numOfContacts: counters.numberOfContacts, importListId: importId, readyAt: completedAt },
          accountId,
        ),
      );
    } else {
      for (let i = 0; i < addedPhones.length; i += 1000) {
        events.push(deps.envelope(BlacklistChangedV1, { accountId, added: addedPhones.slice(i, i + 1000), removed: [], changedAt: completedAt }, accountId));
      }
    }
    events.unshift(deps.envelope(ContactsImportedV1, { accountId, importListId: importId, type: row.type, contactListId: listId, ...counters, completedAt }, accountId));
    if (!(await deps.imports.finish(importId, owner, counters, qr.manager))) throw new ImportInterrupted('another process took the import over');
    await Outbox.add(qr.manager, CONTACTS_SCHEMA, events);
    await qr.commitTransaction();
    finished = true;
    return { counters, createdContacts };
  } finally {
    if (!finished && deps.isAborted()) {
      // the connection may be busy with a statement: dropping it makes PostgreSQL roll the transaction back
      await (qr as unknown as { releasePostgresConnection(e: Error): Promise<void> }).releasePostgresConnection(new Error('import interrupted'));
    } else {
      if (!finished) await qr.rollbackTransaction().catch(() => undefined);
      await qr.release().catch(() => undefined);
    }
  }
}

type Submit = (batch: WorkerBatch, fraction: number) => Promise<{ result: Promise<WorkerResult> }>;

/** Text files start with a UTF-16 byte-order mark when Excel saves "Unicode text"; everything else is read as UTF-8. */
async function isUtf8(file: string): Promise<boolean> {
  const fd = await fs.promises.open(file, 'r');
  try {
    const head = Buffer.alloc(2);
    const { bytesRead } = await fd.read(head, 0, 2, 0);
    return !(bytesRead === 2 && ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)));
  } finally {
    await fd.close();
  }
}

/**
 * Streams a UTF-8 CSV as batches of whole records in raw bytes (see recordEnds). The header, when there is one,
 * is the first non-empty row: the first batch drops it, and the next batch is only sent once the first one said
 * it found a row to drop (a file may begin with blank lines).
 */
async function splitCsv(file: string, delimiter: Delimiter, batchSize: number, skipHeader: boolean, submit: Submit): Promise<void> {
  const size = (await fs.promises.stat(file)).size;
  const delim = delimiter.charCodeAt(0);
  let buf: Buffer = Buffer.alloc(0);
  let ends: number[] = [];
  let scanned = 0;
  let line = 1;
  let read = 0;
  let first = true;
  let skipPending = skipHeader;
  const send = async (count: number): Promise<void> => {
    const cut = ends[count - 1];
    // a copy with its own memory, so that it can be transferred to the worker
    const bytes = new Uint8Array(buf.subarray(0, cut));
    const { result } = await submit({ kind: 'csv', bytes, firstLine: line, delimiter, skipFirst: skipPending }, size ? read / size : 1);
    if (skipPending) skipPending = !(await result).skipped;
    line += count;
    buf = buf.subarray(cut);
    ends = ends.slice(count).map((e) => e - cut);
    scanned -= cut;
  };
  const stream = fs.createReadStream(file, { highWaterMark: 1 << 20 });
  try {
    for await (const chunk of stream) {
      read += (chunk as Buffer).length;
      buf = buf.length ? Buffer.concat([buf, chunk as Buffer]) : (chunk as Buffer);
      if (first) {
        first = false;
        if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) buf = buf.subarray(3);
      }
      for (const e of recordEnds(buf.subarray(scanned), delim, false, line + ends.length)) ends.push(e + scanned);
      scanned = ends.length ? ends[ends.length - 1] : 0;
      while (ends.length >= batchSize) await send(batchSize);
    }
  } finally {
    stream.destroy();
  }
  for (const e of recordEnds(buf.subarray(scanned), delim, true, line + ends.length)) ends.push(e + scanned);
  while (ends.length) await send(Math.min(batchSize, ends.length));
}

function copyInto(client: PoolClient, data: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    const stream = client.query(copyFrom(`COPY stage (${STAGE_COLUMNS.join(', ')}) FROM STDIN`));
    stream.on('finish', () => resolve());
    stream.on('error', reject);
    stream.end(data);
  });
}
