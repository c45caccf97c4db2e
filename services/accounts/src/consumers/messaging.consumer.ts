import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import {
  ACCEPTED_REPUBLISH_SOURCE,
  acceptedItemsOf,
  chargeItemsOf,
  isAcceptBatch,
  isChargeBatch,
  isContractUuid,
  MessageAcceptedV1,
  MessagesAcceptedV1,
  MessageChargedV1,
  MessagesChargedV1,
  MessageRefundDueV1,
  parseEventData,
  Topics,
  type EventData,
  type EventDefinition,
  type EventEnvelope,
} from '@switchboard/contracts';
import { BatchedIdempotentConsumer, EventBus, type BatchItem, PROCESS_ROLES, type ProcessRoles } from '@switchboard/platform';
import { ACCOUNTS_CONNECTION, ACCOUNTS_SCHEMA } from '../accounts.options';
import { AccountsUnitOfWork, type LiveUpdate } from '../services/accounts-events.service';
import { BalanceService } from '../services/balance.service';
import { UsageService, type UsageCount } from '../services/usage.service';

/**
 * Consumer groups of the accounts service: frozen, renaming one replays the topic to the new name. `messaging` books
 * the ledger and the daily usage from one fetch of each record (docs/decisions/0124); `ledger` and `usage` are the two
 * groups it replaced: it starts where the slower of them left each partition, and `usage` stays the name its
 * `processed_events` claims are kept under, so what the old group counted is not counted again.
 */
export const ACCOUNTS_GROUPS = { messaging: 'accounts.messaging', ledger: 'accounts.balance-ledger', usage: 'accounts.daily-usage' } as const;

/**
 * Each group's chunk and batch: a partition's fetched events of the group's types, up to this many, are one call and
 * one transaction and one offset commit (docs/decisions/0107). A campaign's charges are all of one account, so all on
 * one partition, one chunk at a time: with chunks of 256 handed over one event at a time, a transaction, an offset
 * commit and their round trips per 256 charges set the ledger's pace on a loaded machine, more than its work.
 */
const BATCH = 2000;

/** How often the accepted batches' usage claims older than their retention are deleted (as the relay's prune). */
const USAGE_CLAIMS_PRUNE_MS = 10 * 60_000;

type LedgerItem = { charge: EventData<typeof MessageChargedV1> } | { refund: EventData<typeof MessageRefundDueV1> };
type Accepted = EventData<typeof MessageAcceptedV1>;

/** A usage event's data as the daily consumer queues it: `UsageCount` without its id (the queued event's). */
type Usage = Omit<UsageCount, 'id'>;

/**
 * Validated data of an event of the given definition, or null for events of other types on the same topic. `fast`, when
 * given, is a check of the schema written out by hand for the events of the ledger's hot path: it returns what the
 * schema's parse would (the known keys only) for data it is sure of, and undefined for anything else, which then goes
 * through the schema itself (and its error). Its answers are tested against the schema's (docs/decisions/0115).
 */
function dataOf<T extends { accountId: string }>(def: EventDefinition<T>, e: EventEnvelope, fast?: (data: unknown) => T | undefined): T | null {
  if (e.type !== def.type) return null;
  // A version this code does not know is not guessed at: it fails and goes to the dead-letter topic.
  if (e.version !== def.version) throw new Error(`${e.type} v${e.version} is not handled (expects v${def.version})`);
  const data = fast?.(e.data) ?? parseEventData(def, e.data);
  // tenancy: an event moves only the account it was published for; one naming another fails alone (dead letter)
  if (data.accountId !== e.accountId) throw new Error(`${e.type} ${e.id} names account ${data.accountId} under envelope account ${String(e.accountId)}`);
  return data;
}

// the contracts' decimal `id` (uuids: isContractUuid, as zod 3 checks `z.string().uuid()`)
const DECIMAL_ID = /^\d+$/;

type Fields = Record<string, unknown>;
const isRecord = (d: unknown): d is Fields => typeof d === 'object' && d !== null && !Array.isArray(d);
const isUuid = isContractUuid;
const isId = (v: unknown): v is string => typeof v === 'string' && DECIMAL_ID.test(v);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const isCurrency = (v: unknown): v is string => typeof v === 'string' && v.length === 3;

/**
 * `MessageChargedV1.schema.parse` for data that passes (the profile of a Kafka chunk put zod's generic object walk at
 * about a tenth of the ledger's own CPU a charge); undefined sends the data to the schema.
 */
export function fastCharge(d: unknown): EventData<typeof MessageChargedV1> | undefined {
  if (!isRecord(d)) return undefined;
  const { messageUuid, accountId, amountMicros, currency, balanceAfterMicros } = d;
  if (!isUuid(messageUuid) || !isId(accountId) || !isInt(amountMicros) || !isCurrency(currency) || !isInt(balanceAfterMicros)) return undefined;
  return { messageUuid, accountId, amountMicros, currency, balanceAfterMicros };
}

/** `MessageRefundDueV1.schema.parse` for data that passes, as `fastCharge`. */
export function fastRefund(d: unknown): EventData<typeof MessageRefundDueV1> | undefined {
  if (!isRecord(d)) return undefined;
  const { messageUuid, accountId, amountMicros, currency, reason } = d;
  if (!isUuid(messageUuid) || !isId(accountId) || !isInt(amountMicros) || amountMicros < 0 || !isCurrency(currency) || typeof reason !== 'string') return undefined;
  return { messageUuid, accountId, amountMicros, currency, reason };
}

/**
 * Follows the messaging pipeline: charges (streams) and refunds (dispatch) move the balance through the ledger;
 * accepted messages count towards the day's usage. A usage count commits with its `processed_events` record (one a
 * per-message event, one an accepted batch: docs/decisions/0199), so a redelivered event changes nothing, and the
 * undispatched sweeper's re-publishes (ACCEPTED_REPUBLISH_SOURCE) count only a message no claimed batch holds; the ledger needs no such record, its unique source key takes each message's
 * charge and refund once however often their events come.
 * Events are taken in chunks and written in batches (one transaction, one balance update per account), so the
 * ledger keeps up with the stream API's rate.
 */
@Injectable()
export class MessagingConsumer implements OnModuleInit, OnModuleDestroy {
  private readonly log = new Logger('AccountsMessaging');
  private pruneTimer?: NodeJS.Timeout;
  private readonly ledger: BatchedIdempotentConsumer<LedgerItem>;
  private readonly daily: BatchedIdempotentConsumer<Usage>;

  constructor(
    @InjectDataSource(ACCOUNTS_CONNECTION) private readonly ds: DataSource,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly balances: BalanceService,
    private readonly usage: UsageService,
    private readonly uow: AccountsUnitOfWork,
  ) {
    this.ledger = new BatchedIdempotentConsumer<LedgerItem>({
      dataSource: ds,
      schema: ACCOUNTS_SCHEMA,
      consumer: ACCOUNTS_GROUPS.ledger,
      maxBatch: BATCH,
      // No processed_events record per charge or refund: the ledger's unique source key (account, kind, message)
      // already takes each once, so a redelivery inserts nothing and moves no balance (docs/decisions/0074).
      claim: () => false,
      apply: async (m, items) => {
        const live: LiveUpdate[] = [];
        await this.balances.recordMany(m, (u) => live.push(u), items.map((i) => i.data));
        return () => void this.uow.publish(live);
      },
    });
    this.daily = new BatchedIdempotentConsumer({
      dataSource: ds,
      schema: ACCOUNTS_SCHEMA,
      consumer: ACCOUNTS_GROUPS.usage,
      maxBatch: BATCH,
      // A per-message event is claimed under its id in processed_events (as before); an accepted batch is claimed by
      // the usage service, one row a batch instead of one a message (docs/decisions/0199), so it comes through unclaimed.
      claim: (u) => u.ids === null,
      apply: async (m, items) => {
        await this.usage.countOnce(
          m,
          ACCOUNTS_GROUPS.usage,
          items.map((i) => ({ id: i.event.id, ...i.data })),
        );
      },
    });
  }

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    // the accepted batches' usage claims are kept as long as the per-message ones (the outbox relay's retention of
    // processed_events), and pruned as often
    this.pruneTimer = setInterval(() => {
      this.usage.pruneBatchClaims().catch((e: unknown) => this.log.warn(`pruning the usage claims of accepted batches failed: ${(e as Error).message}`));
    }, USAGE_CLAIMS_PRUNE_MS);
    this.pruneTimer.unref();
    // One group for the ledger and the daily usage: on Kafka every record of a group's topics is fetched, gunzipped and
    // decoded, whatever its type, so two groups on streams' topic paid that twice (docs/decisions/0124). `types`: the
    // topics also carry every message's other events (status, EDR), which are acknowledged without being parsed.
    await this.bus.subscribe({
      group: ACCOUNTS_GROUPS.messaging,
      topics: [Topics.Streams, Topics.Dispatch],
      // streams' charges come one event a message or one a send batch and account (docs/decisions/0178): both taken
      // and so do its accepted messages (0181)
      types: [MessageChargedV1.type, MessagesChargedV1.type, MessageRefundDueV1.type, MessageAcceptedV1.type, MessagesAcceptedV1.type],
      concurrency: BATCH,
      handler: (e) => this.onEvent(e),
      // a delivered chunk in one call: no promise, retry loop and metrics per event
      batchHandler: (events) => this.onEvents(events),
      // a running deployment's two former groups: start where the slower one left each partition (a replay of what
      // the faster one handled since, which the source key and the usage claims take once)
      formerGroups: { [Topics.Streams]: [ACCOUNTS_GROUPS.ledger, ACCOUNTS_GROUPS.usage], [Topics.Dispatch]: [ACCOUNTS_GROUPS.ledger] },
    });
  }

  onModuleDestroy(): void {
    clearInterval(this.pruneTimer);
  }

  /** One event (a chunk that failed for another reason than an outage goes event by event: a bad one fails alone). */
  async onEvent(e: EventEnvelope): Promise<void> {
    if (chargeBatch(e)) return this.onChargeBatch(e);
    if (acceptBatch(e)) return this.onAcceptBatch(e);
    const accepted = dataOf(MessageAcceptedV1, e);
    if (accepted) return this.daily.handle(e, { accepted: [accepted], ids: null, republished: e.source === ACCEPTED_REPUBLISH_SOURCE });
    const charge = dataOf(MessageChargedV1, e, fastCharge);
    if (charge) return this.ledger.handle(e, { charge });
    const refund = dataOf(MessageRefundDueV1, e, fastRefund);
    if (refund) return this.ledger.handle(e, { refund });
  }

  /**
   * A chunk at once: its charges and refunds in one ledger transaction, its accepted messages in one usage transaction
   * (each side idempotent by itself: the ledger's source key, usage's claims), run side by side. The chunk is done when
   * both committed; when either failed it throws after both settled, and the bus then retries the whole chunk (an
   * outage) or hands it event by event (anything else: the side that committed takes its events again as redeliveries).
   */
  async onEvents(events: EventEnvelope[]): Promise<void> {
    const ledger: Array<BatchItem<LedgerItem>> = [];
    const usage: Array<BatchItem<Usage>> = [];
    for (const e of events) {
      if (e.type === MessageAcceptedV1.type) {
        const accepted = dataOf(MessageAcceptedV1, e);
        if (accepted) usage.push({ event: e, data: { accepted: [accepted], ids: null, republished: e.source === ACCEPTED_REPUBLISH_SOURCE } });
        continue;
      }
      if (acceptBatch(e)) {
        // a poison item fails the chunk, which the bus then hands event by event (onEvent: the batch's others counted)
        const items = acceptedItemsOf(e);
        const accepted = new Array<Accepted>(items.length);
        const ids = new Array<string>(items.length);
        for (let i = 0; i < items.length; i++) {
          accepted[i] = itemAccepted(e, items[i]);
          ids[i] = items[i].id;
        }
        usage.push({ event: e, data: { accepted, ids, republished: false } });
        continue;
      }
      if (chargeBatch(e)) {
        // a poison item fails the chunk, which the bus then hands event by event (onEvent: the batch's others booked)
        for (const item of chargeItemsOf(e)) ledger.push({ event: item, data: { charge: itemCharge(e, item) } });
        continue;
      }
      const charge = dataOf(MessageChargedV1, e, fastCharge);
      if (charge) {
        ledger.push({ event: e, data: { charge } });
        continue;
      }
      const refund = dataOf(MessageRefundDueV1, e, fastRefund);
      if (refund) ledger.push({ event: e, data: { refund } });
    }
    const [booked, counted] = await Promise.allSettled([this.ledger.handleMany(ledger), this.daily.handleMany(usage)]);
    if (booked.status === 'rejected') throw booked.reason;
    if (counted.status === 'rejected') throw counted.reason;
  }

  /**
   * A `streams.messages.charged` batch alone (a dead letter replayed, or a chunk that failed for another reason than an
   * outage): every item whose data passes is booked (each once: the ledger's source key), then the batch fails naming
   * the items that did not pass, for its retries and dead letter. A poison item never drops its batch's others, and is
   * never dropped silently either. A batch of the wrong shape fails whole, as one bad event.
   */
  private async onChargeBatch(e: EventEnvelope): Promise<void> {
    const good: Array<BatchItem<LedgerItem>> = [];
    const bad: string[] = [];
    for (const item of chargeItemsOf(e)) {
      try {
        good.push({ event: item, data: { charge: itemCharge(e, item) } });
      } catch (error) {
        bad.push(`${item.id}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    await this.ledger.handleMany(good);
    if (bad.length) throw new Error(`${e.type} ${e.id}: ${bad.length} of its items not booked: ${bad.join('; ')}`);
  }

  /** A `streams.messages.accepted` batch alone: its good items counted (under the batch's claim), then it fails naming the bad ones (acceptBatchParts). */
  private async onAcceptBatch(e: EventEnvelope): Promise<void> {
    const { good, bad } = acceptBatchParts(e);
    if (good.accepted.length) await this.daily.handle(e, good);
    if (bad.length) throw new Error(`${e.type} ${e.id}: ${bad.length} of its items not counted: ${bad.join('; ')}`);
  }
}

/**
 * A `streams.messages.accepted` batch alone (docs/decisions/0181), as `onChargeBatch`: every item whose data passes is
 * counted (once: the batch's usage claim, docs/decisions/0199; its items always the same, so its good items too), then
 * the batch fails naming the items that did not.
 */
function acceptBatchParts(e: EventEnvelope): { good: Usage; bad: string[] } {
  const good: Usage = { accepted: [], ids: [], republished: false };
  const bad: string[] = [];
  for (const item of acceptedItemsOf(e)) {
    try {
      good.accepted.push(itemAccepted(e, item));
      good.ids!.push(item.id);
    } catch (error) {
      bad.push(`${item.id}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { good, bad };
}

/** Whether an event is an accepted batch; one of a version this code does not know fails (dead letter). */
function acceptBatch(e: EventEnvelope): boolean {
  if (e.type !== MessagesAcceptedV1.type) return false;
  if (!isAcceptBatch(e)) throw new Error(`${e.type} v${e.version} is not handled (expects v${MessagesAcceptedV1.version})`);
  return true;
}

/** An accepted batch's item's data, checked as a per-message accepted event's; one naming another account than its batch's fails alone. */
function itemAccepted(e: EventEnvelope, item: { id: string; data: unknown }): EventData<typeof MessageAcceptedV1> {
  const d = parseEventData(MessageAcceptedV1, item.data);
  if (d.accountId !== e.accountId) throw new Error(`${MessageAcceptedV1.type} ${item.id} names account ${d.accountId} under batch ${e.id} of account ${String(e.accountId)}`);
  return d;
}

/** Whether an event is a charge batch; one of a version this code does not know fails (dead letter), as `dataOf`'s. */
function chargeBatch(e: EventEnvelope): boolean {
  if (e.type !== MessagesChargedV1.type) return false;
  if (!isChargeBatch(e)) throw new Error(`${e.type} v${e.version} is not handled (expects v${MessagesChargedV1.version})`);
  return true;
}

/**
 * A charge batch's item's data, checked as a per-message charge's (the hand check, else the schema). Tenancy: the item
 * moves only its own account, and one naming another account than its batch's envelope fails alone.
 */
function itemCharge(e: EventEnvelope, item: { id: string; data: unknown }): EventData<typeof MessageChargedV1> {
  const d = fastCharge(item.data) ?? MessageChargedV1.schema.parse(item.data);
  if (d.accountId !== e.accountId) throw new Error(`${MessageChargedV1.type} ${item.id} names account ${d.accountId} under batch ${e.id} of account ${String(e.accountId)}`);
  return d;
}
