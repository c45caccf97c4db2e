import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import {
  BalanceAdjustedV1,
  CustomerCreatedV1,
  CustomerUpdatedV1,
  MessageRefundDueV1,
  MessageRefundedV1,
  MessagesReconciledV1,
  MessageStatusChangedV1,
  MessageStatusesChangedV1,
  PriceChangedV1,
  StreamUpdatedV1,
  TelegramAuthCompletedV1,
  TelegramCodeRequestedV1,
  Topics,
  type EventData,
  type EventDefinition,
  type EventEnvelope,
  flattenStatusBatches,
  forEachStatusChange,
  parseStatusChanged,
} from '@switchboard/contracts';
import { BatchedIdempotentConsumer, eachAtOnce, EventBus, IdempotentConsumer, Outbox, PROCESS_ROLES, tracingEnabled, withStatusBatches, type BatchItem, type ProcessRoles } from '@switchboard/platform';
import { ActivityService } from '../services/activity.service';
import type { StreamEntity } from '../entities';
import { LookupsService } from '../services/lookups.service';
import { StreamService } from '../services/stream.service';
import { StreamsOutboxRelay, StreamsUnitOfWork } from '../services/streams-events.service';
import { UndispatchedSweeper } from '../services/undispatched-sweeper.service';
import { STREAMS_CONNECTION, STREAMS_SCHEMA } from '../streams.options';

export const ACCOUNTS_GROUP = 'streams.accounts-projector';
export const DISPATCH_GROUP = 'streams.dispatch-projector';
/**
 * Message statuses: a group of their own, in chunks and batches (two a message at dispatch's rate). Status updates
 * only move forward, so order within a chunk does not matter, and replaying old ones changes nothing.
 */
export const STATUS_GROUP = 'streams.status-projector';

type StatusData = EventData<typeof MessageStatusChangedV1>;

/** Final statuses never move back; `accepted` < `sent` < the rest (spec 4, messaging-events.ts). */
const STATUS_RANK: Record<string, number> = { accepted: 0, sent: 1, delivered: 2, sent_failed: 2, undelivered: 2, no_routes: 2, rejected: 2 };

/** TypeORM answers an UPDATE ... RETURNING on PostgreSQL as `[rows, affected]`. */
function returned<R>(result: unknown): R[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as R[];
  return result as R[];
}

function parse<T>(def: EventDefinition<T>, e: EventEnvelope): T | null {
  if (e.type !== def.type || e.version !== def.version) return null;
  return def.schema.parse(e.data);
}

/**
 * The read models streams keeps from other services' events, each effect recorded once per event
 * (`processed_events`): customers, balance credits and prices from accounts; message statuses and refunds from dispatch.
 */
@Injectable()
export class ReadModelsConsumer implements OnModuleInit {
  private readonly log = new Logger('StreamsReadModels');

  constructor(
    @InjectDataSource(STREAMS_CONNECTION) private readonly ds: DataSource,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly lookups: LookupsService,
    private readonly activity: ActivityService,
    private readonly uow: StreamsUnitOfWork,
    private readonly relay: StreamsOutboxRelay,
    private readonly streams: StreamService,
    private readonly undispatched: UndispatchedSweeper,
  ) {
    this.statuses = new BatchedIdempotentConsumer<StatusData>({
      dataSource: ds,
      schema: STREAMS_SCHEMA,
      consumer: STATUS_GROUP,
      // no processed_events row per status: the move is idempotent by itself (applyStatuses moves a message only to a
      // status of a higher rank, so a redelivered status or batch changes nothing; docs/decisions/0173, as 0051 for
      // campaigns' statuses)
      claim: () => false,
      apply: (m, items) => this.applyStatuses(m, items),
    });
  }

  private readonly statuses: BatchedIdempotentConsumer<StatusData>;

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    await this.bus.subscribe({ group: ACCOUNTS_GROUP, topics: [Topics.Accounts], handler: (e) => this.onAccounts(e) });
    // refunds and Telegram login reports in order, one at a time; statuses (most of the topic) in their own group
    await this.bus.subscribe({
      group: DISPATCH_GROUP,
      topics: [Topics.Dispatch],
      types: [MessageRefundDueV1.type, TelegramCodeRequestedV1.type, TelegramAuthCompletedV1.type, MessagesReconciledV1.type],
      handler: (e) => this.onDispatch(e),
    });
    await this.bus.subscribe({
      group: STATUS_GROUP,
      topics: [Topics.Dispatch],
      types: [MessageStatusChangedV1.type, MessageStatusesChangedV1.type],
      concurrency: 256,
      // a delivered chunk in one call: its statuses join the batch together, without the bus's delivery each (0160);
      // dispatch's batches of statuses as their per-message events, each with its own account (0173)
      handler: withStatusBatches((e) => this.onStatus(e)).handler,
      batchHandler: (events, context) => (tracingEnabled() ? this.tracedChunk(flattenStatusBatches(events), context) : this.onStatusChunk(events)),
    });
  }

  /** With tracing on, each status in its own consumer span (as one by one), joining the batch together. */
  private readonly tracedChunk = eachAtOnce((e) => this.onStatus(e));

  /**
   * A delivered chunk, per-message statuses and dispatch's batches alike (docs/decisions/0173): every status change
   * checked as one by one (its own account in its data) and handed to the group commit at once, with one promise for
   * the chunk, no envelope or promise per status.
   */
  async onStatusChunk(events: EventEnvelope[]): Promise<void> {
    const items: Array<BatchItem<StatusData>> = [];
    forEachStatusChange(events, (id, data) => items.push({ event: { id }, data: parseStatusChanged(data) }));
    return this.statuses.handleMany(items);
  }

  async onStatus(e: EventEnvelope): Promise<void> {
    // the contract's check written out by hand for data that passes, the schema otherwise (docs/decisions/0160)
    const status = e.type === MessageStatusChangedV1.type && e.version === MessageStatusChangedV1.version ? parseStatusChanged(e.data) : null;
    if (status) await this.statuses.handle(e, status);
  }

  /**
   * A batch of status changes: per message the furthest status of the batch (the first of equal rank, as one by one),
   * applied only where it moves the stored status forward; sent and delivered times kept from any of them. The
   * messages are named by key (`uuid = ANY`) as well as joined: without it the planner hashed the whole table for
   * every batch (docs/decisions/0108).
   */
  private async applyStatuses(m: EntityManager, items: Array<BatchItem<StatusData>>): Promise<() => void> {
    // per message and account: a status naming another account (which moves nothing) cannot mask the message's own
    const best = new Map<string, StatusData & { rank: number }>();
    for (const { data } of items) {
      const rank = STATUS_RANK[data.status] ?? 0;
      const key = `${data.accountId}:${data.messageUuid}`;
      const prev = best.get(key);
      if (!prev) best.set(key, { ...data, rank });
      else {
        const next = rank > prev.rank ? { ...data, rank } : prev;
        best.set(key, { ...next, sentAt: next.sentAt ?? prev.sentAt ?? data.sentAt, deliveredAt: next.deliveredAt ?? prev.deliveredAt ?? data.deliveredAt });
      }
    }
    const list = [...best.values()];
    const rows = returned<{ key: string }>(
      await m.query(
        `UPDATE streams.message m SET status = t.status, outgoing_status = coalesce(t.outgoing, m.outgoing_status), error = t.error,
                sent_at = coalesce(t.sent_at, m.sent_at), delivered_at = coalesce(t.delivered_at, m.delivered_at), updated_at = t.occurred_at
           FROM unnest($1::uuid[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::timestamptz[], $8::timestamptz[], $9::int[])
             AS t(uuid, account_id, status, outgoing, error, sent_at, delivered_at, occurred_at, rank)
          WHERE m.uuid = ANY($1::uuid[]) AND m.uuid = t.uuid AND m.account_id = t.account_id
            AND (CASE m.status ${Object.entries(STATUS_RANK).map(([st, r]) => `WHEN '${st}' THEN ${r}`).join(' ')} ELSE 0 END) < t.rank
          RETURNING m.account_id::text || ':' || m.uuid::text AS key`,
        [
          list.map((d) => d.messageUuid),
          list.map((d) => d.accountId),
          list.map((d) => d.status),
          list.map((d) => d.outgoingStatus),
          list.map((d) => d.error),
          list.map((d) => d.sentAt),
          list.map((d) => d.deliveredAt),
          list.map((d) => d.occurredAt),
          list.map((d) => d.rank),
        ],
      ),
    );
    return () => {
      for (const r of rows) {
        const d = best.get(r.key);
        if (d) this.activity.touch(d.accountId, d.streamId);
      }
    };
  }

  async onAccounts(e: EventEnvelope): Promise<void> {
    const customer = parse(CustomerCreatedV1, e) ?? parse(CustomerUpdatedV1, e);
    if (customer) {
      await this.once(ACCOUNTS_GROUP, e, (m) =>
        m.query(
          `INSERT INTO streams.customer (account_id, name, status, active, currency, tps, daily_limit, custom_settings, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now())
           ON CONFLICT (account_id) DO UPDATE SET name = EXCLUDED.name, status = EXCLUDED.status, active = EXCLUDED.active,
             currency = EXCLUDED.currency, tps = EXCLUDED.tps, daily_limit = EXCLUDED.daily_limit,
             custom_settings = EXCLUDED.custom_settings, updated_at = now()`,
          [customer.accountId, customer.name, customer.status, customer.active, customer.currency, customer.tps, customer.dailyLimit, JSON.stringify(customer.customSettings)],
        ),
      );
      this.lookups.forgetCustomer(customer.accountId);
      return;
    }
    const credit = parse(BalanceAdjustedV1, e);
    if (credit) {
      await this.once(ACCOUNTS_GROUP, e, (m) => this.credit(m, credit.accountId, credit.amountMicros));
      return;
    }
    const price = parse(PriceChangedV1, e);
    if (price) {
      await this.once(ACCOUNTS_GROUP, e, (m) =>
        m.query(
          `INSERT INTO streams.price (account_id, iso2, price_micros, currency, updated_at) VALUES ($1, $2, $3, $4, now())
           ON CONFLICT ((coalesce(account_id, 0)), iso2) DO UPDATE SET price_micros = EXCLUDED.price_micros, currency = EXCLUDED.currency, updated_at = now()`,
          [price.accountId, price.iso2.toUpperCase(), price.pricePerSegmentMicros, price.currency],
        ),
      );
    }
  }

  async onDispatch(e: EventEnvelope): Promise<void> {
    if (e.type === MessagesReconciledV1.type) return this.undispatched.onReconciled(e);
    const refund = parse(MessageRefundDueV1, e);
    if (refund) {
      let refunded = false;
      await this.once(DISPATCH_GROUP, e, async (m) => {
        // One refund per message whatever the number of refund events, and never more than was charged.
        const rows = returned<{ amount: string; currency: string }>(await m.query(
          `UPDATE streams.message SET refunded_micros = least(price_micros, $3), updated_at = now()
            WHERE uuid = $1 AND account_id = $2 AND refunded_micros = 0 AND price_micros > 0
            RETURNING refunded_micros::text AS amount, currency`,
          [refund.messageUuid, refund.accountId, refund.amountMicros],
        ));
        if (!rows.length) return;
        const amount = Number(rows[0].amount);
        const balance = await this.credit(m, refund.accountId, amount);
        const event = this.uow.envelope(
          MessageRefundedV1,
          { messageUuid: refund.messageUuid, accountId: refund.accountId, amountMicros: amount, currency: rows[0].currency, balanceAfterMicros: balance, reason: refund.reason },
          refund.accountId,
        );
        await Outbox.add(m, STREAMS_SCHEMA, [event]);
        refunded = true;
      });
      if (refunded) this.relay.kick();
      return;
    }
    const requested = parse(TelegramCodeRequestedV1, e);
    if (requested) return this.onTelegramAuth(e, requested.streamId, requested.accountId, { kind: 'code_requested', ok: requested.error === null, error: requested.error });
    const completed = parse(TelegramAuthCompletedV1, e);
    if (completed) return this.onTelegramAuth(e, completed.streamId, completed.accountId, { kind: 'completed', ok: completed.ok, error: completed.error });
  }

  /** Telegram private login (docs/decisions/0013-dispatch.md, Integration): dispatch's reports land on the stream. */
  private async onTelegramAuth(e: EventEnvelope, streamId: string, accountId: string, report: Parameters<StreamService['applyTelegramAuth']>[3]): Promise<void> {
    const out: { row: StreamEntity | null } = { row: null };
    await this.once(DISPATCH_GROUP, e, async (m) => {
      out.row = await this.streams.applyTelegramAuth(m, streamId, accountId, report);
      if (out.row) await Outbox.add(m, STREAMS_SCHEMA, [this.uow.envelope(StreamUpdatedV1, this.streams.snapshot(out.row), accountId)]);
    });
    const row = out.row;
    if (!row) return;
    this.relay.kick();
    this.lookups.forgetStream(row.id);
    await this.activity.streamChanged(accountId, 'stream.updated', { streamId: Number(row.id), status: row.status });
  }

  /** Money in (or out, for a super admin's correction) goes to slot 0; the send path spreads it when it needs to. */
  private async credit(m: EntityManager, accountId: string, amountMicros: number): Promise<number> {
    await m.query(
      `INSERT INTO streams.balance_slot (account_id, slot, balance_micros) VALUES ($1, 0, $2)
       ON CONFLICT (account_id, slot) DO UPDATE SET balance_micros = streams.balance_slot.balance_micros + EXCLUDED.balance_micros`,
      [accountId, amountMicros],
    );
    const [{ b }] = await m.query(`SELECT coalesce(sum(balance_micros), 0)::text AS b FROM streams.balance_slot WHERE account_id = $1`, [accountId]);
    return Number(b);
  }

  private async once(group: string, e: EventEnvelope, effect: (m: EntityManager) => Promise<unknown>): Promise<void> {
    try {
      await IdempotentConsumer.handleOnce(this.ds, STREAMS_SCHEMA, group, e, effect);
    } catch (err) {
      this.log.warn(`${group}: ${e.type} ${e.id} failed: ${(err as Error).message}`);
      throw err;
    }
  }
}
