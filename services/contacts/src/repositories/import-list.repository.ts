import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { CONTACTS_CONNECTION } from '../contacts.options';
import { likePattern, one, rows, type Queryable } from '../db/sql';

export interface MappingEntry {
  column: number;
  variable: string;
}

export interface ImportListRow {
  id: string;
  account_id: string;
  name: string;
  type: 'contacts' | 'blacklist';
  status: 'error' | 'uploaded' | 'mapped' | 'processing' | 'parsed';
  file_name: string;
  file_path: string | null;
  file_format: 'csv' | 'xlsx';
  file_size: string;
  delimiter: ',' | ';' | '\t' | null;
  columns: number;
  preview: Array<{ line: number; cells: string[] }>;
  mapping: MappingEntry[] | null;
  ignore_first_line: boolean;
  default_country: string | null;
  parsed: number;
  failed: number;
  duplicates: number;
  invalid: number;
  not_mobile: number;
  blacklisted: number;
  number_of_contacts: number;
  progress: number;
  error: string | null;
  integration_key: string | null;
  contact_list_id: string | null;
  created_by: string | null;
  attempts: number;
  lease_owner: string | null;
  lease_until: Date | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

export interface ImportCounters {
  parsed: number;
  failed: number;
  duplicates: number;
  invalid: number;
  notMobile: number;
  blacklisted: number;
  numberOfContacts: number;
}

const T = 'contacts.import_list';

@Injectable()
export class ImportListRepository {
  constructor(@InjectDataSource(CONTACTS_CONNECTION) private readonly ds: DataSource) {}

  private q(m?: EntityManager): Queryable {
    return m ?? this.ds;
  }

  private where(f: { status?: string; type?: string; types?: string[]; name?: string }, params: unknown[]): string {
    const w = ['account_id = $1'];
    if (f.status) w.push(`status = $${params.push(f.status)}`);
    if (f.type) w.push(`type = $${params.push(f.type)}`);
    if (f.types) w.push(`type = ANY($${params.push(f.types)}::text[])`);
    if (f.name) w.push(`name ILIKE $${params.push(likePattern(f.name))}`);
    return w.join(' AND ');
  }

  list(accountId: string, f: { status?: string; type?: string; types?: string[]; name?: string }, page: { skip: number; take: number; dir: 'ASC' | 'DESC' }): Promise<ImportListRow[]> {
    const params: unknown[] = [accountId];
    const where = this.where(f, params);
    return rows(this.ds, `SELECT * FROM ${T} WHERE ${where} ORDER BY id ${page.dir} OFFSET $${params.push(page.skip)} LIMIT $${params.push(page.take)}`, params);
  }

  async count(accountId: string, f: { status?: string; type?: string; types?: string[]; name?: string }): Promise<number> {
    const params: unknown[] = [accountId];
    return (await one<{ n: number }>(this.ds, `SELECT count(*)::int AS n FROM ${T} WHERE ${this.where(f, params)}`, params))?.n ?? 0;
  }

  find(accountId: string, id: string, m?: EntityManager): Promise<ImportListRow | null> {
    return one(this.q(m), `SELECT * FROM ${T} WHERE account_id = $1 AND id = $2`, [accountId, id]);
  }

  /** Locks the row for a state change (mapping, start, delete) against a concurrent one. */
  findForUpdate(accountId: string, id: string, m: EntityManager): Promise<ImportListRow | null> {
    return one(m, `SELECT * FROM ${T} WHERE account_id = $1 AND id = $2 FOR UPDATE`, [accountId, id]);
  }

  findMany(accountId: string, ids: string[]): Promise<ImportListRow[]> {
    if (!ids.length) return Promise.resolve([]);
    return rows(this.ds, `SELECT * FROM ${T} WHERE account_id = $1 AND id = ANY($2::bigint[])`, [accountId, ids]);
  }

  async insert(
    accountId: string,
    v: { name: string; type: string; fileName: string; filePath: string; fileFormat: string; fileSize: number; delimiter: string | null; columns: number; preview: unknown; createdBy: string | null },
  ): Promise<ImportListRow> {
    return (await one<ImportListRow>(
      this.ds,
      `INSERT INTO ${T} (account_id, name, type, status, file_name, file_path, file_format, file_size, delimiter, columns, preview, created_by)
       VALUES ($1, $2, $3, 'uploaded', $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
      [accountId, v.name, v.type, v.fileName, v.filePath, v.fileFormat, v.fileSize, v.delimiter, v.columns, JSON.stringify(v.preview), v.createdBy],
    )) as ImportListRow;
  }

  async saveMapping(
    accountId: string,
    id: string,
    v: { name: string; mapping: MappingEntry[] | null; ignoreFirstLine: boolean; defaultCountry: string | null; status: string },
    m: EntityManager,
  ): Promise<ImportListRow> {
    return (await one<ImportListRow>(
      m,
      `UPDATE ${T} SET name = $3, mapping = $4, ignore_first_line = $5, default_country = $6, status = $7 WHERE account_id = $1 AND id = $2 RETURNING *`,
      [accountId, id, v.name, v.mapping === null ? null : JSON.stringify(v.mapping), v.ignoreFirstLine, v.defaultCountry, v.status],
    )) as ImportListRow;
  }

  async markProcessing(accountId: string, id: string, contactListId: string | null, m: EntityManager): Promise<ImportListRow> {
    return (await one<ImportListRow>(
      m,
      `UPDATE ${T} SET status = 'processing', contact_list_id = $3, progress = 0, attempts = 0, lease_owner = NULL, lease_until = NULL,
              started_at = clock_timestamp(), parsed = 0, failed = 0, duplicates = 0, invalid = 0, not_mobile = 0, blacklisted = 0, number_of_contacts = 0, error = NULL
        WHERE account_id = $1 AND id = $2 RETURNING *`,
      [accountId, id, contactListId],
    )) as ImportListRow;
  }

  /** The import and its rejected rows. */
  async delete(accountId: string, id: string, m?: EntityManager): Promise<void> {
    await this.q(m).query(`DELETE FROM contacts.import_row_error WHERE account_id = $1 AND import_list_id = $2`, [accountId, id]);
    await this.q(m).query(`DELETE FROM ${T} WHERE account_id = $1 AND id = $2`, [accountId, id]);
  }

  // --- the job loop (not tenant-scoped by the caller: it works for every account) ---

  /**
   * Takes the oldest processing import nobody holds (never taken, or its holder's lease ran out), counting the
   * attempt. SKIP LOCKED: replicas polling at once take different imports.
   */
  claim(owner: string, leaseSeconds: number): Promise<ImportListRow | null> {
    return one(
      this.ds,
      `UPDATE ${T} SET lease_owner = $1, lease_until = now() + make_interval(secs => $2), attempts = attempts + 1
        WHERE id = (SELECT id FROM ${T} WHERE status = 'processing' AND (lease_until IS NULL OR lease_until < now())
                     ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING *`,
      [owner, leaseSeconds],
    );
  }

  /** Extends the lease; false when another process took the import over (the holder must stop). */
  async renew(id: string, owner: string, leaseSeconds: number): Promise<boolean> {
    return (await rows(this.ds, `UPDATE ${T} SET lease_until = now() + make_interval(secs => $3) WHERE id = $1 AND lease_owner = $2 AND status = 'processing' RETURNING id`, [id, owner, leaseSeconds])).length > 0;
  }

  /** Gives the import back at once (clean shutdown), so the next process resumes it without waiting for the lease. */
  async release(id: string, owner: string): Promise<void> {
    await this.ds.query(`UPDATE ${T} SET lease_until = NULL, lease_owner = NULL WHERE id = $1 AND lease_owner = $2 AND status = 'processing'`, [id, owner]);
  }

  async progress(id: string, owner: string, progress: number, c: ImportCounters): Promise<void> {
    await this.ds.query(
      `UPDATE ${T} SET progress = $3, parsed = $4, failed = $5, duplicates = $6, invalid = $7, not_mobile = $8, blacklisted = $9, number_of_contacts = $10
        WHERE id = $1 AND lease_owner = $2 AND status = 'processing'`,
      [id, owner, progress, c.parsed, c.failed, c.duplicates, c.invalid, c.notMobile, c.blacklisted, c.numberOfContacts],
    );
  }

  /**
   * The final state, in the import's own transaction; false when the import is no longer this process's. The time
   * is the clock's, not now(): now() is when the transaction began, at the start of the run.
   */
  async finish(id: string, owner: string, c: ImportCounters, m: EntityManager): Promise<boolean> {
    return (
      await rows(
        m,
        `UPDATE ${T} SET status = 'parsed', progress = 100, parsed = $3, failed = $4, duplicates = $5, invalid = $6, not_mobile = $7, blacklisted = $8,
                number_of_contacts = $9, finished_at = clock_timestamp(), lease_owner = NULL, lease_until = NULL, file_path = NULL
          WHERE id = $1 AND lease_owner = $2 AND status = 'processing' RETURNING id`,
        [id, owner, c.parsed, c.failed, c.duplicates, c.invalid, c.notMobile, c.blacklisted, c.numberOfContacts],
      )
    ).length > 0;
  }

  async fail(id: string, error: string, m?: EntityManager): Promise<ImportListRow | null> {
    return one(
      this.q(m),
      `UPDATE ${T} SET status = 'error', error = $2, progress = 0, parsed = 0, failed = 0, duplicates = 0, invalid = 0, not_mobile = 0, blacklisted = 0,
              number_of_contacts = 0, contact_list_id = NULL, finished_at = clock_timestamp(), lease_owner = NULL, lease_until = NULL, file_path = NULL
        WHERE id = $1 AND status = 'processing' RETURNING *`,
      [id, error.slice(0, 1000)],
    );
  }
}
