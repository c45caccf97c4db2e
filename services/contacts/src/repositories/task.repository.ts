import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { CONTACTS_CONNECTION } from '../contacts.options';
import { one, rows, type Queryable } from '../db/sql';

export interface TaskRow {
  id: string;
  account_id: string;
  user_id: string | null;
  type: string;
  status: 'pending' | 'running' | 'done' | 'error';
  progress: number;
  file_type: 'CSV' | 'none';
  params: Record<string, unknown>;
  file_path: string | null;
  file_name: string | null;
  total: number;
  processed: number;
  error: string | null;
  attempts: number;
  lease_owner: string | null;
  lease_until: Date | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

const T = 'contacts.task';

@Injectable()
export class TaskRepository {
  constructor(@InjectDataSource(CONTACTS_CONNECTION) private readonly ds: DataSource) {}

  private q(m?: EntityManager): Queryable {
    return m ?? this.ds;
  }

  list(accountId: string, f: { type?: string; status?: string }, page: { skip: number; take: number; dir: 'ASC' | 'DESC' }): Promise<TaskRow[]> {
    return rows(
      this.ds,
      `SELECT * FROM ${T} WHERE account_id = $1 AND ($2::text IS NULL OR type = $2) AND ($3::text IS NULL OR status = $3) ORDER BY id ${page.dir} OFFSET $4 LIMIT $5`,
      [accountId, f.type ?? null, f.status ?? null, page.skip, page.take],
    );
  }

  async count(accountId: string, f: { type?: string; status?: string }): Promise<number> {
    return (await one<{ n: number }>(this.ds, `SELECT count(*)::int AS n FROM ${T} WHERE account_id = $1 AND ($2::text IS NULL OR type = $2) AND ($3::text IS NULL OR status = $3)`, [accountId, f.type ?? null, f.status ?? null]))?.n ?? 0;
  }

  find(accountId: string, id: string, m?: EntityManager): Promise<TaskRow | null> {
    return one(this.q(m), `SELECT * FROM ${T} WHERE account_id = $1 AND id = $2`, [accountId, id]);
  }

  async insert(accountId: string, t: { userId: string | null; type: string; fileType: string; params: unknown }, m?: EntityManager): Promise<TaskRow> {
    return (await one<TaskRow>(this.q(m), `INSERT INTO ${T} (account_id, user_id, type, status, file_type, params) VALUES ($1, $2, $3, 'pending', $4, $5) RETURNING *`, [
      accountId,
      t.userId,
      t.type,
      t.fileType,
      JSON.stringify(t.params),
    ])) as TaskRow;
  }

  delete(accountId: string, id: string, m?: EntityManager): Promise<TaskRow | null> {
    return one(this.q(m), `DELETE FROM ${T} WHERE account_id = $1 AND id = $2 RETURNING *`, [accountId, id]);
  }

  // --- the job loop ---

  /** The next task of these types (the ones this service runs; message exports are run by stats) to run. */
  claim(owner: string, leaseSeconds: number, types: readonly string[]): Promise<TaskRow | null> {
    return one(
      this.ds,
      `UPDATE ${T} SET status = 'running', lease_owner = $1, lease_until = now() + make_interval(secs => $2), attempts = attempts + 1, started_at = coalesce(started_at, clock_timestamp())
        WHERE id = (SELECT id FROM ${T} WHERE status IN ('pending', 'running') AND (lease_until IS NULL OR lease_until < now()) AND type = ANY($3::text[])
                     ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING *`,
      [owner, leaseSeconds, types],
    );
  }

  /**
   * A message export's progress or end as stats reports it (`stats.export.*`): never back from an end, never to a lower
   * progress, so a late or repeated report changes nothing. Returns the row when it changed.
   */
  async applyExport(accountId: string, id: string, v: { status: 'running' | 'done' | 'error'; total: number; processed: number; progress: number; fileName?: string | null; error?: string | null }): Promise<TaskRow | null> {
    return one(
      this.ds,
      `UPDATE ${T} SET status = $3, total = $4, processed = $5, progress = $6, file_name = coalesce($7, file_name), error = $8,
              file_path = CASE WHEN $3 = 'done' THEN 'stats' ELSE file_path END,
              started_at = coalesce(started_at, clock_timestamp()), finished_at = CASE WHEN $3 = 'running' THEN NULL ELSE clock_timestamp() END
        WHERE account_id = $1 AND id = $2 AND status IN ('pending', 'running') AND ($3 <> 'running' OR progress <= $6)
        RETURNING *`,
      [accountId, id, v.status, v.total, v.processed, v.progress, v.fileName ?? null, v.error ?? null],
    );
  }

  /** Progress and lease renewal in one; false when the task is gone (deleted) or held by another process. */
  async progress(id: string, owner: string, leaseSeconds: number, v: { total: number; processed: number; progress: number; filePath?: string | null; fileName?: string | null }, m?: EntityManager): Promise<boolean> {
    return (
      await rows(
        this.q(m),
        `UPDATE ${T} SET total = $4, processed = $5, progress = $6, file_path = coalesce($7, file_path), file_name = coalesce($8, file_name),
                lease_until = now() + make_interval(secs => $3)
          WHERE id = $1 AND lease_owner = $2 AND status = 'running' RETURNING id`,
        [id, owner, leaseSeconds, v.total, v.processed, v.progress, v.filePath ?? null, v.fileName ?? null],
      )
    ).length > 0;
  }

  async finish(id: string, owner: string, v: { total: number; processed: number }): Promise<boolean> {
    return (
      await rows(
        this.ds,
        `UPDATE ${T} SET status = 'done', progress = 100, total = $3, processed = $4, finished_at = clock_timestamp(), lease_owner = NULL, lease_until = NULL
          WHERE id = $1 AND lease_owner = $2 AND status = 'running' RETURNING id`,
        [id, owner, v.total, v.processed],
      )
    ).length > 0;
  }

  async fail(id: string, error: string): Promise<void> {
    await this.ds.query(`UPDATE ${T} SET status = 'error', error = $2, finished_at = clock_timestamp(), lease_owner = NULL, lease_until = NULL WHERE id = $1 AND status IN ('pending', 'running')`, [id, error.slice(0, 1000)]);
  }

  async release(id: string, owner: string): Promise<void> {
    await this.ds.query(`UPDATE ${T} SET lease_owner = NULL, lease_until = NULL WHERE id = $1 AND lease_owner = $2 AND status = 'running'`, [id, owner]);
  }
}
