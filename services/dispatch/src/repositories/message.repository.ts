import { rowsOf } from './rows';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { MessageStatusValue } from '@switchboard/contracts';
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
}

const isoUtc = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const EVENT_COLS = `m.id, m.uuid, m.account_id, m.stream_id, m.stream_uid, m.campaign_id, m.sender, m.destination, m.status,
  m.outgoing_status, m.error, m.vendor_id, m.provider_ids[1] AS provider_id, ${isoUtc('m.sent_at')} AS sent_at, ${isoUtc('m.delivered_at')} AS delivered_at, m.mcc, m.mnc, m.network,
  char_length(m.body) AS body_length, m.segments, m.parts, m.encoding, m.price_micros, m.currency, m.possible_duplicate`;

export interface SentResult {
  id: string;
  attemptId: string;
  vendorId: string;
  providerIds: string[];
}

export interface RefRow {
  vendor_id: string;
  provider_message_id: string;
  message_id: string;
  part: number;
  parts: number;
  outcome: string | null;
}

export interface FinalUpdate {
  id: string;
  status: MessageStatusValue;
  outgoing: string | null;
  error: string | null;
  deliveredAt: Date | null;
}

/** A separator no provider id contains, to pass text[] per row through unnest. */
const SEP = '\u001f';

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
           send_state, attempt_id, claimed_by, attempts)
         SELECT t.uuid, t.account_id, t.stream_id, t.stream_uid, t.stream_type, t.campaign_id, t.channel, t.sender, t.destination,
           t.iso2, t.body, t.payload, t.encoding, t.segments, t.price_micros, t.currency, coalesce(t.not_before, now()), t.accepted_at,
           CASE WHEN t.attempt_id IS NULL THEN 'queued' ELSE 'submitting' END, t.attempt_id,
           CASE WHEN t.attempt_id IS NULL THEN NULL ELSE $20::uuid END, CASE WHEN t.attempt_id IS NULL THEN 0 ELSE 1 END
         FROM unnest($1::uuid[], $2::bigint[], $3::bigint[], $4::text[], $5::smallint[], $6::bigint[], $7::text[], $8::text[],
           $9::text[], $10::text[], $11::text[], $12::jsonb[], $13::text[], $14::smallint[], $15::bigint[], $16::text[], $17::timestamptz[], $18::timestamptz[],
           $19::uuid[])
           AS t(uuid, account_id, stream_id, stream_uid, stream_type, campaign_id, channel, sender, destination, iso2, body,
             payload, encoding, segments, price_micros, currency, not_before, accepted_at, attempt_id)
         ON CONFLICT (uuid) DO NOTHING
         RETURNING id, uuid, attempt_id, account_id, stream_id, stream_uid, stream_type, channel, sender, destination, iso2, body, payload,
           encoding, segments, possible_duplicate, attempts, unknown_attempts, send_state
       ) SELECT * FROM ins WHERE send_state = 'submitting'`,
      [
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
      ],
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
    const rows = rowsOf<EventRow>(
      await q.query(
        `UPDATE dispatch.message m
            SET status = t.status, outgoing_status = t.outgoing, send_state = 'done', claimed_by = NULL, vendor_id = t.vendor_id,
                provider_ids = ARRAY[t.pid], parts = 1, sent_at = coalesce(m.sent_at, now()), error = t.error,
                delivered_at = t.delivered_at, final_at = now(), updated_at = now()
           FROM unnest($1::bigint[], $2::uuid[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[])
             AS t(id, attempt_id, vendor_id, pid, status, outgoing, error, delivered_at)
          WHERE m.id = t.id AND m.attempt_id = t.attempt_id AND m.send_state = 'submitting' AND m.status = 'accepted'
          RETURNING ${EVENT_COLS}`,
        [
          items.map((i) => i.id),
          items.map((i) => i.attemptId),
          items.map((i) => i.vendorId),
          items.map((i) => i.providerId),
          items.map((i) => i.status),
          items.map((i) => i.outgoing),
          items.map((i) => i.error),
          items.map((i) => i.deliveredAt),
        ],
      ),
    );
    const kept = new Set(rows.map((r) => String(r.id)));
    const refs = items.filter((i) => kept.has(String(i.id)));
    if (refs.length > 0) {
      await q.query(
        `INSERT INTO dispatch.provider_ref (vendor_id, provider_message_id, message_id, part, parts, outcome, error)
         SELECT v, p, m, 1, 1, o, e FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::text[]) AS t(v, p, m, o, e)
         ON CONFLICT (vendor_id, provider_message_id) DO NOTHING`,
        [refs.map((i) => i.vendorId), refs.map((i) => i.providerId), refs.map((i) => i.id), refs.map((i) => (i.status === 'delivered' ? 'delivered' : 'undelivered')), refs.map((i) => i.error)],
      );
    }
    return rows;
  }

  /** Marks due messages `submitting` with a fresh attempt id, before anything is written to a provider. */
  async claim(instanceId: string, limit: number): Promise<ClaimedRow[]> {
    return rowsOf<ClaimedRow>(await this.ds.query(
      `UPDATE dispatch.message m
          SET send_state = 'submitting', attempt_id = gen_random_uuid(), claimed_by = $1, attempts = m.attempts + 1, updated_at = now()
        WHERE m.id IN (SELECT id FROM dispatch.message WHERE send_state = 'queued' AND next_attempt_at <= now()
                        ORDER BY next_attempt_at, id LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING m.id, m.uuid, m.attempt_id, m.account_id, m.stream_id, m.stream_uid, m.stream_type, m.channel, m.sender,
          m.destination, m.iso2, m.body, m.payload, m.encoding, m.segments, m.possible_duplicate, m.attempts, m.unknown_attempts`,
      [instanceId, limit],
    ));
  }

  /** Gives claimed messages back (limits, no ready vendor): nothing was written, so no flag. */
  async defer(q: Q, items: Array<{ id: string; attemptId: string; afterMs: number; error: string | null; countAttempt: boolean; flag?: boolean; countUnknown?: boolean }>): Promise<void> {
    if (items.length === 0) return;
    rowsOf<unknown>(await q.query(
      `UPDATE dispatch.message m
          SET send_state = 'queued', claimed_by = NULL, next_attempt_at = now() + t.after_ms * interval '1 millisecond',
              attempts = CASE WHEN t.count_attempt THEN m.attempts ELSE m.attempts - 1 END,
              possible_duplicate = m.possible_duplicate OR t.flag,
              unknown_attempts = m.unknown_attempts + CASE WHEN t.count_unknown THEN 1 ELSE 0 END,
              error = coalesce(t.error, m.error), updated_at = now()
         FROM unnest($1::bigint[], $2::uuid[], $3::int[], $4::text[], $5::bool[], $6::bool[], $7::bool[])
           AS t(id, attempt_id, after_ms, error, count_attempt, flag, count_unknown)
        WHERE m.id = t.id AND m.attempt_id = t.attempt_id AND m.send_state = 'submitting'`,
      [
        items.map((i) => i.id),
        items.map((i) => i.attemptId),
        items.map((i) => Math.max(0, Math.round(i.afterMs))),
        items.map((i) => i.error),
        items.map((i) => i.countAttempt),
        items.map((i) => i.flag ?? false),
        items.map((i) => i.countUnknown ?? false),
      ],
    ));
  }

  /** Records provider acceptance: status sent, provider ids per part. Fenced by attempt id. */
  async markSent(q: Q, results: SentResult[]): Promise<EventRow[]> {
    if (results.length === 0) return [];
    const rows = rowsOf<EventRow>(await q.query(
      `UPDATE dispatch.message m
          SET status = CASE WHEN m.status = 'accepted' THEN 'sent' ELSE m.status END,
              outgoing_status = CASE WHEN m.status = 'accepted' THEN 'sent' ELSE m.outgoing_status END,
              send_state = 'submitted', claimed_by = NULL, vendor_id = t.vendor_id,
              provider_ids = string_to_array(t.pids, chr(31)), parts = cardinality(string_to_array(t.pids, chr(31))),
              sent_at = coalesce(m.sent_at, now()), error = NULL, updated_at = now()
         FROM unnest($1::bigint[], $2::uuid[], $3::bigint[], $4::text[]) AS t(id, attempt_id, vendor_id, pids)
        WHERE m.id = t.id AND m.attempt_id = t.attempt_id AND m.send_state = 'submitting'
        RETURNING ${EVENT_COLS}`,
      [results.map((r) => r.id), results.map((r) => r.attemptId), results.map((r) => r.vendorId), results.map((r) => r.providerIds.join(SEP))],
    ));
    const kept = new Set(rows.map((r) => String(r.id)));
    const refs = results.filter((r) => kept.has(String(r.id))).flatMap((r) => r.providerIds.map((pid, i) => ({ r, pid, part: i + 1 })));
    if (refs.length > 0) {
      await q.query(
        `INSERT INTO dispatch.provider_ref (vendor_id, provider_message_id, message_id, part, parts)
         SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::smallint[], $5::smallint[])
         ON CONFLICT (vendor_id, provider_message_id) DO NOTHING`,
        [refs.map((x) => x.r.vendorId), refs.map((x) => x.pid), refs.map((x) => x.r.id), refs.map((x) => x.part), refs.map((x) => x.r.providerIds.length)],
      );
    }
    return rows;
  }

  /** Final statuses that need no receipt (no route, rejected, failed): only from a claimed attempt. */
  async finalizeClaimed(q: Q, items: Array<{ id: string; attemptId: string; status: MessageStatusValue; error: string | null; vendorId: string | null }>): Promise<EventRow[]> {
    if (items.length === 0) return [];
    return rowsOf<EventRow>(await q.query(
      `UPDATE dispatch.message m
          SET status = t.status, outgoing_status = 'failed', send_state = 'done', claimed_by = NULL, error = t.error,
              vendor_id = coalesce(t.vendor_id, m.vendor_id), final_at = now(), updated_at = now()
         FROM unnest($1::bigint[], $2::uuid[], $3::text[], $4::text[], $5::bigint[]) AS t(id, attempt_id, status, error, vendor_id)
        WHERE m.id = t.id AND m.attempt_id = t.attempt_id AND m.send_state = 'submitting' AND m.status = 'accepted'
        RETURNING ${EVENT_COLS}`,
      [items.map((i) => i.id), items.map((i) => i.attemptId), items.map((i) => i.status), items.map((i) => i.error), items.map((i) => i.vendorId)],
    ));
  }

  async findRefs(q: Q, keys: Array<{ vendorId: string; pid: string }>): Promise<RefRow[]> {
    if (keys.length === 0) return [];
    return q.query<RefRow[]>(
      `SELECT r.vendor_id, r.provider_message_id, r.message_id, r.part, r.parts, r.outcome
         FROM dispatch.provider_ref r
         JOIN unnest($1::bigint[], $2::text[]) AS t(vendor_id, pid) ON r.vendor_id = t.vendor_id AND r.provider_message_id = t.pid`,
      [keys.map((k) => k.vendorId), keys.map((k) => k.pid)],
    );
  }

  async storePending(q: Q, items: Array<{ vendorId: string; pid: string; outcome: string; error: string | null; at: Date }>): Promise<void> {
    if (items.length === 0) return;
    await q.query(
      `INSERT INTO dispatch.pending_receipt (vendor_id, provider_message_id, outcome, error, received_at)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::timestamptz[])
       ON CONFLICT DO NOTHING`,
      [items.map((i) => i.vendorId), items.map((i) => i.pid), items.map((i) => i.outcome), items.map((i) => i.error), items.map((i) => i.at)],
    );
  }

  /** Receipts that were waiting for these refs (they came before the submit response), removed as they are taken. */
  async takePendingFor(q: Q, keys: Array<{ vendorId: string; pid: string }>): Promise<Array<{ vendor_id: string; provider_message_id: string; outcome: string; error: string | null; received_at: Date }>> {
    if (keys.length === 0) return [];
    return rowsOf<never>(await q.query(
      `DELETE FROM dispatch.pending_receipt p USING unnest($1::bigint[], $2::text[]) AS t(vendor_id, pid)
        WHERE p.vendor_id = t.vendor_id AND p.provider_message_id = t.pid
        RETURNING p.vendor_id, p.provider_message_id, p.outcome, p.error, p.received_at`,
      [keys.map((k) => k.vendorId), keys.map((k) => k.pid)],
    ));
  }

  /** Pending receipts whose refs exist now (written by another instance meanwhile). */
  async takeMatchedPending(limit: number): Promise<Array<{ vendor_id: string; provider_message_id: string; outcome: string; error: string | null; received_at: Date }>> {
    return rowsOf<never>(await this.ds.query(
      `DELETE FROM dispatch.pending_receipt p
        WHERE (p.vendor_id, p.provider_message_id, p.outcome) IN (
          SELECT p2.vendor_id, p2.provider_message_id, p2.outcome FROM dispatch.pending_receipt p2
            JOIN dispatch.provider_ref r ON r.vendor_id = p2.vendor_id AND r.provider_message_id = p2.provider_message_id
           LIMIT $1)
        RETURNING p.vendor_id, p.provider_message_id, p.outcome, p.error, p.received_at`,
      [limit],
    ));
  }

  /** Sets a part's final outcome once; returns the refs that changed. */
  async setRefOutcomes(q: Q, items: Array<{ vendorId: string; pid: string; outcome: string; error: string | null }>): Promise<Array<{ message_id: string; part: number; parts: number; outcome: string }>> {
    if (items.length === 0) return [];
    return rowsOf<never>(await q.query(
      `UPDATE dispatch.provider_ref r SET outcome = t.outcome, error = t.error
         FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[]) AS t(vendor_id, pid, outcome, error)
        WHERE r.vendor_id = t.vendor_id AND r.provider_message_id = t.pid AND r.outcome IS NULL
        RETURNING r.message_id, r.part, r.parts, r.outcome`,
      [items.map((i) => i.vendorId), items.map((i) => i.pid), items.map((i) => i.outcome), items.map((i) => i.error)],
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
      `UPDATE dispatch.message m
          SET status = t.status, outgoing_status = coalesce(t.outgoing, m.outgoing_status), error = t.error,
              delivered_at = t.delivered_at, send_state = 'done', claimed_by = NULL, final_at = now(), updated_at = now()
         FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::timestamptz[]) AS t(id, status, outgoing, error, delivered_at)
        WHERE m.id = t.id AND m.status IN ('accepted', 'sent')
        RETURNING ${EVENT_COLS}`,
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
    const rows = rowsOf<{ id: string }>(await this.ds.query(
      `UPDATE dispatch.message m
          SET send_state = 'queued', claimed_by = NULL, possible_duplicate = true, next_attempt_at = now(), updated_at = now()
        WHERE m.send_state = 'submitting'
          AND (m.claimed_by IS NULL OR NOT EXISTS (
               SELECT 1 FROM dispatch.instance i WHERE i.id = m.claimed_by AND i.heartbeat_at > now() - $1 * interval '1 millisecond'))
        RETURNING m.id`,
      [staleAfterMs],
    ));
    return rows.length;
  }

  async heartbeat(instanceId: string, staleAfterMs: number): Promise<void> {
    await this.ds.query(
      `INSERT INTO dispatch.instance (id) VALUES ($1) ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()`,
      [instanceId],
    );
    rowsOf<unknown>(await this.ds.query(`DELETE FROM dispatch.instance WHERE heartbeat_at < now() - $1 * interval '1 millisecond' * 10`, [staleAfterMs]));
  }

  async releaseInstance(instanceId: string): Promise<void> {
    rowsOf<unknown>(await this.ds.query(`DELETE FROM dispatch.instance WHERE id = $1`, [instanceId]));
  }

  /** Sent messages whose receipt never came. */
  async expireAwaiting(olderThanMs: number, limit: number): Promise<string[]> {
    const rows = await this.ds.query<Array<{ id: string }>>(
      `SELECT id FROM dispatch.message WHERE send_state = 'submitted' AND sent_at < now() - $1 * interval '1 millisecond' LIMIT $2`,
      [olderThanMs, limit],
    );
    return rows.map((r) => String(r.id));
  }
}
