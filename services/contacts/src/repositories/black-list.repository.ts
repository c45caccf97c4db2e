import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { CONTACTS_CONNECTION } from '../contacts.options';
import { likePattern, one, rows } from '../db/sql';

export interface BlackListRow {
  id: string;
  account_id: string;
  phone: string;
  normalized_phone: string;
  import_list_id: string | null;
  created_at: Date;
}

const COLUMNS = 'id, account_id, phone, normalized_phone, import_list_id, created_at';

@Injectable()
export class BlackListRepository {
  constructor(@InjectDataSource(CONTACTS_CONNECTION) private readonly ds: DataSource) {}

  private where(f: { phone?: string; importList?: string }, p: unknown[]): string {
    const w = ['account_id = $1'];
    if (f.phone) w.push(`(normalized_phone ILIKE $${p.push(likePattern(f.phone))} OR phone ILIKE $${p.length})`);
    if (f.importList) w.push(`import_list_id = $${p.push(f.importList)}`);
    return w.join(' AND ');
  }

  list(accountId: string, f: { phone?: string; importList?: string }, page: { skip: number; take: number; dir: 'ASC' | 'DESC' }): Promise<BlackListRow[]> {
    const p: unknown[] = [accountId];
    const w = this.where(f, p);
    return rows(this.ds, `SELECT ${COLUMNS} FROM contacts.black_list WHERE ${w} ORDER BY id ${page.dir} OFFSET $${p.push(page.skip)} LIMIT $${p.push(page.take)}`, p);
  }

  async count(accountId: string, f: { phone?: string; importList?: string }): Promise<number> {
    const p: unknown[] = [accountId];
    return (await one<{ n: number }>(this.ds, `SELECT count(*)::int AS n FROM contacts.black_list WHERE ${this.where(f, p)}`, p))?.n ?? 0;
  }

  /** Adds a number; null when it is already there. Contacts with it are blocked in the same statement. */
  insert(accountId: string, phone: string, normalizedPhone: string, m: EntityManager): Promise<BlackListRow | null> {
    return one(
      m,
      `WITH ins AS (
         INSERT INTO contacts.black_list (account_id, phone, normalized_phone) VALUES ($1, $2, $3)
         ON CONFLICT (account_id, normalized_phone) DO NOTHING RETURNING ${COLUMNS}
       ), blk AS (
         UPDATE contacts.contact c SET blocked = true, updated_at = now() FROM ins WHERE c.account_id = $1 AND c.normalized_phone = ins.normalized_phone
       )
       SELECT * FROM ins`,
      [accountId, phone, normalizedPhone],
    );
  }

  /** Removes an entry and unblocks the contact with that number. */
  delete(accountId: string, id: string, m: EntityManager): Promise<BlackListRow | null> {
    return one(
      m,
      `WITH del AS (DELETE FROM contacts.black_list WHERE account_id = $1 AND id = $2 RETURNING ${COLUMNS}),
            unb AS (UPDATE contacts.contact c SET blocked = false, updated_at = now() FROM del WHERE c.account_id = $1 AND c.normalized_phone = del.normalized_phone)
       SELECT * FROM del`,
      [accountId, id],
    );
  }
}
