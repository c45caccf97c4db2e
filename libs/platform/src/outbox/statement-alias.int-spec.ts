import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { EventBus, type OutgoingEvent, type SubscribeOptions } from '../bus/event-bus';
import { silentLogger, testEvent } from '../bus/test-support';
import { startEmbeddedPostgres, type RunningPostgres } from '../database/embedded-postgres';
import { claimEvent } from './idempotent-consumer';
import { Outbox } from './outbox';
import { OutboxRelay } from './outbox-relay';
import { outboxTableSql } from './sql';

class CountingBus extends EventBus {
  readonly published: OutgoingEvent[] = [];
  async publish(events: OutgoingEvent[]): Promise<void> {
    this.published.push(...events);
  }
  async subscribe(_options: SubscribeOptions): Promise<void> {}
  async start(): Promise<void> {}
  async stop(): Promise<void> {}
}

/**
 * docs/decisions/0208: PostgreSQL 18 identifies a statement in pg_stat_statements by its relations' names, without
 * their schema, so every service's relay read (and outbox insert, and dedupe claim) was one entry under whichever
 * schema's text came first. An operator reading pg_stat_statements must see each schema's own calls.
 */
describe('the platform statements on every schema’s outbox, in pg_stat_statements', () => {
  let tmp: string;
  let pg: RunningPostgres;
  let stats: Client;
  let dataSource: DataSource;

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-statement-alias-'));
    fs.chmodSync(tmp, 0o755);
    pg = await startEmbeddedPostgres({
      dataDir: path.join(tmp, 'pg'),
      persistent: false,
      settings: { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'top' },
    });
    stats = new Client({ connectionString: pg.localUrl() });
    await stats.connect();
    await stats.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    dataSource = await new DataSource({ type: 'postgres', url: pg.localUrl(), applicationName: 'statement-alias-test' }).initialize();
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await stats?.end();
    await pg?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('counts each schema’s relay reads, marks, outbox inserts and dedupe claims apart', async () => {
    const passes: Record<string, number> = { svc_alpha: 3, svc_beta: 2 };
    for (const schema of Object.keys(passes)) await dataSource.query(`CREATE SCHEMA ${schema}; ${outboxTableSql(schema)}`);
    await stats.query('SELECT pg_stat_statements_reset()');
    const buses: Record<string, CountingBus> = {};
    for (const [schema, n] of Object.entries(passes)) {
      const bus = (buses[schema] = new CountingBus());
      const relay = new OutboxRelay({ schema, dataSource, bus, logger: silentLogger() });
      for (let i = 0; i < n; i++) {
        await dataSource.transaction(async (manager) => {
          await Outbox.add(manager, schema, [testEvent('switchboard.test', `${schema}-${i}`)]);
          expect(await claimEvent(manager, schema, 'test.consumer', testEvent('switchboard.test', 'x').id)).toBe(true);
        });
        expect(await relay.relayOnce()).toBe(1);
      }
    }
    // every event left once, each by its own schema's relay
    expect(buses.svc_alpha.published).toHaveLength(3);
    expect(buses.svc_beta.published).toHaveLength(2);

    const { rows } = await stats.query<{ query: string; calls: string }>(
      `SELECT query, calls::text FROM pg_stat_statements WHERE query ~ '\\.(outbox|processed_events)\\M' AND query !~* 'pg_stat_statements'`,
    );
    const calls = (schema: string, kind: RegExp): number[] =>
      rows.filter((r) => r.query.includes(`"${schema}".`) && kind.test(r.query.trim())).map((r) => Number(r.calls));
    for (const [schema, n] of Object.entries(passes)) {
      expect({ schema, read: calls(schema, /^WITH l AS MATERIALIZED/) }).toEqual({ schema, read: [n] });
      expect({ schema, mark: calls(schema, /^UPDATE .*published_at = now\(\)/s) }).toEqual({ schema, mark: [n] });
      expect({ schema, insert: calls(schema, /^INSERT INTO "[a-z_]+"\.outbox/) }).toEqual({ schema, insert: [n] });
      expect({ schema, claim: calls(schema, /^INSERT INTO "[a-z_]+"\.processed_events/) }).toEqual({ schema, claim: [n] });
    }
  });
});
