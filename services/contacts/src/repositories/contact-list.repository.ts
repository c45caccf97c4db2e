import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { CONTACTS_CONNECTION } from '../contacts.options';
import { likePattern, one, rows, type Queryable } from '../db/sql';

export interface ContactListRow {
  id: string;
  account_id: string;
  name: string;
  description: string;
  type: 'list' | 'segment' | 'integration';
  status: number;
  progress: number;
  filter: unknown;
  import_list_id: string | null;
  num_of_contacts: number;
  created_contacts: number;
  is_deleted: boolean;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, account_id, name, description, type, status, progress, filter, import_list_id, num_of_contacts, created_contacts, is_deleted, created_at, updated_at';

export interface ListFilters {
  type?: string;
  status?: number;
  name?: string;
  ids?: string[];
}

@Injectable()
export class ContactListRepository {
  constructor(@InjectDataSource(CONTACTS_CONNECTION) private readonly ds: DataSource) {}

  private q(m?: EntityManager): Queryable {
    return m ?? this.ds;
  }

  private where(f: ListFilters, params: unknown[]): string {
    const w = ['account_id = $1', 'NOT is_deleted'];
    if (f.type) w.push(`type = $${params.push(f.type)}`);
    if (f.status !== undefined) w.push(`status = $${params.push(f.status)}`);
    if (f.name) w.push(`name ILIKE $${params.push(likePattern(f.name))}`);
    if (f.ids) w.push(`id = ANY($${params.push(f.ids)}::bigint[])`);
    return w.join(' AND ');
  }

  list(accountId: string, f: ListFilters, page: { skip: number; take: number; orderBy: string; dir: 'ASC' | 'DESC' }): Promise<ContactListRow[]> {
    const params: unknown[] = [accountId];
    const where = this.where(f, params);
    return rows(this.ds, `SELECT ${COLUMNS} FROM contacts.contact_list WHERE ${where} ORDER BY ${page.orderBy} ${page.dir}, id ${page.dir} OFFSET $${params.push(page.skip)} LIMIT $${params.push(page.take)}`, params);
  }

  async count(accountId: string, f: ListFilters): Promise<number> {
    const params: unknown[] = [accountId];
    return (await one<{ n: number }>(this.ds, `SELECT count(*)::int AS n FROM contacts.contact_list WHERE ${this.where(f, params)}`, params))?.n ?? 0;
  }

  find(accountId: string, id: string, m?: EntityManager): Promise<ContactListRow | null> {
    return one(this.q(m), `SELECT ${COLUMNS} FROM contacts.contact_list WHERE account_id = $1 AND id = $2 AND NOT is_deleted`, [accountId, id]);
  }

  findMany(accountId: string, ids: string[], m?: EntityManager): Promise<ContactListRow[]> {
    if (!ids.length) return Promise.resolve([]);
    return rows(this.q(m), `SELECT ${COLUMNS} FROM contacts.contact_list WHERE account_id = $1 AND id = ANY($2::bigint[]) AND NOT is_deleted`, [accountId, ids]);
  }

  async insert(
    accountId: string,
    l: { name: string; description: string; type: string; status: number; filter: unknown; importListId: string | null; numOfContacts: number },
    m?: EntityManager,
  ): Promise<ContactListRow> {
    const row = await one<ContactListRow>(
      this.q(m),
      `INSERT INTO contacts.contact_list (account_id, name, description, type, status, progress, filter, import_list_id, num_of_contacts)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${COLUMNS}`,
      [accountId, l.name, l.description, l.type, l.status, l.status === 2 ? 100 : 0, l.filter === null ? null : JSON.stringify(l.filter), l.importListId, l.numOfContacts],
    );
    return row as ContactListRow;
  }

  update(accountId: string, id: string, patch: { name: string; description: string; filter?: unknown; numOfContacts?: number; status?: number; progress?: number }, m?: EntityManager): Promise<ContactListRow | null> {
    return one(
      this.q(m),
      `UPDATE contacts.contact_list SET name = $3, description = $4,
         filter = CASE WHEN $5::boolean THEN $6::jsonb ELSE filter END,
         num_of_contacts = coalesce($7, num_of_contacts), status = coalesce($8, status), progress = coalesce($9, progress), updated_at = now()
       WHERE account_id = $1 AND id = $2 AND NOT is_deleted RETURNING ${COLUMNS}`,
      [accountId, id, patch.name, patch.description, patch.filter !== undefined, patch.filter === undefined ? null : JSON.stringify(patch.filter), patch.numOfContacts ?? null, patch.status ?? null, patch.progress ?? null],
    );
  }

  async progress(accountId: string, id: string, progress: number, m?: EntityManager): Promise<void> {
    await this.q(m).query(`UPDATE contacts.contact_list SET progress = $3, updated_at = now() WHERE account_id = $1 AND id = $2`, [accountId, id, progress]);
  }

  async setCount(accountId: string, id: string, numOfContacts: number, m?: EntityManager): Promise<void> {
    await this.q(m).query(`UPDATE contacts.contact_list SET num_of_contacts = $3, updated_at = now() WHERE account_id = $1 AND id = $2`, [accountId, id, numOfContacts]);
  }

  /** Moves stored counts by one contact's change of membership or sendability (no scan). */
  async adjustCounts(accountId: string, plus: string[], minus: string[], m?: EntityManager): Promise<void> {
    if (!plus.length && !minus.length) return;
    await this.q(m).query(
      `UPDATE contacts.contact_list SET num_of_contacts = greatest(0, num_of_contacts + (CASE WHEN id = ANY($2::bigint[]) THEN 1 ELSE 0 END) - (CASE WHEN id = ANY($3::bigint[]) THEN 1 ELSE 0 END)), updated_at = now()
        WHERE account_id = $1 AND type <> 'segment' AND (id = ANY($2::bigint[]) OR id = ANY($3::bigint[]))`,
      [accountId, plus, minus],
    );
  }

  /** Recounts the sendable members of lists (not segments) from the contacts: after bulk changes. */
  async recountLists(accountId: string, ids: string[] | null, m?: EntityManager): Promise<void> {
    await this.q(m).query(
      `UPDATE contacts.contact_list l SET num_of_contacts = (
          SELECT count(*) FROM contacts.contact c WHERE c.account_id = l.account_id AND c.list_ids @> ARRAY[l.id] AND NOT c.blocked AND c.opted_out_at IS NULL),
          updated_at = now()
        WHERE l.account_id = $1 AND l.type <> 'segment' AND NOT l.is_deleted AND l.status = 2 AND ($2::bigint[] IS NULL OR l.id = ANY($2::bigint[]))`,
      [accountId, ids],
    );
  }

  /** Soft delete: campaigns keep referring to the list; its id stays in contacts' list_ids and matches nothing visible. */
  async softDelete(accountId: string, id: string, m?: EntityManager): Promise<boolean> {
    return (await rows(this.q(m), `UPDATE contacts.contact_list SET is_deleted = true, updated_at = now() WHERE account_id = $1 AND id = $2 AND NOT is_deleted RETURNING id`, [accountId, id])).length > 0;
  }

  /** Removes a list row outright: only for the list of an import that failed, which never held anyone. */
  async hardDelete(accountId: string, id: string, m?: EntityManager): Promise<void> {
    await this.q(m).query(`DELETE FROM contacts.contact_list WHERE account_id = $1 AND id = $2`, [accountId, id]);
  }

  /** Lists and segments whose stored count is to be refreshed after contacts changed in bulk. */
  allLive(accountId: string): Promise<ContactListRow[]> {
    return rows(this.ds, `SELECT ${COLUMNS} FROM contacts.contact_list WHERE account_id = $1 AND NOT is_deleted AND status = 2 ORDER BY id`, [accountId]);
  }
}
