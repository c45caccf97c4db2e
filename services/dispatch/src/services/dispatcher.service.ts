import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { acceptedItemsOf, acceptedOf, MessageAcceptedV1, MessagesAcceptedV1, MessageStatus, safeParseEventData, type EventData, type EventEnvelope, type MessageStatusValue } from '@switchboard/contracts';
import { counter, currentTraceparent, EventBus, PROCESS_ROLES, tracingEnabled, withConsumerSpan, type OutgoingEvent, type ProcessRoles } from '@switchboard/platform';
import type { OutboundMessage, ProviderReceipt, SendOutcome } from '../adapters/provider-adapter';
import { LimitBook, SendWindow, type LimitKey } from '../domain/token-bucket';
import { accountShareKey, LocalShares, streamShareKey, type ShareKey } from '../domain/rate-shares';
import { RateShareRepository } from '../repositories/rate-share.repository';
import { DISPATCH_CONNECTION, DISPATCH_OPTIONS, SENDER_GROUP, type ResolvedDispatchOptions } from '../dispatch.options';
import {
  destinationKey,
  MessageRepository,
  sameDestination,
  type AcceptedRow,
  type ClaimedRow,
  type EventRow,
  type FinalUpdate,
  type PendingRow,
  type RefRow,
  type SentResult,
} from '../repositories/message.repository';
import { ReadModelRepository } from '../repositories/read-model.repository';
import { AdapterRegistry } from './adapter-registry.service';
import { addToOutbox, DispatchOutboxRelay, lifecycleEvents, MessageRealtime, MessageTraces } from './events.service';
import { InboundService } from './inbound.service';
import { RoutingService } from './routing.service';
import { overdueLimit } from './routing-admin.service';
import { OptOutBook } from './opt-out.book';
import { CampaignHolds } from './campaign-holds.service';
import { StreamChannelCache } from './stream-channel.cache';
import type { SmsEncodingName } from '../sms';

interface Waiter<T = void> {
  resolve: (v: T) => void;
  reject: (e: unknown) => void;
}

interface ReceiptItem {
  receipt: ProviderReceipt;
  waiter?: Waiter;
}

interface FinalItem {
  id: string;
  attemptId: string;
  status: MessageStatusValue;
  error: string | null;
  vendorId: string | null;
  refund: string | null;
}

interface DeferItem {
  id: string;
  attemptId: string;
  afterMs: number;
  error: string | null;
  countAttempt: boolean;
  flag?: boolean;
  countUnknown?: boolean;
  /** Given back because a rate held it back: this replica's own backlog, claimed back by it first. */
  owner?: string;
  hold?: boolean;
  /** performance.now() when it was given back: `afterMs` counts from then, not from when the write batch commits. */
  at: number;
}

/** A message is booked on its limits (and held in memory until its turn) at most this long before its turn. */
const BOOK_AHEAD_MS = 1000;
/**
 * With shared rates (0047), a message whose turn is further off, up to this long, is parked in memory unbooked rather
 * than given back to the queue: the replica's next seconds of its share do not wait on the database.
 */
const PARK_AHEAD_MS = 3000;
/** The longest lease of a rate share, however slow renewals are (a killed replica's share is free after it). */
const MAX_LEASE_MS = 8000;
/** Ownership (0094): rows an owner releases still count this long (its last second of sends is in a carrier's window). */
const OWNER_HOLD_MS = 1000;
/** A park is drained when its head's turn is this far inside the booking horizon. */
const DRAIN_LEAD_MS = 200;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Held messages are flushed once this many (or all of them) can go out directly: fewer would make tiny commits. */
const MIN_DIRECT_BATCH = 256;
/** Accepted messages written per group commit, at most. */
const MAX_INGEST_BATCH = 2000;
/**
 * How long a receipt whose provider id is not known yet is kept for it: its submit response is on its way (ms), or
 * another instance is recording it (seconds). Older, it is about an earlier use of an id the carrier reused.
 */
const PENDING_RECEIPT_WINDOW_MS = 10 * 60_000;

function pendingToReceipt(p: PendingRow): ProviderReceipt {
  return {
    vendorId: String(p.vendor_id),
    providerMessageId: p.provider_message_id,
    outcome: p.outcome as ProviderReceipt['outcome'],
    error: p.error,
    at: new Date(p.received_at),
    destination: p.destination,
  };
}

/** Prometheus series of dispatch (docs/decisions/0039-observability.md); vendor ids are a small, bounded set. */
export const DispatchMetrics = {
  sends: () => counter('switchboard_dispatch_sends_total', 'Messages handed to a provider, by vendor and outcome (accepted, rejected, retry, unknown)', ['vendor', 'outcome']),
  receipts: () => counter('switchboard_dispatch_receipts_total', 'Status reports heard from providers, by vendor and outcome', ['vendor', 'outcome']),
};

/** Forward-only receipt outcome of a part: read counts as delivered for the part. */
function partOutcome(o: ProviderReceipt['outcome']): 'delivered' | 'undelivered' | null {
  if (o === 'delivered' || o === 'read') return 'delivered';
  if (o === 'undelivered') return 'undelivered';
  return null;
}

/**
 * The delivery engine of one process.
 *
 * 1. Ingest: `streams.message.accepted` events are written in group commits (one multi-row INSERT per batch,
 *    idempotent on event id and message uuid); the handler returns once its batch committed.
 * 2. Claim: due messages are marked `submitting` with a fresh attempt id BEFORE anything is written to a provider.
 * 3. Route and limit: country routing picks the vendor; account and stream token buckets reserve a slot; the
 *    adapter paces its own connections.
 * 4. Outcomes, receipts and give-backs are written by one serial lane in batched transactions, fenced by the
 *    attempt id, with their events in the same transaction (outbox).
 * 5. Crash recovery: a message still `submitting` whose instance stopped heartbeating is queued again once,
 *    flagged possible_duplicate; a submit that got no answer is resent once, flagged, after a pause.
 */
@Injectable()
export class Dispatcher implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger(Dispatcher.name);
  readonly instanceId = randomUUID();
  private running = false;
  private readonly limits: LimitBook;
  private accountTps = new Map<string, number>();
  /** This replica's shares of the account and stream rates (docs/decisions/0047); unused when rateShareMs is 0. */
  private readonly shares: LocalShares;
  /** Claimed messages waiting for this replica's first share of their limits (a renewal away). */
  private shareWaiting: ClaimedRow[] = [];
  /** Claimed messages held back by the limits beyond the booking horizon, in memory in order, per account|stream. */
  private readonly parked = new Map<string, { rows: ClaimedRow[]; timer: NodeJS.Timeout | null }>();
  private parkedCount = 0;
  private renewing: Promise<void> | null = null;
  private lastRenewAt = -Infinity;
  private renewTimer: NodeJS.Timeout | null = null;
  /** Lets the messages waiting for a share go when a share granted for later starts. */
  private laterTimer: NodeJS.Timeout | null = null;
  private renewAgain = false;
  private renewFailedAt = -Infinity;
  /** How long share renewals take lately (ms): the lease is a multiple of it. */
  private renewLag = 0;
  /**
   * Crash recovery's view of this replica (`recoverAbandoned`): its claims may be handed to another replica once its
   * heartbeat is `staleAfterMs` old. `beatAt`: performance.now() when the last heartbeat that succeeded was started (the
   * database's `heartbeat_at` is no earlier); `lapses`: how often the heartbeats left a gap in which that may have
   * happened. A claimed message is sent only while neither says so (`stillMine`).
   */
  private beatAt = -Infinity;
  private lapses = 0;
  private beating = false;
  /** A connection of the heartbeat's own: behind the pool's claims and write batches it lapsed under load. */
  private beatRunner: QueryRunner | null = null;
  /** Messages waiting (at most a second) for their turn under the limits, nothing written to a provider yet. */
  private readonly held = new Map<NodeJS.Timeout, { id: string; attemptId: string }>();
  /** Ownership mode: each owned limit's sends over the last second, checked at the moment of the send (0094). */
  private readonly sendWindows = new Map<string, SendWindow>();
  /** Ownership mode: the same windows over the writes at the wire, asked by the SMPP adapter (wireGate). */
  private readonly wireWindows = new Map<string, SendWindow>();
  /** Per account and stream: when the last message given back by its limits comes back (see deferUntil). */
  private readonly deferHorizon = new Map<string, number>();

  private ingestQueue: Array<{ row: AcceptedRow; waiter: Waiter; at: number }> = [];
  private ingestTimer: NodeJS.Timeout | null = null;
  private ingestFlushes = 0;
  private ingestScheduled = false;
  /** Direct sends allotted in ingest batches not committed yet. */
  private directReserved = 0;
  /** Due messages may wait in the queue: new ones then queue behind them instead of going direct. */
  private queuedBacklog = true;

  private results: SentResult[] = [];
  private immediateFinals: ProviderReceipt[] = [];
  private receipts: ReceiptItem[] = [];
  private finals: FinalItem[] = [];
  private defers: DeferItem[] = [];
  private laneActive = false;
  private laneWaiters: Array<() => void> = [];

  private inFlight = 0;
  private wake: (() => void) | null = null;
  private woken = false;
  private pumpLoop: Promise<void> | null = null;
  private timers: NodeJS.Timeout[] = [];
  /** Counters for benchmarks and health. */
  readonly stats = {
    ingested: 0,
    claimed: 0,
    sent: 0,
    finals: 0,
    receipts: 0,
    /** Receipts for a part already final (duplicates, late contradictions): they changed nothing. */
    receiptsForFinal: 0,
    deferred: 0,
    /** Messages handed to the replica that owns their account's pacing (ownership mode, docs/decisions/0094). */
    forwarded: 0,
    /** Times this replica gave its ownership leases up because its heartbeat lapsed (0094). */
    leasesGivenUp: 0,
    /** Claimed messages not sent because this replica's heartbeat lapsed after their claim (see stillMine). */
    lapsed: 0,
    recovered: 0,
    finalized: 0,
    ingestFlushes: 0,
    ingestMs: 0,
    laneFlushes: 0,
    laneMs: 0,
    claims: 0,
    claimMs: 0,
  };

  constructor(
    @InjectDataSource(DISPATCH_CONNECTION) private readonly ds: DataSource,
    @Inject(DISPATCH_OPTIONS) private readonly options: ResolvedDispatchOptions,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    @Inject(EventBus) private readonly bus: EventBus,
    private readonly repo: MessageRepository,
    private readonly readModels: ReadModelRepository,
    private readonly routing: RoutingService,
    private readonly adapters: AdapterRegistry,
    private readonly relay: DispatchOutboxRelay,
    private readonly realtime: MessageRealtime,
    private readonly streams: StreamChannelCache,
    private readonly inbound: InboundService,
    private readonly optOuts: OptOutBook,
    private readonly rateShares: RateShareRepository,
    private readonly holds: CampaignHolds,
  ) {
    // a backlog that ran out: renew at once, so the share goes where the backlog is (see LocalShares)
    this.shares = new LocalShares(undefined, () => this.renewSoon());
    this.holds.onRelease(() => this.wakeUp());
    this.limits = new LimitBook(
      (acc) => this.localRate(accountShareKey(acc), this.accountRate(acc)),
      (stream) => this.localRate(streamShareKey(stream), this.streamRate(stream)),
    );
  }

  private get sharing(): boolean {
    return this.options.dispatcher.rateShareMs > 0;
  }

  /**
   * Ownership (docs/decisions/0094): one replica at a time paces all of an account's limits (its TPS and its streams')
   * at the whole rates, leased in `dispatch.rate_share` under the account's key; the others hand its messages to it
   * through the queue.
   */
  private get owning(): boolean {
    return this.sharing && this.options.dispatcher.rateOwnership;
  }

  /** The account's configured TPS (0: none). */
  private accountRate(accountId: string): number {
    return this.accountTps.get(accountId) ?? 0;
  }

  /** The stream's configured TPS (0: none of its own). */
  private streamRate(streamId: string): number {
    return this.streams.tps(streamId) || this.options.defaultStreamTps;
  }

  private configuredRate(key: ShareKey): number {
    const id = key.slice(2);
    // ownership of an account is leased whatever its rates: its streams may have theirs (the lease's own "rate" is 1)
    if (this.owning) return key.startsWith('a:') ? this.accountRate(id) || 1 : 0;
    return key.startsWith('a:') ? this.accountRate(id) : this.streamRate(id);
  }

  /** The rate this process paces a limit at: the whole rate alone, else its share (known here: see dispatchOne). */
  private localRate(key: ShareKey, rate: number): number {
    if (!this.sharing || this.owning || !(rate > 0)) return rate;
    const st = this.shares.state(key, rate);
    return st.kind === 'share' ? st.rate : rate;
  }

  async onModuleInit(): Promise<void> {
    if (this.roles.consumers) {
      // Each accepted event is a different message and the insert is idempotent per message: order within a chunk
      // does not matter, and many events in flight make the group commits large.
      await this.bus.subscribe({
        group: SENDER_GROUP,
        topics: [MessageAcceptedV1.topic],
        types: [MessageAcceptedV1.type, MessagesAcceptedV1.type],
        handler: (e) => this.onEvent(e),
        maxRetries: 5,
        concurrency: this.options.ingestConcurrency,
      });
    }
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.roles.schedulers) return;
    const t = this.options.dispatcher;
    await this.routing.start();
    await this.loadAccountLimits();
    await this.streams.load();
    this.adapters.start({ receipt: (r) => this.receipt(r), inbound: (m) => this.inbound.receive(m) });
    this.routing.onChange(() => void this.adapters.sync(this.routing.vendorList()));
    await this.adapters.sync(this.routing.vendorList());
    await this.beat();
    this.running = true;
    await this.recover();
    this.every(t.heartbeatMs, () => this.beat());
    this.every(Math.max(500, Math.floor(t.staleAfterMs / 2)), () => this.recover());
    this.every(2000, () => this.sweepPending());
    this.every(Math.min(60_000, Math.max(500, Math.floor(t.receiptTimeoutMs / 4))), () => this.expire());
    if (t.queryIntervalMs > 0) this.every(t.queryIntervalMs, () => this.queryOverdue());
    this.every(10_000, () => this.loadAccountLimits());
    if (this.sharing) this.every(t.rateShareMs, () => this.renewShares());
    this.pumpLoop = this.pump();
  }

  async onModuleDestroy(): Promise<void> {
    this.running = false;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    if (this.renewTimer) clearTimeout(this.renewTimer);
    this.renewTimer = null;
    if (this.laterTimer) clearTimeout(this.laterTimer);
    this.laterTimer = null;
    if (this.ingestTimer) clearTimeout(this.ingestTimer);
    this.ingestTimer = null;
    await this.flushHeldIngest();
    this.wakeUp();
    await this.pumpLoop;
    // Messages waiting for their turn were not sent: back to the queue, unflagged, before the last write batch.
    for (const [timer, m] of this.held) {
      clearTimeout(timer);
      this.inFlight--;
      this.giveBack({ id: m.id, attemptId: m.attemptId, afterMs: 0, error: null, countAttempt: false });
    }
    this.held.clear();
    for (const p of this.parked.values()) {
      if (p.timer) clearTimeout(p.timer);
      for (const row of p.rows) {
        this.inFlight--;
        this.giveBack({ id: String(row.id), attemptId: row.attempt_id, afterMs: 0, error: null, countAttempt: false });
      }
    }
    this.parked.clear();
    this.parkedCount = 0;
    for (const row of this.shareWaiting.splice(0)) {
      this.inFlight--;
      this.giveBack({ id: String(row.id), attemptId: row.attempt_id, afterMs: 0, error: null, countAttempt: false });
    }
    await this.renewing;
    // a heartbeat still on its connection ends first (at most a few seconds: the database may be gone)
    for (let i = 0; this.beating && i < 500; i++) await sleep(10);
    await this.beatRunner?.release().catch(() => undefined);
    this.beatRunner = null;
    await this.adapters.stopAll();
    await this.drainLane();
    if (this.roles.schedulers) {
      await this.repo.releaseInstance(this.instanceId).catch(() => undefined);
      // nothing booked is left to go out: the shares are free for the other replicas at once
      // (an owner's sends of the last second still count: the next owner waits for them to leave the window, 0094)
      if (this.sharing) await this.rateShares.release(this.instanceId, this.owning ? OWNER_HOLD_MS : 0).catch(() => undefined);
    }
    this.shares.clear();
  }

  private every(ms: number, fn: () => Promise<unknown>): void {
    const t = setInterval(() => {
      if (this.running) fn().catch((e: unknown) => this.log.warn(`periodic task failed: ${String(e)}`));
    }, ms);
    t.unref();
    this.timers.push(t);
  }

  /**
   * One heartbeat at a time (a heartbeat stuck behind a lock or a full pool must not take every connection). A
   * heartbeat that got through later than the claim window after the last one started is a lapse: crash recovery may
   * have handed this replica's claims to another meanwhile, so none claimed before it is sent (`stillMine`).
   */
  private async beat(): Promise<void> {
    if (this.beating) return;
    this.beating = true;
    const startedAt = performance.now();
    try {
      const runner = (this.beatRunner ??= this.ds.createQueryRunner());
      await this.repo.heartbeat(this.instanceId, this.options.dispatcher.staleAfterMs, runner).catch(async (e: unknown) => {
        // a broken connection: a fresh one next time
        this.beatRunner = null;
        await runner.release().catch(() => undefined);
        throw e;
      });
      // a lapse: the claim window ran out before this heartbeat got through (claimEpoch said null meanwhile)
      const gap = performance.now() - this.beatAt;
      const lapsed = gap >= this.claimWindowMs();
      if (lapsed && this.beatAt > -Infinity) {
        this.lapses++;
        this.log.warn(`no heartbeat for ${Math.round(gap)} ms: messages claimed before are not sent by this replica`);
      }
      this.beatAt = startedAt;
      // claims may be made again
      if (lapsed) this.roomFreed();
    } finally {
      this.beating = false;
    }
  }

  /**
   * How long after a heartbeat started this replica still sends what it claimed: three quarters of `staleAfterMs`, the
   * last quarter for what it wrote to a provider to be recorded before crash recovery may hand the message on.
   */
  private claimWindowMs(): number {
    return (this.options.dispatcher.staleAfterMs * 3) / 4;
  }

  /** The epoch of a claim made now; null if crash recovery may take a claim made now (the heartbeat lapsed). */
  private claimEpoch(): number | null {
    return performance.now() - this.beatAt < this.claimWindowMs() ? this.lapses : null;
  }

  /**
   * Whether a claimed message is still this replica's attempt: its heartbeat has not lapsed since the claim. Checked
   * before a message is booked, when its turn comes, and by the SMPP adapter just before it writes: a message parked or
   * held here while its claim lapsed may have been sent by another replica, and is dropped here (given back, fenced by
   * its attempt id: a no-op if it was handed on).
   */
  private stillMine(row: ClaimedRow): boolean {
    return row.epoch != null && row.epoch === this.claimEpoch();
  }

  /** A message whose claim may have lapsed: not sent here; back to the queue if it is still this replica's attempt. */
  private dropLapsed(row: ClaimedRow): void {
    this.stats.lapsed++;
    this.giveBack({ id: String(row.id), attemptId: row.attempt_id, afterMs: 0, error: null, countAttempt: false });
  }

  setAccountTps(accountId: string, tps: number): void {
    this.accountTps.set(accountId, tps);
  }

  private async loadAccountLimits(): Promise<void> {
    const rows = await this.readModels.accountLimits();
    this.accountTps = new Map(rows.map((r) => [String(r.accountId), Number(r.tps)]));
  }

  // ---- 1. ingest ----------------------------------------------------------------------------------------------

  private onEvent(e: EventEnvelope): Promise<void> {
    if (e.type === MessagesAcceptedV1.type) return this.onBatch(e);
    if (e.type !== MessageAcceptedV1.type) return Promise.resolve();
    const parsed = safeParseEventData(MessageAcceptedV1, e.data);
    if (!parsed.success) {
      // A malformed event can never succeed: dropped with a log rather than retried into the dead-letter topic.
      this.log.error(`dropping malformed ${e.type} ${e.id}: ${parsed.error.message}`);
      return Promise.resolve();
    }
    const traceparent = tracingEnabled() ? (currentTraceparent() ?? null) : null;
    return this.ingest(e.id, parsed.data, traceparent);
  }

  /**
   * A send batch's accepted messages (`streams.messages.accepted`, docs/decisions/0181): each item goes into the ingest
   * queue as its per-message event would (its own event id, its own trace), and the batch is acknowledged only once
   * every item is stored or held. An item that cannot be read (its data not an accepted message, or another account
   * than its batch's) does not hold back the others: they are stored, then the batch fails naming it, for the bus's
   * retries and dead letter (a redelivered batch stores nothing twice: the insert is idempotent per message).
   */
  private async onBatch(e: EventEnvelope): Promise<void> {
    if (e.version !== MessagesAcceptedV1.version) throw new Error(`${e.type} v${e.version} is not handled (expects v${MessagesAcceptedV1.version})`);
    const items = acceptedItemsOf(e);
    // with tracing on, each item is handled in the consumer span its per-message event would have (its trace goes on
    // through dispatch as one by one)
    const ones = tracingEnabled() ? acceptedOf(e) : null;
    const bad: string[] = [];
    const stored: Array<Promise<void>> = [];
    for (let i = 0; i < items.length; i++) {
      const it = items[i];
      const parsed = safeParseEventData(MessageAcceptedV1, it.data);
      if (!parsed.success) bad.push(`${it.id}: ${parsed.error.message}`);
      else if (parsed.data.accountId !== e.accountId) bad.push(`${it.id}: account ${parsed.data.accountId} is not its batch's ${String(e.accountId)}`);
      else if (ones) stored.push(withConsumerSpan(ones[i], SENDER_GROUP, MessageAcceptedV1.topic, () => this.ingest(it.id, parsed.data, currentTraceparent() ?? null)));
      else stored.push(this.ingest(it.id, parsed.data, null));
    }
    const results = await Promise.allSettled(stored);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    if (bad.length) throw new Error(`${e.type} ${e.id}: ${bad.length} of ${items.length} items not stored (the others are): ${bad.join('; ')}`);
  }

  /** One accepted message into the ingest queue; settles when it is stored or held (its group commit's outcome). */
  private ingest(eventId: string, d: EventData<typeof MessageAcceptedV1>, traceparent: string | null): Promise<void> {
    if (traceparent) MessageTraces.remember(d.messageUuid, traceparent);
    const row: AcceptedRow = {
      eventId,
      uuid: d.messageUuid,
      accountId: d.accountId,
      streamId: d.streamId,
      streamUid: d.streamUid,
      streamType: d.streamType,
      campaignId: d.campaignId,
      channel: d.channel,
      sender: d.sender,
      destination: d.destination,
      iso2: d.iso2,
      body: d.text,
      payload: d.payload,
      encoding: d.encoding,
      segments: d.segments,
      priceMicros: d.priceMicros,
      currency: d.currency,
      notBefore: d.notBefore,
      acceptedAt: d.acceptedAt,
      traceparent,
    };
    return new Promise<void>((resolve, reject) => {
      this.ingestQueue.push({ row, waiter: { resolve, reject }, at: Date.now() });
      this.scheduleIngest();
    });
  }

  /**
   * Flushes accepted events in group commits. While the adapters are full, new messages are held (their events not
   * acknowledged, so the bus stops handing more: backpressure) until room frees, and then go out directly. While
   * older messages wait in the queue table there is no direct room (new ones go behind them); past `ingestHoldMs`,
   * or with no vendor connection up, held messages are written as queued.
   */
  private scheduleIngest(): void {
    if (this.ingestScheduled || this.ingestQueue.length === 0 || this.ingestFlushes >= 2) return;
    const waited = Date.now() - this.ingestQueue[0].at;
    const hold = this.options.dispatcher.ingestHoldMs;
    if (this.holding(waited) && this.directRoom() < Math.min(this.ingestQueue.length, MIN_DIRECT_BATCH)) {
      if (!this.ingestTimer) {
        this.ingestTimer = setTimeout(() => {
          this.ingestTimer = null;
          this.scheduleIngest();
        }, hold - waited);
      }
      return;
    }
    this.ingestScheduled = true;
    setImmediate(() => {
      this.ingestScheduled = false;
      void this.flushIngest();
    });
  }

  /** Whether new messages that waited `waited` ms may still wait for room: never when no vendor connection is up. */
  private holding(waited: number): boolean {
    return this.running && waited < this.options.dispatcher.ingestHoldMs && this.adapters.all().some((a) => a.ready());
  }

  /** How many new messages may skip the queue and go straight to the adapters. */
  private directRoom(): number {
    if (!this.running || this.queuedBacklog || this.claimEpoch() === null) return 0;
    const t = this.options.dispatcher;
    return Math.max(0, Math.min(t.maxInFlight - this.inFlight - this.directReserved, this.adapters.room() - this.directReserved));
  }

  /** On shutdown: messages held for room are written as queued, so their events can be acknowledged. */
  private async flushHeldIngest(): Promise<void> {
    const until = Date.now() + 5000;
    while ((this.ingestQueue.length || this.ingestFlushes) && Date.now() < until) {
      this.scheduleIngest();
      await sleep(10);
    }
    // Still not written (database gone): refused, so the bus delivers them again later.
    for (const b of this.ingestQueue.splice(0)) b.waiter.reject(new Error('dispatcher stopping'));
  }

  private async flushIngest(): Promise<void> {
    const now = Date.now();
    let room = this.directRoom();
    const due = (b: { row: AcceptedRow }) => !b.row.notBefore || Date.parse(b.row.notBefore) <= now;
    // While still within the hold, take only the due messages that can go out directly (and any scheduled ones
    // among them, which are queued in any case); past it, take everything.
    let n = Math.min(this.ingestQueue.length, MAX_INGEST_BATCH);
    if (this.holding(now - (this.ingestQueue[0]?.at ?? now))) {
      let direct = 0;
      let i = 0;
      for (; i < n; i++) {
        if (!due(this.ingestQueue[i])) continue;
        if (direct >= room) break;
        direct++;
      }
      n = i;
    }
    const batch = this.ingestQueue.splice(0, n);
    if (batch.length === 0) {
      this.scheduleIngest();
      return;
    }
    this.ingestFlushes++;
    const t0 = now;
    // Messages due now, while the queue holds nothing older and the adapters have room, are inserted already
    // claimed (submitting, with their attempt id) and sent after the commit: one UPDATE less per message.
    const rows = batch.map((b) => {
      const direct = room > 0 && due(b);
      if (direct) room--;
      return { ...b.row, attemptId: direct ? randomUUID() : null };
    });
    const reserved = rows.filter((r) => r.attemptId).length;
    const queued = rows.length - reserved;
    this.directReserved += reserved;
    const epoch = this.claimEpoch();
    try {
      const claimed = await this.repo.insertAccepted(this.ds, rows, this.instanceId);
      for (const row of claimed) row.epoch = epoch;
      this.stats.ingested += batch.length;
      this.stats.ingestFlushes++;
      this.stats.ingestMs += Date.now() - t0;
      for (const b of batch) b.waiter.resolve();
      this.directReserved -= reserved;
      this.stats.claimed += claimed.length;
      for (const row of claimed) this.dispatchSafely(row);
      if (queued > 0) {
        this.queuedBacklog = true;
        this.wakeUp();
      }
      this.kickLane();
    } catch (e) {
      this.directReserved -= reserved;
      for (const b of batch) b.waiter.reject(e);
    } finally {
      this.ingestFlushes--;
      this.scheduleIngest();
    }
  }

  // ---- 2./3. claim, route, limit, send ------------------------------------------------------------------------

  /** An adapter answered: held new messages may go out, or the pump may claim queued ones. */
  private roomFreed(): void {
    if (this.ingestQueue.length) this.scheduleIngest();
    if (this.queuedBacklog) this.wakeUp();
  }

  wakeUp(): void {
    this.woken = true;
    this.wake?.();
  }

  private waitForWake(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wake = null;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  private async pump(): Promise<void> {
    const t = this.options.dispatcher;
    let waited = false;
    while (this.running) {
      const room = Math.min(t.batchSize, t.maxInFlight - this.inFlight, Math.max(this.adapters.room(), 20));
      // Claims cost about the same for 20 rows as for 500: wait a moment once for more room rather than claim a handful.
      if (room > 0 && room < Math.min(100, t.batchSize) && this.inFlight > 0 && !waited) {
        waited = true;
        await sleep(5);
        continue;
      }
      waited = false;
      if (room <= 0) {
        await this.waitForWake(t.idleMs);
        continue;
      }
      // claims made while the heartbeat lapsed could be handed on by crash recovery at once: none until it beats again
      const epoch = this.claimEpoch();
      if (epoch === null) {
        await this.waitForWake(t.idleMs);
        continue;
      }
      let rows: ClaimedRow[];
      try {
        this.woken = false;
        const t0 = Date.now();
        rows = await this.repo.claim(this.instanceId, room);
        for (const row of rows) row.epoch = epoch;
        this.stats.claims++;
        this.stats.claimMs += Date.now() - t0;
      } catch (e) {
        if (this.running) this.log.warn(`claim failed: ${String(e)}`);
        await sleep(500);
        continue;
      }
      if (rows.length === 0) {
        this.queuedBacklog = false;
        await this.waitForWake(t.idleMs);
        continue;
      }
      this.stats.claimed += rows.length;
      this.queuedBacklog = rows.length >= room;
      for (const row of rows) this.dispatchSafely(row);
      this.kickLane();
    }
  }

  private dispatchSafely(row: ClaimedRow, front = false): void {
    try {
      this.dispatchOne(row, front);
    } catch (e) {
      // a bug for one message must not stop the pump: it goes back to the queue with the error
      this.log.error(`dispatching message ${row.id} failed: ${String(e)}`);
      this.giveBack({ id: String(row.id), attemptId: row.attempt_id, afterMs: this.options.dispatcher.retryBaseMs, error: String(e), countAttempt: true });
    }
  }

  /** A paused campaign's message, claimed before the pause was known here: back to wait as held (CampaignHolds). */
  private heldBack(row: ClaimedRow): boolean {
    if (!this.holds.isHeld(row.campaign_id, String(row.account_id))) return false;
    this.giveBack({ id: String(row.id), attemptId: row.attempt_id, afterMs: 0, error: null, countAttempt: false, hold: true });
    return true;
  }

  /** `front`: a parked message taken from the head of its park (it keeps its place if it is parked again). */
  private dispatchOne(row: ClaimedRow, front = false): void {
    const id = String(row.id);
    if (!this.stillMine(row)) return this.dropLapsed(row);
    if (this.heldBack(row)) return;
    const shareKeys = this.owning ? [accountShareKey(String(row.account_id))] : this.sharing ? [accountShareKey(String(row.account_id)), streamShareKey(String(row.stream_id))] : null;
    // back from the queue (or new): out of this replica's backlogs until its limits hold it back again
    if (shareKeys) this.shares.left(shareKeys, id);
    if (this.optOuts.blocked(String(row.account_id), row.channel, row.sender, row.destination)) {
      // The contact replied STOP (or the account's own keyword) to this sender, or STOPALL: never sent, refunded.
      this.finals.push({ id, attemptId: row.attempt_id, status: MessageStatus.Rejected, error: 'the recipient opted out', vendorId: null, refund: 'opted_out' });
      return;
    }
    const route = this.routing.resolve(String(row.account_id), row.channel, row.destination, row.iso2);
    if (route.vendorIds.length === 0) {
      this.finals.push({ id, attemptId: row.attempt_id, status: MessageStatus.NoRoutes, error: `no route for ${route.iso2 ?? 'unknown country'} (${row.channel})`, vendorId: null, refund: 'no_routes' });
      return;
    }
    const adapter = route.vendorIds.map((v) => this.adapters.get(v)).find((a) => a?.ready());
    if (!adapter) {
      this.giveBack({ id, attemptId: row.attempt_id, afterMs: 2000, error: 'no vendor connection ready', countAttempt: false });
      return;
    }
    const key = { accountId: String(row.account_id), streamId: String(row.stream_id) };
    if (this.owning) {
      const st = this.shares.state(accountShareKey(key.accountId), this.configuredRate(accountShareKey(key.accountId)));
      if (st.kind === 'none') {
        // another replica paces this account: the message goes to it through the queue at once (its claim takes the
        // messages given to it first); asked again at each renewal, so this replica takes over when that lease ends
        this.shares.starved(accountShareKey(key.accountId));
        this.stats.forwarded++;
        this.giveBack({ id, attemptId: row.attempt_id, afterMs: 0, error: null, countAttempt: false, owner: st.owner });
        return;
      }
      if (st.kind === 'unknown') {
        this.kickShares();
        this.inFlight++;
        this.shareWaiting.push(row);
        return;
      }
    } else if (this.sharing && !this.mayBook(key)) {
      // no share of a limit yet (a renewal away), or none free: waits here, claimed, for the next renewal
      this.inFlight++;
      this.shareWaiting.push(row);
      return;
    }
    const wait = this.limits.reserve(key);
    if (wait > BOOK_AHEAD_MS) {
      this.limits.release(key);
      // Its turn is a little further off: parked here, unbooked, and booked when its turn comes within the booking
      // horizon, so this replica's next seconds of its share are fed from memory, not from a round trip through the
      // queue table (a write batch and a claim, over a second each on a loaded machine: the share's slots went unused).
      if (this.sharing && this.park(key, row, wait, front)) return;
      // Its turn is far off: back to the queue until then, so memory holds only the next seconds of traffic.
      this.stats.deferred++;
      const afterMs = this.deferUntil(key, wait + (this.sharing ? this.parkedSpan(key) : 0));
      if (this.sharing) this.bookedShares(key, id, wait, afterMs);
      this.giveBack({ id, attemptId: row.attempt_id, afterMs, error: null, countAttempt: false, owner: this.sharing ? this.instanceId : undefined });
      return;
    }
    if (this.sharing) this.bookedShares(key, id, wait, 0);
    this.inFlight++;
    const message: OutboundMessage = {
      id,
      uuid: row.uuid,
      accountId: key.accountId,
      streamId: key.streamId,
      channel: row.channel,
      sender: row.sender,
      destination: row.destination,
      text: row.body,
      encoding: (row.encoding as SmsEncodingName | null) ?? null,
      payload: row.payload,
      credentials: this.streams.credentials(key.streamId),
      possibleDuplicate: row.possible_duplicate,
      // asked just before the first part is written: a claim lapsed meanwhile, or a campaign paused, holds it
      held: () => !this.stillMine(row) || (row.campaign_id ? this.holds.isHeld(row.campaign_id, key.accountId) : false),
      gate: this.owning ? this.wireGate(key) : undefined,
    };
    const go = (): Promise<void> => {
      if (this.owning) {
        // the carrier's view: no one-second window over the rate, whatever timers fired late (SendWindow)
        const wait = this.windowWait(key);
        if (wait > 0) {
          const timer = setTimeout(() => {
            this.held.delete(timer);
            void go();
          }, wait);
          this.held.set(timer, { id, attemptId: row.attempt_id });
          return Promise.resolve();
        }
      }
      // the last moment before the adapter: a claim that lapsed while it waited for its turn is not sent here; a pause
      // known by now holds it
      if (!this.stillMine(row)) {
        this.inFlight--;
        this.dropLapsed(row);
        this.kickLane();
        this.roomFreed();
        return Promise.resolve();
      }
      if (this.heldBack(row)) {
        this.inFlight--;
        this.kickLane();
        this.roomFreed();
        return Promise.resolve();
      }
      return adapter
        .send(message)
        .catch((e: unknown): SendOutcome => ({ kind: 'retry', error: `adapter failed: ${String(e)}` }))
        .then((outcome) => {
          this.inFlight--;
          this.onOutcome(row, adapter.vendorId, outcome);
          this.roomFreed();
        });
    };
    if (wait > 0) {
      const timer = setTimeout(() => {
        this.held.delete(timer);
        if (shareKeys) this.shares.left(shareKeys, id);
        void go();
      }, wait);
      this.held.set(timer, { id, attemptId: row.attempt_id });
    } else {
      void go();
    }
  }

  /**
   * Ownership mode: ms until the account's and the stream's last second of sends have room for one more (0: it goes
   * now, counted in both). The same gate as the wire's, over the windows of the moment before the adapter.
   */
  private windowWait(key: LimitKey): number {
    const gate = this.gateOf(this.sendWindows, key);
    if (!gate) return 0;
    const wait = gate.wait();
    if (wait === 0) gate.sent();
    return wait;
  }

  /**
   * Ownership mode: the gate an adapter that queues (SMPP) asks before it writes the message, over the account's and
   * the stream's last second of writes at the wire (a full SMPP window bunches the queued submits; 0094). Null: no
   * limit of these is gated.
   */
  private wireGate(key: LimitKey): { wait(): number; sent(): void } | undefined {
    return this.gateOf(this.wireWindows, key);
  }

  /** A gate over the account's and the stream's windows in `map`: ms until both have room, and a send counted in both. */
  private gateOf(map: Map<string, SendWindow>, key: LimitKey): { wait(): number; sent(): void } | undefined {
    const windows = this.windowsOf(map, key);
    if (windows.length === 0) return undefined;
    return {
      wait: () => {
        const t = performance.now();
        let wait = 0;
        for (const w of windows) wait = Math.max(wait, w.waitAt(t));
        return wait;
      },
      sent: () => {
        const t = performance.now();
        for (const w of windows) w.sent(t);
      },
    };
  }

  /**
   * The account's and the stream's one-second windows in `map` (created at their rates). Limits over 10,000/s are left
   * to their calendar and bucket (a ring of that many send times each).
   */
  private windowsOf(map: Map<string, SendWindow>, key: LimitKey): SendWindow[] {
    const windows: SendWindow[] = [];
    for (const [k, rate] of [
      [`a:${key.accountId}`, this.accountRate(key.accountId)],
      [`s:${key.streamId}`, this.streamRate(key.streamId)],
    ] as const) {
      if (!(rate > 0) || rate > 10_000) continue;
      let w = map.get(k);
      if (!w || w.rate !== rate) {
        // bounded: windows are per limit sent under; past 10,000 of them the map starts again (a second's sends forgotten)
        if (map.size >= 10_000) map.clear();
        w = new SendWindow(rate);
        map.set(k, w);
      }
      windows.push(w);
    }
    return windows;
  }

  /** ms of this replica's shares that the messages parked for an account and stream take (their turns after the booked ones). */
  private parkedSpan(key: LimitKey): number {
    const p = this.parked.get(`${key.accountId}|${key.streamId}`);
    if (!p || p.rows.length === 0) return 0;
    const rates = [this.localRate(accountShareKey(key.accountId), this.accountRate(key.accountId)), this.localRate(streamShareKey(key.streamId), this.streamRate(key.streamId))].filter((r) => r > 0);
    return rates.length ? (p.rows.length * 1000) / Math.min(...rates) : 0;
  }

  /**
   * Parks a claimed message whose turn (`wait`, after the messages already booked) is beyond the booking horizon but,
   * counting the messages parked before it, within PARK_AHEAD_MS; false if it is not (it goes back to the queue). The
   * park is drained in order by a timer as the turn of its head comes within the booking horizon.
   */
  private park(key: LimitKey, row: ClaimedRow, wait: number, front: boolean): boolean {
    const pk = `${key.accountId}|${key.streamId}`;
    let p = this.parked.get(pk);
    const turn = wait + (front ? 0 : this.parkedSpan(key));
    if (turn > PARK_AHEAD_MS || this.parkedCount >= this.options.dispatcher.maxInFlight / 4) return false;
    if (!p) {
      p = { rows: [], timer: null };
      this.parked.set(pk, p);
    }
    if (front) p.rows.unshift(row);
    else p.rows.push(row);
    this.parkedCount++;
    this.inFlight++;
    // in the backlog of the limits that held it back, as a booked message is
    const { account, stream } = this.limits.lastBound;
    const id = String(row.id);
    if (account || (stream && this.owning)) this.shares.parked(accountShareKey(key.accountId), id, turn);
    if (stream && !this.owning) this.shares.parked(streamShareKey(key.streamId), id, turn);
    if (!p.timer || front) {
      if (p.timer) clearTimeout(p.timer);
      // when the head's turn is DRAIN_LEAD_MS inside the booking horizon: a few messages booked per drain
      p.timer = setTimeout(() => this.drainPark(pk), Math.max(1, wait - BOOK_AHEAD_MS + DRAIN_LEAD_MS));
    }
    return true;
  }

  /** Books the parked messages of an account and stream whose turn came within the booking horizon, in order. */
  private drainPark(pk: string): void {
    const p = this.parked.get(pk);
    if (!p) return;
    p.timer = null;
    while (p.rows.length && this.running) {
      const row = p.rows.shift()!;
      this.parkedCount--;
      this.inFlight--;
      this.dispatchSafely(row, true);
      // parked again at the head: its turn is still beyond the horizon (the timer is set for it)
      if (p.rows[0] === row) break;
    }
    if (p.rows.length === 0 && !p.timer) this.parked.delete(pk);
    this.kickLane();
  }

  /** Whether this replica holds a share of each limit of the message (or the limit is off). */
  private mayBook(key: LimitKey): boolean {
    let ok = true;
    for (const [k, rate] of [
      [accountShareKey(key.accountId), this.accountRate(key.accountId)],
      [streamShareKey(key.streamId), this.streamRate(key.streamId)],
    ] as const) {
      const st = this.shares.state(k, rate);
      if (st.kind === 'unknown') {
        ok = false;
        this.kickShares();
      } else if (st.kind === 'none') {
        ok = false;
        this.shares.starved(k);
      }
    }
    return ok;
  }

  /**
   * Demand and backlog of this replica per limit, for the next renewal: a booking, held until its turn by the limits
   * that held it back; or, given back to the queue for `deferredMs`, in those limits' backlog until it comes back.
   */
  private bookedShares(key: LimitKey, id: string, wait: number, deferredMs: number): void {
    const a = accountShareKey(key.accountId);
    const s = streamShareKey(key.streamId);
    const { account, stream } = this.limits.lastBound;
    if (this.owning) {
      // the account's lease covers both limits: its backlog is what either held back
      if (deferredMs > 0 || wait > BOOK_AHEAD_MS) this.shares.gaveBack(a, id, deferredMs);
      else this.shares.booked(a, id, wait, account || stream);
      return;
    }
    if (deferredMs > 0 || wait > BOOK_AHEAD_MS) {
      if (account) this.shares.gaveBack(a, id, deferredMs);
      if (stream) this.shares.gaveBack(s, id, deferredMs);
      return;
    }
    this.shares.booked(a, id, wait, account);
    this.shares.booked(s, id, wait, stream);
  }

  /**
   * A renewal soon, at most one every quarter period: a backlog ran out, so its share can go to the replicas that
   * still have one (a replica working a backlog off at exactly its share drains and refills it all the time).
   */
  private renewSoon(): void {
    if (this.renewTimer || !this.running) return;
    const gap = Math.max(0, this.lastRenewAt + this.options.dispatcher.rateShareMs / 4 - performance.now());
    this.renewTimer = setTimeout(() => {
      this.renewTimer = null;
      if (this.running) this.kickShares();
    }, gap);
    this.renewTimer.unref();
  }

  /** A renewal as soon as possible (a limit this replica has no share of yet). */
  private kickShares(): void {
    // after a failed renewal, the periodic one tries again (not one attempt per message)
    if (performance.now() - this.renewFailedAt < this.options.dispatcher.rateShareMs) return;
    if (this.renewing) {
      this.renewAgain = true;
      return;
    }
    void this.renewShares();
  }

  /**
   * Renews this replica's shares in PostgreSQL and lets the messages waiting for one go. The lease is four periods;
   * a share is used locally until a second before the lease ends (the hold horizon: messages booked under it go out
   * within a second), so a replica that cannot renew (database away) stops using its shares before anyone else may
   * take them.
   */
  private renewShares(): Promise<void> {
    if (this.renewing) return this.renewing;
    const run = async (): Promise<void> => {
      const period = this.options.dispatcher.rateShareMs;
      const holdMs = 1000 + period;
      // at least 2.8 s of use after each renewal, and three times as long as renewals take lately (at most 8 s): a
      // renewal that takes seconds on a loaded machine (the event loop, the database) must not leave the replica without
      // a share (its messages then wait, and the limit runs under its rate). A replica killed holds its share that long.
      const leaseMs = Math.max(4 * period, 3000, Math.min(MAX_LEASE_MS, 3 * this.renewLag)) + holdMs;
      if (this.owning && this.claimEpoch() === null) {
        // Ownership (0094): a replica whose heartbeat lapsed sends nothing it claimed (stillMine), so the accounts it
        // paces would stall while the others hand it their messages: it gives its leases up (counted for a second, its
        // last sends are still in a carrier's window) and asks again once its heartbeat is back.
        if (this.shares.active) {
          this.shares.clear();
          await this.rateShares.release(this.instanceId, OWNER_HOLD_MS);
          this.stats.leasesGivenUp++;
          this.log.warn('heartbeat lapsed: rate ownership leases given up');
        }
        this.releaseShareWaiting();
        return;
      }
      do {
        this.renewAgain = false;
        const { claims, drop } = this.shares.renewal(Math.max(10_000, 10 * period), (k) => this.configuredRate(k));
        if (claims.length === 0 && drop.length === 0) break;
        const startedAt = performance.now();
        this.lastRenewAt = startedAt;
        const grants = await this.rateShares.renew(this.instanceId, claims, drop, leaseMs, holdMs, this.owning);
        // how long renewals take: the slowest lately, forgotten slowly (a tenth per renewal)
        this.renewLag = Math.max(performance.now() - startedAt, this.renewLag * 0.9);
        this.shares.granted(startedAt, leaseMs - holdMs - 200, grants, drop);
        this.releaseShareWaiting();
        // a larger share granted to start when other replicas' lowered shares end: the messages waiting for it go then
        const later = grants.filter((g) => g.later).map((g) => g.later!.afterMs);
        if (later.length) {
          if (this.laterTimer) clearTimeout(this.laterTimer);
          this.laterTimer = setTimeout(() => {
            this.laterTimer = null;
            if (this.running) this.releaseShareWaiting();
          }, Math.min(...later) + 1);
        }
      } while (this.renewAgain && this.running);
    };
    this.renewing = run()
      .catch((e: unknown) => {
        this.renewFailedAt = performance.now();
        this.log.warn(`renewing rate shares failed: ${String(e)}`);
      })
      .finally(() => {
        this.renewing = null;
      });
    return this.renewing;
  }

  /** The claimed messages that waited for a share try again (those still without one wait again). */
  private releaseShareWaiting(): void {
    const waiting = this.shareWaiting.splice(0);
    this.inFlight -= waiting.length;
    for (const row of waiting) this.dispatchSafely(row);
    if (waiting.length) this.kickLane();
  }

  /**
   * When a message held back by its limits comes back. Each one given back after another of the same stream comes
   * back one slot later (at the stream's or account's rate), so a backlog of N is offered again spread over its
   * turns, not all at the next second to be given back again (N^2 claims for a slow stream).
   */
  private deferUntil(key: { accountId: string; streamId: string }, wait: number): number {
    const now = Date.now();
    // Spaced at the whole rates, not at this replica's shares: a share can grow to the whole rate at the next renewal
    // (another replica's backlog ran out), and a backlog given back at the pace of a small share would then come back
    // too slowly to use it. When the share stays small, those that come back before their turn go back again.
    const rates = [this.accountRate(key.accountId), this.streamRate(key.streamId)].filter((r) => r > 0);
    const spacing = rates.length ? 1000 / Math.min(...rates) : 0;
    const k = `${key.accountId}|${key.streamId}`;
    const at = Math.min(now + wait, Math.max(now + 1000, (this.deferHorizon.get(k) ?? 0) + spacing));
    this.deferHorizon.set(k, at);
    if (this.deferHorizon.size > 10_000) for (const [hk, h] of this.deferHorizon) if (h < now) this.deferHorizon.delete(hk);
    // back a little early, so its reservation is made before its slot
    return Math.max(0, at - now - 200);
  }

  private onOutcome(row: ClaimedRow, vendorId: string, outcome: SendOutcome): void {
    const t = this.options.dispatcher;
    const id = String(row.id);
    DispatchMetrics.sends().inc({ vendor: vendorId, outcome: outcome.kind });
    switch (outcome.kind) {
      case 'accepted':
        this.stats.sent++;
        this.results.push({ id, attemptId: row.attempt_id, vendorId, providerIds: outcome.providerIds, destination: row.destination });
        if (outcome.finalStatus === 'delivered') {
          for (const pid of outcome.providerIds) this.immediateFinals.push({ vendorId, providerMessageId: pid, outcome: 'delivered', error: null, at: new Date() });
        }
        break;
      case 'rejected':
        this.finals.push({ id, attemptId: row.attempt_id, status: MessageStatus.Rejected, error: outcome.error, vendorId, refund: 'rejected' });
        break;
      case 'retry':
        if (row.attempts >= t.maxAttempts) {
          this.finals.push({ id, attemptId: row.attempt_id, status: MessageStatus.SentFailed, error: outcome.error, vendorId, refund: 'sent_failed' });
        } else {
          this.giveBack({ id, attemptId: row.attempt_id, afterMs: outcome.afterMs ?? t.retryBaseMs * 2 ** (row.attempts - 1), error: outcome.error, countAttempt: true });
        }
        break;
      case 'held':
        // its campaign was paused (or its claim lapsed) while the adapter queued it: nothing was written, it waits in
        // dispatch (fenced: a claim handed on by crash recovery is left alone)
        this.giveBack({ id, attemptId: row.attempt_id, afterMs: 0, error: null, countAttempt: false, hold: true });
        break;
      case 'unknown':
        if (row.unknown_attempts >= 1) {
          // Twice without an answer: no third try. The provider may have it, so nothing is refunded.
          this.finals.push({ id, attemptId: row.attempt_id, status: MessageStatus.SentFailed, error: `no answer from the provider twice: ${outcome.error}`, vendorId, refund: null });
        } else {
          this.giveBack({ id, attemptId: row.attempt_id, afterMs: t.unknownResendAfterMs, error: outcome.error, countAttempt: true, flag: true, countUnknown: true });
        }
        break;
    }
    this.kickLane();
  }

  // ---- receipts -----------------------------------------------------------------------------------------------

  /** Resolves once the receipt is stored (applied, or kept as pending until its message's ids are known). */
  receipt(r: ProviderReceipt): Promise<void> {
    DispatchMetrics.receipts().inc({ vendor: r.vendorId, outcome: r.outcome });
    return new Promise((resolve, reject) => {
      this.receipts.push({ receipt: r, waiter: { resolve, reject } });
      this.kickLane();
    });
  }

  // ---- 4. the write lane --------------------------------------------------------------------------------------

  private hasWork(): boolean {
    return this.results.length + this.receipts.length + this.finals.length + this.defers.length + this.immediateFinals.length > 0;
  }

  private kickLane(): void {
    if (this.laneActive || !this.hasWork()) return;
    this.laneActive = true;
    setImmediate(() => void this.runLane());
  }

  private async runLane(): Promise<void> {
    try {
      while (this.hasWork()) {
        try {
          await this.flushLane();
        } catch (e) {
          this.log.warn(`write batch failed, retrying: ${String(e)}`);
          await sleep(200);
        }
      }
    } finally {
      this.laneActive = false;
      const waiters = this.laneWaiters;
      this.laneWaiters = [];
      waiters.forEach((w) => w());
      if (this.hasWork()) this.kickLane();
    }
  }

  /**
   * Gives a claimed message back to the queue, due `afterMs` from now. The write batch that does it may start a second
   * or more later on a loaded machine (it waits behind the batch being written); the time it is due is fixed now, or a
   * message given back by a rate would come back that much after its turn and the rate's slots would go unused.
   */
  private giveBack(item: Omit<DeferItem, 'at'>): void {
    this.defers.push({ ...item, at: performance.now() });
  }

  private drainLane(): Promise<void> {
    if (!this.laneActive && !this.hasWork()) return Promise.resolve();
    return new Promise((resolve) => {
      this.laneWaiters.push(resolve);
      this.kickLane();
    });
  }

  /** One transaction: give-backs, immediate finals, provider acceptances, early receipts, receipts; events in the outbox. */
  private async flushLane(): Promise<void> {
    const W = this.options.dispatcher.writeBatch;
    const defers = this.defers.slice(0, W);
    const finals = this.finals.slice(0, W);
    const results = this.results.slice(0, W);
    const immediate = this.immediateFinals.slice(0, W);
    const receipts = this.receipts.slice(0, W);
    const changed: EventRow[] = [];
    let finalized = 0;
    const t0 = Date.now();
    await this.ds.transaction(async (m) => {
      const events: OutgoingEvent[] = [];
      const now = performance.now();
      await this.repo.defer(m, defers.map((d) => ({ ...d, afterMs: Math.max(0, d.afterMs - (now - d.at)) })));
      const refundReason = new Map(finals.map((f) => [f.id, f.refund]));
      const finalRows = await this.repo.finalizeClaimed(m, finals);
      events.push(...lifecycleEvents(finalRows, { final: true, refundReason: (r) => refundReason.get(String(r.id)) ?? null }));
      changed.push(...finalRows);
      // Single-part messages whose final receipt is in this batch too: accepted -> final in one row update.
      const finalByKey = new Map<string, ProviderReceipt>();
      for (const r of [...immediate, ...receipts.map((x) => x.receipt)]) {
        const k = `${r.vendorId}|${r.providerMessageId}`;
        if (partOutcome(r.outcome) && !finalByKey.has(k)) finalByKey.set(k, r);
      }
      const direct: Array<{ result: SentResult; receipt: ProviderReceipt }> = [];
      const normal: SentResult[] = [];
      for (const res of results) {
        // the newest use of an id is this submit: its receipt is one naming no other destination
        const r = res.providerIds.length === 1 ? finalByKey.get(`${res.vendorId}|${res.providerIds[0]}`) : undefined;
        if (r && sameDestination(destinationKey(r.destination), res.destination)) direct.push({ result: res, receipt: r });
        else normal.push(res);
      }
      const directRows = await this.repo.markSentFinal(
        m,
        direct.map(({ result, receipt }) => {
          const u = this.finalUpdate(result.id, partOutcome(receipt.outcome) === 'delivered', receipt, receipt.outcome === 'read');
          return { id: result.id, attemptId: result.attemptId, vendorId: result.vendorId, providerId: result.providerIds[0], status: u.status, outgoing: u.outgoing ?? 'delivered', error: u.error, deliveredAt: u.deliveredAt };
        }),
      );
      events.push(...lifecycleEvents(directRows, { final: true }));
      changed.push(...directRows);
      const directDone = new Set(directRows.map((r) => String(r.id)));
      const consumed = new Set(direct.filter((x) => directDone.has(String(x.result.id))).map((x) => x.receipt));
      const sentRows = await this.repo.markSent(m, normal);
      const early = await this.repo.takePendingFor(
        m,
        results.flatMap((r) => r.providerIds.map((pid) => ({ vendorId: r.vendorId, pid }))),
        PENDING_RECEIPT_WINDOW_MS,
      );
      const all: ProviderReceipt[] = [...immediate, ...early.map(pendingToReceipt), ...receipts.map((r) => r.receipt)].filter((r) => !consumed.has(r));
      const receiptRows = await this.applyReceipts(m, all, events);
      // A message whose receipt commits with its submit response moves accepted -> final in one step: one status
      // event (carrying sentAt) instead of two. Otherwise `sent` is announced on its own.
      const finalNow = new Set(receiptRows.filter((r) => r.status !== 'sent').map((r) => String(r.id)));
      const sentOnly = sentRows.filter((r) => !finalNow.has(String(r.id)));
      events.push(...lifecycleEvents(sentOnly, { final: false }));
      changed.push(...sentOnly, ...receiptRows);
      finalized = finalRows.length + directRows.length + receiptRows.filter((r) => r.status !== 'accepted' && r.status !== 'sent').length;
      await addToOutbox(m, events, this.relay.statusBatches, this.relay.compactRows);
    });
    // Committed: only now are the batches removed from the queues and their waiters released.
    this.defers.splice(0, defers.length);
    this.finals.splice(0, finals.length);
    this.results.splice(0, results.length);
    this.immediateFinals.splice(0, immediate.length);
    this.receipts.splice(0, receipts.length);
    this.stats.finals += finals.length;
    this.stats.finalized += finalized;
    this.stats.laneFlushes++;
    this.stats.laneMs += Date.now() - t0;
    this.stats.receipts += receipts.length;
    for (const r of receipts) r.waiter?.resolve();
    if (changed.length) {
      this.relay.kick();
      this.realtime.add(changed);
    }
    if (defers.length) this.wakeUp();
  }

  /**
   * Applies receipts. Each is matched to the part it reports on: the newest part still waiting with that provider id
   * on that vendor, sent within the receipt timeout, to the destination the receipt names (carriers reuse their ids:
   * docs/decisions/0023-carrier-quirks.md); a receipt whose id no part has is kept as pending (its submit response is
   * still on its way). A part takes its first final outcome only; a message becomes final when all its parts are
   * (delivered only if all were); read moves the outgoing status of a delivered message. A receipt matching only final
   * parts (a duplicate, a late contradiction) changes nothing final.
   */
  private async applyReceipts(m: EntityManager, receipts: ProviderReceipt[], events: OutgoingEvent[]): Promise<EventRow[]> {
    if (receipts.length === 0) return [];
    const unique = new Map<string, ProviderReceipt>();
    for (const r of receipts) unique.set(`${r.vendorId}|${r.providerMessageId}|${r.outcome}|${destinationKey(r.destination) ?? ''}`, r);
    const list = [...unique.values()];
    const refs = await this.repo.matchRefs(
      m,
      list.map((r) => ({ vendorId: r.vendorId, pid: r.providerMessageId, destination: destinationKey(r.destination) })),
      this.options.dispatcher.receiptTimeoutMs,
    );
    const refOf = new Map<ProviderReceipt, RefRow>(refs.map((ref) => [list[ref.i], ref]));
    const missing = list.filter((r) => !refOf.has(r));
    await this.repo.storePending(
      m,
      missing.map((r) => ({ vendorId: r.vendorId, pid: r.providerMessageId, outcome: r.outcome, error: r.error, at: r.at, destination: destinationKey(r.destination) })),
    );
    const found = list.filter((r) => refOf.has(r));
    this.stats.receiptsForFinal += found.filter((r) => !refOf.get(r)!.open && partOutcome(r.outcome)).length;

    // Part outcomes: one final outcome per matched part; within the batch the first final report wins.
    const partItems = new Map<string, { messageId: string; part: number; parts: number; vendorId: string; pid: string; outcome: string; error: string | null; receipt: ProviderReceipt }>();
    for (const r of found) {
      const o = partOutcome(r.outcome);
      const ref = refOf.get(r)!;
      const k = `${ref.message_id}|${ref.part}|${ref.vendor_id}|${ref.provider_message_id}`;
      if (o && ref.open && !partItems.has(k)) {
        partItems.set(k, { messageId: String(ref.message_id), part: Number(ref.part), parts: Number(ref.parts), vendorId: r.vendorId, pid: r.providerMessageId, outcome: o, error: o === 'undelivered' ? r.error : null, receipt: r });
      }
    }
    // A single-part message's outcome is its message's final status: its part is not written (docs/decisions/0214).
    // The finalize below takes it only from a message still open (accepted or sent), so a receipt racing another (a
    // duplicate on another bind or replica) finalizes it once, as the part's `outcome IS NULL` fence did. Only the
    // parts of multi-part messages keep their outcome, which decides when the whole message is final.
    const items = [...partItems.values()];
    const singleParts = items.filter((p) => p.parts <= 1).map((p) => ({ message_id: p.messageId, part: p.part, parts: 1, outcome: p.outcome }));
    const changedParts = [...singleParts, ...(await this.repo.setRefOutcomes(m, items.filter((p) => p.parts > 1)))];
    const receiptOfMessage = new Map<string, ProviderReceipt>();
    for (const p of partItems.values()) {
      const prev = receiptOfMessage.get(p.messageId);
      // an undelivered part speaks for the message; otherwise the latest report does
      if (!prev || p.receipt.outcome === 'undelivered' || (prev.outcome !== 'undelivered' && p.receipt.at >= prev.at)) receiptOfMessage.set(p.messageId, p.receipt);
    }
    const readOf = new Set(found.filter((r) => r.outcome === 'read').map((r) => String(refOf.get(r)!.message_id)));

    const finals: FinalUpdate[] = [];
    const multi: string[] = [];
    for (const p of changedParts) {
      const mid = String(p.message_id);
      if (Number(p.parts) > 1) {
        multi.push(mid);
        continue;
      }
      finals.push(this.finalUpdate(mid, p.outcome === 'delivered', receiptOfMessage.get(mid), readOf.has(mid)));
    }
    if (multi.length) {
      const totals = await this.repo.partTotals(m, [...new Set(multi)]);
      for (const t of totals) {
        if (t.done < t.parts) continue;
        const mid = String(t.message_id);
        const failedPart = t.error ? { ...(receiptOfMessage.get(mid) ?? { vendorId: '', providerMessageId: '', outcome: 'undelivered' as const, at: new Date() }), error: t.error } : receiptOfMessage.get(mid);
        finals.push(this.finalUpdate(mid, t.delivered === t.parts, failedPart, readOf.has(mid)));
      }
    }
    const finalRows = await this.repo.finalizeFromReceipts(m, finals);
    events.push(...lifecycleEvents(finalRows, { final: true }));
    const finalIds = new Set(finalRows.map((r) => String(r.id)));
    const reads = [...readOf].filter((id) => !finalIds.has(id)).map((id) => ({ id, outgoing: 'read' }));
    const readRows = await this.repo.advanceOutgoing(m, reads);
    events.push(...lifecycleEvents(readRows, { final: false }));
    return [...finalRows, ...readRows];
  }

  private finalUpdate(id: string, delivered: boolean, receipt: ProviderReceipt | undefined, read: boolean): FinalUpdate {
    return {
      id,
      status: delivered ? MessageStatus.Delivered : MessageStatus.Undelivered,
      outgoing: delivered ? (read ? 'read' : 'delivered') : 'undelivered',
      error: delivered ? null : (receipt?.error ?? 'undelivered'),
      deliveredAt: delivered ? (receipt?.at ?? new Date()) : null,
    };
  }

  // ---- 5. recovery and sweeps ---------------------------------------------------------------------------------

  private async recover(): Promise<void> {
    const n = await this.repo.recoverAbandoned(this.options.dispatcher.staleAfterMs);
    if (n > 0) {
      this.stats.recovered += n;
      this.log.warn(`${n} message(s) claimed by a stopped dispatcher go out again, flagged possible_duplicate`);
      this.wakeUp();
    }
  }

  private async sweepPending(): Promise<void> {
    const rows = await this.repo.takeMatchedPending(1000, PENDING_RECEIPT_WINDOW_MS);
    for (const p of rows) this.receipts.push({ receipt: pendingToReceipt(p) });
    if (rows.length) this.kickLane();
  }

  private querying = false;

  /**
   * Receipts lost with a connection (a replica killed between submit and receipt, an SMSC that does not resend them):
   * messages past their vendor's receipt limit are asked about (SMPP query_sm), a batch per round, each at most once
   * per `queryRepeatMs` across replicas. A final answer goes through the receipt path like a receipt (so a receipt
   * arriving too changes nothing twice); pending or no answer leaves the message to its receipt or to the expiry.
   */
  async queryOverdue(): Promise<number> {
    if (this.querying) return 0;
    this.querying = true;
    try {
      const t = this.options.dispatcher;
      const limits = this.routing
        .vendorList()
        .filter((v) => this.adapters.get(String(v.id))?.canQuery)
        .map((v) => ({ vendorId: String(v.id), ms: overdueLimit(v) }));
      const rows = await this.repo.claimForQuery(limits, t.queryRepeatMs, t.queryBatch);
      const asks = rows.flatMap((m) => m.parts.map((p) => ({ m, p })));
      let answered = 0;
      for (let i = 0; i < asks.length; i += 16) {
        await Promise.all(
          asks.slice(i, i + 16).map(async ({ m, p }) => {
            const adapter = this.adapters.get(p.vendor_id);
            if (!adapter?.canQuery) return;
            const a = await adapter.query({ providerMessageId: p.provider_message_id, sender: m.sender });
            if (a.kind !== 'final') return;
            answered++;
            await this.receipt({ vendorId: p.vendor_id, providerMessageId: p.provider_message_id, outcome: a.outcome, error: a.error, at: a.at, destination: m.destination });
          }),
        );
      }
      return answered;
    } finally {
      this.querying = false;
    }
  }

  private async expire(): Promise<void> {
    const ids = await this.repo.expireAwaiting(this.options.dispatcher.receiptTimeoutMs, 5000);
    if (ids.length === 0) return;
    await this.ds.transaction(async (m) => {
      const rows = await this.repo.finalizeFromReceipts(
        m,
        ids.map((id) => ({ id, status: MessageStatus.Undelivered, outgoing: 'undelivered', error: 'EXPIRED: no delivery receipt', deliveredAt: null })),
      );
      await addToOutbox(m, lifecycleEvents(rows, { final: true }), this.relay.statusBatches, this.relay.compactRows);
    });
    this.relay.kick();
  }

  /** For tests and benchmarks: the number of claimed messages not answered yet. */
  get pendingSends(): number {
    return this.inFlight;
  }

  /** For tests and benchmarks: claimed messages parked in memory until their turn comes within the booking horizon. */
  get parkedMessages(): number {
    return this.parkedCount;
  }
}
