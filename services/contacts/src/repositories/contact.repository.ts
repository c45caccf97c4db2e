import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { CONTACTS_CONNECTION } from '../contacts.options';
import { one, rows, type Queryable } from '../db/sql';

export interface ContactRow {
  id: string;
  account_id: string;
  phone: string;
  normalized_phone: string;
  country: string | null;
  timezone: string | null;
  operator: string | null;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  variables: Record<string, string>;
  list_ids: string[];
  import_list_id: string | null;
  blocked: boolean;
  opted_out_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** A rejected import row, shown through the contacts API with its parse state. */
export interface RejectedRow {
  id: string;
  import_list_id: string;
  row_no: number;
  state: number;
  error: string | null;
  phone: string;
  normalized_phone: string | null;
  country: string | null;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  created_at: Date;
}

export const CONTACT_COLUMNS =
  'c.id, c.account_id, c.phone, c.normalized_phone, c.country, c.timezone, c.operator, c.first_name, c.last_name, c.email, c.variables, c.list_ids, c.import_list_id, c.blocked, c.opted_out_at, c.created_at, c.updated_at';

/** Sort keys a client may use, to their SQL; never a client's text. */
export const CONTACT_SORT: Record<string, string> = {
  id: 'c.id',
  createdAt: 'c.created_at',
  firstName: 'c.first_name',
  lastName: 'c.last_name',
  phone: 'c.normalized_phone',
};

export interface ContactWrite {
  phone: string;
  normalizedPhone: string;
  country: string | null;
  timezone: string | null;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  variables: Record<string, string>;
  listIds: string[];
}

@Injectable()
export class ContactRepository {
  constructor(@InjectDataSource(CONTACTS_CONNECTION) private readonly ds: DataSource) {}

  private q(m?: EntityManager): Queryable {
    return m ?? this.ds;
  }

  /**
   * A page of contacts matching `where` (built by SelectionService, `$1` the account). With `afterId` the page is
   * keyset-paged by id (no OFFSET): the next page of a million contacts costs what the first does.
   */
  page(where: string, params: unknown[], o: { orderBy: string; dir: 'ASC' | 'DESC'; skip: number; take: number; afterId?: string }): Promise<ContactRow[]> {
    const p = [...params];
    let w = where;
    let offset = '';
    if (o.afterId) w += ` AND c.id ${o.dir === 'DESC' ? '<' : '>'} $${p.push(o.afterId)}`;
    else offset = `OFFSET $${p.push(o.skip)}`;
    const tie = o.orderBy === 'c.id' ? '' : `, c.id ${o.dir}`;
    return rows(this.ds, `SELECT ${CONTACT_COLUMNS} FROM contacts.contact c WHERE ${w} ORDER BY ${o.orderBy} ${o.dir} NULLS LAST${tie} ${offset} LIMIT $${p.push(o.take)}`, p);
  }

  async count(where: string, params: unknown[]): Promise<number> {
    return (await one<{ n: number }>(this.ds, `SELECT count(*)::int AS n FROM contacts.contact c WHERE ${where}`, params))?.n ?? 0;
  }

  find(accountId: string, id: string, m?: EntityManager): Promise<ContactRow | null> {
    return one(this.q(m), `SELECT ${CONTACT_COLUMNS} FROM contacts.contact c WHERE c.account_id = $1 AND c.id = $2`, [accountId, id]);
  }

  findForUpdate(accountId: string, id: string, m: EntityManager): Promise<ContactRow | null> {
    return one(m, `SELECT ${CONTACT_COLUMNS} FROM contacts.contact c WHERE c.account_id = $1 AND c.id = $2 FOR UPDATE`, [accountId, id]);
  }

  async phoneTaken(accountId: string, normalizedPhone: string, exceptId: string | null, m?: EntityManager): Promise<boolean> {
    return (await rows(this.q(m), `SELECT 1 FROM contacts.contact WHERE account_id = $1 AND normalized_phone = $2 AND ($3::bigint IS NULL OR id <> $3)`, [accountId, normalizedPhone, exceptId])).length > 0;
  }

  async isBlacklisted(accountId: string, normalizedPhone: string, m?: EntityManager): Promise<boolean> {
    return (await rows(this.q(m), `SELECT 1 FROM contacts.black_list WHERE account_id = $1 AND normalized_phone = $2`, [accountId, normalizedPhone])).length > 0;
  }

  async insert(accountId: string, c: ContactWrite, blocked: boolean, m?: EntityManager): Promise<ContactRow> {
    return (await one<ContactRow>(
      this.q(m),
      `INSERT INTO contacts.contact AS c (account_id, phone, normalized_phone, country, timezone, first_name, last_name, email, variables, list_ids, blocked)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::bigint[], $11) RETURNING ${CONTACT_COLUMNS}`,
      [accountId, c.phone, c.normalizedPhone, c.country, c.timezone, c.firstName, c.lastName, c.email, JSON.stringify(c.variables), c.listIds, blocked],
    )) as ContactRow;
  }

  async update(accountId: string, id: string, c: ContactWrite, blocked: boolean, optedOutAt: Date | null, m?: EntityManager): Promise<ContactRow> {
    return (await one<ContactRow>(
      this.q(m),
      `UPDATE contacts.contact AS c SET phone = $3, normalized_phone = $4, country = $5, timezone = $6, first_name = $7, last_name = $8, email = $9,
              variables = $10, list_ids = $11::bigint[], blocked = $12, opted_out_at = $13, updated_at = now()
        WHERE c.account_id = $1 AND c.id = $2 RETURNING ${CONTACT_COLUMNS}`,
      [accountId, id, c.phone, c.normalizedPhone, c.country, c.timezone, c.firstName, c.lastName, c.email, JSON.stringify(c.variables), c.listIds, blocked, optedOutAt],
    )) as ContactRow;
  }

  async delete(accountId: string, id: string, m?: EntityManager): Promise<boolean> {
    return (await rows(this.q(m), `DELETE FROM contacts.contact WHERE account_id = $1 AND id = $2 RETURNING id`, [accountId, id])).length > 0;
  }

  /** Rejected rows of an import in the given parse states (PhoneState codes). */
  rejected(accountId: string, importListId: string, states: number[], page: { skip: number; take: number; dir: 'ASC' | 'DESC'; afterId?: string }): Promise<RejectedRow[]> {
    const p: unknown[] = [accountId, importListId, states];
    const after = page.afterId ? ` AND id ${page.dir === 'DESC' ? '<' : '>'} $${p.push(page.afterId)}` : '';
    const offset = page.afterId ? '' : `OFFSET $${p.push(page.skip)}`;
    return rows(
      this.ds,
      `SELECT id, import_list_id, row_no, state, error, phone, normalized_phone, country, first_name, last_name, email, created_at
         FROM contacts.import_row_error WHERE account_id = $1 AND import_list_id = $2 AND state = ANY($3::smallint[])${after}
        ORDER BY id ${page.dir} ${offset} LIMIT $${p.push(page.take)}`,
      p,
    );
  }

  async countRejected(accountId: string, importListId: string, states: number[]): Promise<number> {
    return (
      (await one<{ n: number }>(this.ds, `SELECT count(*)::int AS n FROM contacts.import_row_error WHERE account_id = $1 AND import_list_id = $2 AND state = ANY($3::smallint[])`, [accountId, importListId, states]))
        ?.n ?? 0
    );
  }
}
