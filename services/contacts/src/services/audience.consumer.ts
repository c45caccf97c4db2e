import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
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
import { AppError, claimEvent, createEnvelope, EventBus, Outbox, PROCESS_ROLES, type OutgoingEvent, type ProcessRoles } from '@switchboard/platform';
import { CONTACTS_CONNECTION, CONTACTS_SCHEMA } from '../contacts.options';
import { SqlParams } from '../segments/filter';
import { SelectionService, SENDABLE } from '../segments/selection.service';
import { ContactsOutboxRelay } from './contacts-events.service';

export const AUDIENCE_GROUP = 'contacts.audience';
const DEFAULT_BATCH = 2000;
/** Rows a FETCH takes from the snapshot's cursor: memory stays bounded whatever the audience's size. */
const FETCH_ROWS = 5000;
/** Batches a packed outbox row holds. */
const PACKED_BATCHES = 10;
/** Copy chunks (up to AUDIENCE_CHUNK_MAX_BYTES each) a packed outbox row holds. */
const PACKED_CHUNKS = 4;
/** Lines a FETCH takes in the copy format (one short text each): a few FETCHes fill a chunk (about 130 bytes a line). */
const FETCH_LINES = 2000;

/** A COPY text field built by PostgreSQL: backslash, tab, line feed and carriage return escaped, `\N` for null. */
const copyField = (expr: string): string => `coalesce(replace(replace(replace(replace(${expr}, E'\\\\', E'\\\\\\\\'), E'\\t', E'\\\\t'), E'\\n', E'\\\\n'), E'\\r', E'\\\\r'), E'\\\\N')`;

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
export class AudienceConsumer implements OnModuleInit {
  private readonly log = new Logger('ContactsAudience');

  constructor(
    @InjectDataSource(CONTACTS_CONNECTION) private readonly ds: DataSource,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly selection: SelectionService,
    private readonly relay: ContactsOutboxRelay,
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
   * The snapshot as COPY text (`format: copy`, docs/decisions/0043): PostgreSQL builds each recipient's line (the
   * contact's values, escaped; the variables' JSON text holds no raw tab or line break, JSON escapes them, so only its
   * backslashes are doubled), Node only cuts the lines into chunks of at most AUDIENCE_CHUNK_MAX_BYTES, which the
   * requester pipes into its own COPY. The totals come from one aggregate over the same snapshot (same transaction),
   * and the lines are checked against them.
   */
  private async snapshotCopy(m: EntityManager, d: Request): Promise<void> {
    const buf: OutgoingEvent[] = [];
    const params = new SqlParams([d.accountId]);
    const sources: string[] = [];
    const chunk = (seq: number, firstOrdinal: number, rows: number, data: string, totals: AudienceTotals | null, error: string | null) =>
      this.emitChunk(m, buf, { requestId: d.requestId, accountId: d.accountId, campaignId: d.campaignId, seq, firstOrdinal, rows, last: totals !== null, columns: [...AUDIENCE_COPY_COLUMNS], data, totals, error });
    try {
      for (const listId of [...new Set(d.contactListIds)]) sources.push(`(${await this.selection.where(d.accountId, { contactList: listId }, params)})`);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      this.log.warn(`audience ${d.requestId} of campaign ${d.campaignId}: ${err.message}`);
      await chunk(0, 0, 0, '', { batches: 1, recipients: 0, contacts: 0, excluded: 0, duplicatesRemoved: 0 }, err.message);
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
    const cursor = `audience_copy_${Date.now()}`;
    await m.query(
      `DECLARE ${cursor} NO SCROLL CURSOR FOR
       SELECT c.id::text || E'\\t' || k.n::text || E'\\t' || ${copyField('c.normalized_phone')} || E'\\t' || ${copyField('c.country')} || E'\\t' || ${copyField('c.timezone')}
              || E'\\t' || replace(${vars}::text, E'\\\\', E'\\\\\\\\') || E'\\n' AS line
         FROM contacts.contact c ${occurrences}
        WHERE ${where} AND ${SENDABLE}
        ORDER BY c.id, k.n`,
      params.values,
    );
    let seq = 0;
    let ordinal = 0;
    let first = 0;
    let parts: string[] = [];
    let bytes = 0;
    // A chunk is whole FETCHes of lines, each measured once as one string (not a byte count per line); a FETCH that
    // would not fit in the chunk's room starts the next chunk, and one too big for any chunk is cut line by line.
    let lines = 0;
    const add = async (text: string, count: number, size: number) => {
      if (bytes + size > AUDIENCE_CHUNK_MAX_BYTES && lines) {
        await chunk(seq++, first, lines, parts.join(''), null, null);
        first = ordinal;
        parts = [];
        bytes = 0;
        lines = 0;
      }
      parts.push(text);
      bytes += size;
      lines += count;
      ordinal += count;
    };
    for (;;) {
      const rows = await m.query<Array<{ line: string }>>(`FETCH ${FETCH_LINES} FROM ${cursor}`);
      if (rows.length) {
        let text = '';
        for (const r of rows) text += r.line;
        const size = Buffer.byteLength(text);
        if (size <= AUDIENCE_CHUNK_MAX_BYTES) await add(text, rows.length, size);
        else for (const r of rows) await add(r.line, 1, Buffer.byteLength(r.line));
      }
      if (rows.length < FETCH_LINES) break;
    }
    await m.query(`CLOSE ${cursor}`);
    if (ordinal !== recipients) throw new Error(`audience ${d.requestId}: ${ordinal} lines for ${recipients} recipients in one snapshot`);
    await chunk(seq, first, lines, parts.join(''), { batches: seq + 1, recipients, contacts, excluded: Number(agg.excluded), duplicatesRemoved: d.sendDuplicates ? 0 : Number(agg.copies) - contacts }, null);
  }

  /** A copy chunk to the outbox, PACKED_CHUNKS to a packed row; the last one flushes what is left. */
  private async emitChunk(m: EntityManager, buf: OutgoingEvent[], data: EventData<typeof AudienceChunkPreparedV1>): Promise<void> {
    const def = AudienceChunkPreparedV1;
    buf.push({ id: randomUUID(), type: def.type, version: def.version, occurredAt: new Date().toISOString(), source: 'contacts', accountId: data.accountId, traceId: null, key: def.key(data), data, topic: def.topic });
    if (buf.length >= PACKED_CHUNKS || data.last) await Outbox.addPacked(m, CONTACTS_SCHEMA, buf.splice(0));
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
