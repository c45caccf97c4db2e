import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Pool, type PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { DATABASE_URL } from '@switchboard/platform';
import { CAMPAIGNS_SCHEMA } from '../campaigns.options';

/** A COPY text field: `\N` for null, backslash, tab and line breaks escaped. */
export function copyField(v: string | number | null | undefined): string {
  if (v === null || v === undefined) return '\\N';
  const s = String(v);
  return /[\\\t\n\r]/.test(s) ? s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r') : s;
}

/**
 * The runner's own small pool, for COPY (audience snapshots): TypeORM's query runners do not expose COPY, and a
 * million recipients go in far faster by COPY than by INSERT.
 */
@Injectable()
export class RunnerDatabase implements OnApplicationShutdown {
  readonly pool: Pool;

  constructor(@Inject(DATABASE_URL) url: string) {
    this.pool = new Pool({ connectionString: url, max: 4, application_name: 'switchboard-campaigns-runner', options: `-c search_path=${CAMPAIGNS_SCHEMA},public` });
    this.pool.on('error', () => undefined);
    this.pool.on('connect', (client) => client.on('error', () => undefined));
  }

  async transaction<T>(work: (c: PoolClient) => Promise<T>): Promise<T> {
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      const value = await work(c);
      await c.query('COMMIT');
      return value;
    } catch (e) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      c.release();
    }
  }

  /** COPY of text rows (already escaped, tab-separated, newline-terminated) into `table (columns)`. */
  async copy(c: PoolClient, table: string, columns: string[], text: string): Promise<void> {
    const stream = c.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
    await new Promise<void>((resolve, reject) => {
      stream.on('finish', () => resolve());
      stream.on('error', reject);
      stream.end(text);
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }
}
