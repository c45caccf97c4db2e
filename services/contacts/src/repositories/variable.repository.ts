import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { CONTACTS_CONNECTION } from '../contacts.options';
import { likePattern, one, rows } from '../db/sql';

export interface VariableRow {
  id: string;
  account_id: string | null;
  name: string;
  ui_name: string;
  type: string;
  hidden: boolean;
  is_standard: boolean;
  example: string | null;
  created_at: Date;
}

const COLUMNS = 'id, account_id, name, ui_name, type, hidden, is_standard, example, created_at';

/** Standard variables (account_id null) and each account's custom ones. */
@Injectable()
export class VariableRepository {
  constructor(@InjectDataSource(CONTACTS_CONNECTION) private readonly ds: DataSource) {}

  private q(m?: EntityManager) {
    return m ?? this.ds;
  }

  /** Standard first, then custom, by id. */
  list(accountId: string, opts: { skip: number; take: number; order: 'ASC' | 'DESC'; search?: string; isStandard?: boolean }): Promise<VariableRow[]> {
    return rows<VariableRow>(
      this.ds,
      `SELECT ${COLUMNS} FROM contacts.variable
        WHERE (account_id = $1 OR account_id IS NULL)
          AND ($2::text IS NULL OR name ILIKE $2 OR ui_name ILIKE $2)
          AND ($3::boolean IS NULL OR is_standard = $3)
        ORDER BY is_standard DESC, id ${opts.order === 'ASC' ? 'ASC' : 'DESC'} OFFSET $4 LIMIT $5`,
      [accountId, opts.search ? likePattern(opts.search) : null, opts.isStandard ?? null, opts.skip, opts.take],
    );
  }

  async count(accountId: string, opts: { search?: string; isStandard?: boolean }): Promise<number> {
    const r = await one<{ n: number }>(
      this.ds,
      `SELECT count(*)::int AS n FROM contacts.variable
        WHERE (account_id = $1 OR account_id IS NULL)
          AND ($2::text IS NULL OR name ILIKE $2 OR ui_name ILIKE $2)
          AND ($3::boolean IS NULL OR is_standard = $3)`,
      [accountId, opts.search ? likePattern(opts.search) : null, opts.isStandard ?? null],
    );
    return r?.n ?? 0;
  }

  /** All variables usable by the account (standard and custom). */
  all(accountId: string, m?: EntityManager): Promise<VariableRow[]> {
    return rows<VariableRow>(this.q(m), `SELECT ${COLUMNS} FROM contacts.variable WHERE account_id = $1 OR account_id IS NULL ORDER BY id`, [accountId]);
  }

  async find(accountId: string, id: string, m?: EntityManager): Promise<VariableRow | null> {
    return one<VariableRow>(this.q(m), `SELECT ${COLUMNS} FROM contacts.variable WHERE id = $2 AND (account_id = $1 OR account_id IS NULL)`, [accountId, id]);
  }

  async nameTaken(accountId: string, name: string, exceptId: string | null, m?: EntityManager): Promise<boolean> {
    const found = await rows(
      this.q(m),
      `SELECT 1 FROM contacts.variable WHERE lower(name) = lower($2) AND (account_id = $1 OR account_id IS NULL) AND ($3::bigint IS NULL OR id <> $3) LIMIT 1`,
      [accountId, name, exceptId],
    );
    return found.length > 0;
  }

  async insert(accountId: string, v: { name: string; uiName: string; type: string; hidden: boolean; example: string | null }, m?: EntityManager): Promise<VariableRow> {
    const row = await one<VariableRow>(
      this.q(m),
      `INSERT INTO contacts.variable (account_id, name, ui_name, type, hidden, example) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
      [accountId, v.name, v.uiName, v.type, v.hidden, v.example],
    );
    return row as VariableRow;
  }

  async update(accountId: string, id: string, v: { name: string; uiName: string; type: string; hidden: boolean; example: string | null }, m?: EntityManager): Promise<VariableRow | null> {
    return one<VariableRow>(
      this.q(m),
      `UPDATE contacts.variable SET name = $3, ui_name = $4, type = $5, hidden = $6, example = $7, updated_at = now()
        WHERE id = $2 AND account_id = $1 RETURNING ${COLUMNS}`,
      [accountId, id, v.name, v.uiName, v.type, v.hidden, v.example],
    );
  }

  async delete(accountId: string, id: string, m?: EntityManager): Promise<boolean> {
    return (await rows(this.q(m), `DELETE FROM contacts.variable WHERE id = $2 AND account_id = $1 RETURNING id`, [accountId, id])).length > 0;
  }
}
