import type { EventEnvelope } from '@switchboard/contracts';
import type { DeadLetterRecord, DeadLetterSink } from '../bus/event-bus';
import { quoteSchema } from '../outbox/sql';

/** Anything that runs SQL and answers rows: a pg Pool wrapped by `poolClient`, a TypeORM manager by `managerClient`. */
export interface SqlClient {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
}

export function poolClient(pool: { query: (sql: string, params?: unknown[]) => Promise<{ rows: unknown[] }> }): SqlClient {
  return { query: async <T>(sql: string, params?: unknown[]) => (await pool.query(sql, params)).rows as T[] };
}

/** A TypeORM DataSource or EntityManager as a SqlClient (its UPDATE/DELETE answer `[rows, count]`: rows are taken). */
export function typeormClient(runner: { query: (sql: string, params?: unknown[]) => Promise<unknown> }): SqlClient {
  return {
    query: async <T>(sql: string, params?: unknown[]) => {
      const result = await runner.query(sql, params);
      if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
      return result as T[];
    },
  };
}

export type DeadLetterStatus = 'dead' | 'replay_requested' | 'replaying' | 'replayed';
export const DEAD_LETTER_STATUSES: readonly DeadLetterStatus[] = ['dead', 'replay_requested', 'replaying', 'replayed'];

export interface DeadLetterFilter {
  service?: string;
  status?: DeadLetterStatus;
  group?: string;
}

/** A dead letter as operators see it. `id` is `<service>-<number>`, unique over every service. */
export interface DeadLetterView {
  id: string;
  service: string;
  kind: 'consume' | 'publish';
  group: string;
  topic: string;
  eventId: string | null;
  eventType: string | null;
  accountId: string | null;
  error: string;
  attempts: number;
  status: DeadLetterStatus;
  failedAt: string;
  replayRequestedAt: string | null;
  replayedAt: string | null;
  replays: number;
}

export interface DeadLetterDetail extends DeadLetterView {
  /** The event as it was (the envelope's JSON, or the unreadable record's text). */
  payload: string;
}

interface Row {
  id: string;
  kind: 'consume' | 'publish';
  group_name: string;
  topic: string;
  event_id: string | null;
  event_type: string | null;
  account_id: string | null;
  payload?: string;
  error: string;
  attempts: number;
  status: DeadLetterStatus;
  failed_at: Date;
  replay_requested_at: Date | null;
  replayed_at: Date | null;
  replays: number;
}

const COLUMNS = `id::text AS id, kind, group_name, topic, event_id, event_type, account_id, error, attempts, status, failed_at, replay_requested_at, replayed_at, replays`;
const ID = /^([a-z_][a-z0-9_]{0,62})-([1-9][0-9]{0,18})$/;

/** `dispatch-42` -> { service: 'dispatch', n: '42' }; null for anything else. */
export function parseDeadLetterId(id: string): { service: string; n: string } | null {
  const m = ID.exec(id);
  return m ? { service: m[1], n: m[2] } : null;
}

/** The service (schema) whose table keeps a group's dead letters: the group name's first segment (`dispatch.sender`). */
export const serviceOfGroup = (group: string): string => group.split('.')[0];

/**
 * The SQL that keeps one dead letter (parameters: kind, group, topic, event id, type, account, payload, error,
 * attempts). A second failure of the same event in the same group updates the open row instead of adding one.
 */
export function insertDeadLetterSql(schema: string): string {
  return `INSERT INTO ${quoteSchema(schema)}.dead_letter (kind, group_name, topic, event_id, event_type, account_id, payload, error, attempts)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
    ON CONFLICT (group_name, event_id) WHERE status <> 'replayed'
    DO UPDATE SET error = EXCLUDED.error, attempts = EXCLUDED.attempts, failed_at = now(), payload = EXCLUDED.payload,
      status = CASE WHEN dead_letter.status = 'replaying' THEN 'dead' ELSE dead_letter.status END
    RETURNING id::text AS id`;
}

export function deadLetterParams(kind: 'consume' | 'publish', record: DeadLetterRecord): unknown[] {
  const e = record.envelope;
  return [
    kind,
    record.group,
    record.topic,
    e?.id ?? null,
    e?.type ?? null,
    e?.accountId === null || e?.accountId === undefined ? null : String(e.accountId),
    e ? JSON.stringify(e) : (record.raw ?? ''),
    record.error,
    record.attempts,
  ];
}

/** Process-wide counts of events dead-lettered, by group: the metric an alert watches (also in each error log line). */
export const deadLetterCounts = new Map<string, number>();
export function countDeadLetter(group: string): number {
  const n = (deadLetterCounts.get(group) ?? 0) + 1;
  deadLetterCounts.set(group, n);
  return n;
}

/**
 * The dead letters of every service schema that has a `dead_letter` table (each service adds it by migration), over
 * one connection pool to the shared database. It is the bus drivers' DeadLetterSink (a group's letters go to its
 * service's table), the operators' view (list, show, replay) for the API and the CLI, and the replayer's queue.
 */
export class DeadLetterStore implements DeadLetterSink {
  private known: Set<string> | null = null;
  private knownAt = 0;

  constructor(private readonly sql: SqlClient) {}

  /** Services (schemas) with a dead-letter table; looked up again at most every 5 s, or when asked for a new one. */
  async services(refresh = false): Promise<string[]> {
    if (refresh || !this.known || Date.now() - this.knownAt > 5000) {
      const rows = await this.sql.query<{ schema: string }>(
        `SELECT table_schema AS schema FROM information_schema.tables WHERE table_name = 'dead_letter' AND table_type = 'BASE TABLE' ORDER BY 1`,
      );
      this.known = new Set(rows.map((r) => r.schema).filter((s) => ID.test(`${s}-1`)));
      this.knownAt = Date.now();
    }
    return [...this.known];
  }

  private async hasService(service: string): Promise<boolean> {
    if ((await this.services()).includes(service)) return true;
    return (await this.services(true)).includes(service);
  }

  async add(record: DeadLetterRecord): Promise<boolean> {
    return (await this.keep('consume', record)) !== null;
  }

  /** Keeps a dead letter in its group's service table; null when that service has none. */
  async keep(kind: 'consume' | 'publish', record: DeadLetterRecord): Promise<string | null> {
    const service = serviceOfGroup(record.group);
    if (!(await this.hasService(service))) return null;
    const [row] = await this.sql.query<{ id: string }>(insertDeadLetterSql(service), deadLetterParams(kind, record));
    countDeadLetter(record.group);
    return `${service}-${row.id}`;
  }

  /** Newest first, across services or for one; `offset` letters skipped (pages). */
  async list(filter: DeadLetterFilter & { limit?: number; offset?: number } = {}): Promise<DeadLetterView[]> {
    const limit = Math.min(Math.max(filter.limit ?? 100, 1), 1000);
    const offset = Math.max(0, filter.offset ?? 0);
    const out: DeadLetterView[] = [];
    for (const service of await this.servicesFor(filter)) {
      const rows = await this.sql.query<Row>(
        `SELECT ${COLUMNS} FROM ${quoteSchema(service)}.dead_letter
          WHERE ($1::text IS NULL OR status = $1) AND ($2::text IS NULL OR group_name = $2)
          ORDER BY failed_at DESC, id DESC LIMIT $3`,
        [filter.status ?? null, filter.group ?? null, limit + offset],
      );
      out.push(...rows.map((r) => view(service, r)));
    }
    out.sort((a, b) => (a.failedAt < b.failedAt ? 1 : a.failedAt > b.failedAt ? -1 : 0));
    return out.slice(offset, offset + limit);
  }

  async count(filter: DeadLetterFilter = {}): Promise<number> {
    let n = 0;
    for (const service of await this.servicesFor(filter)) {
      const [row] = await this.sql.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${quoteSchema(service)}.dead_letter WHERE ($1::text IS NULL OR status = $1) AND ($2::text IS NULL OR group_name = $2)`,
        [filter.status ?? null, filter.group ?? null],
      );
      n += Number(row.n);
    }
    return n;
  }

  private async servicesFor(filter: DeadLetterFilter): Promise<string[]> {
    return (await this.services(true)).filter((s) => !filter.service || s === filter.service);
  }

  async get(id: string): Promise<DeadLetterDetail | null> {
    const parsed = parseDeadLetterId(id);
    if (!parsed || !(await this.hasService(parsed.service))) return null;
    const [row] = await this.sql.query<Row>(`SELECT ${COLUMNS}, payload FROM ${quoteSchema(parsed.service)}.dead_letter WHERE id = $1`, [parsed.n]);
    return row ? { ...view(parsed.service, row), payload: row.payload ?? '' } : null;
  }

  /**
   * Asks for a replay: a `dead` letter becomes `replay_requested`, and a process running its group (or any process
   * with a bus, for a `publish` letter) replays it within seconds. Answers the letter as it is now (unchanged when it
   * was not `dead`), or null when there is no such letter.
   */
  async requestReplay(id: string): Promise<DeadLetterView | null> {
    const parsed = parseDeadLetterId(id);
    if (!parsed || !(await this.hasService(parsed.service))) return null;
    const t = `${quoteSchema(parsed.service)}.dead_letter`;
    await this.sql.query(`UPDATE ${t} SET status = 'replay_requested', replay_requested_at = now() WHERE id = $1 AND status = 'dead' RETURNING id`, [parsed.n]);
    const [row] = await this.sql.query<Row>(`SELECT ${COLUMNS} FROM ${t} WHERE id = $1`, [parsed.n]);
    return row ? view(parsed.service, row) : null;
  }

  /** Asks for a replay of every `dead` letter (of one service / group when given). Returns how many. */
  async requestReplayAll(filter: { service?: string; group?: string } = {}): Promise<number> {
    let n = 0;
    for (const service of (await this.services(true)).filter((s) => !filter.service || s === filter.service)) {
      const rows = await this.sql.query(
        `UPDATE ${quoteSchema(service)}.dead_letter SET status = 'replay_requested', replay_requested_at = now()
          WHERE status = 'dead' AND ($1::text IS NULL OR group_name = $1) RETURNING id`,
        [filter.group ?? null],
      );
      n += rows.length;
    }
    return n;
  }

  /**
   * Takes up to `limit` requested replays of one service for this process: letters of the groups it runs, and
   * `publish` letters when `publish` is set. Each is moved to `replaying` by one conditional UPDATE, so two
   * processes never take the same letter. A letter left `replaying` longer than `staleMs` (its process died) is
   * taken again.
   */
  async takeReplays(service: string, groups: string[], publish: boolean, limit = 50, staleMs = 10 * 60_000): Promise<Array<DeadLetterDetail & { n: string }>> {
    const t = `${quoteSchema(service)}.dead_letter`;
    const rows = await this.sql.query<Row>(
      `UPDATE ${t} SET status = 'replaying', replay_requested_at = now()
        WHERE id IN (
          SELECT id FROM ${t}
           WHERE (status = 'replay_requested' OR (status = 'replaying' AND replay_requested_at < now() - $4 * interval '1 millisecond'))
             AND ((kind = 'consume' AND group_name = ANY($1::text[])) OR (kind = 'publish' AND $2::boolean))
           ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED)
        RETURNING ${COLUMNS}, payload`,
      [groups, publish, limit, staleMs],
    );
    return rows.sort((a, b) => Number(a.id) - Number(b.id)).map((r) => ({ ...view(service, r), payload: r.payload ?? '', n: r.id }));
  }

  /** The end of a replay: `replayed`, or back to `dead` with the new error. */
  async finishReplay(service: string, n: string, outcome: { ok: true } | { ok: false; error: string; attempts: number }): Promise<void> {
    const t = `${quoteSchema(service)}.dead_letter`;
    if (outcome.ok) {
      await this.sql.query(`UPDATE ${t} SET status = 'replayed', replayed_at = now(), replays = replays + 1 WHERE id = $1 AND status = 'replaying'`, [n]);
    } else {
      await this.sql.query(
        `UPDATE ${t} SET status = 'dead', error = $2, attempts = $3, failed_at = now(), replays = replays + 1 WHERE id = $1 AND status = 'replaying'`,
        [n, outcome.error, outcome.attempts],
      );
    }
  }

  /** Gives a taken letter back (this process could not do it now: an outage, a shutdown). */
  async releaseReplay(service: string, n: string): Promise<void> {
    await this.sql.query(`UPDATE ${quoteSchema(service)}.dead_letter SET status = 'replay_requested' WHERE id = $1 AND status = 'replaying'`, [n]);
  }
}

function iso(d: Date | string | null): string | null {
  return d === null ? null : new Date(d).toISOString();
}

function view(service: string, r: Row): DeadLetterView {
  return {
    id: `${service}-${r.id}`,
    service,
    kind: r.kind,
    group: r.group_name,
    topic: r.topic,
    eventId: r.event_id,
    eventType: r.event_type,
    accountId: r.account_id,
    error: r.error,
    attempts: Number(r.attempts),
    status: r.status,
    failedAt: iso(r.failed_at) ?? '',
    replayRequestedAt: iso(r.replay_requested_at),
    replayedAt: iso(r.replayed_at),
    replays: Number(r.replays),
  };
}

/** The envelope of a letter's payload, or null when it is not one (an unreadable record). */
export function envelopeOf(payload: string): (EventEnvelope & { topic?: string }) | null {
  try {
    const e = JSON.parse(payload) as Partial<EventEnvelope> | null;
    return typeof e?.id === 'string' && typeof e.type === 'string' ? (e as EventEnvelope) : null;
  } catch {
    return null;
  }
}
