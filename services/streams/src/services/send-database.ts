import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Pool, type PoolClient, type QueryResultRow } from 'pg';
import { ArrayLiteralClient, DATABASE_URL } from '@switchboard/platform';
import { STREAMS_OPTIONS, STREAMS_SCHEMA, type ResolvedStreamsOptions } from '../streams.options';

/**
 * The send path's own connection pool, talking to `pg` directly: a batch of sends is one statement (`accept_messages`), and
 * going through TypeORM's query runner would cost more CPU than the statement itself at thousands of sends a second.
 */
interface Corkable {
  connection?: { stream?: { cork?: () => void; uncork?: () => void } };
}

/** Runs `submit` (which writes synchronously on an idle client) with the client's socket corked. */
function corked<T>(client: PoolClient, submit: () => Promise<T>): Promise<T> {
  const stream = (client as unknown as Corkable).connection?.stream;
  if (!stream?.cork || !stream.uncork) return submit();
  stream.cork();
  try {
    return submit();
  } finally {
    stream.uncork();
  }
}

@Injectable()
export class SendDatabase implements OnApplicationShutdown {
  readonly pool: Pool;

  constructor(@Inject(DATABASE_URL) url: string, @Inject(STREAMS_OPTIONS) o: ResolvedStreamsOptions) {
    this.pool = new Pool({
      connectionString: url,
      max: o.sendPoolSize,
      application_name: 'switchboard-streams-send',
      options: `-c search_path=${STREAMS_SCHEMA},public`,
      // array parameters written as literals in one join, as the service's data source does (0224)
      Client: ArrayLiteralClient,
    });
    // An idle client's error (the server restarted) must not crash the process; the pool replaces it.
    this.pool.on('error', () => undefined);
    // Nor the error of a client checked out between two statements (a transaction waiting on its work): the pool
    // removes its own listener while a client is out, and an 'error' event nobody listens to ends the process. The
    // next statement on that client fails instead, and the pool discards the client when it is released.
    this.pool.on('connect', (client) => client.on('error', () => undefined));
  }

  query<R extends QueryResultRow>(text: string, values: unknown[]): Promise<R[]> {
    return this.pool.query<R>(text, values).then((r) => r.rows);
  }

  /**
   * A named (server-side prepared) statement, its protocol messages written in one go: node-postgres writes Parse,
   * Bind, Describe, Execute and Sync one by one, and on loopback each write wakes the server. Corked, the send path
   * costs one write and one wake-up a statement.
   */
  async prepared<R extends QueryResultRow>(name: string, text: string, values: unknown[], client?: PoolClient): Promise<R[]> {
    const c = client ?? (await this.pool.connect());
    try {
      return (await corked(c, () => c.query<R>({ name, text, values }))).rows;
    } finally {
      if (!client) c.release();
    }
  }

  /** Runs `work` in a transaction on one connection. */
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

  // After every onModuleDestroy hook, which may still write (the activity flush).
  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }
}
