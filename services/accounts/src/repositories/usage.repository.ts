import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { pgArrayParameters } from '@switchboard/platform';
import type { DataSource, EntityManager } from 'typeorm';
import { ACCOUNTS_CONNECTION } from '../accounts.options';

/** Messages (and segments) to add to one account's UTC day (negative to take back). */
export interface UsageDelta {
  accountId: string;
  day: string;
  messages: number;
  segments: number;
}

/** One claim row of an accepted batch: its items of one acceptance instant (docs/decisions/0199). */
export interface BatchClaim {
  batchId: string;
  acceptedAt: string;
  accountId: string;
  messageUuids: string[];
}

/** A message re-published by streams' undispatched sweeper, looked up in the claimed batches. */
export interface Republished {
  messageUuid: string;
  accountId: string;
  acceptedAt: string;
}

/** Per-account, per-UTC-day counters of accepted messages, and the claims of the accepted batches counted into them. */
@Injectable()
export class UsageRepository {
  constructor(@InjectDataSource(ACCOUNTS_CONNECTION) private readonly ds: DataSource) {}

  async add(accountId: string, day: string, messages: number, segments: number, m: EntityManager): Promise<void> {
    await this.addAll([{ accountId, day, messages, segments }], m);
  }

  /**
   * Adds each delta to its account's day in one statement, the rows locked in (account, day) order (two transactions
   * adding to the same days never wait on each other crosswise). A delta of 0 locks its row (creating it) and changes nothing.
   */
  async addAll(deltas: UsageDelta[], m: EntityManager): Promise<void> {
    if (!deltas.length) return;
    await m.query(
      `INSERT INTO accounts.daily_usage AS d (account_id, day, messages, segments)
       SELECT a, dy, n, s FROM unnest($1::bigint[], $2::date[], $3::bigint[], $4::bigint[]) AS t(a, dy, n, s) ORDER BY a, dy
       ON CONFLICT (account_id, day) DO UPDATE SET messages = d.messages + EXCLUDED.messages, segments = d.segments + EXCLUDED.segments`,
      pgArrayParameters([deltas.map((d) => d.accountId), deltas.map((d) => d.day), deltas.map((d) => d.messages), deltas.map((d) => d.segments)]),
    );
  }

  /**
   * Claims the batches' rows; answers the batch ids claimed now (a batch whose rows existed is not among them). The
   * message uuids are the contract's checked uuids, so their array literal needs no quoting.
   */
  async claimBatches(rows: BatchClaim[], m: EntityManager): Promise<Set<string>> {
    const claimed = await m.query<Array<{ id: string }>>(
      `INSERT INTO accounts.usage_batch (batch_id, accepted_at, account_id, message_uuids)
       SELECT b, t, a, u::uuid[] FROM unnest($1::uuid[], $2::timestamptz[], $3::bigint[], $4::text[]) AS x(b, t, a, u)
       ON CONFLICT (batch_id, accepted_at) DO NOTHING RETURNING batch_id::text AS id`,
      pgArrayParameters([rows.map((r) => r.batchId), rows.map((r) => r.acceptedAt), rows.map((r) => r.accountId), rows.map((r) => `{${r.messageUuids.join(',')}}`)]),
    );
    return new Set(claimed.map((c) => c.id));
  }

  /** Which of these event ids the consumer claimed one by one (`processed_events`): a read of the claims' key. */
  async claimedAlone(consumer: string, eventIds: string[], m: EntityManager): Promise<Set<string>> {
    const rows = await m.query<Array<{ id: string }>>(
      `SELECT event_id::text AS id FROM accounts.processed_events WHERE consumer = $1 AND event_id = ANY($2::uuid[])`,
      [consumer, pgArrayParameters([eventIds])[0]],
    );
    return new Set(rows.map((r) => r.id));
  }

  /**
   * Which of these messages a claimed batch holds: a batch of the message's account accepted within a second of it (a
   * message's items and its re-publish carry the same acceptance instant; the second only absorbs rounding).
   */
  async inClaimedBatches(list: Republished[], m: EntityManager): Promise<Set<string>> {
    if (!list.length) return new Set();
    const rows = await m.query<Array<{ id: string }>>(
      `SELECT x.u::text AS id FROM unnest($1::uuid[], $2::bigint[], $3::timestamptz[]) AS x(u, a, t)
        WHERE EXISTS (SELECT 1 FROM accounts.usage_batch b
                       WHERE b.account_id = x.a AND b.accepted_at BETWEEN x.t - interval '1 second' AND x.t + interval '1 second'
                         AND x.u = ANY(b.message_uuids))`,
      pgArrayParameters([list.map((r) => r.messageUuid), list.map((r) => r.accountId), list.map((r) => r.acceptedAt)]),
    );
    return new Set(rows.map((r) => r.id));
  }

  /** Deletes batch claims counted before `before`, a chunk a statement; answers how many. */
  async pruneBatches(before: Date, chunk = 5000): Promise<number> {
    let total = 0;
    for (;;) {
      const [, n] = await this.ds.query<[unknown[], number]>(
        `DELETE FROM accounts.usage_batch WHERE ctid IN (SELECT ctid FROM accounts.usage_batch WHERE counted_at < $1 ORDER BY counted_at LIMIT $2)`,
        [before, chunk],
      );
      total += Number(n);
      if (Number(n) < chunk) return total;
    }
  }

  async messagesOn(accountId: string, day: string): Promise<number> {
    const rows = await this.ds.query<Array<{ messages: string }>>(`SELECT messages FROM accounts.daily_usage WHERE account_id = $1 AND day = $2`, [accountId, day]);
    return rows.length ? Number(rows[0].messages) : 0;
  }
}
