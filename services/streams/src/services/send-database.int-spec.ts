import { Client } from 'pg';
import { isInfrastructureError } from '@switchboard/platform';
import { createTestDatabase, type TestDatabase } from '@switchboard/platform/testing';
import type { ResolvedStreamsOptions } from '../streams.options';
import { SendDatabase } from './send-database';

// Issue 10, item 4: a PostgreSQL restart under load ended the whole process. The server ends every session
// ("terminating connection due to administrator command"); a pool client checked out between two statements of a
// transaction then emitted an 'error' event nobody listened to, which Node turns into an uncaught exception.

describe('SendDatabase when the server ends a session', () => {
  let db: TestDatabase;
  let sends: SendDatabase;

  beforeAll(async () => {
    db = await createTestDatabase('senddb');
    sends = new SendDatabase(db.url, { sendPoolSize: 2 } as ResolvedStreamsOptions);
  });
  afterAll(async () => {
    await sends.onApplicationShutdown();
    await db.drop();
  });

  it('fails the transaction whose connection was ended, keeps the process alive, and serves the next one', async () => {
    const uncaught: unknown[] = [];
    const onUncaught = (e: unknown) => uncaught.push(e);
    process.on('uncaughtException', onUncaught);
    try {
      const admin = new Client({ connectionString: db.url });
      await admin.connect();
      const failed = await sends
        .transaction(async (c) => {
          const [{ pid }] = (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows;
          // Ended while this transaction waits between two statements, as a restart does.
          await admin.query('SELECT pg_terminate_backend($1)', [pid]);
          await new Promise((r) => setTimeout(r, 300));
          await c.query('SELECT 1');
        })
        .then(
          () => null,
          (e: unknown) => e,
        );
      await admin.end();
      expect(failed).toBeInstanceOf(Error);
      expect(isInfrastructureError(failed)).toBe(true);
      expect(uncaught).toEqual([]);
      expect(await sends.query<{ one: number }>('SELECT 1 AS one', [])).toEqual([{ one: 1 }]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });
});
