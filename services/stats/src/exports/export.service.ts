import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { PoolClient } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { DataSource } from 'typeorm';
import { ExportFinishedV1, ExportProgressedV1, MessageReceivedV1, TaskDeletedV1, TaskRequestedV1, Topics, type EventData, type EventEnvelope } from '@switchboard/contracts';
import { BatchedWriter, csvCell, EventBus, PROCESS_ROLES, ServiceOutboxRelay, UnitOfWork, UTF8_BOM, type ProcessRoles } from '@switchboard/platform';
import { STATS_CONNECTION, STATS_OPTIONS, STATS_SCHEMA, type ResolvedStatsOptions } from '../stats.options';

export const EXPORT_REQUESTS_GROUP = 'stats.export-requests';
export const INBOUND_GROUP = 'stats.inbound';
const LEASE_SECONDS = 60;
const MAX_ATTEMPTS = 5;
/** Progress is reported at most this often (events and lease renewal). */
const REPORT_EVERY_MS = 1000;

type Params = EventData<typeof TaskRequestedV1>['params'];

interface ExportRow {
  task_id: string;
  account_id: string;
  type: string;
  params: Params;
  attempts: number;
}

/** Publishes `stats.outbox` (the exports' progress) on the bus, in processes that run the relay role. */
@Injectable()
export class StatsOutboxRelay extends ServiceOutboxRelay {
  constructor(@InjectDataSource(STATS_CONNECTION) ds: DataSource, @Inject(EventBus) bus: EventBus, @Inject(PROCESS_ROLES) roles: ProcessRoles) {
    super(STATS_SCHEMA, ds, bus, roles, { batchSize: 100 });
  }
}

@Injectable()
export class StatsUnitOfWork extends UnitOfWork {
  constructor(@InjectDataSource(STATS_CONNECTION) ds: DataSource, relay: StatsOutboxRelay) {
    super({ dataSource: ds, schema: STATS_SCHEMA, source: 'stats', relay });
  }
}

/** COPY text format's escapes, undone for one field (`\N` is NULL). */
export function unescapeCopy(f: string): string | null {
  if (f === '\\N') return null;
  if (!f.includes('\\')) return f;
  return f.replace(/\\(.)/g, (_m, c: string) => (c === 't' ? '\t' : c === 'n' ? '\n' : c === 'r' ? '\r' : c === 'b' ? '\b' : c === 'f' ? '\f' : c === 'v' ? '\v' : c));
}

/**
 * COPY text rows in, CSV lines out: each field through the formula-neutralising cell writer (libs/platform csv-writer),
 * counting rows. Holds at most one partial line between chunks, so memory stays at the streams' buffers.
 */
export class CopyToCsv extends Transform {
  rows = 0;
  private rest = '';

  constructor(private readonly onRows: (n: number) => void = () => undefined) {
    super({ writableHighWaterMark: 1 << 16, readableHighWaterMark: 1 << 16 });
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    const text = this.rest + chunk.toString('utf8');
    const end = text.lastIndexOf('\n');
    if (end < 0) {
      this.rest = text;
      return done();
    }
    this.rest = text.slice(end + 1);
    let out = '';
    let n = 0;
    let start = 0;
    while (start <= end) {
      const nl = text.indexOf('\n', start);
      const cells = text.slice(start, nl).split('\t');
      start = nl + 1;
      for (let i = 0; i < cells.length; i++) out += (i ? ',' : '') + csvCell(unescapeCopy(cells[i]));
      out += '\r\n';
      n++;
    }
    this.rows += n;
    this.onRows(this.rows);
    done(null, out);
  }

  override _flush(done: TransformCallback): void {
    done(this.rest ? new Error('the export ended inside a row') : null);
  }
}

/**
 * Message exports (spec 2 tasks export_messages, export_stream_messages, export_incoming_messages; docs/decisions/0046):
 * contacts records the task and asks with `contacts.task.requested`; stats keeps the request (`stats.export`), and one
 * export at a time per process, held by a lease (taken over after a crash, started again from the beginning), streams
 * `COPY (SELECT ...) TO STDOUT` of its read models through the formula-neutralising CSV writer into a file, reporting
 * progress (`stats.export.progressed`, at most once a second) and the end (`stats.export.finished`) through its outbox.
 * Memory is bounded by the streams' buffers, whatever the number of rows. Also keeps the incoming messages.
 */
@Injectable()
export class ExportService implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger('stats-exports');
  private readonly owner = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopping = false;
  /** The export this process is writing, and how to stop it. */
  private current?: { taskId: string; stop: (e: Error) => void };

  constructor(
    @InjectDataSource(STATS_CONNECTION) private readonly ds: DataSource,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    @Inject(STATS_OPTIONS) private readonly options: ResolvedStatsOptions,
    private readonly uow: StatsUnitOfWork,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    // one group for requests and deletions: same topic and key (the task id), so a deletion never overtakes its request
    await this.bus.subscribe({ group: EXPORT_REQUESTS_GROUP, topics: [Topics.Contacts], types: [TaskRequestedV1.type, TaskDeletedV1.type], handler: (e) => (e.type === TaskDeletedV1.type ? this.onDeleted(e) : this.onRequest(e)) });
    await this.bus.subscribe({ group: INBOUND_GROUP, topics: [Topics.Dispatch], types: [MessageReceivedV1.type], concurrency: 64, handler: (e) => this.onInbound(e) });
  }

  onApplicationBootstrap(): void {
    if (this.roles.consumers) this.schedule(0);
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** A request is kept once (its task id); the worker is woken. */
  async onRequest(e: EventEnvelope): Promise<void> {
    if (e.type !== TaskRequestedV1.type) return;
    const d = TaskRequestedV1.schema.parse(e.data);
    await this.ds.query(`INSERT INTO stats.export (task_id, account_id, type, params) VALUES ($1, $2, $3, $4) ON CONFLICT (task_id) DO NOTHING`, [d.taskId, d.accountId, d.type, JSON.stringify(d.params)]);
    this.schedule(0);
  }

  /**
   * The task was deleted from the task list: the export is marked deleted (kept as a tombstone, so a request replayed
   * later is not run again), a run of it in this process is stopped at once (another replica's stops at its next
   * progress report, which finds the export no longer its own), and the file is deleted. A run that was still writing
   * deletes what it wrote when it stops (`run`), so no file outlives its task whichever finishes first.
   */
  async onDeleted(e: EventEnvelope): Promise<void> {
    if (e.type !== TaskDeletedV1.type) return;
    const d = TaskDeletedV1.schema.parse(e.data);
    await this.ds.query(
      `INSERT INTO stats.export AS x (task_id, account_id, type, params, status) VALUES ($1, $2, $3, '{}', 'deleted')
       ON CONFLICT (task_id) DO UPDATE SET status = 'deleted', lease_owner = NULL, lease_until = NULL, file_path = NULL, finished_at = clock_timestamp()
        WHERE x.account_id = excluded.account_id`,
      [d.taskId, d.accountId, d.type],
    );
    if (this.current?.taskId === d.taskId) this.current.stop(new Error(`export ${d.taskId} was deleted`));
    await fs.promises.rm(this.fileOf(d.accountId, d.taskId), { force: true });
  }

  private fileOf(accountId: string, taskId: string): string {
    return path.join(this.options.exportDir, accountId, `${taskId}.csv`);
  }

  /** The copies of incoming messages for the export, the concurrent ones written by one statement. */
  private readonly inbound = new BatchedWriter<EventData<typeof MessageReceivedV1>>(async (ds) => {
    const col = <K extends keyof (typeof ds)[number]>(k: K) => ds.map((d) => d[k]);
    await this.ds.query(
      `INSERT INTO stats.inbound_message (message_uuid, account_id, stream_id, channel, account_phone, contact_phone, contact_name, message_type, body, received_at)
       SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::timestamptz[])
       ON CONFLICT (message_uuid) DO NOTHING`,
      [col('messageUuid'), col('accountId'), col('streamId'), col('channel'), col('accountPhone'), col('contactPhone'), col('contactName'), col('messageType'), col('body'), col('receivedAt')],
    );
  });

  async onInbound(e: EventEnvelope): Promise<void> {
    if (e.type !== MessageReceivedV1.type) return;
    await this.inbound.add(MessageReceivedV1.schema.parse(e.data));
  }

  private schedule(ms: number): void {
    if (this.stopping) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (this.running) return this.schedule(this.options.exportPollMs);
      this.running = this.tick()
        .catch((err: unknown) => {
          this.log.error(`export loop: ${String(err)}`);
          return false;
        })
        .then((more) => {
          this.running = undefined;
          this.schedule(more ? 0 : this.options.exportPollMs);
        });
    }, ms);
  }

  /** Runs one export if one is waiting; true when it ran one. */
  async tick(): Promise<boolean> {
    if (this.stopping) return false;
    const [t] = await this.ds.query<ExportRow[]>(
      `WITH c AS (
         UPDATE stats.export SET status = 'running', lease_owner = $1, lease_until = now() + make_interval(secs => $2), attempts = attempts + 1
          WHERE task_id = (SELECT task_id FROM stats.export WHERE status IN ('pending', 'running') AND (lease_until IS NULL OR lease_until < now()) ORDER BY task_id LIMIT 1 FOR UPDATE SKIP LOCKED)
          RETURNING task_id::text, account_id::text, type, params, attempts)
       SELECT * FROM c`,
      [this.owner, LEASE_SECONDS],
    );
    if (!t) return false;
    if (t.attempts > MAX_ATTEMPTS) {
      await this.finish(t, 'error', 0, 0, null, 'the export was interrupted too many times');
      return true;
    }
    try {
      await this.run(t);
    } catch (e) {
      if (this.stopping) return false;
      if (await this.finish(t, 'error', 0, 0, null, e instanceof Error ? e.message : String(e))) this.log.error(`export ${t.task_id} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    } finally {
      this.current = undefined;
    }
    // deleted while it ran: whatever was written goes (the deletion may have come before the file was opened)
    const [row] = await this.ds.query<Array<{ status: string }>>(`SELECT status FROM stats.export WHERE task_id = $1`, [t.task_id]);
    if (row?.status === 'deleted') await fs.promises.rm(this.fileOf(t.account_id, t.task_id), { force: true });
    return true;
  }

  /** The export's SELECT and its count, with the filters of the messages lists, in the account's zone. */
  private async query(t: ExportRow): Promise<{ select: string; count: string; params: unknown[] }> {
    const p = t.params;
    const [acc] = await this.ds.query<Array<{ tz: string }>>(`SELECT coalesce((SELECT time_zone FROM stats.account WHERE account_id = $1), 'UTC') AS tz`, [t.account_id]);
    const params: unknown[] = [t.account_id, acc.tz];
    const add = (v: unknown) => {
      params.push(v);
      return `$${params.length}`;
    };
    const incoming = t.type === 'export_incoming_messages';
    const at = incoming ? 'm.received_at' : 'm.accepted_at';
    const where: string[] = ['m.account_id = $1', `${at} IS NOT NULL`];
    const streams = [...(p.streamId ? [p.streamId] : []), ...(p.streams ?? [])];
    if (streams.length) where.push(`m.stream_id = ANY(${add(streams)}::bigint[])`);
    if (!incoming && p.status) where.push(`m.status = ANY(${add(p.status)}::text[])`);
    if (!incoming && p.campaign) where.push(`m.campaign_id = ${add(p.campaign)}::bigint`);
    if (p.destination) where.push(`${incoming ? 'm.contact_phone' : 'm.destination'} = ${add(p.destination)}`);
    // a date-only start is its 00:00:00 and a date-only end its 23:59:59 in the account's zone (spec 9)
    const dateOnly = (s: string) => /^\d{4}-\d{2}-\d{2}$/.test(s);
    if (p.start) where.push(`${at} >= ${dateOnly(p.start) ? `(${add(p.start)}::date)::timestamp AT TIME ZONE $2` : `${add(p.start)}::timestamptz`}`);
    if (p.end) where.push(`${at} ${dateOnly(p.end) ? `< (${add(p.end)}::date + 1)::timestamp AT TIME ZONE $2` : `<= ${add(p.end)}::timestamptz`}`);
    const local = (col: string) => `to_char(${col} AT TIME ZONE $2, 'YYYY-MM-DD HH24:MI:SS')`;
    const select = incoming
      ? `SELECT m.message_uuid, ${local('m.received_at')}, m.stream_id, st.name, m.channel, m.contact_phone, m.contact_name, m.account_phone, m.message_type, m.body
           FROM stats.inbound_message m LEFT JOIN stats.stream st ON st.stream_id = m.stream_id AND st.account_id = m.account_id
          WHERE ${where.join(' AND ')} ORDER BY m.received_at, m.message_uuid`
      : `SELECT m.message_uuid, ${local('m.accepted_at')}, m.stream_id, st.name, m.sender, m.destination, nullif(m.iso2, ''), m.status, m.segments,
                trim_scale((m.price_micros - m.refunded_micros)::numeric / 1000000), m.currency, m.campaign_id, c.name
           FROM stats.message_state m LEFT JOIN stats.stream st ON st.stream_id = m.stream_id AND st.account_id = m.account_id
           LEFT JOIN stats.campaign c ON c.campaign_id = m.campaign_id AND c.account_id = m.account_id
          WHERE ${where.join(' AND ')} ORDER BY m.accepted_at, m.message_uuid`;
    const count = `SELECT count(*)::bigint::text AS n, $2::text AS zone FROM ${incoming ? 'stats.inbound_message' : 'stats.message_state'} m WHERE ${where.join(' AND ')}`;
    return { select, count, params };
  }

  private async run(t: ExportRow): Promise<void> {
    const incoming = t.type === 'export_incoming_messages';
    const { select, count, params } = await this.query(t);
    const [{ n }] = await this.ds.query<Array<{ n: string }>>(count, params);
    const total = Number(n);
    const dir = path.join(this.options.exportDir, t.account_id);
    await fs.promises.mkdir(dir, { recursive: true });
    const file = this.fileOf(t.account_id, t.task_id);
    const fileName = `${t.type.replace(/_/g, '-')}-${t.task_id}-${new Date().toISOString().slice(0, 19).replace(/[-:T]/g, '')}.csv`;
    await this.progress(t, total, 0);
    const header = incoming
      ? ['messageUuid', 'receivedAt', 'streamId', 'stream', 'channel', 'contactPhone', 'contactName', 'accountPhone', 'messageType', 'text']
      : ['messageUuid', 'acceptedAt', 'streamId', 'stream', 'sender', 'destination', 'country', 'status', 'parts', 'cost', 'currency', 'campaignId', 'campaign'];
    const out = fs.createWriteStream(file);
    out.write(UTF8_BOM + header.map(csvCell).join(',') + '\r\n');
    let last = Date.now();
    let pending: Promise<void> = Promise.resolve();
    let failed: unknown = null;
    const csv = new CopyToCsv((rows) => {
      if (Date.now() - last < REPORT_EVERY_MS || failed) return;
      last = Date.now();
      pending = pending.then(() => this.progress(t, Math.max(total, rows), rows)).catch((e: unknown) => {
        failed = e;
        csv.destroy(e instanceof Error ? e : new Error(String(e)));
      });
    });
    this.current = { taskId: t.task_id, stop: (e) => csv.destroy(e) };
    let broken: Error | undefined;
    const qr = this.ds.createQueryRunner();
    await qr.connect();
    try {
      const client = (qr as unknown as { databaseConnection: PoolClient }).databaseConnection;
      // COPY takes no parameters: they are inlined as quoted literals (ids, statuses, dates and a phone, all validated)
      const literal = (v: unknown): string => (Array.isArray(v) ? `ARRAY[${v.map((x) => literal(x)).join(',')}]` : `'${String(v).replace(/'/g, "''")}'`);
      const sql = select.replace(/\$(\d+)/g, (_m, i: string) => literal(params[Number(i) - 1]));
      await pipeline(client.query(copyTo(`COPY (${sql}) TO STDOUT`)), csv, out);
    } catch (e) {
      // a COPY stopped half way (deleted, taken over) would keep streaming into the pooled connection: it is closed
      broken = e instanceof Error ? e : new Error(String(e));
      throw e;
    } finally {
      if (broken) await (qr as unknown as { releasePostgresConnection(e: Error): Promise<void> }).releasePostgresConnection(broken);
      else await qr.release();
    }
    await pending;
    if (failed) throw failed;
    await this.finish(t, 'done', Math.max(total, csv.rows), csv.rows, fileName, null, file);
  }

  private async progress(t: ExportRow, total: number, processed: number): Promise<void> {
    if (this.stopping) throw new Error('stopping');
    await this.uow.run(async (m, emit) => {
      const rows = (await m.query(`WITH c AS (UPDATE stats.export SET total = $3, processed = $4, lease_until = now() + make_interval(secs => $5) WHERE task_id = $1 AND lease_owner = $2 AND status = 'running' RETURNING task_id) SELECT * FROM c`, [
        t.task_id,
        this.owner,
        total,
        processed,
        LEASE_SECONDS,
      ])) as unknown[];
      if (!rows.length) throw new Error(`export ${t.task_id} was taken over`);
      emit(ExportProgressedV1, { taskId: t.task_id, accountId: t.account_id, total, processed, progress: total ? Math.min(99, Math.floor((processed / total) * 100)) : 0 }, t.account_id);
    });
  }

  /** Records the end of a run this process holds; false (nothing recorded or sent) when it no longer holds it (deleted). */
  private async finish(t: ExportRow, outcome: 'done' | 'error', total: number, processed: number, fileName: string | null, error: string | null, file?: string): Promise<boolean> {
    return this.uow.run(async (m, emit) => {
      const rows = (await m.query(
        `WITH c AS (UPDATE stats.export SET status = $2, total = $3, processed = $4, file_name = $5, file_path = $6, error = $7, finished_at = clock_timestamp(), lease_owner = NULL, lease_until = NULL
                     WHERE task_id = $1 AND status = 'running' AND lease_owner = $8 RETURNING task_id) SELECT * FROM c`,
        [t.task_id, outcome, total, processed, fileName, file ?? null, error, this.owner],
      )) as unknown[];
      if (!rows.length) return false;
      emit(ExportFinishedV1, { taskId: t.task_id, accountId: t.account_id, outcome, total, processed, fileName, error }, t.account_id);
      return true;
    });
  }

  /** The export of the account (status, file), or null. */
  async file(accountId: string, taskId: string): Promise<{ status: string; path: string | null; name: string | null } | null> {
    const [r] = await this.ds.query<Array<{ status: string; file_path: string | null; file_name: string | null }>>(`SELECT status, file_path, file_name FROM stats.export WHERE task_id = $1 AND account_id = $2`, [taskId, accountId]);
    return r ? { status: r.status, path: r.file_path, name: r.file_name } : null;
  }
}
