import { rowsOf } from './rows';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { MessageStatusValue } from '@switchboard/contracts';
import { pgArrayParameters } from '@switchboard/platform';
import { DISPATCH_CONNECTION } from '../dispatch.options';

type Q = Pick<EntityManager, 'query'>;

/** What `streams.message.accepted` puts in a message row. */
export interface AcceptedRow {
  eventId: string;
  uuid: string;
  accountId: string;
  streamId: string;
  streamUid: string;
  streamType: number;
  campaignId: string | null;
  channel: string;
  sender: string;
  destination: string;
  iso2: string | null;
  body: string;
  payload: Record<string, unknown> | null;
  encoding: string | null;
  segments: number;
  priceMicros: number;
  currency: string;
  notBefore: string | null;
  acceptedAt: string;
  /** W3C trace context of the accepted event's span while tracing, kept with the message (survives a restart). */
  traceparent?: string | null;
}

/** A message claimed for sending. */
export interface ClaimedRow {
  id: string;
  uuid: string;
  attempt_id: string;
  account_id: string;
  stream_id: string;
  stream_uid: string;
  stream_type: number;
  channel: string;
  sender: string;
  destination: string;
  iso2: string | null;
  body: string;
  payload: Record<string, unknown> | null;
  encoding: string | null;
  segments: number;
  possible_duplicate: boolean;
  attempts: number;
  unknown_attempts: number;
  /** The campaign of a campaign's message (a paused campaign's messages are held: CampaignHolds). */
  campaign_id?: string | null;
  /**
   * Not a column: the dispatcher's heartbeat epoch when it claimed the row (`Dispatcher.claimEpoch`). The claim is the
   * dispatcher's only while no lapse of its heartbeat came since: crash recovery may have handed it to another.
   */
  epoch?: number | null;
}

/** The columns status and EDR events are built from. */
export interface EventRow {
  id: string;
  uuid: string;
  account_id: string;
  stream_id: string;
  stream_uid: string;
  campaign_id: string | null;
  sender: string;
  destination: string;
  status: MessageStatusValue;
  outgoing_status: string | null;
  error: string | null;
  vendor_id: string | null;
  provider_id: string | null;
  /** ISO 8601 in UTC, formatted by PostgreSQL (no Date parsing and re-formatting per event on the hot path). */
  sent_at: Date | string | null;
  delivered_at: Date | string | null;
  mcc: string | null;
  mnc: string | null;
  network: string | null;
  body_length: number;
  segments: number;
  parts: number | null;
  encoding: string | null;
  price_micros: string;
  currency: string;
  possible_duplicate: boolean;
  /** The accepted event's trace context, stored while tracing (null otherwise). */
  traceparent?: string | null;
}

const isoUtc = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const EVENT_COLS = `m.id, m.uuid, m.account_id, m.stream_id, m.stream_uid, m.campaign_id, m.sender, m.destination, m.status,
  m.outgoing_status, m.error, m.vendor_id, m.provider_ids[1] AS provider_id, ${isoUtc('m.sent_at')} AS sent_at, ${isoUtc('m.delivered_at')} AS delivered_at, m.mcc, m.mnc, m.network,
  char_length(m.body) AS body_length, m.segments, m.parts, m.encoding, m.price_micros, m.currency, m.possible_duplicate, m.traceparent`;

export interface SentResult {
  id: string;
  attemptId: string;
  vendorId: string;
  providerIds: string[];
  /** The message's destination, to tell a receipt for it from one for another message given the same id. */
  destination?: string;
}

/** A receipt's key: the vendor, the provider's id, and the destination it names (digits, see `destinationKey`). */
export interface ReceiptKey {
  vendorId: string;
  pid: string;
  destination: string | null;
}

/** The provider_ref a receipt was matched to; `open` when its part and message still wait for a final outcome. */
export interface RefRow {
  /** Index of the receipt key it answers. */
  i: number;
  vendor_id: string;
  provider_message_id: string;
  message_id: string;
  part: number;
  parts: number;
  outcome: string | null;
  open: boolean;
}

/**
 * The digits a receipt's destination is compared by: formats differ between a submit and its receipt (`+49151…`,
 * `49151…`, national `0151…`), so leading zeros go and the shorter must end the longer. Fewer than 6 digits (a short
 * code, an alphanumeric address) bound nothing: null.
 */
export function destinationKey(address: string | null | undefined): string | null {
  if (!address) return null;
  const digits = address.replace(/\D/g, '').replace(/^0+/, '');
  return digits.length >= 6 ? digits : null;
}

/** Whether a receipt naming `key` (destinationKey) can be for a message sent to `destination`. */
export function sameDestination(key: string | null, destination: string | null | undefined): boolean {
  if (!key || !destination) return true;
  const d = destinationKey(destination);
  if (!d) return true;
  return d.length >= key.length ? d.endsWith(key) : key.endsWith(d);
}

export interface FinalUpdate {
  id: string;
  status: MessageStatusValue;
  outgoing: string | null;
  error: string | null;
  deliveredAt: Date | null;
}

/**
 * The claim rows of the messages an UPDATE in CTE `upd` (returning `id`) moved out of `submitting` (or finalized),
 * removed in the same statement (docs/decisions/0206): `dispatch.message_claim` lists every message `submitting`.
 */
const UNCLAIM = `unclaimed AS (DELETE FROM dispatch.message_claim k WHERE k.message_id = ANY(ARRAY(SELECT id FROM upd)))`;
/** Where a message given back waits: `held` if its campaign is held (and the dispatcher asked), else `queued`. */
const DEFER_STATE = `(CASE WHEN t.hold AND EXISTS (SELECT 1 FROM dispatch.campaign_hold h WHERE h.campaign_id = m.campaign_id AND h.account_id = m.account_id AND h.held) THEN 'held' ELSE 'queued' END)`;
/** The receipt-wait row of each message the `upd` CTE made final (docs/decisions/0212). */
const UNAWAIT = `unawaited AS (DELETE FROM dispatch.message_awaiting w WHERE w.message_id = ANY(ARRAY(SELECT id FROM upd)))`;

/**
 * Whether the ref (message, part, vendor, provider id) is not stored yet, for the ref inserts of `markSent` and
 * `markSentFinal`: a plain INSERT guarded by it instead of `ON CONFLICT DO NOTHING` (docs/decisions/0221). An ON
 * CONFLICT insert is a speculative insertion: a lock-manager token, the heap tuple, its index entries, then a confirm
 * record (48 B of WAL a row) and the token's release. No conflict can come from another transaction: a message's refs
 * are written only by the statement that moves it out of `submitting` (once in its life), which holds its row lock, so
 * a second such statement for it waits and then fails its fence. The guard is a probe of the primary key per ref
 * (`OFFSET 0` keeps it a per-row subplan: pulled up into an anti-join, a young table's statistics plan a scan of every
 * ref). `id` names the updated row (`u.id`), so the probe runs on joined rows only: on the batch's side alone it ran
 * for every pair a nested loop tried (batch² probes). The caller's DISTINCT ON drops a key named twice in the batch.
 */
const NEW_REF = (id: string, part: string, vendor: string, pid: string) =>
  `NOT EXISTS (SELECT 1 FROM dispatch.provider_ref r WHERE r.message_id = ${id} AND r.part = ${part} AND r.vendor_id = ${vendor} AND r.provider_message_id = ${pid} OFFSET 0)`;

/** A separator no provider id contains, to pass text[] per row through unnest. */
const SEP = '\u001f';

/**
 * `sameDestination` in SQL, for a receipt's destination key `dest` (digits, no leading zeros) and the message `m`:
 * the shorter digit string ends the longer (international and national forms of one number).
 */
function sameDestinationSql(dest: string): string {
  const d = `ltrim(translate(m.destination, '+ -().', ''), '0')`;
  return `(CASE WHEN length(${d}) >= length(${dest}) THEN right(${d}, length(${dest})) = ${dest} ELSE right(${dest}, length(${d})) = ${d} END)`;
}

/** A message past its vendor's receipt limit (GET /service_type_manager/awaiting_receipts). */
export interface OverdueRow {
  id: string;
  uuid: string;
  account_id: string;
  vendor_id: string;
  destination: string;
  provider_ids: string[] | null;
  sent_at: string;
  waiting_seconds: number;
}

/** A receipt kept until its provider id is known. */
export interface PendingRow {
  vendor_id: string;
  provider_message_id: string;
  outcome: string;
  error: string | null;
  received_at: Date;
  destination: string | null;
}

/** SQL of the message lifecycle. Every statement is set-based: one round trip per batch, whatever its size. */
@Injectable()
export class MessageRepository {
  constructor(@InjectDataSource(DISPATCH_CONNECTION) readonly ds: DataSource) {}

  /**
   * Inserts accepted messages once per message uuid (multi-row, ON CONFLICT DO NOTHING). An accepted event carries
   * exactly one message uuid, so a redelivered event id is a repeated uuid: the unique uuid makes the consumer
   * idempotent on both without a processed_events row per message (one write less per message on the hot path).
   *
   * Rows given an `attemptId` are inserted already claimed (`submitting`, by `instanceId`): the dispatcher sends them
   * right after the commit instead of claiming them with an UPDATE. They are returned (only if new).
   */
  async insertAccepted(q: Q, rows: Array<AcceptedRow & { attemptId: string | null }>, instanceId: string): Promise<ClaimedRow[]> {
    if (rows.length === 0) return [];
    const col = <K extends keyof AcceptedRow | 'attemptId'>(k: K) => rows.map((r) => r[k]);
    return q.query<ClaimedRow[]>(
      `WITH ins AS (
         INSERT INTO dispatch.message (uuid, account_id, stream_id, stream_uid, stream_type, campaign_id, channel, sender, destination,
           iso2, body, payload, encoding, segments, price_micros, currency, next_attempt_at, accepted_at,
           send_state, queue_state, attempt_id, claimed_by, attempts, traceparent)
         SELECT t.uuid, t.account_id, t.stream_id, t.stream_uid, t.stream_type, t.campaign_id, t.channel, t.sender, t.destination,
           t.iso2, t.body, t.payload, t.encoding, t.segments, t.price_micros, t.currency, coalesce(t.not_before, now()), t.accepted_at,
           s.st, CASE WHEN s.st <> 'submitting' THEN s.st END, t.attempt_id,
           CASE WHEN t.attempt_id IS NULL THEN NULL ELSE $20::uuid END, CASE WHEN t.attempt_id IS NULL THEN 0 ELSE 1 END, t.traceparent
         FROM unnest($1::uuid[], $2::bigint[], $3::bigint[], $4::text[], $5::smallint[], $6::bigint[], $7::text[], $8::text[],
           $9::text[], $10::text[], $11::text[], $12::jsonb[], $13::text[], $14::smallint[], $15::bigint[], $16::text[], $17::timestamptz[], $18::timestamptz[],
           $19::uuid[], $21::text[])
           AS t(uuid, account_id, stream_id, stream_uid, stream_type, campaign_id, channel, sender, destination, iso2, body,
             payload, encoding, segments, price_micros, currency, not_before, accepted_at, attempt_id, traceparent)
           CROSS JOIN LATERAL (SELECT CASE WHEN t.campaign_id IS NOT NULL AND EXISTS (SELECT 1 FROM dispatch.campaign_hold h WHERE h.campaign_id = t.campaign_id AND h.account_id = t.account_id AND h.held) THEN 'held'
                WHEN t.attempt_id IS NULL THEN 'queued' ELSE 'submitting' END AS st) s
         ON CONFLICT (uuid) DO NOTHING
         RETURNING id, uuid, attempt_id, account_id, stream_id, stream_uid, stream_type, channel, sender, destination, iso2, body, payload,
           encoding, segments, possible_duplicate, attempts, unknown_attempts, send_state, campaign_id
       ), claims AS (
         INSERT INTO dispatch.message_claim (message_id, claimed_by) SELECT id, $20::uuid FROM ins WHERE send_state = 'submitting'
       ) SELECT * FROM ins WHERE send_state = 'submitting'`,
      pgArrayParameters([
        col('uuid'),
        col('accountId'),
        col('streamId'),
        col('streamUid'),
        col('streamType'),
        col('campaignId'),
        col('channel'),
        col('sender'),
        col('destination'),
        col('iso2'),
        col('body'),
        rows.map((r) => (r.payload ? JSON.stringify(r.payload) : null)),
        col('encoding'),
        col('segments'),
        col('priceMicros'),
        col('currency'),
        col('notBefore'),
        col('acceptedAt'),
        col('attemptId'),
        instanceId,
        rows.map((r) => r.traceparent ?? null),
      ]),
    );
  }

  /**
   * Provider acceptance and final receipt in one step, for single-part messages whose receipt came in the same
   * write batch as their submit response: one row update instead of two. Fenced by attempt id like markSent.
   */
  async markSentFinal(
    q: Q,
    items: Array<{ id: string; attemptId: string; vendorId: string; providerId: string; status: MessageStatusValue; outgoing: string; error: string | null; deliveredAt: Date | null }>,
  ): Promise<EventRow[]> {
    if (items.length === 0) return [];
    return rowsOf<EventRow>(
      await q.query(
        `WITH upd AS (
         UPDATE dispatch.message m
            SET status = t.status, outgoing_status = t.outgoing, send_state = 'done', claimed_by = NULL, vendor_id = t.vendor_id,
                provider_ids = ARRAY[t.pid], parts = 1, sent_at = coalesce(m.sent_at, now()), error = t.error,
                delivered_at = t.delivered_at, final_at = now(), updated_at = now()
           FROM (SELECT u.*, 'submitting'::text AS in_flight, 'accepted'::text AS unsent
                   FROM unnest($1::bigint[], $2::uuid[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[])
                     AS u(id, attempt_id, vendor_id, pid, status, outgoing, error, delivered_at) OFFSET 0) t
          WHERE m.id = ANY($1::bigint[]) AND m.id = t.id AND m.attempt_id = t.attempt_id AND m.send_state = t.in_flight AND m.status = t.unsent
          RETURNING ${EVENT_COLS}
         ), ${UNCLAIM}, refs AS (
           INSERT INTO dispatch.provider_ref (vendor_id, provider_message_id, message_id, part, parts, outcome, error)
           SELECT DISTINCT ON (t.id, t.vendor_id, t.pid) t.vendor_id, t.pid, t.id, 1, 1, CASE WHEN t.status = 'delivered' THEN 'delivered' ELSE 'undelivered' END, t.error
             FROM upd u JOIN unnest($1::bigint[], $3::bigint[], $4::text[], $5::text[], $7::text[]) WITH ORDINALITY AS t(id, vendor_id, pid, status, error, n) ON t.id = u.id
            WHERE ${NEW_REF('u.id', '1::smallint', 't.vendor_id', 't.pid')}
            ORDER BY t.id, t.vendor_id, t.pid, t.n
         ) SELECT * FROM upd`,
        pgArrayParameters([
          items.map((i) => i.id),
          items.map((i) => i.attemptId),
          items.map((i) => i.vendorId),
          items.map((i) => i.providerId),
          items.map((i) => i.status),
          items.map((i) => i.outgoing),
          items.map((i) => i.error),
          items.map((i) => i.deliveredAt),
        ]),
      ),
    );
  }

  /** Marks due messages `submitting` with a fresh attempt id, before anything is written to a provider. */
  /**
   * Claims due queued messages. A message a replica gave back because a rate held it back (`deferred_by`) is its own
   * backlog: it goes back to that replica, and to any other only once it is `ownerGraceMs` overdue (that replica is
   * gone or stalled).
   */
  async claim(instanceId: string, limit: number, ownerGraceMs = 2000): Promise<ClaimedRow[]> {
    return rowsOf<ClaimedRow>(await this.ds.query(
      `WITH c AS (
       UPDATE dispatch.message m
          SET send_state = 'submitting', queue_state = NULL, attempt_id = gen_random_uuid(), claimed_by = $1, deferred_by = NULL, attempts = m.attempts + 1, updated_at = now()
        WHERE m.id IN (SELECT id FROM dispatch.message WHERE queue_state = 'queued' AND next_attempt_at <= now()
                          AND (deferred_by IS NULL OR deferred_by = $1 OR next_attempt_at <= now() - $3 * interval '1 millisecond')
                        ORDER BY next_attempt_at, id LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING m.id, m.uuid, m.attempt_id, m.account_id, m.stream_id, m.stream_uid, m.stream_type, m.channel, m.sender,
          m.destination, m.iso2, m.body, m.payload, m.encoding, m.segments, m.possible_duplicate, m.attempts, m.unknown_attempts, m.campaign_id
       ), claims AS (
         INSERT INTO dispatch.message_claim (message_id, claimed_by) SELECT id, $1::uuid FROM c
         ON CONFLICT (message_id) DO UPDATE SET claimed_by = excluded.claimed_by
       ) SELECT * FROM c`,
      [instanceId, limit, ownerGraceMs],
    ));
  }

  /**
   * Gives claimed messages back (limits, no ready vendor): nothing was written, so no flag. `hold`: its campaign is
   * paused, so it waits as `held` (if the hold is still on; else queued).
   */
  async defer(
    q: Q,
    items: Array<{ id: string; attemptId: string; afterMs: number; error: string | null; countAttempt: boolean; flag?: boolean; countUnknown?: boolean; owner?: string; hold?: boolean }>,
  ): Promise<void> {
    if (items.length === 0) return;
    rowsOf<unknown>(await q.query(
      `WITH upd AS (
       UPDATE dispatch.message m
          SET send_state = ${DEFER_STATE}, queue_state = ${DEFER_STATE},
              claimed_by = NULL, deferred_by = t.owner, next_attempt_at = now() + t.after_ms * interval '1 millisecond',
              attempts = CASE WHEN t.count_attempt THEN m.attempts ELSE m.attempts - 1 END,
              possible_duplicate = m.possible_duplicate OR t.flag,
              unknown_attempts = m.unknown_attempts + CASE WHEN t.count_unknown THEN 1 ELSE 0 END,
              error = coalesce(t.error, m.error), updated_at = now()
         FROM (SELECT u.*, 'submitting'::text AS in_flight
                 FROM unnest($1::bigint[], $2::uuid[], $3::int[], $4::text[], $5::bool[], $6::bool[], $7::bool[], $8::uuid[], $9::bool[])
                   AS u(id, attempt_id, after_ms, error, count_attempt, flag, count_unknown, owner, hold) OFFSET 0) t
        WHERE m.id = ANY($1::bigint[]) AND m.id = t.id AND m.attempt_id = t.attempt_id AND m.send_state = t.in_flight
        RETURNING m.id
       ), ${UNCLAIM} SELECT count(*) FROM upd`,
      [
        items.map((i) => i.id),
        items.map((i) => i.attemptId),
        items.map((i) => Math.max(0, Math.round(i.afterMs))),
        items.map((i) => i.error),
        items.map((i) => i.countAttempt),
        items.map((i) => i.flag ?? false),
        items.map((i) => i.countUnknown ?? false),
        items.map((i) => i.owner ?? null),
        items.map((i) => i.hold ?? false),
      ],
    ));
  }

  /**
   * Records provider acceptance: status sent, provider ids per part, the receipt wait (0212) and each part's
   * provider_ref, in one statement (docs/decisions/0214). Fenced by attempt id: a stale attempt writes nothing.
   * Plain inserts, not upserts (0221): a message enters `submitted` once in its life (0212), so its wait row and refs
   * are written once; a row already there (none can be) is left as it is rather than fail the write batch.
   */
  async markSent(q: Q, results: SentResult[]): Promise<EventRow[]> {
    if (results.length === 0) return [];
    return rowsOf<EventRow>(await q.query(
      `WITH upd AS (
       UPDATE dispatch.message m
          SET status = CASE WHEN m.status = 'accepted' THEN 'sent' ELSE m.status END,
              outgoing_status = CASE WHEN m.status = 'accepted' THEN 'sent' ELSE m.outgoing_status END,
              send_state = 'submitted', claimed_by = NULL, vendor_id = t.vendor_id,
              provider_ids = string_to_array(t.pids, chr(31)), parts = cardinality(string_to_array(t.pids, chr(31))),
              sent_at = coalesce(m.sent_at, now()), error = NULL, updated_at = now()
         FROM (SELECT u.*, 'submitting'::text AS in_flight
                 FROM unnest($1::bigint[], $2::uuid[], $3::bigint[], $4::text[]) AS u(id, attempt_id, vendor_id, pids) OFFSET 0) t
        WHERE m.id = ANY($1::bigint[]) AND m.id = t.id AND m.attempt_id = t.attempt_id AND m.send_state = t.in_flight
        RETURNING ${EVENT_COLS}
       ), ${UNCLAIM}, awaiting AS (
         INSERT INTO dispatch.message_awaiting (message_id, vendor_id, sent_at) SELECT id, vendor_id, sent_at::timestamptz FROM upd
          WHERE NOT EXISTS (SELECT 1 FROM dispatch.message_awaiting w WHERE w.message_id = upd.id OFFSET 0)
       ), refs AS (
         INSERT INTO dispatch.provider_ref (vendor_id, provider_message_id, message_id, part, parts)
         SELECT DISTINCT ON (t.id, p.part, t.vendor_id, p.pid) t.vendor_id, p.pid, t.id, p.part, cardinality(a.pids)
           FROM upd u JOIN unnest($1::bigint[], $3::bigint[], $4::text[]) WITH ORDINALITY AS t(id, vendor_id, pids, n) ON t.id = u.id
           CROSS JOIN LATERAL (SELECT string_to_array(t.pids, chr(31)) AS pids) a
           CROSS JOIN LATERAL unnest(a.pids) WITH ORDINALITY AS p(pid, part)
          WHERE ${NEW_REF('u.id', 'p.part::smallint', 't.vendor_id', 'p.pid')}
          ORDER BY t.id, p.part, t.vendor_id, p.pid, t.n
       ) SELECT * FROM upd`,
      pgArrayParameters([results.map((r) => r.id), results.map((r) => r.attemptId), results.map((r) => r.vendorId), results.map((r) => r.providerIds.join(SEP))]),
    ));
  }

  /**
   * An aborted campaign's messages still waiting (held since the abort; docs/decisions/0066): final `sent_failed`
   * ("campaign aborted"), at most `limit` of them, those another replica is dropping skipped. Only messages never
   * handed to a provider: a held message has no attempt in flight.
   */
  async dropAborted(q: Q, limit: number): Promise<EventRow[]> {
    return rowsOf<EventRow>(await q.query(
      `WITH x AS (
         SELECT m.id FROM dispatch.campaign_hold h JOIN dispatch.message m ON m.campaign_id = h.campaign_id AND m.account_id = h.account_id
          WHERE h.aborted AND m.queue_state = 'held' AND m.status = 'accepted'
          LIMIT $1 FOR UPDATE OF m SKIP LOCKED)
       UPDATE dispatch.message m
          SET status = 'sent_failed', outgoing_status = 'failed', send_state = 'done', queue_state = NULL, claimed_by = NULL, error = 'campaign aborted', final_at = now(), updated_at = now()
         FROM x WHERE m.id = x.id
        RETURNING ${EVENT_COLS}`,
      [limit],
    ));
  }

  /** Final statuses that need no receipt (no route, rejected, failed): only from a claimed attempt. */
  async finalizeClaimed(q: Q, items: Array<{ id: string; attemptId: string; status: MessageStatusValue; error: string | null; vendorId: string | null }>): Promise<EventRow[]> {
    if (items.length === 0) return [];
    return rowsOf<EventRow>(await q.query(
      `WITH upd AS (
       UPDATE dispatch.message m
          SET status = t.status, outgoing_status = 'failed', send_state = 'done', claimed_by = NULL, error = t.error,
              vendor_id = coalesce(t.vendor_id, m.vendor_id), final_at = now(), updated_at = now()
         FROM (SELECT u.*, 'submitting'::text AS in_flight, 'accepted'::text AS unsent
                 FROM unnest($1::bigint[], $2::uuid[], $3::text[], $4::text[], $5::bigint[]) AS u(id, attempt_id, status, error, vendor_id) OFFSET 0) t
        WHERE m.id = ANY($1::bigint[]) AND m.id = t.id AND m.attempt_id = t.attempt_id AND m.send_state = t.in_flight AND m.status = t.unsent
        RETURNING ${EVENT_COLS}
       ), ${UNCLAIM} SELECT * FROM upd`,
      pgArrayParameters([items.map((i) => i.id), items.map((i) => i.attemptId), items.map((i) => i.status), items.map((i) => i.error), items.map((i) => i.vendorId)]),
    ));
  }

  /**
   * Matches receipts to the message parts they report on, one indexed lookup per receipt in one statement. A carrier
   * reuses its ids (restarts, several binds, wrap-around), so a (vendor, id) may name several parts: the newest one
   * still waiting (its part without an outcome and its message not final) wins; only when none waits is the newest
   * final one returned (a duplicate or a late report: it changes nothing final, but a WhatsApp `read` still moves
   * the outgoing status). Parts sent more than `maxAgeMs` ago, and messages to another destination than the receipt
   * names, are never matched.
   */
  async matchRefs(q: Q, keys: ReceiptKey[], maxAgeMs: number): Promise<RefRow[]> {
    if (keys.length === 0) return [];
    const rows = await q.query<RefRow[]>(
      `SELECT t.i::int AS i, x.vendor_id, x.provider_message_id, x.message_id, x.part, x.parts, x.outcome, x.open
         FROM unnest($1::bigint[], $2::text[], $3::text[]) WITH ORDINALITY AS t(vendor_id, pid, dest, i)
         CROSS JOIN LATERAL (
           SELECT r.vendor_id, r.provider_message_id, r.message_id, r.part, r.parts, r.outcome,
                  (r.outcome IS NULL AND m.status IN ('accepted', 'sent')) AS open
             FROM dispatch.provider_ref r
             JOIN dispatch.message m ON m.id = r.message_id
            WHERE r.vendor_id = t.vendor_id AND r.provider_message_id = t.pid
              AND r.sent_at > now() - $4 * interval '1 millisecond'
              AND (t.dest IS NULL OR ${sameDestinationSql('t.dest')})
            ORDER BY 7 DESC, r.sent_at DESC, r.message_id DESC
            LIMIT 1) x`,
      [keys.map((k) => k.vendorId), keys.map((k) => k.pid), keys.map((k) => k.destination), maxAgeMs],
    );
    for (const r of rows) r.i = Number(r.i) - 1;
    return rows;
  }

  /**
   * Keeps receipts whose id is not known yet (they beat their submit response, or another instance records it). A
   * newer receipt of the same id and outcome replaces an older one: a carrier reusing ids reports the newest use.
   */
  async storePending(q: Q, all: Array<{ vendorId: string; pid: string; outcome: string; error: string | null; at: Date; destination: string | null }>): Promise<void> {
    if (all.length === 0) return;
    // one row per key in the statement (ON CONFLICT DO UPDATE may not touch a row twice): the newest report wins
    const byKey = new Map<string, (typeof all)[number]>();
    for (const i of all) {
      const k = `${i.vendorId}|${i.pid}|${i.outcome}`;
      const prev = byKey.get(k);
      if (!prev || i.at >= prev.at) byKey.set(k, i);
    }
    const items = [...byKey.values()];
    await q.query(
      `INSERT INTO dispatch.pending_receipt (vendor_id, provider_message_id, outcome, error, received_at, destination)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::text[])
       ON CONFLICT (vendor_id, provider_message_id, outcome) DO UPDATE
         SET error = excluded.error, received_at = excluded.received_at, destination = excluded.destination
         WHERE excluded.received_at >= dispatch.pending_receipt.received_at`,
      [items.map((i) => i.vendorId), items.map((i) => i.pid), items.map((i) => i.outcome), items.map((i) => i.error), items.map((i) => i.at), items.map((i) => i.destination)],
    );
  }

  /**
   * Receipts that were waiting for these refs (they came before the submit response), removed as they are taken.
   * Only those received within `windowMs`: an older one is about an earlier use of the id.
   */
  async takePendingFor(q: Q, keys: Array<{ vendorId: string; pid: string }>, windowMs: number): Promise<PendingRow[]> {
    if (keys.length === 0) return [];
    return rowsOf<PendingRow>(await q.query(
      `DELETE FROM dispatch.pending_receipt p USING unnest($1::bigint[], $2::text[]) AS t(vendor_id, pid)
        WHERE p.vendor_id = t.vendor_id AND p.provider_message_id = t.pid AND p.received_at > now() - $3 * interval '1 millisecond'
        RETURNING p.vendor_id, p.provider_message_id, p.outcome, p.error, p.received_at, p.destination`,
      [keys.map((k) => k.vendorId), keys.map((k) => k.pid), windowMs],
    ));
  }

  /**
   * Pending receipts whose part was recorded since (by another instance): a part still waiting, given that id after
   * (or about when) the receipt came, to the destination it names. Receipts older than `windowMs` are dropped.
   *
   * Each pending receipt is looked up by its own (vendor, id) in `provider_ref_lookup` (a LATERAL probe with LIMIT 1),
   * never by a join the planner may hash: an `EXISTS` let it hash the pending rows and scan every ref still without an
   * outcome (since 0214 every single-part ref, for as long as refs are kept), with a message lookup for each: 58 ms of
   * CPU a call over 20,000 refs with two pending receipts, every 2 s on each replica, growing with the table
   * (docs/decisions/0217). The probe's cost follows the pending receipts, not the refs.
   */
  async takeMatchedPending(limit: number, windowMs: number): Promise<PendingRow[]> {
    await this.ds.query(`DELETE FROM dispatch.pending_receipt WHERE received_at < now() - $1 * interval '1 millisecond'`, [windowMs]);
    return rowsOf<PendingRow>(await this.ds.query(
      `DELETE FROM dispatch.pending_receipt p
        WHERE (p.vendor_id, p.provider_message_id, p.outcome) IN (
          SELECT p2.vendor_id, p2.provider_message_id, p2.outcome FROM dispatch.pending_receipt p2
           CROSS JOIN LATERAL (
             SELECT 1 FROM dispatch.provider_ref r JOIN dispatch.message m ON m.id = r.message_id
              WHERE r.vendor_id = p2.vendor_id AND r.provider_message_id = p2.provider_message_id
                AND r.outcome IS NULL AND m.status IN ('accepted', 'sent')
                AND r.sent_at > p2.received_at - interval '1 minute'
                AND (p2.destination IS NULL OR ${sameDestinationSql('p2.destination')})
              LIMIT 1) x
           LIMIT $1)
        RETURNING p.vendor_id, p.provider_message_id, p.outcome, p.error, p.received_at, p.destination`,
      [limit],
    ));
  }

  /**
   * Sets a matched part's final outcome once; returns the parts that changed. Only parts of multi-part messages: a
   * single-part message's outcome is its own final status (docs/decisions/0214), so its part keeps `outcome` null.
   */
  async setRefOutcomes(
    q: Q,
    items: Array<{ messageId: string; part: number; vendorId: string; pid: string; outcome: string; error: string | null }>,
  ): Promise<Array<{ message_id: string; part: number; parts: number; outcome: string }>> {
    if (items.length === 0) return [];
    return rowsOf<never>(await q.query(
      `UPDATE dispatch.provider_ref r SET outcome = t.outcome, error = t.error
         FROM unnest($1::bigint[], $2::smallint[], $3::bigint[], $4::text[], $5::text[], $6::text[]) AS t(message_id, part, vendor_id, pid, outcome, error)
        WHERE r.message_id = t.message_id AND r.part = t.part AND r.vendor_id = t.vendor_id AND r.provider_message_id = t.pid
          AND r.outcome IS NULL
        RETURNING r.message_id, r.part, r.parts, r.outcome`,
      [items.map((i) => i.messageId), items.map((i) => i.part), items.map((i) => i.vendorId), items.map((i) => i.pid), items.map((i) => i.outcome), items.map((i) => i.error)],
    ));
  }

  /** Per message: how many distinct parts have a final outcome, how many were delivered, and a failed part's error. */
  async partTotals(q: Q, messageIds: string[]): Promise<Array<{ message_id: string; parts: number; done: number; delivered: number; error: string | null }>> {
    if (messageIds.length === 0) return [];
    return q.query(
      `SELECT message_id, max(parts)::int AS parts,
              count(DISTINCT part) FILTER (WHERE outcome IS NOT NULL)::int AS done,
              count(DISTINCT part) FILTER (WHERE outcome = 'delivered')::int AS delivered,
              min(error) FILTER (WHERE outcome = 'undelivered') AS error
         FROM dispatch.provider_ref WHERE message_id = ANY($1::bigint[]) GROUP BY message_id`,
      [messageIds],
    );
  }

  /** Moves messages to a final status from a receipt; a message already final is left as it is. */
  async finalizeFromReceipts(q: Q, items: FinalUpdate[]): Promise<EventRow[]> {
    if (items.length === 0) return [];
    return rowsOf<EventRow>(await q.query(
      `WITH upd AS (
       UPDATE dispatch.message m
          SET status = t.status, outgoing_status = coalesce(t.outgoing, m.outgoing_status), error = t.error,
              delivered_at = t.delivered_at, send_state = 'done', queue_state = NULL, claimed_by = NULL, final_at = now(), updated_at = now()
         FROM (SELECT u.*, '{accepted,sent}'::text[] AS open
                 FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::timestamptz[]) AS u(id, status, outgoing, error, delivered_at) OFFSET 0) t
        WHERE m.id = ANY($1::bigint[]) AND m.id = t.id AND m.status = ANY(t.open)
        RETURNING ${EVENT_COLS}
       ), ${UNCLAIM}, ${UNAWAIT} SELECT * FROM upd`,
      [items.map((i) => i.id), items.map((i) => i.status), items.map((i) => i.outgoing), items.map((i) => i.error), items.map((i) => i.deliveredAt)],
    ));
  }

  /** Outgoing status only (WhatsApp read, sent): forward only, by rank. */
  async advanceOutgoing(q: Q, items: Array<{ id: string; outgoing: string }>): Promise<EventRow[]> {
    if (items.length === 0) return [];
    const rank = (c: string) =>
      `(CASE coalesce(${c}, '') WHEN '' THEN -1 WHEN 'sending' THEN 0 WHEN 'sent' THEN 1 WHEN 'delivered' THEN 2 WHEN 'read' THEN 3 ELSE 4 END)`;
    return rowsOf<EventRow>(await q.query(
      `UPDATE dispatch.message m SET outgoing_status = t.outgoing, updated_at = now()
         FROM unnest($1::bigint[], $2::text[]) AS t(id, outgoing)
        WHERE m.id = t.id AND ${rank('t.outgoing')} > ${rank('m.outgoing_status')}
          AND ${rank('m.outgoing_status')} < 4 AND m.status NOT IN ('undelivered', 'sent_failed', 'rejected', 'no_routes')
        RETURNING ${EVENT_COLS}`,
      [items.map((i) => i.id), items.map((i) => i.outgoing)],
    ));
  }

  /** Messages claimed by instances that stopped heartbeating go back to the queue, flagged possible_duplicate. */
  async recoverAbandoned(staleAfterMs: number): Promise<number> {
    // Each claim's message by its primary key, never a scan of dispatch.message (a young table's statistics would
    // otherwise plan one for the claims' ids; the claim table itself is small): docs/decisions/0206.
    return this.ds.transaction(async (q) => {
      await q.query(`SET LOCAL enable_seqscan = off`);
      const rows = rowsOf<{ id: string }>(await q.query(
      `WITH upd AS (
       UPDATE dispatch.message m
          SET send_state = 'queued', queue_state = 'queued', claimed_by = NULL, possible_duplicate = true, next_attempt_at = now(), updated_at = now()
        WHERE m.id = ANY(ARRAY(SELECT c.message_id FROM dispatch.message_claim c)) AND m.send_state = 'submitting'
          AND (m.claimed_by IS NULL OR NOT EXISTS (
               SELECT 1 FROM dispatch.instance i WHERE i.id = m.claimed_by AND i.heartbeat_at > now() - $1 * interval '1 millisecond'))
        RETURNING m.id
       ), ${UNCLAIM} SELECT id FROM upd`,
      [staleAfterMs],
      ));
      return rows.length;
    });
  }

  /** `q`: the connection to use (the dispatcher keeps one for heartbeats, so they do not queue behind the pool's work). */
  async heartbeat(instanceId: string, staleAfterMs: number, q: Q = this.ds): Promise<void> {
    await q.query(
      `INSERT INTO dispatch.instance (id) VALUES ($1) ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()`,
      [instanceId],
    );
    rowsOf<unknown>(await q.query(`DELETE FROM dispatch.instance WHERE heartbeat_at < now() - $1 * interval '1 millisecond' * 10`, [staleAfterMs]));
  }

  async releaseInstance(instanceId: string): Promise<void> {
    rowsOf<unknown>(await this.ds.query(`DELETE FROM dispatch.instance WHERE id = $1`, [instanceId]));
  }

  /**
   * Sent messages waiting for their receipt longer than their vendor's limit (`limits`: ms per vendor id), oldest
   * first, and per vendor how many and since when. Reads `dispatch.message_awaiting` (docs/decisions/0212).
   */
  async overdue(
    limits: Array<{ vendorId: string; ms: number }>,
    skip: number,
    take: number,
  ): Promise<{ items: OverdueRow[]; vendors: Array<{ vendor_id: string; overdue: number; oldest_sent_at: string }> }> {
    if (limits.length === 0) return { items: [], vendors: [] };
    const params = [limits.map((l) => l.vendorId), limits.map((l) => Math.max(0, Math.round(l.ms)))];
    const from = `FROM dispatch.message_awaiting w JOIN unnest($1::bigint[], $2::bigint[]) AS l(vendor_id, ms) ON l.vendor_id = w.vendor_id
      JOIN dispatch.message m ON m.id = w.message_id AND m.send_state = 'submitted'
      WHERE w.sent_at < now() - l.ms * interval '1 millisecond'`;
    const vendors = await this.ds.query<Array<{ vendor_id: string; overdue: number; oldest_sent_at: string }>>(
      `SELECT m.vendor_id::text AS vendor_id, count(*)::int AS overdue, ${isoUtc('min(m.sent_at)')} AS oldest_sent_at ${from} GROUP BY m.vendor_id ORDER BY m.vendor_id`,
      params,
    );
    const items = vendors.length
      ? await this.ds.query<OverdueRow[]>(
          `SELECT m.id::text AS id, m.uuid, m.account_id::text AS account_id, m.vendor_id::text AS vendor_id, m.destination, m.provider_ids,
                  ${isoUtc('m.sent_at')} AS sent_at, floor(extract(epoch FROM now() - m.sent_at))::int AS waiting_seconds
             ${from} ORDER BY w.sent_at, w.message_id LIMIT $3 OFFSET $4`,
          [...params, take, skip],
        )
      : [];
    return { items, vendors };
  }

  /**
   * Claims sent messages whose receipt is past their vendor's limit and that were not asked about within `repeatMs`
   * (oldest first, SKIP LOCKED so replicas take different ones), marks them asked, and returns each with the parts
   * still waiting for an outcome: what query_sm asks about.
   */
  async claimForQuery(
    limits: Array<{ vendorId: string; ms: number }>,
    repeatMs: number,
    take: number,
  ): Promise<Array<{ id: string; vendor_id: string; sender: string; destination: string; parts: Array<{ vendor_id: string; provider_message_id: string }> }>> {
    if (limits.length === 0) return [];
    return this.ds.query(
      `WITH due AS (
         SELECT m.id FROM dispatch.message_awaiting w
           JOIN unnest($1::bigint[], $2::bigint[]) AS l(vendor_id, ms) ON l.vendor_id = w.vendor_id
           JOIN dispatch.message m ON m.id = w.message_id AND m.send_state = 'submitted'
          WHERE w.sent_at < now() - l.ms * interval '1 millisecond'
            AND (m.receipt_queried_at IS NULL OR m.receipt_queried_at < now() - $3 * interval '1 millisecond')
          ORDER BY w.sent_at, w.message_id
          LIMIT $4
          FOR UPDATE OF m SKIP LOCKED),
       asked AS (
         UPDATE dispatch.message m SET receipt_queried_at = now() FROM due WHERE m.id = due.id
         RETURNING m.id, m.vendor_id, m.sender, m.destination)
       SELECT a.id::text AS id, a.vendor_id::text AS vendor_id, a.sender, a.destination,
              coalesce((SELECT json_agg(json_build_object('vendor_id', r.vendor_id::text, 'provider_message_id', r.provider_message_id) ORDER BY r.part)
                          FROM dispatch.provider_ref r WHERE r.message_id = a.id AND r.outcome IS NULL), '[]'::json) AS parts
         FROM asked a`,
      [limits.map((l) => l.vendorId), limits.map((l) => Math.max(0, Math.round(l.ms))), Math.max(0, Math.round(repeatMs)), take],
    );
  }

  /** Sent messages whose receipt never came. */
  async expireAwaiting(olderThanMs: number, limit: number): Promise<string[]> {
    const rows = await this.ds.query<Array<{ id: string }>>(
      `SELECT w.message_id AS id FROM dispatch.message_awaiting w JOIN dispatch.message m ON m.id = w.message_id AND m.send_state = 'submitted'
        WHERE w.sent_at < now() - $1 * interval '1 millisecond' ORDER BY w.sent_at, w.message_id LIMIT $2`,
      [olderThanMs, limit],
    );
    return rows.map((r) => String(r.id));
  }
}
