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

  async list(accountId: string, skip: number, take: number): Promise<[BalanceEntryEntity[], number]> {
    const rows = await this.ds.query<EntryRow[]>(`SELECT * FROM accounts.balance_entry WHERE account_id = $1 ORDER BY id DESC OFFSET $2 LIMIT $3`, [accountId, skip, take]);
    const [{ n }] = await this.ds.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM accounts.balance_entry WHERE account_id = $1`, [accountId]);
    return [rows.map(toEntity), n];
  }
}
