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
import { BatchedIdempotentConsumer, EventBus, PROCESS_ROLES, isTimeZone, withStatusBatches, type BatchItem, type ProcessRoles } from '@switchboard/platform';
import { STATS_CONNECTION, STATS_OPTIONS, STATS_SCHEMA, type ResolvedStatsOptions } from '../stats.options';
import { ReportCache } from '../services/report-cache';
import { parseAccepted, parseAcceptedData, parseRefund, parseStatus } from './fast-parse';
import { applyRollupBatch, type RollupInput } from './rollup-batch';

export const ROLLUP_GROUP = 'stats.rollups';
export const DIRECTORY_GROUP = 'stats.directory';

export { STATUS_RANK, type RollupInput } from './rollup-batch';

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
  // the item's data checked alone: no copy of the batch's envelope an item (docs/decisions/0213)
  const d = parseAcceptedData(item.data);
  if (d.accountId !== e.accountId) throw new Error(`${MessageAcceptedV1.type} ${item.id} names account ${d.accountId} under batch ${e.id} of account ${String(e.accountId)}`);
  return d;
}

/** A valid IANA zone name, else null. */
export const validTimeZone = (v: unknown): string | null => (isTimeZone(v) ? v : null);

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

  /** One batch (docs/decisions/0028-statistics.md, "Ingest", 0055): applyRollupBatch (docs/decisions/0213). */
  private apply(m: EntityManager, items: Array<BatchItem<RollupInput>>): Promise<void> {
    return applyRollupBatch(m, items);
  }
}
