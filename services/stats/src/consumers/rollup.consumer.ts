import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import {
  CampaignSendBatchRequestedV1,
  CustomerCreatedV1,
  CustomerUpdatedV1,
  acceptedItemsOf,
  isAcceptBatch,
  MessageAcceptedV1,
  MessagesAcceptedV1,
  MessageRefundedV1,
  MessageStatusChangedV1,
  MessageStatusesChangedV1,
  parseEventData,
  StreamCreatedV1,
  StreamDeletedV1,
  StreamUpdatedV1,
  Topics,
  type EventData,
  type EventDefinition,
  type EventEnvelope,
} from '@switchboard/contracts';
import { BatchedIdempotentConsumer, EventBus, pgArray, preparedQuery, PROCESS_ROLES, withStatusBatches, type BatchItem, type ProcessRoles } from '@switchboard/platform';
import { STATS_CONNECTION, STATS_OPTIONS, STATS_SCHEMA, type ResolvedStatsOptions } from '../stats.options';
import { ReportCache } from '../services/report-cache';
import { STATUS_COLUMNS, STATUSES } from '../rollup-shape';
import { parseAccepted, parseRefund, parseStatus } from './fast-parse';

export const ROLLUP_GROUP = 'stats.rollups';
export const DIRECTORY_GROUP = 'stats.directory';

/** Spec 4: `accepted` < `sent` < the final statuses, which never move back. */
export const STATUS_RANK: Record<string, number> = { accepted: 0, sent: 1, delivered: 2, sent_failed: 2, undelivered: 2, no_routes: 2, rejected: 2 };

/** A status's place among the message rollups' count columns (docs/decisions/0131, 0132). */
const STATUS_INDEX: Record<string, number> = Object.fromEntries(STATUSES.map((s, i) => [s, i]));

export type RollupInput =
  | { kind: 'accepted'; d: EventData<typeof MessageAcceptedV1> }
  | { kind: 'status'; d: EventData<typeof MessageStatusChangedV1> }
  | { kind: 'refund'; d: EventData<typeof MessageRefundedV1> }
  /**
   * A campaign batch asked of streams: each item's campaign and variant. Taken only with `requestStates` (acceptances of
   * streams before docs/decisions/0205 do not carry the variant); otherwise the acceptance carries it.
   */
  | { kind: 'requested'; d: EventData<typeof CampaignSendBatchRequestedV1> };

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
  campaign_id: string | null;
  variant_id: string | null;
  destination: string | null;
}

/** A message rollup row's delta (no status in its key): its sums and a count per status (STATUSES' order). */
interface CountDelta {
  account: string;
  stream: string;
  sender: string;
  iso2: string;
  currency: string;
  bucket: string;
  messages: number;
  parts: number;
  cost: bigint;
  n: number[];
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

/** A timestamptz as JavaScript's toISOString writes it (milliseconds, Z), so states compare as strings. */
const iso = (col: string): string => `to_char((${col}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

function parse<T>(def: EventDefinition<T>, e: EventEnvelope): T | null {
  if (e.type !== def.type || e.version !== def.version) return null;
  return parseEventData(def, e.data);
}

/**
 * What an event of the rollup group is to the batch, or null for an event of another type or version (and for a
 * campaign's send-batch request unless `requests`: docs/decisions/0205).
 */
function rollupInput(e: EventEnvelope, requests: boolean): RollupInput | null {
  if (e.type === MessageAcceptedV1.type && e.version === MessageAcceptedV1.version) return { kind: 'accepted', d: parseAccepted(e) };
  if (e.type === MessageStatusChangedV1.type && e.version === MessageStatusChangedV1.version) return { kind: 'status', d: parseStatus(e) };
  if (e.type === MessageRefundedV1.type && e.version === MessageRefundedV1.version) return { kind: 'refund', d: parseRefund(e) };
  if (!requests) return null;
  const requested = parse(CampaignSendBatchRequestedV1, e);
  return requested ? { kind: 'requested', d: requested } : null;
}

/** Whether an event is a batch of accepted messages; one of a version this code does not know fails (dead letter). */
function acceptBatch(e: EventEnvelope): boolean {
  if (e.type !== MessagesAcceptedV1.type) return false;
  if (!isAcceptBatch(e)) throw new Error(`${e.type} v${e.version} is not handled (expects v${MessagesAcceptedV1.version})`);
  return true;
}

/** An accepted batch's item's data, checked as a per-message accepted event's; one naming another account than its batch's fails alone. */
function itemAccepted(e: EventEnvelope, item: { id: string; data: unknown }): EventData<typeof MessageAcceptedV1> {
  const d = parseAccepted({ ...e, data: item.data });
  if (d.accountId !== e.accountId) throw new Error(`${MessageAcceptedV1.type} ${item.id} names account ${d.accountId} under batch ${e.id} of account ${String(e.accountId)}`);
  return d;
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
 * and refunds. Each fact once (a refund by its event id in `processed_events`; every other fact is idempotent by the
 * state it sets); per message the latest state is kept in
 * `message_state`, and a batch moves each message's contribution from the rollup row of its old state to the row of
 * its new one, so a message counts once, in its furthest status, whatever the order, repetition or lateness of its
 * events. A message is counted from its acceptance on; a status or refund seen before it waits in its state row.
 */
@Injectable()
export class RollupConsumer implements OnModuleInit {
  private readonly batched: BatchedIdempotentConsumer<RollupInput>;
  private readonly maxBatch: number;
  private readonly lanes: number;
  /** Whether campaigns' send-batch requests write states (`requestStates`, docs/decisions/0205). */
  private readonly requests: boolean;

  constructor(
    @InjectDataSource(STATS_CONNECTION) private readonly ds: DataSource,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    @Inject(STATS_OPTIONS) options: ResolvedStatsOptions,
    private readonly cache: ReportCache,
  ) {
    this.maxBatch = options.maxBatch;
    this.lanes = options.ingestLanes;
    this.requests = options.requestStates;
    this.batched = new BatchedIdempotentConsumer<RollupInput>({
      dataSource: ds,
      schema: STATS_SCHEMA,
      consumer: ROLLUP_GROUP,
      maxBatch: options.maxBatch,
      // only a refund adds to what is there; every other fact is set once or moves a status forward, so applying it
      // again changes nothing and needs no recorded event id (docs/decisions/0055, "Ingest")
      claim: (d) => d.kind === 'refund',
      // a message's events queued beyond one batch go to the same batch: its state is read and written once and its
      // rollup rows moved once (the batch is order-tolerant by design; docs/decisions/0095). A campaign request names
      // many messages: no key.
      key: (d) => (d.kind === 'requested' ? null : d.d.messageUuid),
      apply: (m, items) => this.apply(m, items),
      // batches in flight at once, an account's events always in the same lane: node builds one batch while PostgreSQL
      // runs another, instead of the two taking turns, and no two transactions write the same account's rollup rows or
      // create the same message's state (docs/decisions/0174). One busy account keeps to one lane.
      parallel: options.ingestLanes,
      lane: (d) => d.d.accountId,
    });
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
      topics: [Topics.Streams, Topics.Dispatch, Topics.Campaigns],
      // streams' accepted messages one event a message or one a send batch and account (docs/decisions/0181); a
      // campaign's requests only while older streams (whose acceptances carry no variant) may run (0205)
      types: [
        MessageAcceptedV1.type,
        MessagesAcceptedV1.type,
        MessageStatusChangedV1.type,
        MessageStatusesChangedV1.type,
        MessageRefundedV1.type,
        ...(this.requests ? [CampaignSendBatchRequestedV1.type] : []),
      ],
      // a partition's chunk feeds a batch a lane: as many handler calls at once as the lanes' batches take
      concurrency: this.maxBatch * this.lanes,
      // a delivered chunk in one call: one batch, no promise per event (docs/decisions/0077); dispatch's batches of
      // statuses as their per-message events, each with its own account (docs/decisions/0173)
      ...withStatusBatches(
        (e) => this.onMessageEvent(e),
        (events) => this.onMessageEvents(events),
      ),
    });
  }

  async onMessageEvent(e: EventEnvelope): Promise<void> {
    if (acceptBatch(e)) return this.onAcceptBatch(e);
    const input = rollupInput(e, this.requests);
    if (input) return this.batched.handle(e, input);
  }

  /**
   * A `streams.messages.accepted` batch alone (a dead letter replayed, or a chunk that failed for another reason than an
   * outage): every item whose data passes is counted (idempotent by the state it sets), then the batch fails naming the
   * items that did not pass, for its retries and dead letter. A poison item never drops its batch's others.
   */
  private async onAcceptBatch(e: EventEnvelope): Promise<void> {
    const good: Array<BatchItem<RollupInput>> = [];
    const bad: string[] = [];
    for (const item of acceptedItemsOf(e)) {
      try {
        good.push({ event: item, data: { kind: 'accepted', d: itemAccepted(e, item) } });
      } catch (error) {
        bad.push(`${item.id}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    await this.batched.handleMany(good);
    if (bad.length) throw new Error(`${e.type} ${e.id}: ${bad.length} of its items not counted: ${bad.join('; ')}`);
  }

  /** A chunk of events at once: the batch's items built without a promise per event. */
  async onMessageEvents(events: EventEnvelope[]): Promise<void> {
    const items: Array<BatchItem<RollupInput>> = [];
    for (const e of events) {
      if (acceptBatch(e)) {
        // a poison item fails the chunk, which the bus then hands event by event (onAcceptBatch: the others counted)
        for (const item of acceptedItemsOf(e)) items.push({ event: item, data: { kind: 'accepted', d: itemAccepted(e, item) } });
        continue;
      }
      const data = rollupInput(e, this.requests);
      if (data) items.push({ event: e, data });
    }
    return this.batched.handleMany(items);
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

  /**
   * One batch (docs/decisions/0028-statistics.md, "Ingest", and 0055): three round trips whatever its size, besides the
   * refunds' event ids. (1) the states the batch's messages have, each with its row version (not locked: 0205), with the hour and day buckets of
   * the batch's acceptances computed in the same statement (the account's zone); the events applied in memory; (2) one
   * statement that updates the changed states, inserts the new ones whole, and adds the deltas to the rollups (the
   * day-per-country rows and their month sums made by the database from the day deltas), rows in key order. No rollup
   * per stream alone: the reports sum the country rows (docs/decisions/0175).
   * Parameters travel as array literals read by unnest (pgArray, or plainArray for ids, instants and sums;
   * docs/decisions/0083 and 0119), never as arrays the driver escapes element by element.
   */
  private async apply(m: EntityManager, items: Array<BatchItem<RollupInput>>): Promise<void> {
    // each message of the batch gets a slot, in the order it first came: the read's rows come back with their slot (the
    // ordinality of the unnest), so states, buckets and the events' messages meet by index, not by uuid in maps (hashing
    // the driver's fresh uuid texts and four maps of the batch's size: docs/decisions/0138)
    const slotOf = new Map<string, number>();
    const uuids: string[] = [];
    const accounts: string[] = [];
    const acceptedAt: Array<string | null> = [];
    /** The slot of each item's message (-1: a campaign request, which names many). */
    const itemSlot = new Int32Array(items.length);
    const slot = (u: string, account: string): number => {
      let k = slotOf.get(u);
      if (k === undefined) {
        k = uuids.length;
        slotOf.set(u, k);
        uuids.push(u);
        accounts.push(account);
        acceptedAt.push(null);
      }
      return k;
    };
    for (let i = 0; i < items.length; i++) {
      const data = items[i].data;
      if (data.kind === 'requested') {
        itemSlot[i] = -1;
        for (const it of data.d.items) slot(it.messageUuid, data.d.accountId);
        continue;
      }
      const k = slot(data.d.messageUuid, data.d.accountId);
      itemSlot[i] = k;
      if (data.kind === 'accepted' && acceptedAt[k] === null) acceptedAt[k] = data.d.acceptedAt;
    }
    // the batch's messages that have a state are read with their row version (xmin), not locked: the write below sets a
    // state only where its version is still the one read, and a batch that finds one changed meanwhile (another
    // replica's write) is rolled back and applied again, so replicas never double count (docs/decisions/0205; the row
    // locks of `FOR UPDATE` cost a WAL record a state). Those that have none get theirs inserted whole by the write
    // below. The buckets of the batch's acceptances are computed
    // in the same statement (the local hour's start: the instant less the local minutes and seconds; date_trunc with a
    // zone would fold the repeated hour of a DST fall-back into one bucket, which may start after the message).
    // The states are found by `= ANY` of the uuids, not `IN` the unnest: an index scan of those rows, where the
    // semi-join read the whole table for a hash (at this size) and the join below then sorted both sides again to
    // merge them (about 0.7 of 7.3 µs a row of the statement's CPU: docs/decisions/0145).
    // The read and the write are named statements: parsed once a connection, not every batch (docs/decisions/0153).
    const rows = await preparedQuery<
      Omit<State, 'price_micros' | 'refunded_micros'> & { o: number; found: boolean; x: string | null; price_micros: string; refunded_micros: string; new_at: string | null; new_hour: string | null; new_day: string | null }
    >(
      m,
      'stats_rollup_read_v2',
      `WITH t AS (SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::timestamptz[]) WITH ORDINALITY AS t(u, a, at, o)),
            s AS (SELECT *, xmin AS x FROM stats.message_state WHERE message_uuid = ANY($1::uuid[]))
       SELECT t.o::int - 1 AS o, t.u::text AS message_uuid, s.message_uuid IS NOT NULL AS found, s.x::text AS x, coalesce(s.account_id, t.a)::text AS account_id, s.stream_id::text, coalesce(s.sender, '') AS sender,
              coalesce(s.iso2, '') AS iso2, coalesce(s.status, '') AS status, coalesce(s.rank, -1) AS rank, ${iso('s.accepted_at')} AS accepted_at, ${iso('s.hour_bucket')} AS hour_bucket,
              s.day_bucket::text AS day_bucket, coalesce(s.segments, 0) AS segments, coalesce(s.price_micros, 0)::text AS price_micros, coalesce(s.refunded_micros, 0)::text AS refunded_micros,
              coalesce(s.currency, '') AS currency, s.campaign_id::text, s.variant_id::text, s.destination,
              ${iso('t.at')} AS new_at, ${iso("t.at - (l.local - date_trunc('hour', l.local))")} AS new_hour, l.local::date::text AS new_day
         FROM t LEFT JOIN s ON s.message_uuid = t.u
         LEFT JOIN stats.account a ON a.account_id = coalesce(s.account_id, t.a)
         CROSS JOIN LATERAL (SELECT t.at AT TIME ZONE coalesce(a.time_zone, 'UTC') AS local) l`,
      [plainArray(uuids), plainArray(accounts), pgArray(acceptedAt)],
    );
    const n = uuids.length;
    const before = new Array<State | undefined>(n);
    const after = new Array<State | undefined>(n);
    const created = new Uint8Array(n);
    /** The row version (xmin) each found state was read at: the write sets it only if it is still that one. */
    const versions = new Array<string | null>(n);
    const buckets = new Array<{ at: string; hour: string; day: string } | undefined>(n);
    /** Slots whose events apply: the database writes the uuid as the events did (see stateOf). */
    const spelled = new Uint8Array(n);
    for (const r of rows) {
      const k = r.o;
      if (!r.found) created[k] = 1;
      versions[k] = r.x;
      if (r.message_uuid === uuids[k]) spelled[k] = 1;
      // states built field by field, one shape for all (no rest or spread copies: they were much of the batch's garbage)
      const state = copyState(r, BigInt(r.price_micros), BigInt(r.refunded_micros));
      before[k] = state;
      after[k] = copyState(state, state.price_micros, state.refunded_micros);
      if (r.new_hour && r.new_day && r.new_at) buckets[k] = { at: r.new_at, hour: r.new_hour, day: r.new_day };
    }
    /**
     * The state of an event's message slot, when the database writes that uuid as the event did: an event naming its
     * message in another spelling (upper-case hex) changes nothing, as when states were found by their text.
     */
    const stateOf = (k: number | undefined): State | undefined => (k !== undefined && spelled[k] === 1 ? after[k] : undefined);
    for (let i = 0; i < items.length; i++) {
      const data = items[i].data;
      if (data.kind === 'requested') {
        // the campaign's variant per message; another account's request for a known message changes nothing
        for (const it of data.d.items) {
          const s = stateOf(slotOf.get(it.messageUuid));
          if (!s || s.account_id !== data.d.accountId) continue;
          if (s.campaign_id === null) s.campaign_id = data.d.campaignId;
          if (s.variant_id === null && it.variantId) s.variant_id = it.variantId;
        }
        continue;
      }
      const k = itemSlot[i];
      const s = stateOf(k);
      // another account's event for a known message changes nothing (message ids are the sender's, not trusted across tenants)
      if (!s || s.account_id !== data.d.accountId) continue;
      if (data.kind === 'accepted') {
        if (s.accepted_at !== null) continue;
        const d = data.d;
        // the buckets were computed for the batch's first acceptance of the message; a second one (the same fact under
        // another event id) was skipped just above
        const b = buckets[k];
        s.stream_id = d.streamId;
        s.sender = d.sender;
        s.iso2 = d.iso2 ?? '';
        s.segments = d.segments;
        s.price_micros = BigInt(d.priceMicros);
        s.currency = d.currency;
        s.accepted_at = b?.at ?? new Date(d.acceptedAt).toISOString();
        if (d.campaignId !== null) s.campaign_id = d.campaignId;
        // the variant streams passed through from the campaign's request (0205); a state the request wrote keeps its own
        if (s.variant_id === null && d.variantId) s.variant_id = d.variantId;
        s.destination = d.destination;
        s.hour_bucket = b?.hour ?? null;
        s.day_bucket = b?.day ?? null;
        if (s.rank < 0) {
          s.status = 'accepted';
          s.rank = 0;
        }
      } else if (data.kind === 'status') {
        const d = data.d;
        const rank = STATUS_RANK[d.status] ?? 0;
        if (s.stream_id === null) {
          s.stream_id = d.streamId;
          s.sender = d.sender;
        }
        if (d.parts !== undefined && s.accepted_at === null) s.segments = d.parts;
        if (rank > s.rank) {
          s.status = d.status;
          s.rank = rank;
        }
      } else {
        s.refunded_micros += BigInt(data.d.amountMicros);
      }
    }
    const hours = new Map<string, CountDelta>();
    const days = new Map<string, CountDelta>();
    const campaignHours = new Map<string, Delta & { campaign: string; variant: string; day: string }>();
    /**
     * The hour and day rows a counted state falls in. The hour rollup keeps the sender; the day rows the database sums
     * into the day and month rollups need none (no rollup per sender and local day is kept: docs/decisions/0088). The
     * status is a count column, not part of the key: a status that moves changes two counts of one row (0131, 0132).
     */
    const rowsOf = (s: State & { hour_bucket: string; day_bucket: string }): [CountDelta, CountDelta] => {
      const stream = s.stream_id ?? '0';
      const rest = `${stream}|${s.iso2}|${s.currency}`;
      const hk = `${s.account_id}|${s.hour_bucket}|${s.sender}|${rest}`;
      let h = hours.get(hk);
      if (!h) hours.set(hk, (h = { account: s.account_id, stream, sender: s.sender, iso2: s.iso2, currency: s.currency, bucket: s.hour_bucket, messages: 0, parts: 0, cost: 0n, n: [0, 0, 0, 0, 0, 0, 0] }));
      const dk = `${s.account_id}|${s.day_bucket}|${rest}`;
      let d = days.get(dk);
      if (!d) days.set(dk, (d = { account: s.account_id, stream, sender: '', iso2: s.iso2, currency: s.currency, bucket: s.day_bucket, messages: 0, parts: 0, cost: 0n, n: [0, 0, 0, 0, 0, 0, 0] }));
      return [h, d];
    };
    const counted = (s: State): s is State & { accepted_at: string; hour_bucket: string; day_bucket: string } => s.accepted_at !== null && s.hour_bucket !== null && s.day_bucket !== null;
    /** The campaign hour row's delta of a counted state (the campaign rollups keep the status in their key). */
    const addCampaign = (s: State & { hour_bucket: string; day_bucket: string; campaign_id: string }, sign: 1 | -1, cost: bigint) => {
      const variant = s.variant_id ?? '0';
      const k = `${s.account_id}|${s.campaign_id}|${variant}|${s.hour_bucket}|${s.iso2}|${s.status}|${s.currency}`;
      let d = campaignHours.get(k);
      if (!d) {
        d = { account: s.account_id, campaign: s.campaign_id, variant, stream: '0', sender: '', iso2: s.iso2, status: s.status, currency: s.currency, bucket: s.hour_bucket, day: s.day_bucket, messages: 0, parts: 0, cost: 0n };
        campaignHours.set(k, d);
      }
      d.messages += sign;
      d.parts += sign * s.segments;
      d.cost += cost;
    };
    const add = (s: State, sign: 1 | -1) => {
      if (!counted(s)) return;
      const cost = (s.price_micros - s.refunded_micros) * BigInt(sign);
      const si = STATUS_INDEX[s.status];
      for (const r of rowsOf(s)) {
        r.messages += sign;
        r.parts += sign * s.segments;
        r.cost += cost;
        r.n[si] += sign;
      }
      if (s.campaign_id !== null) addCampaign(s as typeof s & { campaign_id: string }, sign, cost);
    };
    /**
     * A known state of which only the status moved (`onlyStatusMoved`): the same hour and day rows lose a count of the
     * old status and gain one of the new (their sums stay), found once instead of once for each side (0138).
     */
    const move = (b: State, s: State) => {
      if (!counted(s)) return;
      const from = STATUS_INDEX[b.status];
      const to = STATUS_INDEX[s.status];
      for (const r of rowsOf(s)) {
        r.n[from] -= 1;
        r.n[to] += 1;
      }
      if (s.campaign_id !== null) {
        const cost = s.price_micros - s.refunded_micros;
        addCampaign(b as typeof b & { hour_bucket: string; day_bucket: string; campaign_id: string }, -1, -cost);
        addCampaign(s as typeof s & { campaign_id: string }, 1, cost);
      }
    };
    // `changed`: the states inserted whole or rewritten whole; `moved`: known states of which only the status moved
    // (the common late case: a status after its acceptance's batch), written narrowly (docs/decisions/0103)
    const changed: State[] = [];
    const moved: State[] = [];
    /** The changed states' created flags, in their order, and the versions read of those not created and of the moved. */
    const isCreated: boolean[] = [];
    const changedVersions: string[] = [];
    const movedVersions: string[] = [];
    let creating = 0;
    for (let k = 0; k < n; k++) {
      const s = after[k];
      const b = before[k];
      if (!s || !b) continue;
      const isNew = created[k] === 1;
      if (!isNew && sameState(b, s)) continue;
      if (!isNew && onlyStatusMoved(b, s)) {
        moved.push(s);
        movedVersions.push(versions[k] as string);
        move(b, s);
      } else {
        changed.push(s);
        isCreated.push(isNew);
        changedVersions.push(isNew ? 'NULL' : (versions[k] as string));
        if (isNew) creating++;
        add(b, -1);
        add(s, 1);
      }
    }
    if (changed.length === 0 && moved.length === 0) return;
    // the deltas as columns, one set per kind: hour rows, day rows (the day-per-country rows and their month sums are
    // made from these by the database; no sender) and campaign hour rows (with their local date)
    const columns = () => ({ a: [] as string[], b: [] as string[], st: [] as string[], se: [] as string[], i: [] as string[], s: [] as string[], c: [] as string[], m: [] as number[], p: [] as number[], co: [] as string[], dd: [] as string[], n: STATUSES.map(() => [] as number[]) });
    const byKind = { h: columns(), d: columns(), c: columns() };
    const pushCounts = (k: 'h' | 'd', d: CountDelta) => {
      const n = d.n;
      if (d.messages === 0 && d.parts === 0 && d.cost === 0n && n[0] === 0 && n[1] === 0 && n[2] === 0 && n[3] === 0 && n[4] === 0 && n[5] === 0 && n[6] === 0) return;
      const col = byKind[k];
      col.a.push(d.account);
      col.b.push(d.bucket);
      col.st.push(d.stream);
      col.se.push(d.sender);
      col.i.push(d.iso2);
      col.c.push(d.currency);
      col.m.push(d.messages);
      col.p.push(d.parts);
      col.co.push(d.cost.toString());
      for (let j = 0; j < n.length; j++) col.n[j].push(n[j]);
    };
    const push = (k: 'h' | 'd' | 'c', d: Delta, st: string, se: string, day: string | null) => {
      if (d.messages === 0 && d.parts === 0 && d.cost === 0n) return;
      const col = byKind[k];
      col.a.push(d.account);
      col.b.push(d.bucket);
      col.st.push(st);
      col.se.push(se);
      col.i.push(d.iso2);
      col.s.push(d.status);
      col.c.push(d.currency);
      col.m.push(d.messages);
      col.p.push(d.parts);
      col.co.push(d.cost.toString());
      if (day !== null) col.dd.push(day);
    };
    for (const d of hours.values()) pushCounts('h', d);
    for (const d of days.values()) pushCounts('d', d);
    for (const d of campaignHours.values()) push('c', d, d.campaign, d.variant, d.day);
    const sum = (col: string) => `${col} = r.${col} + EXCLUDED.${col}`;
    const sums = `${sum('messages')}, ${sum('parts')}, ${sum('cost_micros')}`;
    // the message rollups: the sums and a count per status (docs/decisions/0131, 0132)
    const N = STATUSES.map((_, j) => `n${j}`).join(', ');
    const NC = STATUS_COLUMNS.join(', ');
    const counts = (from: number) => STATUSES.map((_, j) => `$${from + j}::bigint[]`).join(', ');
    const countSums = `${sums}, ${STATUS_COLUMNS.map(sum).join(', ')}`;
    const summed = `sum(m)::bigint, sum(p)::bigint, sum(co)::bigint, ${STATUSES.map((_, j) => `sum(n${j})::bigint`).join(', ')}`;
    const nonZero = ['m', 'p', 'co', ...STATUSES.map((_, j) => `n${j}`)].map((c) => `sum(${c}) <> 0`).join(' OR ');
    const [{ inserted, rewritten, statusMoved }] = await preparedQuery<{ inserted: number; rewritten: number; statusMoved: number }>(
      m,
      'stats_rollup_write_v2',
      `WITH t AS (
         SELECT * FROM unnest($1::uuid[], $2::boolean[], $3::bigint[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::smallint[], $9::timestamptz[], $10::timestamptz[],
                              $11::date[], $12::int[], $13::bigint[], $14::bigint[], $15::text[], $16::bigint[], $17::bigint[], $18::text[], $65::xid[])
                       AS t(u, n, a, stream_id, sender, iso2, status, rank, accepted_at, hour_bucket, day_bucket, segments, price, refunded, currency, campaign_id, variant_id, destination, x)
       ), st AS (
         UPDATE stats.message_state m SET stream_id = t.stream_id, sender = t.sender, iso2 = t.iso2, status = t.status, rank = t.rank, accepted_at = t.accepted_at,
                hour_bucket = t.hour_bucket, day_bucket = t.day_bucket, segments = t.segments, price_micros = t.price, refunded_micros = t.refunded, currency = t.currency,
                campaign_id = t.campaign_id, variant_id = t.variant_id, destination = t.destination
           FROM t WHERE m.message_uuid = t.u AND NOT t.n AND m.xmin = t.x
         RETURNING 1
       ), sm AS (
         -- a known state whose status alone moved: only status and rank are set (fewer columns to send and decode; no
         -- index covers either). The uuids bound again with = ANY keep the plan on the primary key: joined to the
         -- unnest alone, a small table was read whole for a hash join (twice the CPU: docs/decisions/0103)
         UPDATE stats.message_state m SET status = n.status, rank = n.rank
           FROM unnest($61::uuid[], $62::text[], $63::smallint[], $64::xid[]) AS n(u, status, rank, x) WHERE m.message_uuid = n.u AND m.message_uuid = ANY($61::uuid[]) AND m.xmin = n.x
         RETURNING 1
       ), ins AS (
         -- a message seen for the first time: its state written once, whole (no empty row first, then an update)
         INSERT INTO stats.message_state (message_uuid, account_id, stream_id, sender, iso2, status, rank, accepted_at, hour_bucket, day_bucket, segments, price_micros,
                                          refunded_micros, currency, campaign_id, variant_id, destination)
         SELECT u, a, stream_id, sender, iso2, status, rank, accepted_at, hour_bucket, day_bucket, segments, price, refunded, currency, campaign_id, variant_id, destination
           FROM t WHERE t.n ORDER BY u
         ON CONFLICT (message_uuid) DO NOTHING RETURNING 1
       ), vh AS (
         -- hour rows: their sums and a count per status (n0 ... n6 in STATUSES' order; docs/decisions/0131, 0132)
         SELECT * FROM unnest($19::bigint[], $20::timestamptz[], $21::bigint[], $22::text[], $23::text[], $24::text[], $25::bigint[], $26::bigint[], $27::bigint[], ${counts(28)})
                  AS t(a, b, st, se, i, c, m, p, co, ${N})
       ), vd AS (
         -- day rows without the sender: their sums per stream and country are kept (per stream alone: summed by the reports, 0175)
         SELECT * FROM unnest($35::bigint[], $36::date[], $37::bigint[], $38::text[], $39::text[], $40::bigint[], $41::bigint[], $42::bigint[], ${counts(43)}) AS t(a, b, st, i, c, m, p, co, ${N})
       ), vc AS (
         -- campaign hour rows: st is the campaign, se the variant (0 unknown), dd the hour's local date
         SELECT * FROM unnest($50::bigint[], $51::timestamptz[], $52::bigint[], $53::bigint[], $54::text[], $55::text[], $56::text[], $57::bigint[], $58::bigint[], $59::bigint[], $60::date[])
                  AS t(a, b, st, se, i, s, c, m, p, co, dd)
       ), ch AS (
         -- the campaign rollup: st is the campaign, se the variant (0 unknown)
         INSERT INTO stats.rollup_campaign_hour AS r (account_id, campaign_id, bucket, variant_id, iso2, status, currency, messages, parts, cost_micros)
         SELECT a, st, b, se, i, s, c, m, p, co FROM vc ORDER BY a, st, b, se, i, s, c
         ON CONFLICT (account_id, campaign_id, bucket, variant_id, iso2, status, currency) DO UPDATE SET ${sums}
       ), cd AS (
         -- the campaign day rollup: the campaign hour deltas summed per local date (an hour bucket lies in one local date)
         INSERT INTO stats.rollup_campaign_day AS r (account_id, campaign_id, bucket, variant_id, iso2, status, currency, messages, parts, cost_micros)
         SELECT a, st, dd, se, i, s, c, sum(m)::bigint, sum(p)::bigint, sum(co)::bigint FROM vc
          GROUP BY a, st, dd, se, i, s, c HAVING sum(m) <> 0 OR sum(p) <> 0 OR sum(co) <> 0 ORDER BY a, st, dd, se, i, s, c
         ON CONFLICT (account_id, campaign_id, bucket, variant_id, iso2, status, currency) DO UPDATE SET ${sums}
       ), ct AS (
         -- per campaign without variant and country, per local date and per local month (docs/decisions/0077)
         INSERT INTO stats.rollup_campaign_day_total AS r (account_id, campaign_id, bucket, status, currency, messages, parts, cost_micros)
         SELECT a, st, dd, s, c, sum(m)::bigint, sum(p)::bigint, sum(co)::bigint FROM vc
          GROUP BY a, st, dd, s, c HAVING sum(m) <> 0 OR sum(p) <> 0 OR sum(co) <> 0 ORDER BY a, st, dd, s, c
         ON CONFLICT (account_id, campaign_id, bucket, status, currency) DO UPDATE SET ${sums}
       ), cm AS (
         INSERT INTO stats.rollup_campaign_month AS r (account_id, campaign_id, bucket, status, currency, messages, parts, cost_micros)
         SELECT a, st, date_trunc('month', dd)::date, s, c, sum(m)::bigint, sum(p)::bigint, sum(co)::bigint FROM vc
          GROUP BY a, st, 3, s, c HAVING sum(m) <> 0 OR sum(p) <> 0 OR sum(co) <> 0 ORDER BY a, st, 3, s, c
         ON CONFLICT (account_id, campaign_id, bucket, status, currency) DO UPDATE SET ${sums}
       ), h AS (
         INSERT INTO stats.rollup_counts_hour AS r (account_id, bucket, stream_id, sender, iso2, currency, messages, parts, cost_micros, ${NC})
         SELECT a, b, st, se, i, c, m, p, co, ${N} FROM vh ORDER BY a, b, st, se, i, c
         ON CONFLICT (account_id, bucket, stream_id, sender, iso2, currency) DO UPDATE SET ${countSums}
       ), dc AS (
         -- the day deltas are already one per day-per-country key (the batch's day map) and none is all zeros
         -- (pushCounts): written as they are, without summing them again (0145)
         INSERT INTO stats.rollup_counts_day_country AS r (account_id, bucket, iso2, stream_id, currency, messages, parts, cost_micros, ${NC})
         SELECT a, b, i, st, c, m, p, co, ${N} FROM vd ORDER BY a, b, i, st, c
         ON CONFLICT (account_id, bucket, iso2, stream_id, currency) DO UPDATE SET ${countSums}
       ), mc AS (
         -- the month rollup: the day deltas summed per local month (a day bucket is a local date; docs/decisions/0070)
         INSERT INTO stats.rollup_counts_month_country AS r (account_id, bucket, iso2, stream_id, currency, messages, parts, cost_micros, ${NC})
         SELECT a, date_trunc('month', b)::date, i, st, c, ${summed} FROM vd GROUP BY a, 2, i, st, c HAVING ${nonZero} ORDER BY a, 2, i, st, c
         ON CONFLICT (account_id, bucket, iso2, stream_id, currency) DO UPDATE SET ${countSums}
       )
       SELECT (SELECT count(*) FROM ins)::int AS inserted, (SELECT count(*) FROM st)::int AS rewritten, (SELECT count(*) FROM sm)::int AS "statusMoved"`,
      [
        plainArray(changed.map((s) => s.message_uuid)),
        pgArray(isCreated),
        plainArray(changed.map((s) => s.account_id)),
        pgArray(changed.map((s) => s.stream_id)),
        pgArray(changed.map((s) => s.sender)),
        pgArray(changed.map((s) => s.iso2)),
        pgArray(changed.map((s) => s.status)),
        pgArray(changed.map((s) => s.rank)),
        pgArray(changed.map((s) => s.accepted_at)),
        pgArray(changed.map((s) => s.hour_bucket)),
        pgArray(changed.map((s) => s.day_bucket)),
        pgArray(changed.map((s) => s.segments)),
        pgArray(changed.map((s) => s.price_micros)),
        pgArray(changed.map((s) => s.refunded_micros)),
        pgArray(changed.map((s) => s.currency)),
        pgArray(changed.map((s) => s.campaign_id)),
        pgArray(changed.map((s) => s.variant_id)),
        pgArray(changed.map((s) => s.destination)),
        ...(['h', 'd', 'c'] as const).flatMap((k) => {
          const col = byKind[k];
          // ids, hour instants and sums joined plainly (plainArray); the sender (the variant of a campaign row is an id),
          // country, status, currency and dates (their text follows DateStyle) through pgArray's quoting
          const n = col.n.map((v) => plainArray(v));
          if (k === 'd') return [plainArray(col.a), pgArray(col.b), plainArray(col.st), pgArray(col.i), pgArray(col.c), plainArray(col.m), plainArray(col.p), plainArray(col.co), ...n];
          if (k === 'h') return [plainArray(col.a), plainArray(col.b), plainArray(col.st), pgArray(col.se), pgArray(col.i), pgArray(col.c), plainArray(col.m), plainArray(col.p), plainArray(col.co), ...n];
          return [plainArray(col.a), plainArray(col.b), plainArray(col.st), plainArray(col.se), pgArray(col.i), pgArray(col.s), pgArray(col.c), pgArray(col.m), pgArray(col.p), plainArray(col.co), pgArray(col.dd)];
        }),
        plainArray(moved.map((s) => s.message_uuid)),
        pgArray(moved.map((s) => s.status)),
        pgArray(moved.map((s) => s.rank)),
        plainArray(movedVersions),
        plainArray(changedVersions),
      ],
    );
    // another replica created one of these states since the read above (its events were rebalanced to it): this batch
    // is rolled back and applied again event by event, each then finding the state
    if (inserted !== creating) throw new Error(`message states were created meanwhile (${creating - inserted}); the batch is applied again`);
    // another replica wrote one of the states read above since (a newer version: this batch's update skipped it, or
    // waited for the other's commit and then skipped it): rolled back, and applied again event by event on the states
    // as they are now
    if (rewritten !== changed.length - creating || statusMoved !== moved.length) {
      throw new Error(`message states were changed meanwhile (${changed.length - creating - rewritten + moved.length - statusMoved}); the batch is applied again`);
    }
  }
}

/**
 * An array literal of values none of which can hold a quote, backslash, comma, brace or space: message uuids (checked
 * by the events' parse, or PostgreSQL's text of a uuid), decimal ids (the contracts' `^\d+$`, or PostgreSQL's text of a
 * bigint), signed decimal sums (`BigInt#toString`), and instants as the read statement's `to_char` wrote them. Joined
 * without pgArray's scan for characters to escape (a join, a regular expression over the joined text and a second join
 * per column: three quarters of pgArray's time in a late batch, docs/decisions/0119).
 */
function plainArray(values: ReadonlyArray<string | number>): string {
  return `{${values.join(',')}}`;
}

/** A state's copy with the given amounts, field by field (every state one shape). */
function copyState(s: Omit<State, 'price_micros' | 'refunded_micros'>, price: bigint, refunded: bigint): State {
  return {
    message_uuid: s.message_uuid,
    account_id: s.account_id,
    stream_id: s.stream_id,
    sender: s.sender,
    iso2: s.iso2,
    status: s.status,
    rank: s.rank,
    accepted_at: s.accepted_at,
    hour_bucket: s.hour_bucket,
    day_bucket: s.day_bucket,
    segments: s.segments,
    price_micros: price,
    refunded_micros: refunded,
    currency: s.currency,
    campaign_id: s.campaign_id,
    variant_id: s.variant_id,
    destination: s.destination,
  };
}

/** Whether `b` differs from `a` in its status (and rank) at most (each field read by name: one shape, no keyed loads). */
function onlyStatusMoved(a: State, b: State): boolean {
  return (
    a.stream_id === b.stream_id &&
    a.sender === b.sender &&
    a.iso2 === b.iso2 &&
    a.accepted_at === b.accepted_at &&
    a.hour_bucket === b.hour_bucket &&
    a.day_bucket === b.day_bucket &&
    a.segments === b.segments &&
    a.price_micros === b.price_micros &&
    a.refunded_micros === b.refunded_micros &&
    a.currency === b.currency &&
    a.campaign_id === b.campaign_id &&
    a.variant_id === b.variant_id &&
    a.destination === b.destination
  );
}

function sameState(a: State, b: State): boolean {
  return a.status === b.status && a.rank === b.rank && onlyStatusMoved(a, b);
}
