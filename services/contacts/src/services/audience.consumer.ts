import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Pool, type PoolConfig } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { DataSource, EntityManager } from 'typeorm';
import {
  AUDIENCE_CHUNK_MAX_BYTES,
  AUDIENCE_COPY_COLUMNS,
  AudienceBatchPreparedV1,
  AudienceChunkPreparedV1,
  AudienceCountedV1,
  AudienceRequestedV1,
  StandardVariable,
  Topics,
  type AudienceRecipients,
  type AudienceTotals,
  type EventData,
  type EventEnvelope,
} from '@switchboard/contracts';
import { AppError, claimEvent, createEnvelope, DATABASE_URL, EventBus, Outbox, PROCESS_ROLES, type OutgoingEvent, type ProcessRoles, withLiterals } from '@switchboard/platform';
import { CONTACTS_CONNECTION, CONTACTS_OPTIONS, CONTACTS_SCHEMA, type ResolvedContactsOptions } from '../contacts.options';
import { SqlParams } from '../segments/filter';
import { SelectionService, SENDABLE } from '../segments/selection.service';
import { ContactsOutboxRelay } from './contacts-events.service';
import { ChunkCutter, halve, jsonTextBytes, type CopyChunk } from './copy-chunks';

export const AUDIENCE_GROUP = 'contacts.audience';
const DEFAULT_BATCH = 2000;
/**
 * Most bytes of a copy chunk's event as JSON: under the relay's default per-event cap (OUTBOX_MAX_EVENT_BYTES,
 * 1,000,000) and Kafka's 1 MB message size. A chunk is cut at AUDIENCE_CHUNK_MAX_BYTES of COPY text, which ordinary
 * lines grow by about 15% as JSON; one whose JSON grows past this (values full of quotes or backslashes) is halved.
 */
const CHUNK_EVENT_MAX_BYTES = 990_000;
/** Rows a FETCH takes from the snapshot's cursor: memory stays bounded whatever the audience's size. */
const FETCH_ROWS = 5000;
/** Batches a packed outbox row holds. */
const PACKED_BATCHES = 10;
export { AUDIENCE_CHUNKS_IN_FLIGHT } from '../contacts.options';

type Request = EventData<typeof AudienceRequestedV1>;

/** The standard variables' columns by variable id (contracts StandardVariable). */
const STANDARD_COLUMNS: Record<string, string> = {
  [StandardVariable.phone]: 'c.normalized_phone',
  [StandardVariable.firstName]: 'c.first_name',
  [StandardVariable.lastName]: 'c.last_name',
  [StandardVariable.email]: 'c.email',
  [StandardVariable.country]: 'c.country',
  [StandardVariable.timezone]: 'c.timezone',
};

/**
 * A recipient's values by variable id, every variable of the contact (the standard fields, the contact's own
 * variables over them), without nulls and empty strings; `$wanted` a null text[] parameter (kept for its shape).
 */
const allVariablesSql = (wanted: string): string => `(SELECT coalesce(jsonb_object_agg(e.k, e.v), '{}'::jsonb)
   FROM jsonb_each_text(jsonb_build_object(${Object.entries(STANDARD_COLUMNS).map(([k, col]) => `'${k}', ${col}`).join(', ')}) || c.variables) AS e(k, v)
  WHERE e.v IS NOT NULL AND e.v <> '' AND (${wanted}::text[] IS NULL OR e.k = ANY(${wanted}::text[])))`;

/**
 * The same object for the variables a campaign uses only, built straight (no set of every key aggregated back into
 * an object per contact, which was the snapshot's largest PostgreSQL cost): each wanted id's value, the contact's own
 * variable over the standard field as `||` did, nulls and empty strings left out. Ids are decimal (the contract
 * checks them), so they are written into the statement; 40 pairs a call (a function takes at most 100 arguments).
 */
export function wantedVariablesSql(ids: readonly string[]): string {
  const pairs = [...new Set(ids)].map((k) => {
    if (!/^\d{1,18}$/.test(k)) throw new Error(`variable id ${JSON.stringify(k)} is not a decimal id`);
    const own = `nullif(c.variables->>'${k}', '')`;
    return `'${k}', ${STANDARD_COLUMNS[k] ? `CASE WHEN c.variables ? '${k}' THEN ${own} ELSE nullif(${STANDARD_COLUMNS[k]}, '') END` : own}`;
  });
  if (!pairs.length) return `'{}'::jsonb`;
  const calls: string[] = [];
  for (let i = 0; i < pairs.length; i += 40) calls.push(`jsonb_strip_nulls(jsonb_build_object(${pairs.slice(i, i + 40).join(', ')}))`);
  return `(${calls.join(' || ')})`;
}

interface Row {
  id: string;
  phone: string;
  country: string | null;
  timezone: string | null;
  vars: Record<string, string>;
  copies: number;
  sendable: boolean;
}

const emptyRecipients = (): AudienceRecipients => ({ contactId: [], phone: [], iso2: [], timezone: [], occurrence: [], variables: [] });

/**
 * A campaign's audience snapshot (libs/contracts/src/audience-events.ts, docs/decisions/0032-campaign-runner.md):
 * the contacts of the requested lists and segments, read through one cursor in ONE repeatable-read transaction
 * (a consistent snapshot), written to the outbox as numbered batches in that same transaction with the request marked
 * handled, so a crash anywhere leaves either every batch or none. Blacklisted and opted-out contacts are counted and
 * left out; a contact matched by several lists or segments comes once, or once per match with `sendDuplicates`.
 */
@Injectable()
export class AudienceConsumer implements OnModuleInit, OnApplicationShutdown {
  private readonly log = new Logger('ContactsAudience');
  private readerPool?: Pool;

  constructor(
    @InjectDataSource(CONTACTS_CONNECTION) private readonly ds: DataSource,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly selection: SelectionService,
    private readonly relay: ContactsOutboxRelay,
    @Inject(DATABASE_URL) private readonly databaseUrl: string,
    @Inject(CONTACTS_OPTIONS) private readonly options: ResolvedContactsOptions,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    await this.bus.subscribe({ group: AUDIENCE_GROUP, topics: [Topics.Campaigns], types: [AudienceRequestedV1.type], handler: (e) => this.handle(e) });
  }

  async handle(e: EventEnvelope): Promise<void> {
    if (e.type !== AudienceRequestedV1.type || e.version !== 1) return;
    const d = AudienceRequestedV1.schema.parse(e.data);
    if (e.accountId !== null && e.accountId !== d.accountId) throw new Error(`audience request ${d.requestId}: envelope account ${e.accountId} is not the request's account ${d.accountId}`);
    let wrote = false;
    await this.ds.transaction('REPEATABLE READ', async (m) => {
      if (!(await claimEvent(m, CONTACTS_SCHEMA, AUDIENCE_GROUP, e.id))) return;
      wrote = true;
      if (d.mode === 'count') await this.count(m, d);
      else if (d.format === 'copy') await this.snapshotCopy(m, d);
      else await this.snapshot(m, d);
    });
    if (wrote) this.relay.kick();
  }

  private async snapshot(m: EntityManager, d: Request): Promise<void> {
    const batchSize = d.batchSize ?? DEFAULT_BATCH;
    const buf: OutgoingEvent[] = [];
    const params = new SqlParams([d.accountId]);
    const sources: string[] = [];
    try {
      for (const listId of [...new Set(d.contactListIds)]) sources.push(`(${await this.selection.where(d.accountId, { contactList: listId }, params)})`);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      this.log.warn(`audience ${d.requestId} of campaign ${d.campaignId}: ${err.message}`);
      await this.emit(m, buf, d, 0, true, emptyRecipients(), { batches: 1, recipients: 0, contacts: 0, excluded: 0, duplicatesRemoved: 0 }, err.message);
      return;
    }
    const copies = sources.length === 1 ? '1' : sources.map((s) => `(CASE WHEN ${s} THEN 1 ELSE 0 END)`).join(' + ');
    const cursor = `audience_${Date.now()}`;
    const vars = d.variableIds ? wantedVariablesSql(d.variableIds) : allVariablesSql(params.add(null));
    // The values by variable id, built by PostgreSQL: parsed from JSON they are compact objects, where objects built
    // key by key with integer-like keys ("1000") would each carry a thousand-slot elements array (12 KB a recipient).
    await m.query(
      `DECLARE ${cursor} NO SCROLL CURSOR FOR
       SELECT c.id::text AS id, c.normalized_phone AS phone, c.country, c.timezone, ${vars} AS vars,
              ${copies} AS copies, (${SENDABLE}) AS sendable
         FROM contacts.contact c
        WHERE c.account_id = $1 AND (${sources.join(' OR ')})
        ORDER BY c.id`,
      params.values,
    );
    const totals: AudienceTotals = { batches: 0, recipients: 0, contacts: 0, excluded: 0, duplicatesRemoved: 0 };
    let out = emptyRecipients();
    for (;;) {
      const rows = await m.query<Row[]>(`FETCH ${FETCH_ROWS} FROM ${cursor}`);
      for (const r of rows) {
        if (!r.sendable) {
          totals.excluded++;
          continue;
        }
        totals.contacts++;
        const n = d.sendDuplicates ? Math.max(1, r.copies) : 1;
        totals.duplicatesRemoved += Math.max(1, r.copies) - n;
        const vars = r.vars;
        for (let k = 0; k < n; k++) {
          out.contactId.push(r.id);
          out.phone.push(r.phone);
          out.iso2.push(r.country);
          out.timezone.push(r.timezone);
          out.occurrence.push(k);
          out.variables.push(vars);
          if (out.contactId.length === batchSize) {
            await this.emit(m, buf, d, totals.batches++, false, out, null, null);
            totals.recipients += batchSize;
            out = emptyRecipients();
          }
        }
      }
      if (rows.length < FETCH_ROWS) break;
    }
    await m.query(`CLOSE ${cursor}`);
    totals.recipients += out.contactId.length;
    totals.batches++;
    await this.emit(m, buf, d, totals.batches - 1, true, out, totals, null);
  }

  /**
   * The snapshot as COPY text (`format: copy`, docs/decisions/0043, 0086): PostgreSQL's own COPY writes the lines (the
   * columns of AUDIENCE_COPY_COLUMNS, escaped by COPY; the variables' JSON text holds no raw tab or line break) on a
   * second connection that imported this transaction's snapshot (`pg_export_snapshot`), so the lines are the same
   * consistent snapshot the totals and the claim are taken in. Node cuts the bytes at line ends into chunks of at most
   * AUDIENCE_CHUNK_MAX_BYTES: no row objects and no line strings in Node, one string and one JSON encoding per chunk.
   * The lines are counted and checked against the totals.
   *
   * Every chunk but the last is published on the bus as soon as it is cut (docs/decisions/0140), at most
   * `audienceChunksInFlight` (default AUDIENCE_CHUNKS_IN_FLIGHT) unacknowledged at once, so the requester stores a chunk while the next is read and memory
   * stays bounded. Those chunks carry this attempt's number (`contacts.audience_attempt_seq`, taken after the claim, so
   * a later attempt of the request has a larger one). The last chunk, with the totals, is written to the outbox in this
   * transaction once every chunk before it was acknowledged: it exists only if the snapshot committed. A transaction
   * that rolls back leaves its attempt's published chunks without a last one, and the requester drops them when the
   * redelivered request's attempt comes (AudienceChunkPreparedV1).
   */
  private async snapshotCopy(m: EntityManager, d: Request): Promise<void> {
    const params = new SqlParams([d.accountId]);
    const sources: string[] = [];
    const [{ attempt }] = await m.query<Array<{ attempt: string }>>(`SELECT nextval('${CONTACTS_SCHEMA}.audience_attempt_seq')::text AS attempt`);
    const early = new Publisher(this.bus, this.options.audienceChunksInFlight);
    let seq = 0;
    /** A chunk out (the last one with the totals, given the chunks' number), halved at a line end while its event is too large. */
    const chunk = async (c: CopyChunk, totals: ((batches: number) => AudienceTotals) | null, error: string | null): Promise<void> => {
      const parts = [c];
      for (let p = parts.shift(); p; p = parts.shift()) {
        const last = totals !== null && parts.length === 0;
        const data = { requestId: d.requestId, accountId: d.accountId, campaignId: d.campaignId, seq, attempt: Number(attempt), firstOrdinal: p.firstOrdinal, rows: p.rows, last, columns: [...AUDIENCE_COPY_COLUMNS], data: '', totals: last ? totals(seq + 1) : null, error };
        const event = this.chunkEvent(data, p.data, last);
        if (!event) {
          parts.unshift(...halve(p));
          continue;
        }
        seq++;
        if (!last) {
          await early.publish(event.event);
          continue;
        }
        // the last chunk only once every chunk before it is on the bus: a committed snapshot is a complete one
        await early.settle();
        await Outbox.addPacked(m, CONTACTS_SCHEMA, [event.event], event.json ?? undefined);
      }
    };
    try {
      try {
        for (const listId of [...new Set(d.contactListIds)]) sources.push(`(${await this.selection.where(d.accountId, { contactList: listId }, params)})`);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        this.log.warn(`audience ${d.requestId} of campaign ${d.campaignId}: ${err.message}`);
        await chunk({ firstOrdinal: 0, rows: 0, data: Buffer.alloc(0) }, (batches) => ({ batches, recipients: 0, contacts: 0, excluded: 0, duplicatesRemoved: 0 }), err.message);
        return;
      }
      const where = `c.account_id = $1 AND (${sources.join(' OR ')})`;
      const copies = sources.length === 1 ? '1' : sources.map((s) => `(CASE WHEN ${s} THEN 1 ELSE 0 END)`).join(' + ');
      const [agg] = await m.query<Array<{ excluded: string; contacts: string; copies: string }>>(
        `SELECT count(*) FILTER (WHERE NOT x.sendable)::text AS excluded, count(*) FILTER (WHERE x.sendable)::text AS contacts, coalesce(sum(x.copies) FILTER (WHERE x.sendable), 0)::text AS copies
           FROM (SELECT (${SENDABLE}) AS sendable, ${copies} AS copies FROM contacts.contact c WHERE ${where}) x`,
        params.values,
      );
      const contacts = Number(agg.contacts);
      const recipients = d.sendDuplicates ? Number(agg.copies) : contacts;
      const vars = d.variableIds ? wantedVariablesSql(d.variableIds) : allVariablesSql(params.add(null));
      const occurrences = d.sendDuplicates && sources.length > 1 ? `CROSS JOIN LATERAL generate_series(0, greatest(${copies}, 1) - 1) AS k(n)` : 'CROSS JOIN (VALUES (0)) AS k(n)';
      const select = `SELECT c.id, k.n, c.normalized_phone, c.country, c.timezone, ${vars}
           FROM contacts.contact c ${occurrences}
          WHERE ${where} AND ${SENDABLE}
          ORDER BY c.id, k.n`;
      const [{ snapshot }] = await m.query<Array<{ snapshot: string }>>('SELECT pg_export_snapshot() AS snapshot');
      const cutter = new ChunkCutter(AUDIENCE_CHUNK_MAX_BYTES);
      const reader = await this.readers().connect();
      let healthy = false;
      try {
        await reader.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        await reader.query(`SET TRANSACTION SNAPSHOT ${reader.escapeLiteral(snapshot)}`);
        // COPY takes no parameters: the values go in as quoted literals, which PostgreSQL types as it types parameters
        const out = reader.query(copyTo(`COPY (${withLiterals(select, params.values, (s) => reader.escapeLiteral(s))}) TO STDOUT`));
        for await (const bytes of out as AsyncIterable<Buffer>) {
          for (const full of cutter.add(bytes)) await chunk(full, null, null);
        }
        await reader.query('COMMIT');
        healthy = true;
      } finally {
        // a reader left in the middle of its COPY is not given back to the pool
        reader.release(!healthy);
      }
      const last = cutter.end();
      if (last.firstOrdinal + last.rows !== recipients) throw new Error(`audience ${d.requestId}: ${last.firstOrdinal + last.rows} lines for ${recipients} recipients in one snapshot`);
      await chunk(last, (batches) => ({ batches, recipients, contacts, excluded: Number(agg.excluded), duplicatesRemoved: d.sendDuplicates ? 0 : Number(agg.copies) - contacts }), null);
    } finally {
      // a snapshot that failed waits for its publishes still out (their failures are the first one's consequence)
      await early.abandon();
    }
  }

  /**
   * A copy chunk's event, with its JSON when `json` (the packed outbox row's text, for the last chunk: a packed row under
   * the relay's publish cap is published without being serialised again to be measured). Answers null when the event's
   * JSON would be over CHUNK_EVENT_MAX_BYTES (JSON escapes every quote, backslash and tab of the lines, so 800 KB of
   * lines made mostly of those could exceed the bus's 1 MB): the caller halves the chunk. A chunk of one line goes
   * whatever its size. The size is counted on the lines' bytes (`jsonTextBytes`), not by encoding them.
   */
  private chunkEvent(data: EventData<typeof AudienceChunkPreparedV1>, text: Buffer, json: boolean): { event: OutgoingEvent; json: string | null } | null {
    const def = AudienceChunkPreparedV1;
    const event: OutgoingEvent = { id: randomUUID(), type: def.type, version: def.version, occurredAt: new Date().toISOString(), source: 'contacts', accountId: data.accountId, traceId: null, key: def.key(data), data, topic: def.topic };
    // the envelope's JSON with the lines' string empty ("" of it counted in), plus the lines' JSON string without its quotes
    if (data.rows > 1 && Buffer.byteLength(JSON.stringify([event])) + jsonTextBytes(text) > CHUNK_EVENT_MAX_BYTES) return null;
    event.data = { ...data, data: text.toString('utf8') };
    return { event, json: json ? JSON.stringify([event]) : null };
  }

  /** The snapshots' COPY readers (a connection apart from the transaction's, which writes the outbox meanwhile). */
  private readers(): Pool {
    if (!this.readerPool) {
      this.readerPool = new Pool({ connectionString: this.databaseUrl, max: 2, application_name: 'switchboard-contacts-audience', client_encoding: 'UTF8', options: `-c search_path=${CONTACTS_SCHEMA},public` } as PoolConfig);
      this.readerPool.on('error', () => undefined);
      this.readerPool.on('connect', (client) => client.on('error', () => undefined));
    }
    return this.readerPool;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.readerPool?.end();
    this.readerPool = undefined;
  }

  /** How many recipients the snapshot would hold, per country and per time zone (one aggregate query). */
  private async count(m: EntityManager, d: Request): Promise<void> {
    const params = new SqlParams([d.accountId]);
    const sources: string[] = [];
    const answer = (data: Omit<EventData<typeof AudienceCountedV1>, 'requestId' | 'accountId' | 'campaignId'>) =>
      Outbox.add(m, CONTACTS_SCHEMA, [createEnvelope(AudienceCountedV1, { requestId: d.requestId, accountId: d.accountId, campaignId: d.campaignId, ...data }, { accountId: d.accountId, source: 'contacts', traceId: null })]);
    try {
      for (const listId of [...new Set(d.contactListIds)]) sources.push(`(${await this.selection.where(d.accountId, { contactList: listId }, params)})`);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      await answer({ total: 0, byCountry: {}, byTimezone: {}, error: err.message });
      return;
    }
    const copies = d.sendDuplicates && sources.length > 1 ? sources.map((s) => `(CASE WHEN ${s} THEN 1 ELSE 0 END)`).join(' + ') : '1';
    const rows = await m.query<Array<{ country: string; timezone: string; n: string }>>(
      `SELECT coalesce(c.country, '') AS country, coalesce(c.timezone, '') AS timezone, sum(${copies})::text AS n
         FROM contacts.contact c WHERE c.account_id = $1 AND ${SENDABLE} AND (${sources.join(' OR ')})
        GROUP BY 1, 2`,
      params.values,
    );
    const byCountry: Record<string, number> = {};
    const byTimezone: Record<string, number> = {};
    let total = 0;
    for (const r of rows) {
      const n = Number(r.n);
      total += n;
      byCountry[r.country] = (byCountry[r.country] ?? 0) + n;
      byTimezone[r.timezone] = (byTimezone[r.timezone] ?? 0) + n;
    }
    await answer({ total, byCountry, byTimezone, error: null });
  }

  /**
   * A batch to the outbox. Batches are gathered and written PACKED_BATCHES to a packed row (text, one row for tens of
   * thousands of recipients; the relay publishes them one by one), the last flushing what is left. The envelope is
   * built without zod's per-recipient checks: its data is built field by field above (the tests parse what is emitted).
   */
  private async emit(m: EntityManager, buf: OutgoingEvent[], d: Request, seq: number, last: boolean, recipients: AudienceRecipients, totals: AudienceTotals | null, error: string | null): Promise<void> {
    const data = { requestId: d.requestId, accountId: d.accountId, campaignId: d.campaignId, seq, last, recipients, totals, error };
    const def = AudienceBatchPreparedV1;
    buf.push({ id: randomUUID(), type: def.type, version: def.version, occurredAt: new Date().toISOString(), source: 'contacts', accountId: d.accountId, traceId: null, key: def.key(data), data, topic: def.topic });
    if (buf.length >= PACKED_BATCHES || last) await Outbox.addPacked(m, CONTACTS_SCHEMA, buf.splice(0));
  }
}

/**
 * Publishes events one call each with at most `limit` calls unacknowledged: `publish` waits for room first. The first
 * failure is thrown by the next `publish` or `settle`; `abandon` waits for every call still out, failed or not.
 */
class Publisher {
  private readonly out = new Set<Promise<void>>();
  private failure: { error: unknown } | null = null;

  constructor(
    private readonly bus: EventBus,
    private readonly limit: number,
  ) {}

  async publish(event: OutgoingEvent): Promise<void> {
    while (this.out.size >= this.limit && !this.failure) await Promise.race(this.out);
    this.check();
    const p: Promise<void> = this.bus.publish([event]).then(
      () => void this.out.delete(p),
      (error: unknown) => {
        this.out.delete(p);
        this.failure ??= { error };
      },
    );
    this.out.add(p);
  }

  async settle(): Promise<void> {
    await Promise.all(this.out);
    this.check();
  }

  async abandon(): Promise<void> {
    await Promise.all(this.out);
  }

  private check(): void {
    if (this.failure) throw this.failure.error;
  }
}
