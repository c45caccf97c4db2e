import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ACCEPTED_REPUBLISH_SOURCE, Channel, MessageAcceptedV1, MessagesReconciledV1, MessagesReconcileRequestedV1, StreamType, type EventEnvelope } from '@switchboard/contracts';
import { counter, createEnvelope, IdempotentConsumer, Outbox, PROCESS_ROLES, type OutgoingEvent, type ProcessRoles } from '@switchboard/platform';
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
};

/** TypeORM answers an UPDATE ... RETURNING on PostgreSQL as `[rows, affected]`. */
function returned<R>(result: unknown): R[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as R[];
  return result as R[];
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
  readonly stats = { sweeps: 0, failedSweeps: 0, asked: 0, requests: 0, known: 0, republished: 0, notRebuildable: 0 };

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

  /** One sweep: asks dispatch about the due messages; returns how many were asked about. */
  async sweepOnce(): Promise<number> {
    const { afterMs, batch, requestsPerSweep } = this.o.undispatched;
    let asked = 0;
    for (let n = 0; n < requestsPerSweep; n++) {
      const now = this.clock.now();
      const taken = await this.ds.transaction(async (m) => {
        const rows = returned<{ uuid: string; account_id: string }>(await m.query(
          `WITH due AS (
             SELECT uuid FROM streams.message
              WHERE status = 'accepted' AND coalesce(reconciled_at, created_at) <= $1
              ORDER BY coalesce(reconciled_at, created_at) LIMIT $2 FOR UPDATE SKIP LOCKED)
           UPDATE streams.message m SET reconciled_at = $3 FROM due WHERE m.uuid = due.uuid
           RETURNING m.uuid::text AS uuid, m.account_id::text AS account_id`,
          [new Date(now.getTime() - afterMs), batch, now],
        ));
        const byAccount = new Map<string, string[]>();
        for (const r of rows) {
          const list = byAccount.get(r.account_id);
          if (list) list.push(r.uuid);
          else byAccount.set(r.account_id, [r.uuid]);
        }
        const events: OutgoingEvent[] = [...byAccount].map(([accountId, messageUuids]) =>
          createEnvelope(MessagesReconcileRequestedV1, { requestId: randomUUID(), accountId, messageUuids }, { accountId, source: 'streams', occurredAt: now }),
        );
        if (events.length) await Outbox.add(m, STREAMS_SCHEMA, events);
        return { messages: rows.length, requests: events.length };
      });
      if (taken.messages) {
        this.relay.kickSoon();
        asked += taken.messages;
        this.stats.requests += taken.requests;
        this.log.log(`asked dispatch about ${taken.messages} messages still accepted ${Math.round(afterMs / 1000)} s after acceptance (${taken.requests} requests)`);
      }
      if (taken.messages < batch) break;
    }
    this.stats.sweeps++;
    this.stats.asked += asked;
    if (asked) UndispatchedMetrics.messages().inc({ outcome: 'asked' }, asked);
    return asked;
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
