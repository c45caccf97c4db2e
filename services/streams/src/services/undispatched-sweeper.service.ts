import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { ACCEPTED_REPUBLISH_SOURCE, Channel, MessageAcceptedV1, MessagesReconciledV1, MessagesReconcileRequestedV1, StreamType, type EventEnvelope } from '@switchboard/contracts';
import { counter, createEnvelope, gauge, IdempotentConsumer, Outbox, PROCESS_ROLES, type OutgoingEvent, type ProcessRoles } from '@switchboard/platform';
import { Clock } from '../clock';
import { channelOf } from '../rules/stream-params';
import { STREAMS_CONNECTION, STREAMS_OPTIONS, STREAMS_SCHEMA, type ResolvedStreamsOptions } from '../streams.options';
import { acceptedEventId } from './send.service';
import { StreamsOutboxRelay } from './streams-events.service';

/** The processed_events consumer of reconcile answers (they arrive in the group `streams.dispatch-projector`). */
const RECONCILE_ANSWERS = 'streams.reconcile-answers';

/** Messages the sweeper asked about, found known to dispatch, published again, or could not rebuild (docs/decisions/0087). */
export const UndispatchedMetrics = {
  messages: () =>
    counter(
      'switchboard_streams_undispatched_messages_total',
      'Messages still accepted long after acceptance: asked about, known to dispatch, republished (dispatch never got them) or not_rebuildable (OTP, WhatsApp)',
      ['outcome'],
    ),
  sweepFailures: () => counter('switchboard_streams_undispatched_sweep_failures_total', 'Sweeps of undispatched messages that failed (database or broker unavailable); the next sweep retries'),
  /**
   * How far behind the sweeper's clock the floor stood when this process last ended a pass (docs/decisions/0204). A
   * healthy floor trails by about `afterMs` plus a pass or two; one that keeps growing is held back by a transaction
   * left open (the floor never passes a writer that has not ended) or by messages the projector keeps locked. With
   * replicas, each reports its own last pass: read the greatest.
   */
  floorAge: () =>
    gauge(
      'switchboard_streams_undispatched_floor_age_seconds',
      'Age of the undispatched sweeper floor (now minus the key below which every message has been read) at the last pass this process ended',
    ),
};

/** Pages one sweep reads at most (each `scanRows` messages); the next sweep goes on from where it stopped. */
const MAX_PAGES_A_SWEEP = 1000;
/** The greatest uuid: a pass's end is its age limit with every message of that instant below it. */
const LAST_UUID = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

/** A key of the sweep's index: `coalesce(reconciled_at, created_at)` (as PostgreSQL's text, microseconds kept) and uuid. */
interface Position {
  at: string;
  uuid: string;
}

interface FloorRow {
  floor_at: string;
  floor_uuid: string;
  cursor_at: string | null;
  cursor_uuid: string | null;
  checks_at: string | null;
  checks_uuid: string | null;
  skipped: boolean;
  pending_at: string | null;
  pending_uuid: string | null;
  pending_xmax: string | null;
}

interface StoredMessage {
  uuid: string;
  account_id: string;
  stream_id: string;
  stream_uid: string;
  stream_type: number;
  campaign_id: string | null;
  sender: string;
  destination: string;
  iso2: string | null;
  text: string;
  encoding: 'GSM7' | 'UCS2' | null;
  segments: number;
  price_micros: string;
  currency: string;
  accepted_at: string;
}

/**
 * Finds messages streams accepted that dispatch may never have got (their `streams.message.accepted` record deleted
 * by a broker's retention before dispatch read it, or skipped by an operator), and has them sent once
 * (docs/decisions/0087):
 *
 * 1. Every `intervalMs`, in processes with the schedulers role: the messages still `accepted` `afterMs` after their
 *    acceptance or their last question, oldest first, `batch` at a time and at most `requestsPerSweep` batches a
 *    sweep, are marked asked (`reconciled_at`) and asked about in `streams.messages.reconcile_requested`, one request
 *    per account, in the same transaction (the outbox). Replicas take disjoint rows (SKIP LOCKED).
 * 2. Dispatch answers `dispatch.messages.reconciled` with the account's messages it has and those it does not.
 * 3. Streams publishes again, under the first event's id (a v5 UUID of the message uuid) and the source
 *    ACCEPTED_REPUBLISH_SOURCE (accounts does not count its usage again, 0199), the unknown ones that are
 *    still `accepted` and of the answer's account. Dispatch takes a message uuid once, so a re-publish that races a
 *    late original sends nothing twice. Known messages are left to dispatch (holds, limits, receipts, query_sm).
 *
 * OTP messages (stored with the code masked) and WhatsApp messages (their payload is not stored) cannot be rebuilt:
 * they are counted `not_rebuildable` and logged. A sweep that fails (database or bus down) is logged and counted,
 * and the next one takes the same messages: nothing is marked asked unless its request is in the outbox.
 */
@Injectable()
export class UndispatchedSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger('StreamsUndispatched');
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;
  /** Totals of this process, for tests and benchmarks. */
  readonly stats = { sweeps: 0, failedSweeps: 0, passes: 0, read: 0, asked: 0, requests: 0, known: 0, republished: 0, notRebuildable: 0 };

  constructor(
    @InjectDataSource(STREAMS_CONNECTION) private readonly ds: DataSource,
    @Inject(STREAMS_OPTIONS) private readonly o: ResolvedStreamsOptions,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly relay: StreamsOutboxRelay,
    private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.roles.schedulers) return;
    this.timer = setInterval(() => {
      this.running ??= this.sweepOnce()
        .catch((e: unknown) => {
          this.stats.failedSweeps++;
          UndispatchedMetrics.sweepFailures().inc();
          this.log.warn(`sweep of undispatched messages failed, retried in ${this.o.undispatched.intervalMs} ms: ${(e as Error).message}`);
        })
        .finally(() => (this.running = undefined));
    }, this.o.undispatched.intervalMs);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /**
   * One sweep: reads the messages above the floor up to `afterMs` ago, a page (`scanRows`) a transaction, and asks
   * dispatch about those still `accepted`; returns how many were asked about (docs/decisions/0204).
   *
   * The floor (`streams.undispatched_floor`, one row, locked by the page's transaction so replicas take turns) is a
   * key `(coalesce(reconciled_at, created_at), uuid)` below which nothing is left to read. A pass reads from the
   * floor to the age limit; a message asked about gets `reconciled_at` and so a key above the limit, and is read again
   * when it is due again. A pass cannot see a message whose transaction was still open when the pass read its key,
   * so a pass's end becomes the floor only after the next pass has read everything above the floor again, having
   * started after every transaction that held an xid at the end of the first had ended (the xid of the first pass's
   * last page, taken after its snapshot, below the xmin of the next pass's first snapshot), and without skipping a
   * message locked by another writer.
   */
  async sweepOnce(): Promise<number> {
    const { batch, requestsPerSweep } = this.o.undispatched;
    let asked = 0;
    for (let pages = 0; pages < MAX_PAGES_A_SWEEP; pages++) {
      const page = await this.ds.transaction((m) => this.page(m, Math.min(batch, batch * requestsPerSweep - asked)));
      if (!page) break; // another replica's sweep holds the floor
      this.stats.read += page.read;
      if (page.asked) {
        this.relay.kickSoon();
        asked += page.asked;
        this.stats.requests += page.requests;
        this.log.log(`asked dispatch about ${page.asked} messages still accepted ${Math.round(this.o.undispatched.afterMs / 1000)} s after acceptance (${page.requests} requests)`);
      }
      if (page.passEnded) {
        this.stats.passes++;
        break;
      }
      if (asked >= batch * requestsPerSweep) break;
    }
    this.stats.sweeps++;
    this.stats.asked += asked;
    if (asked) UndispatchedMetrics.messages().inc({ outcome: 'asked' }, asked);
    return asked;
  }

  /** One page of the pass, in the caller's transaction; null when another sweep holds the floor. */
  private async page(m: EntityManager, limit: number): Promise<{ read: number; asked: number; requests: number; passEnded: boolean } | null> {
    const { afterMs, scanRows } = this.o.undispatched;
    const cols = `floor_at::text, floor_uuid::text, cursor_at::text, cursor_uuid::text, checks_at::text, checks_uuid::text, skipped,
                  pending_at::text, pending_uuid::text, pending_xmax::text`;
    // where the pass stands (unlocked: the read below takes the lock and checks it still stands there)
    const [seen] = (await m.query(`SELECT ${cols} FROM ${STREAMS_SCHEMA}.undispatched_floor WHERE id = 1`)) as FloorRow[];
    if (!seen) return null;
    const now = this.clock.now();
    const cutoff = new Date(now.getTime() - afterMs);
    const from: Position = seen.cursor_at === null ? { at: seen.floor_at, uuid: seen.floor_uuid } : { at: seen.cursor_at, uuid: seen.cursor_uuid as string };
    // The page, the floor's lock and the page's snapshot in one statement: the snapshot is taken before this
    // transaction's xid is assigned (by the lock), so every transaction that held an xid when the page was read has
    // a smaller one, and "every xid up to ours has ended" means every writer the page could not see has ended.
    // (A snapshot's xmax does not bound them: it is the last completed xid + 1, and an older writer may still run.)
    // Only the messages still accepted come back.
    const [p] = (await m.query(
      `WITH f AS MATERIALIZED (SELECT ${cols} FROM ${STREAMS_SCHEMA}.undispatched_floor WHERE id = 1 FOR UPDATE SKIP LOCKED),
            page AS MATERIALIZED (
         SELECT m.uuid, m.account_id, coalesce(m.reconciled_at, m.created_at) AS at, m.status = 'accepted' AS accepted
           FROM streams.message m
          WHERE (coalesce(m.reconciled_at, m.created_at), m.uuid) > ($1::timestamptz, $2::uuid) AND coalesce(m.reconciled_at, m.created_at) <= $3
          ORDER BY coalesce(m.reconciled_at, m.created_at), m.uuid LIMIT $4)
       SELECT f.*, pg_snapshot_xmin(pg_current_snapshot())::text AS xmin, pg_current_xact_id()::text AS xid,
              (SELECT count(*) FROM page)::int AS read,
              (SELECT json_build_array(at::text, uuid::text) FROM page ORDER BY at DESC, uuid DESC LIMIT 1) AS last,
              (SELECT json_agg(json_build_array(d.at::text, d.uuid::text) ORDER BY d.at, d.uuid)
                 FROM (SELECT at, uuid FROM page WHERE accepted ORDER BY at, uuid LIMIT $5) d) AS due
         FROM f`,
      [from.at, from.uuid, cutoff, scanRows, limit + 1],
    )) as Array<FloorRow & { xmin: string; xid: string; read: number; last: [string, string] | null; due: Array<[string, string]> | null }>;
    if (!p) return null; // another sweep holds the floor
    // another sweep moved the pass between the two reads: this page read from a stale position
    if (p.cursor_at !== seen.cursor_at || p.cursor_uuid !== seen.cursor_uuid || p.floor_at !== seen.floor_at || p.floor_uuid !== seen.floor_uuid) return null;
    const f: FloorRow = p;
    const starts = f.cursor_at === null;
    const due = p.due ?? [];
    // more accepted messages than this page may ask about: it ends at the last one it asks about
    const full = due.length > limit;
    const taken = full ? due.slice(0, limit) : due;
    const end: Position | null = full ? { at: taken[limit - 1][0], uuid: taken[limit - 1][1] } : p.last ? { at: p.last[0], uuid: p.last[1] } : null;
    const passEnded = !full && p.read < scanRows;

    let asked: Array<{ uuid: string; account_id: string }> = [];
    let skipped = starts ? false : f.skipped;
    if (taken.length) {
      const uuids = taken.map((d) => d[1]);
      // a message another transaction holds (the projector moving it) is not waited for; the pass then cannot move the
      // floor, and the next pass reads it again
      const [r] = (await m.query(
        `WITH locked AS (SELECT uuid, status FROM streams.message WHERE uuid = ANY($1::uuid[]) FOR UPDATE SKIP LOCKED),
              marked AS (UPDATE streams.message m SET reconciled_at = $2 FROM locked l WHERE m.uuid = l.uuid AND l.status = 'accepted'
                         RETURNING m.uuid::text AS uuid, m.account_id::text AS account_id)
         SELECT (SELECT count(*) FROM locked)::int AS locked, (SELECT json_agg(marked) FROM marked) AS asked`,
        [uuids, now],
      )) as Array<{ locked: number; asked: Array<{ uuid: string; account_id: string }> | null }>;
      asked = r.asked ?? [];
      if (r.locked < uuids.length) skipped = true;
    }
    const byAccount = new Map<string, string[]>();
    for (const r of asked) {
      const list = byAccount.get(r.account_id);
      if (list) list.push(r.uuid);
      else byAccount.set(r.account_id, [r.uuid]);
    }
    const events: OutgoingEvent[] = [...byAccount].map(([accountId, messageUuids]) =>
      createEnvelope(MessagesReconcileRequestedV1, { requestId: randomUUID(), accountId, messageUuids }, { accountId, source: 'streams', occurredAt: now }),
    );
    if (events.length) await Outbox.add(m, STREAMS_SCHEMA, events);

    // the pass's state: a pass that started after every transaction open at the end of the last one had ended (all
    // xids up to the last page's own below this page's xmin) makes the last pass's end the floor when it ends without
    // a skip
    const checks: Position | null = starts
      ? f.pending_xmax !== null && BigInt(p.xmin) >= BigInt(f.pending_xmax)
        ? { at: f.pending_at as string, uuid: f.pending_uuid as string }
        : null
      : f.checks_at === null
        ? null
        : { at: f.checks_at, uuid: f.checks_uuid as string };
    if (passEnded) {
      const floor = checks && !skipped ? checks : { at: f.floor_at, uuid: f.floor_uuid };
      // TypeORM answers an UPDATE with [rows, count]
      const [[kept]] = (await m.query(
        `UPDATE ${STREAMS_SCHEMA}.undispatched_floor
            SET (floor_at, floor_uuid) = (SELECT x.at, x.uuid FROM (VALUES (floor_at, floor_uuid), ($1::timestamptz, $2::uuid)) x(at, uuid) ORDER BY 1 DESC, 2 DESC LIMIT 1),
                cursor_at = NULL, cursor_uuid = NULL, checks_at = NULL, checks_uuid = NULL, skipped = false,
                pending_at = $3, pending_uuid = $4, pending_xmax = $5::xid8, swept_at = $6
          WHERE id = 1
          RETURNING extract(epoch FROM $6::timestamptz - floor_at)::float8 AS age`,
        [floor.at, floor.uuid, cutoff, LAST_UUID, String(BigInt(p.xid) + 1n), now],
      )) as [Array<{ age: number }>, number];
      if (kept) UndispatchedMetrics.floorAge().set(Math.max(0, kept.age));
    } else {
      const at = end ?? from;
      await m.query(
        `UPDATE ${STREAMS_SCHEMA}.undispatched_floor
            SET cursor_at = $1, cursor_uuid = $2, checks_at = $3, checks_uuid = $4, skipped = $5, swept_at = $6 WHERE id = 1`,
        [at.at, at.uuid, checks?.at ?? null, checks?.uuid ?? null, skipped, now],
      );
    }
    return { read: p.read, asked: asked.length, requests: events.length, passEnded };
  }

  /**
   * Dispatch's answer: the unknown messages of the answer's account that are still `accepted` are published again,
   * each under its first event id, once per answer (processed_events of the group).
   */
  async onReconciled(e: EventEnvelope): Promise<void> {
    if (e.type !== MessagesReconciledV1.type || e.version !== 1) return;
    const d = MessagesReconciledV1.schema.parse(e.data);
    if (e.accountId !== d.accountId) {
      this.log.error(`reconcile answer ${e.id} names account ${d.accountId} under envelope account ${String(e.accountId)}: ignored`);
      return;
    }
    const out = { republished: 0, notRebuildable: [] as string[] };
    const applied = await IdempotentConsumer.handleOnce(this.ds, STREAMS_SCHEMA, RECONCILE_ANSWERS, e, async (m) => {
      out.republished = 0;
      out.notRebuildable = [];
      if (!d.unknown.length) return;
      const rows = (await m.query(
        `SELECT m.uuid::text AS uuid, m.account_id::text AS account_id, m.stream_id::text AS stream_id, s.stream_uid::text AS stream_uid, s.stream_type,
                m.campaign_id::text AS campaign_id, m.sender, m.destination, m.iso2, m.text, m.encoding, m.segments, m.price_micros::text AS price_micros,
                m.currency, to_char(m.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS accepted_at
           FROM streams.message m JOIN streams.stream s ON s.id = m.stream_id
          WHERE m.uuid = ANY($1::uuid[]) AND m.account_id = $2 AND m.status = 'accepted'
          ORDER BY m.created_at`,
        [d.unknown, d.accountId],
      )) as StoredMessage[];
      let events: OutgoingEvent[] = [];
      for (const r of rows) {
        const event = this.rebuild(r);
        if (event) events.push(event);
        else out.notRebuildable.push(r.uuid);
      }
      if (events.length) {
        // A message re-published before (and lost again) still has its outbox row under the same event id: a published
        // one is removed so the id can be written again (the unique key would fail the whole answer for ever), and an
        // unpublished one is left to the relay, which will publish it (publishing it twice would gain nothing).
        const ids = events.map((ev) => ev.id);
        const pending = (await m.query(
          `WITH gone AS (DELETE FROM ${STREAMS_SCHEMA}.outbox WHERE event_id = ANY($1::uuid[]) AND published_at IS NOT NULL)
           SELECT event_id::text AS id FROM ${STREAMS_SCHEMA}.outbox WHERE event_id = ANY($1::uuid[]) AND published_at IS NULL`,
          [ids],
        )) as { id: string }[];
        if (pending.length) {
          const waiting = new Set(pending.map((p) => p.id));
          events = events.filter((ev) => !waiting.has(ev.id));
        }
      }
      if (events.length) await Outbox.add(m, STREAMS_SCHEMA, events);
      out.republished = events.length;
    });
    if (!applied) return;
    this.stats.known += d.known.length;
    if (d.known.length) UndispatchedMetrics.messages().inc({ outcome: 'known' }, d.known.length);
    if (out.republished) {
      this.relay.kickSoon();
      this.stats.republished += out.republished;
      UndispatchedMetrics.messages().inc({ outcome: 'republished' }, out.republished);
      this.log.warn(`account ${d.accountId}: published again ${out.republished} accepted messages dispatch never got (request ${d.requestId}; ${d.known.length} known to dispatch)`);
    }
    if (out.notRebuildable.length) {
      this.stats.notRebuildable += out.notRebuildable.length;
      UndispatchedMetrics.messages().inc({ outcome: 'not_rebuildable' }, out.notRebuildable.length);
      this.log.error(`account ${d.accountId}: ${out.notRebuildable.length} accepted messages dispatch never got cannot be rebuilt (OTP or WhatsApp), e.g. ${out.notRebuildable.slice(0, 5).join(', ')}`);
    }
  }

  /** The message's accepted event as the send path built it, with the same id; null when it cannot be rebuilt. */
  private rebuild(r: StoredMessage): OutgoingEvent | null {
    const streamType = Number(r.stream_type);
    const channel = channelOf(streamType);
    // the OTP code is stored masked; a WhatsApp template or media payload is not stored
    if (streamType === StreamType.Otp || channel === Channel.WhatsApp) return null;
    return createEnvelope(
      MessageAcceptedV1,
      {
        messageUuid: r.uuid,
        accountId: r.account_id,
        streamId: r.stream_id,
        streamUid: r.stream_uid,
        streamType,
        channel,
        sender: r.sender,
        destination: r.destination,
        iso2: r.iso2,
        text: r.text,
        encoding: r.encoding,
        segments: Number(r.segments),
        priceMicros: Number(r.price_micros),
        currency: r.currency,
        payload: null,
        campaignId: r.campaign_id,
        notBefore: null,
        acceptedAt: r.accepted_at,
      },
      // its own source: accounts counted the message's usage when its first event came, and takes this one for dispatch
      // only (docs/decisions/0199)
      { id: acceptedEventId(r.uuid), accountId: r.account_id, source: ACCEPTED_REPUBLISH_SOURCE, occurredAt: new Date(r.accepted_at) },
    );
  }
}
