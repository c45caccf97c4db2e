import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
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
    if (!customer) throw new Error(`ledger: account ${e.accountId} does not exist`);
    const [rows] = await m.query<[EntryRow[], number]>(`UPDATE accounts.balance_entry SET balance_after_micros = $2 WHERE id = $1 RETURNING *`, [
      inserted[0].id,
      customer.balance_micros,
    ]);
    return toEntity(rows[0]);
  }

  /**
   * `apply` for many entries in one go (the messaging consumer's batches): entries already recorded are skipped,
   * each account's balance moves once by the sum of its new entries, and every new entry gets the balance after it
   * in the order given. Returns the new entries, in that order. Throws if an account does not exist.
   *
   * The accounts' rows are locked first (in id order, so two batches never deadlock), which makes their balances the
   * start of every running balance: each entry is inserted with its balance after already set (docs/decisions/0074;
   * before, every entry was written twice, an INSERT then an UPDATE of its balance after). Only when some entries
   * were skipped (recorded before, or twice in the batch) are the new ones' balances after set again, from the new
   * entries alone. Every ledger writer of an account holds its row until commit, so no entry of it can commit between
   * the read and the insert.
   */
  async applyMany(entries: LedgerEntryInput[], m: EntityManager): Promise<BalanceEntryEntity[]> {
    if (entries.length === 0) return [];
    const accounts = [...new Set(entries.map((e) => e.accountId))].sort((x, y) => (BigInt(x) < BigInt(y) ? -1 : BigInt(x) > BigInt(y) ? 1 : 0));
    const locked = await m.query<Array<{ id: string; balance_micros: string }>>(
      `SELECT id::text AS id, balance_micros::text AS balance_micros FROM accounts.customer WHERE id = ANY($1::bigint[]) ORDER BY id FOR NO KEY UPDATE`,
      [accounts],
    );
    const start = new Map(locked.map((r) => [r.id, BigInt(r.balance_micros)]));
    const missing = accounts.filter((a) => !start.has(a));
    if (missing.length) throw new Error(`ledger: account ${missing.join(', ')} does not exist`);
    // the balance after each entry if every one is new: the account's balance plus the entries up to it, in order
    const running = new Map(start);
    const afterIfAllNew = entries.map((e) => {
      const b = running.get(e.accountId)! + e.amountMicros;
      running.set(e.accountId, b);
      return b.toString();
    });
    const inserted = await m.query<EntryRow[]>(
      `INSERT INTO accounts.balance_entry (account_id, kind, source_id, amount_micros, currency, balance_after_micros, reason, created_by)
       SELECT account_id, kind, source_id, amount_micros, currency, after, reason, created_by
         FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::bigint[], $8::bigint[])
           WITH ORDINALITY AS t(account_id, kind, source_id, amount_micros, currency, reason, created_by, after, n)
        ORDER BY n
       ON CONFLICT (account_id, kind, source_id) DO NOTHING RETURNING *`,
      [
        entries.map((e) => e.accountId),
        entries.map((e) => e.kind),
        entries.map((e) => e.sourceId),
        entries.map((e) => e.amountMicros.toString()),
        entries.map((e) => e.currency),
        entries.map((e) => e.reason),
        entries.map((e) => e.createdBy),
        afterIfAllNew,
      ],
    );
    if (inserted.length === 0) return [];
    // ids come from a sequence in insertion order: sorting by id is the order given
    inserted.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
    const sums = new Map<string, bigint>();
    for (const r of inserted) sums.set(String(r.account_id), (sums.get(String(r.account_id)) ?? 0n) + BigInt(r.amount_micros));
    await m.query(`UPDATE accounts.customer c SET balance_micros = c.balance_micros + t.amount, updated_at = now() FROM unnest($1::bigint[], $2::bigint[]) AS t(id, amount) WHERE c.id = t.id`, [
      [...sums.keys()],
      [...sums.values()].map(String),
    ]);
    if (inserted.length === entries.length) return inserted.map(toEntity);
    // some were skipped: the running balance over the new entries only
    const again = new Map(start);
    const after = inserted.map((r) => {
      const b = again.get(String(r.account_id))! + BigInt(r.amount_micros);
      again.set(String(r.account_id), b);
      return b.toString();
    });
    const [rows] = await m.query<[EntryRow[], number]>(
      `UPDATE accounts.balance_entry e SET balance_after_micros = t.after FROM unnest($1::bigint[], $2::bigint[]) AS t(id, after)
        WHERE e.id = t.id RETURNING e.*`,
      [inserted.map((r) => r.id), after],
    );
    return rows.map(toEntity).sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
  }

  async list(accountId: string, skip: number, take: number): Promise<[BalanceEntryEntity[], number]> {
    const rows = await this.ds.query<EntryRow[]>(`SELECT * FROM accounts.balance_entry WHERE account_id = $1 ORDER BY id DESC OFFSET $2 LIMIT $3`, [accountId, skip, take]);
    const [{ n }] = await this.ds.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM accounts.balance_entry WHERE account_id = $1`, [accountId]);
    return [rows.map(toEntity), n];
  }
}
