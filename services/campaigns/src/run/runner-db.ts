import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { type ClientBase, Pool, type PoolClient } from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { ArrayLiteralClient, DATABASE_URL, withLiterals } from '@switchboard/platform';
import { CAMPAIGNS_SCHEMA } from '../campaigns.options';

/** A COPY text field: `\N` for null, backslash, tab and line breaks escaped. */
export function copyField(v: string | number | null | undefined): string {
  if (v === null || v === undefined) return '\\N';
  const s = String(v);
  return /[\\\t\n\r]/.test(s) ? s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r') : s;
}

/**
 * The fields of `COPY (select) TO STDOUT` on `c`, `width` a row, row after row in one array (docs/decisions/0156).
 * A page of recipients read this way costs Node a UTF-8 decode of each chunk as it arrives and a cut per field, where a
 * query's rows cost a buffer slice and a decode per field, a parsed message and an object per row: most of compose's
 * time apart from composing, and most of its garbage. The chunks are cut while PostgreSQL still writes the next ones.
 */
export async function copyOutFields(c: ClientBase, select: string, values: readonly unknown[], width: number): Promise<Array<string | null>> {
  // COPY takes no parameters: `select`'s `$n` are written in as quoted literals (as contacts' audience read does)
  const stream = c.query(copyTo(`COPY (${withLiterals(select, values, (t) => c.escapeLiteral(t))}) TO STDOUT`));
  const out: Array<string | null> = [];
  // the bytes after a chunk's last line break: the start of a row the next chunk ends (a line break is never inside a
  // UTF-8 character, nor inside a field: COPY writes it as \n)
  let rest: Buffer | null = null;
  await new Promise<void>((resolve, reject) => {
    stream.on('data', (b: Buffer) => {
      const nl = b.lastIndexOf(10);
      if (nl < 0) {
        rest = rest ? Buffer.concat([rest, b]) : Buffer.from(b);
        return;
      }
      const rows = rest ? Buffer.concat([rest, b.subarray(0, nl + 1)]) : b.subarray(0, nl + 1);
      rest = nl + 1 < b.length ? Buffer.from(b.subarray(nl + 1)) : null;
      copyTextFields(rows.toString('utf8'), width, out);
    });
    stream.on('end', () => (rest ? reject(new Error('COPY text: the last row has no line break')) : resolve()));
    stream.on('error', reject);
  });
  return out;
}

/**
 * The fields of whole COPY text rows of `width` columns appended to `out`, row after row (`null` for `\N`), escapes
 * undone: no array or object per row.
 */
export function copyTextFields(text: string, width: number, out: Array<string | null> = []): Array<string | null> {
  const last = width - 1;
  let at = 0;
  // the next backslash at or after `at` (-1: none left), so a field without one is a plain slice
  let slash = text.indexOf('\\');
  while (at < text.length) {
    for (let col = 0; col < width; col++) {
      const end = text.indexOf(col === last ? '\n' : '\t', at);
      if (end < 0) throw new Error(`COPY text: a row of fewer than ${width} fields`);
      if (slash >= 0 && slash < at) slash = text.indexOf('\\', at);
      out.push(slash < 0 || slash >= end ? text.slice(at, end) : copyTextValue(text, at, slash, end));
      at = end + 1;
    }
  }
  return out;
}

const UNESCAPED: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

/** A field of COPY text, `text[from, to)`, whose first backslash is at `slash`: `\N` is null, an escape its character. */
function copyTextValue(text: string, from: number, slash: number, to: number): string | null {
  if (slash === from && to - from === 2 && text.charCodeAt(from + 1) === 78 /* N */) return null;
  let out = text.slice(from, slash);
  for (let i = slash; i < to; i++) {
    const ch = text[i];
    if (ch !== '\\' || i + 1 >= to) {
      out += ch;
      continue;
    }
    const next = text[++i];
    out += UNESCAPED[next] ?? next;
  }
  return out;
}

/**
 * The runner's own small pool, for COPY (audience snapshots): TypeORM's query runners do not expose COPY, and a
 * million recipients go in far faster by COPY than by INSERT.
 */
@Injectable()
export class RunnerDatabase implements OnApplicationShutdown {
  readonly pool: Pool;

  constructor(@Inject(DATABASE_URL) url: string) {
    this.pool = new Pool({ connectionString: url, max: 4, application_name: 'switchboard-campaigns-runner', options: `-c search_path=${CAMPAIGNS_SCHEMA},public`, Client: ArrayLiteralClient });
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

  /** `copyOutFields` on a client of this pool. */
  async copyOut(select: string, values: readonly unknown[], width: number): Promise<Array<string | null>> {
    const c = await this.pool.connect();
    try {
      return await copyOutFields(c, select, values, width);
    } finally {
      c.release();
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }
}
