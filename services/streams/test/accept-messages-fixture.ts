import { Client } from 'pg';
import type { QueryRunner } from 'typeorm';
import { openServiceDataSource } from '@switchboard/platform';
import { createTestDatabase, type TestDatabase } from '@switchboard/platform/testing';
import { STREAMS_MIGRATIONS } from '../src/migrations';

/**
 * The database the `accept_messages` equivalence tests share (docs/decisions/0163, 0167): streams' schema migrated, three
 * accounts (1 and 4 in EUR, 4 with a daily limit of 2; 2 in USD with a small balance), account 1's balance in four
 * slots, and prices for DE and US (account 2's own for US). Registers its own `beforeAll`/`afterAll`; `c` is the client
 * once they ran, `runner()` a query runner over it for a migration's `up` and `down`.
 */
export function acceptMessagesDatabase(name: string): { readonly c: Client; runner: () => QueryRunner } {
  let db: TestDatabase | undefined;
  let client: Client | undefined;
  beforeAll(async () => {
    db = await createTestDatabase(name);
    const ds = await openServiceDataSource({ name: 'streams', url: db.url, schema: 'streams', entities: [], migrations: STREAMS_MIGRATIONS, migrationsRun: true });
    await ds.destroy();
    client = new Client({ connectionString: db.url });
    await client.connect();
    await client.query(`INSERT INTO streams.customer (account_id, currency, daily_limit) VALUES (1, 'EUR', NULL), (2, 'USD', NULL), (4, 'EUR', 2)`);
    await client.query(`INSERT INTO streams.balance_slot (account_id, slot, balance_micros) SELECT 1, g, 10000000 FROM generate_series(0, 3) g`);
    await client.query(`INSERT INTO streams.balance_slot (account_id, slot, balance_micros) VALUES (2, 0, 120000), (4, 0, 10000000)`);
    await client.query(`INSERT INTO streams.price (account_id, iso2, price_micros, currency) VALUES (NULL, 'DE', 50000, 'EUR'), (2, 'US', 70000, 'USD'), (NULL, 'US', 40000, 'EUR')`);
  });
  afterAll(async () => {
    await client?.end();
    await db?.drop();
  });
  const fixture = {
    get c(): Client {
      if (!client) throw new Error('the accept_messages database is not ready (used before beforeAll)');
      return client;
    },
    runner: (): QueryRunner => ({ query: (sql: string) => fixture.c.query(sql) }) as unknown as QueryRunner,
  };
  return fixture;
}
