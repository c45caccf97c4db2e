import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { pgArray } from '@switchboard/platform';
import type { DataSource, EntityManager } from 'typeorm';
import { ACCOUNTS_CONNECTION } from '../accounts.options';
import { BalanceEntryEntity, type BalanceEntryKindValue } from '../entities';

export interface LedgerEntryInput {
  accountId: string;
  kind: BalanceEntryKindValue;
  sourceId: string;
  amountMicros: bigint;
  currency: string;
  reason: string;
  createdBy: string | null;
}

/** What a batch of entries did to one account: its new entries, and its balance after the last (of that kind and currency). */
export interface LedgerBatchResult {
  accountId: string;
  inserted: number;
  balanceAfterMicros: string;
  kind: BalanceEntryKindValue;
  currency: string;
}

interface EntryRow {
  id: string;
  account_id: string;
  kind: BalanceEntryKindValue;
  source_id: string;
  amount_micros: string;
  currency: string;
  balance_after_micros: string;
  reason: string;
  created_by: string | null;
  created_at: Date;
}

const toEntity = (r: EntryRow): BalanceEntryEntity =>
  Object.assign(new BalanceEntryEntity(), {
    id: r.id,
    accountId: r.account_id,
    kind: r.kind,
    sourceId: r.source_id,
    amountMicros: r.amount_micros,
    currency: r.currency,
    balanceAfterMicros: r.balance_after_micros,
    reason: r.reason,
    createdBy: r.created_by,
    createdAt: r.created_at,
  });

/** The balance ledger: entries and the customer's running balance move together, in the caller's transaction. */
/**
 * `applyMany`'s statement: a batch's entries booked under their accounts' row locks, each once by its source, with
 * running balances (exported for `bench/accounts-charge-rows.ts`, which measures it against variants of the table).
 */
export const APPLY_MANY_SQL = `WITH locked AS MATERIALIZED (
   SELECT id, balance_micros FROM accounts.customer WHERE id = ANY($8::bigint[]) ORDER BY id FOR NO KEY UPDATE
 ), given AS (
   SELECT t.*, l.balance_micros + sum(t.amount_micros) OVER (PARTITION BY t.account_id ORDER BY t.n) AS after
     FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::bigint[])
            WITH ORDINALITY AS t(account_id, kind, source_id, amount_micros, currency, reason, created_by, n)
     JOIN locked l ON l.id = t.account_id
 ), ins AS (
   INSERT INTO accounts.balance_entry (account_id, kind, source_id, amount_micros, currency, balance_after_micros, reason, created_by)
   SELECT account_id, kind, source_id, amount_micros, currency, after, reason, created_by FROM given ORDER BY n
   ON CONFLICT (account_id, kind, source_id) DO NOTHING
   RETURNING id, account_id, kind, currency, amount_micros
 ), sums AS (
   SELECT account_id, count(*) AS n, sum(amount_micros) AS amount, min(id) AS min_id, max(id) AS max_id FROM ins GROUP BY account_id
 ), moved AS (
   UPDATE accounts.customer c SET balance_micros = c.balance_micros + s.amount, updated_at = now() FROM sums s WHERE c.id = s.account_id
   RETURNING c.id, c.balance_micros
 )
 SELECT l.id::text AS account_id, coalesce(s.n, 0)::int AS inserted, g.n::int AS given, l.balance_micros::text AS start,
        mv.balance_micros::text AS balance, s.min_id::text AS min_id, s.max_id::text AS max_id, i.kind, i.currency
   FROM locked l
   JOIN (SELECT account_id, count(*) AS n FROM given GROUP BY account_id) g ON g.account_id = l.id
   LEFT JOIN sums s ON s.account_id = l.id
   LEFT JOIN moved mv ON mv.id = l.id
   LEFT JOIN ins i ON i.id = s.max_id`;

@Injectable()
export class LedgerRepository {
  constructor(@InjectDataSource(ACCOUNTS_CONNECTION) private readonly ds: DataSource) {}

  /**
   * Records an entry and moves the balance by its amount, or does nothing and returns null when the entry
   * `(account, kind, source)` exists. The entry is inserted first: a concurrent duplicate waits on its unique key
   * until this transaction ends, then skips, so the balance can never move twice for one source.
   */
  async apply(e: LedgerEntryInput, m: EntityManager): Promise<BalanceEntryEntity | null> {
    const inserted = await m.query<Array<{ id: string }>>(
      `INSERT INTO accounts.balance_entry (account_id, kind, source_id, amount_micros, currency, balance_after_micros, reason, created_by)
       VALUES ($1, $2, $3, $4, $5, 0, $6, $7)
       ON CONFLICT (account_id, kind, source_id) DO NOTHING RETURNING id`,
      [e.accountId, e.kind, e.sourceId, e.amountMicros.toString(), e.currency, e.reason, e.createdBy],
    );
    if (inserted.length === 0) return null;
    const [[customer]] = await m.query<[Array<{ balance_micros: string }>, number]>(
      `UPDATE accounts.customer SET balance_micros = balance_micros + $2::bigint, updated_at = now() WHERE id = $1 RETURNING balance_micros`,
      [e.accountId, e.amountMicros.toString()],
    );
    // the entry has no foreign key (docs/decisions/0115): this throw, rolling the insert back, keeps a missing account's out
    if (!customer) throw new Error(`ledger: account ${e.accountId} does not exist`);
    // by the ledger's key (account, id): no index has `id` alone (docs/decisions/0222)
    const [rows] = await m.query<[EntryRow[], number]>(`UPDATE accounts.balance_entry SET balance_after_micros = $3 WHERE account_id = $1 AND id = $2 RETURNING *`, [
      e.accountId,
      inserted[0].id,
      customer.balance_micros,
    ]);
    return toEntity(rows[0]);
  }

  /**
   * `apply` for many entries in one go (the messaging consumer's batches): entries already recorded are skipped,
   * each account's balance moves once by the sum of its new entries, and every new entry gets the balance after it
   * in the order given. Returns, per account with new entries, how many and its balance after the last one (with
   * that entry's kind and currency). Throws if an account does not exist.
   *
   * One statement does it all (docs/decisions/0107): it locks the accounts' rows (in id order, so two batches never
   * deadlock), inserts the entries with the running balance after each already set from the locked balances, moves
   * each balance by the sum of what was inserted, and returns one row per account. No entry row comes back to node:
   * before, the batch's every row was returned and parsed (`RETURNING *`), which with the per-event delivery cost more
   * CPU than the insert itself. Only when some entries were skipped (recorded before, or twice in the batch) are the
   * new ones' balances after set again, by one UPDATE from the new entries alone. Every ledger writer of an account
   * holds its row until commit, so no entry of it can commit between the lock and the insert.
   *
   * The entries have no foreign key to the accounts (docs/decisions/0115): only entries of accounts the statement locked
   * are inserted (`given` joins `locked`), and a batch naming an account that does not exist throws and rolls back, so
   * the bus retries its events one by one and dead-letters that account's alone.
   */
  async applyMany(entries: LedgerEntryInput[], m: EntityManager): Promise<LedgerBatchResult[]> {
    if (entries.length === 0) return [];
    const accounts = [...new Set(entries.map((e) => e.accountId))].sort((x, y) => (BigInt(x) < BigInt(y) ? -1 : BigInt(x) > BigInt(y) ? 1 : 0));
    const rows = await m.query<
      Array<{ account_id: string; inserted: number; given: number; start: string; balance: string | null; min_id: string | null; max_id: string | null; kind: BalanceEntryKindValue | null; currency: string | null }>
    >(
      APPLY_MANY_SQL,
      // array literals joined here (pgArray): the driver would escape every element of every column one by one
      [
        pgArray(entries.map((e) => e.accountId)),
        pgArray(entries.map((e) => e.kind)),
        pgArray(entries.map((e) => e.sourceId)),
        pgArray(entries.map((e) => e.amountMicros)),
        pgArray(entries.map((e) => e.currency)),
        pgArray(entries.map((e) => e.reason)),
        pgArray(entries.map((e) => e.createdBy)),
        pgArray(accounts),
      ],
    );
    if (rows.length < accounts.length) {
      const found = new Set(rows.map((r) => r.account_id));
      throw new Error(`ledger: account ${accounts.filter((a) => !found.has(a)).join(', ')} does not exist`);
    }
    const skipped = rows.filter((r) => r.inserted > 0 && r.inserted < r.given);
    if (skipped.length > 0) {
      // some were skipped: the running balance over the new entries only (ids are in the order given)
      await m.query(
        `UPDATE accounts.balance_entry e SET balance_after_micros = f.after
           FROM (SELECT b.account_id, b.id, a.start + sum(b.amount_micros) OVER (PARTITION BY b.account_id ORDER BY b.id) AS after
                   FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[]) AS a(account_id, start, min_id, max_id)
                   JOIN accounts.balance_entry b ON b.account_id = a.account_id AND b.id BETWEEN a.min_id AND a.max_id) f
          WHERE e.account_id = f.account_id AND e.id = f.id AND e.balance_after_micros <> f.after`,
        [skipped.map((r) => r.account_id), skipped.map((r) => r.start), skipped.map((r) => r.min_id), skipped.map((r) => r.max_id)],
      );
    }
    return rows
      .filter((r) => r.inserted > 0)
      .map((r) => ({ accountId: r.account_id, inserted: r.inserted, balanceAfterMicros: r.balance!, kind: r.kind!, currency: r.currency! }));
  }

  async list(accountId: string, skip: number, take: number): Promise<[BalanceEntryEntity[], number]> {
    const rows = await this.ds.query<EntryRow[]>(`SELECT * FROM accounts.balance_entry WHERE account_id = $1 ORDER BY id DESC OFFSET $2 LIMIT $3`, [accountId, skip, take]);
    const [{ n }] = await this.ds.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM accounts.balance_entry WHERE account_id = $1`, [accountId]);
    return [rows.map(toEntity), n];
  }
}
