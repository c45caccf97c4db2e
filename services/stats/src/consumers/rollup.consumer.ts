import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import {
  CustomerCreatedV1,
  CustomerUpdatedV1,
  MessageAcceptedV1,
  MessageRefundedV1,
  MessageStatusChangedV1,
  StreamCreatedV1,
  StreamDeletedV1,
  StreamUpdatedV1,
  Topics,
  type EventData,
  type EventDefinition,
  type EventEnvelope,
} from '@switchboard/contracts';
import { BatchedIdempotentConsumer, EventBus, PROCESS_ROLES, type BatchItem, type ProcessRoles } from '@switchboard/platform';
import { STATS_CONNECTION, STATS_OPTIONS, STATS_SCHEMA, type ResolvedStatsOptions } from '../stats.options';
import { ReportCache } from '../services/report-cache';

export const ROLLUP_GROUP = 'stats.rollups';
export const DIRECTORY_GROUP = 'stats.directory';

/** Spec 4: `accepted` < `sent` < the final statuses, which never move back. */
export const STATUS_RANK: Record<string, number> = { accepted: 0, sent: 1, delivered: 2, sent_failed: 2, undelivered: 2, no_routes: 2, rejected: 2 };

export type RollupInput =
  | { kind: 'accepted'; d: EventData<typeof MessageAcceptedV1> }
  | { kind: 'status'; d: EventData<typeof MessageStatusChangedV1> }
  | { kind: 'refund'; d: EventData<typeof MessageRefundedV1> };

interface State {
  message_uuid: string;
  account_id: string;
  stream_id: string | null;
  sender: string;
  iso2: string;
  status: string;
  rank: number;
  accepted_at: string | null;
  hour_bucket: string | null;
  day_bucket: string | null;
  segments: number;
  price_micros: bigint;
  refunded_micros: bigint;
  currency: string;
}

interface Delta {
  account: string;
  stream: string;
  sender: string;
  iso2: string;
  status: string;
  currency: string;
  bucket: string;
  messages: number;
  parts: number;
  cost: bigint;
}

function parse<T>(def: EventDefinition<T>, e: EventEnvelope): T | null {
  if (e.type !== def.type || e.version !== def.version) return null;
  return def.schema.parse(e.data);
}

/** A valid IANA zone name, else null. */
export function validTimeZone(v: unknown): string | null {
  if (typeof v !== 'string' || v.length === 0 || v.length > 64) return null;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: v });
    return v;
  } catch {
    return null;
  }
}

/** The account's reporting time zone: `customSettings.timezone` (or `genSettings.timezone`), UTC without one (0028). */
export function accountTimeZone(customSettings: Record<string, unknown>, genSettings: Record<string, unknown>): string {
  return validTimeZone(customSettings.timezone) ?? validTimeZone(genSettings.timezone) ?? 'UTC';
}

/**
 * Feeds the rollups from the messaging events: acceptance (who, where, parts, price), status changes (forward only)
 * and refunds. Each event once (`processed_events`, in batches); per message the latest state is kept in
 * `message_state`, and a batch moves each message's contribution from the rollup row of its old state to the row of
 * its new one, so a message counts once, in its furthest status, whatever the order, repetition or lateness of its
 * events. A message is counted from its acceptance on; a status or refund seen before it waits in its state row.
 */
@Injectable()
export class RollupConsumer implements OnModuleInit {
  private readonly batched: BatchedIdempotentConsumer<RollupInput>;

  constructor(
    @InjectDataSource(STATS_CONNECTION) private readonly ds: DataSource,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    @Inject(STATS_OPTIONS) options: ResolvedStatsOptions,
    private readonly cache: ReportCache,
  ) {
    this.batched = new BatchedIdempotentConsumer<RollupInput>({ dataSource: ds, schema: STATS_SCHEMA, consumer: ROLLUP_GROUP, maxBatch: options.maxBatch, apply: (m, items) => this.apply(m, items) });
  }

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    await this.bus.subscribe({
      group: DIRECTORY_GROUP,
      topics: [Topics.Accounts, Topics.Streams],
      types: [CustomerCreatedV1.type, CustomerUpdatedV1.type, StreamCreatedV1.type, StreamUpdatedV1.type, StreamDeletedV1.type],
      handler: (e) => this.onDirectory(e),
    });
    await this.bus.subscribe({
      group: ROLLUP_GROUP,
      topics: [Topics.Streams, Topics.Dispatch],
      types: [MessageAcceptedV1.type, MessageStatusChangedV1.type, MessageRefundedV1.type],
      concurrency: 256,
      handler: (e) => this.onMessageEvent(e),
    });
  }

  async onMessageEvent(e: EventEnvelope): Promise<void> {
    const accepted = parse(MessageAcceptedV1, e);
    if (accepted) return this.batched.handle(e, { kind: 'accepted', d: accepted });
    const status = parse(MessageStatusChangedV1, e);
    if (status) return this.batched.handle(e, { kind: 'status', d: status });
    const refund = parse(MessageRefundedV1, e);
    if (refund) return this.batched.handle(e, { kind: 'refund', d: refund });
  }

  /** Accounts (currency, time zone) and streams (names) for the reports: snapshots, so an upsert is idempotent. */
  async onDirectory(e: EventEnvelope): Promise<void> {
    const customer = parse(CustomerCreatedV1, e) ?? parse(CustomerUpdatedV1, e);
    if (customer) {
      await this.ds.query(
        `INSERT INTO stats.account (account_id, name, currency, time_zone, updated_at) VALUES ($1, $2, $3, $4, now())
         ON CONFLICT (account_id) DO UPDATE SET name = EXCLUDED.name, currency = EXCLUDED.currency, time_zone = EXCLUDED.time_zone, updated_at = now()`,
        [customer.accountId, customer.name, customer.currency, accountTimeZone(customer.customSettings, customer.genSettings)],
      );
      this.cache.invalidate(customer.accountId);
      return;
    }
    const stream = parse(StreamCreatedV1, e) ?? parse(StreamUpdatedV1, e);
    if (stream) {
      await this.ds.query(
        `INSERT INTO stats.stream (stream_id, account_id, stream_uid, name, stream_type) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (stream_id) DO UPDATE SET name = EXCLUDED.name, stream_type = EXCLUDED.stream_type, stream_uid = EXCLUDED.stream_uid
         WHERE stats.stream.account_id = EXCLUDED.account_id`,
        [stream.streamId, stream.accountId, stream.streamUid, stream.name, stream.streamType],
      );
      return;
    }
    const deleted = parse(StreamDeletedV1, e);
    if (deleted) await this.ds.query(`UPDATE stats.stream SET deleted = true WHERE stream_id = $1 AND account_id = $2`, [deleted.streamId, deleted.accountId]);
  }

  private async apply(m: EntityManager, items: Array<BatchItem<RollupInput>>): Promise<void> {
    const accountOf = new Map<string, string>();
    for (const { data } of items) if (!accountOf.has(data.d.messageUuid)) accountOf.set(data.d.messageUuid, data.d.accountId);
    const uuids = [...accountOf.keys()].sort();
    // a row for each message first, then every row locked in one order: replicas never double count or deadlock
    await m.query(
      `INSERT INTO stats.message_state (message_uuid, account_id) SELECT u, a FROM unnest($1::uuid[], $2::bigint[]) AS t(u, a) ORDER BY u ON CONFLICT (message_uuid) DO NOTHING`,
      [uuids, uuids.map((u) => accountOf.get(u))],
    );
    const rows = await m.query<Array<Omit<State, 'price_micros' | 'refunded_micros'> & { price_micros: string; refunded_micros: string }>>(
      `SELECT message_uuid::text, account_id::text, stream_id::text, sender, iso2, status, rank, accepted_at, hour_bucket, day_bucket::text AS day_bucket,
              segments, price_micros::text, refunded_micros::text, currency
         FROM stats.message_state WHERE message_uuid = ANY($1::uuid[]) ORDER BY message_uuid FOR UPDATE`,
      [uuids],
    );
    const before = new Map<string, State>();
    for (const r of rows) {
      before.set(r.message_uuid, {
        ...r,
        accepted_at: r.accepted_at ? new Date(r.accepted_at).toISOString() : null,
        hour_bucket: r.hour_bucket ? new Date(r.hour_bucket).toISOString() : null,
        price_micros: BigInt(r.price_micros),
        refunded_micros: BigInt(r.refunded_micros),
      });
    }
    const after = new Map<string, State>();
    for (const [u, s] of before) after.set(u, { ...s });
    const needBuckets: State[] = [];
    for (const { data } of items) {
      const s = after.get(data.d.messageUuid);
      // another account's event for a known message changes nothing (message ids are the sender's, not trusted across tenants)
      if (!s || s.account_id !== data.d.accountId) continue;
      if (data.kind === 'accepted') {
        if (s.accepted_at !== null) continue;
        const d = data.d;
        Object.assign(s, { stream_id: d.streamId, sender: d.sender, iso2: d.iso2 ?? '', segments: d.segments, price_micros: BigInt(d.priceMicros), currency: d.currency, accepted_at: new Date(d.acceptedAt).toISOString() });
        if (s.rank < 0) Object.assign(s, { status: 'accepted', rank: 0 });
        needBuckets.push(s);
      } else if (data.kind === 'status') {
        const d = data.d;
        const rank = STATUS_RANK[d.status] ?? 0;
        if (s.stream_id === null) Object.assign(s, { stream_id: d.streamId, sender: d.sender });
        if (d.parts !== undefined && s.accepted_at === null) s.segments = d.parts;
        if (rank > s.rank) Object.assign(s, { status: d.status, rank });
      } else {
        s.refunded_micros += BigInt(data.d.amountMicros);
      }
    }
    if (needBuckets.length > 0) {
      const buckets = await m.query<Array<{ u: string; hour: Date; day: string }>>(
        // the local hour's start: the instant less the local minutes and seconds (date_trunc with a zone would fold
        // the repeated hour of a DST fall-back into one bucket, which may start after the message)
        `SELECT t.u::text AS u, t.at - (l.local - date_trunc('hour', l.local)) AS hour, l.local::date::text AS day
           FROM unnest($1::uuid[], $2::timestamptz[], $3::bigint[]) AS t(u, at, acc) LEFT JOIN stats.account a ON a.account_id = t.acc
           CROSS JOIN LATERAL (SELECT t.at AT TIME ZONE coalesce(a.time_zone, 'UTC') AS local) l`,
        [needBuckets.map((s) => s.message_uuid), needBuckets.map((s) => s.accepted_at), needBuckets.map((s) => s.account_id)],
      );
      for (const b of buckets) {
        const s = after.get(b.u);
        if (s) Object.assign(s, { hour_bucket: new Date(b.hour).toISOString(), day_bucket: b.day });
      }
    }
    const hours = new Map<string, Delta>();
    const days = new Map<string, Delta>();
    const add = (s: State, sign: 1 | -1) => {
      if (s.accepted_at === null || s.hour_bucket === null || s.day_bucket === null) return;
      const cost = (s.price_micros - s.refunded_micros) * BigInt(sign);
      for (const [map, bucket] of [
        [hours, s.hour_bucket],
        [days, s.day_bucket],
      ] as const) {
        const k = `${s.account_id}|${bucket}|${s.stream_id ?? '0'}|${s.sender}|${s.iso2}|${s.status}|${s.currency}`;
        const d = map.get(k) ?? { account: s.account_id, stream: s.stream_id ?? '0', sender: s.sender, iso2: s.iso2, status: s.status, currency: s.currency, bucket, messages: 0, parts: 0, cost: 0n };
        d.messages += sign;
        d.parts += sign * s.segments;
        d.cost += cost;
        map.set(k, d);
      }
    };
    const changed: State[] = [];
    for (const [u, s] of after) {
      const b = before.get(u) as State;
      if (sameState(b, s)) continue;
      changed.push(s);
      add(b, -1);
      add(s, 1);
    }
    if (changed.length > 0) {
      await m.query(
        `UPDATE stats.message_state m SET stream_id = t.stream_id, sender = t.sender, iso2 = t.iso2, status = t.status, rank = t.rank, accepted_at = t.accepted_at,
                hour_bucket = t.hour_bucket, day_bucket = t.day_bucket, segments = t.segments, price_micros = t.price, refunded_micros = t.refunded, currency = t.currency
           FROM unnest($1::uuid[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::smallint[], $7::timestamptz[], $8::timestamptz[], $9::date[], $10::int[], $11::bigint[], $12::bigint[], $13::text[])
             AS t(u, stream_id, sender, iso2, status, rank, accepted_at, hour_bucket, day_bucket, segments, price, refunded, currency)
          WHERE m.message_uuid = t.u`,
        [
          changed.map((s) => s.message_uuid),
          changed.map((s) => s.stream_id),
          changed.map((s) => s.sender),
          changed.map((s) => s.iso2),
          changed.map((s) => s.status),
          changed.map((s) => s.rank),
          changed.map((s) => s.accepted_at),
          changed.map((s) => s.hour_bucket),
          changed.map((s) => s.day_bucket),
          changed.map((s) => s.segments),
          changed.map((s) => s.price_micros.toString()),
          changed.map((s) => s.refunded_micros.toString()),
          changed.map((s) => s.currency),
        ],
      );
    }
    await upsertRollup(m, HOURS, [...hours.values()]);
    await upsertRollup(m, DAYS, [...days.values()]);
    // the same day deltas without sender and country, for the main figures over long ranges
    const streamDays = new Map<string, Delta>();
    for (const d of days.values()) {
      const k = `${d.account}|${d.bucket}|${d.stream}|${d.status}|${d.currency}`;
      const t = streamDays.get(k) ?? { ...d, sender: '', iso2: '', messages: 0, parts: 0, cost: 0n };
      t.messages += d.messages;
      t.parts += d.parts;
      t.cost += d.cost;
      streamDays.set(k, t);
    }
    await upsertRollup(m, STREAM_DAYS, [...streamDays.values()]);
    const countryDays = new Map<string, Delta>();
    for (const d of days.values()) {
      const k = `${d.account}|${d.bucket}|${d.stream}|${d.iso2}|${d.status}|${d.currency}`;
      const t = countryDays.get(k) ?? { ...d, sender: '', messages: 0, parts: 0, cost: 0n };
      t.messages += d.messages;
      t.parts += d.parts;
      t.cost += d.cost;
      countryDays.set(k, t);
    }
    await upsertRollup(m, COUNTRY_DAYS, [...countryDays.values()]);
  }
}

const STATE_FIELDS: Array<keyof State> = ['stream_id', 'sender', 'iso2', 'status', 'rank', 'accepted_at', 'hour_bucket', 'day_bucket', 'segments', 'price_micros', 'refunded_micros', 'currency'];

function sameState(a: State, b: State): boolean {
  return STATE_FIELDS.every((k) => a[k] === b[k]);
}

/** A rollup table: its bucket type and which of the delta's dimensions it keeps (account, bucket, status and currency always). */
interface RollupTable {
  table: 'rollup_hour' | 'rollup_day' | 'rollup_day_stream' | 'rollup_day_country';
  bucketType: 'timestamptz' | 'date';
  dimensions: ReadonlyArray<'stream' | 'sender' | 'iso2'>;
}

const DIMENSION: Record<RollupTable['dimensions'][number], { column: string; type: string }> = {
  stream: { column: 'stream_id', type: 'bigint' },
  sender: { column: 'sender', type: 'text' },
  iso2: { column: 'iso2', type: 'text' },
};

const HOURS: RollupTable = { table: 'rollup_hour', bucketType: 'timestamptz', dimensions: ['stream', 'sender', 'iso2'] };
const DAYS: RollupTable = { table: 'rollup_day', bucketType: 'date', dimensions: ['stream', 'sender', 'iso2'] };
const STREAM_DAYS: RollupTable = { table: 'rollup_day_stream', bucketType: 'date', dimensions: ['stream'] };
const COUNTRY_DAYS: RollupTable = { table: 'rollup_day_country', bucketType: 'date', dimensions: ['stream', 'iso2'] };

/** Adds the deltas to a rollup table in one statement, rows in key order (no deadlock between replicas). */
async function upsertRollup(m: EntityManager, t: RollupTable, deltas: Delta[]): Promise<void> {
  const live = deltas.filter((d) => d.messages !== 0 || d.parts !== 0 || d.cost !== 0n).sort((a, b) => (rowKey(a) < rowKey(b) ? -1 : 1));
  if (live.length === 0) return;
  const keys = [
    { column: 'account_id', type: 'bigint', values: live.map((d) => d.account) },
    { column: 'bucket', type: t.bucketType, values: live.map((d) => d.bucket) },
    ...t.dimensions.map((k) => ({ ...DIMENSION[k], values: live.map((d) => d[k]) })),
    { column: 'status', type: 'text', values: live.map((d) => d.status) },
    { column: 'currency', type: 'text', values: live.map((d) => d.currency) },
  ];
  const sums = [
    { column: 'messages', values: live.map((d) => d.messages) },
    { column: 'parts', values: live.map((d) => d.parts) },
    { column: 'cost_micros', values: live.map((d) => d.cost.toString()) },
  ];
  const keyList = keys.map((k) => k.column).join(', ');
  const unnest = [...keys.map((k, i) => `$${i + 1}::${k.type}[]`), ...sums.map((_, i) => `$${keys.length + i + 1}::bigint[]`)].join(', ');
  await m.query(
    `INSERT INTO stats.${t.table} AS r (${keyList}, ${sums.map((c) => c.column).join(', ')})
     SELECT * FROM unnest(${unnest})
     ON CONFLICT (${keyList}) DO UPDATE
       SET ${sums.map((c) => `${c.column} = r.${c.column} + EXCLUDED.${c.column}`).join(', ')}`,
    [...keys.map((k) => k.values), ...sums.map((c) => c.values)],
  );
}

function rowKey(d: Delta): string {
  return `${d.account}|${d.bucket}|${d.stream}|${d.sender}|${d.iso2}|${d.status}|${d.currency}`;
}
