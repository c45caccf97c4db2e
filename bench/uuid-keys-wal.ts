import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Client } from 'pg';
import { createEnvelope, outboxTableSql, timeOrderedUuid } from '@switchboard/platform';
import { benchDatabase, clusterCpuReader } from './bench-database';
import { printWalByRelation, walMark } from './pg-wal';

/**
 * The WAL and CPU of uuid keys on a FILLED database, by how the ids are made (docs/decisions/0161, after 0155).
 *
 *   node --expose-gc dist/bench/uuid-keys-wal.js [units a phase] [batch]
 *
 * Tables: the platform's own `outbox` and `processed_events` (outboxTableSql), and two message tables as the services
 * key them: `message` (uuid PRIMARY KEY, as streams.message) and `inbound` (bigint identity key, uuid UNIQUE, as
 * dispatch.inbound_message). PRELOAD_EVENTS (default 3,000,000) processed_events rows over CONSUMERS (default 2)
 * consumers plus as many outbox rows, PRELOAD_MESSAGES (default 2,000,000) rows in each message table, all with random
 * (v4) ids as stored so far; then VACUUM ANALYZE, and autovacuum off for these tables (its work would land in a later phase).
 *
 * Then phases, each after a CHECKPOINT (the first change of each index page after it writes the whole page):
 *  - events: `units` events in transactions of `batch`: their outbox rows (the relay's row form) and each consumer's
 *    claim (BatchedIdempotentConsumer's statement), ids made by the phase's generator;
 *  - messages: `units` messages in statements of `batch` into both message tables.
 * Generators (IDS, comma-separated, run in that order; default `v4,v7,v7,v4`):
 *  v4 `randomUUID()` (before), v7 `timeOrderedUuid()`, envelope: the id `createEnvelope` gives in the tree that runs
 *  the bench (base v4, branch v7), seq: a counter (a key that only ever appends: the same-run ceiling).
 * Prints per phase: WAL bytes a unit (and its full-page images), PostgreSQL CPU a unit (the cluster's, /proc), node CPU a
 * unit, load. WALREL=1: WAL by relation (pg_walinspect) of each phase.
 */
const UNITS = Number(process.argv[2] ?? 20_000);
const BATCH = Number(process.argv[3] ?? 40);
const PRELOAD_EVENTS = Number(process.env.PRELOAD_EVENTS ?? 3_000_000);
const PRELOAD_MESSAGES = Number(process.env.PRELOAD_MESSAGES ?? 2_000_000);
const CONSUMERS = Number(process.env.CONSUMERS ?? 2);
const IDS = (process.env.IDS ?? 'v4,v7,v7,v4').split(',');
const WALREL = process.env.WALREL === '1';
const consumers = Array.from({ length: CONSUMERS }, (_, i) => `service-${i}.events-projector`);

let seq = 0;
const probe = { type: 'bench.probe', version: 1, topic: 'bench.probe', key: () => 'k', schema: { parse: (d: unknown) => d } };
const generators: Record<string, () => string> = {
  v4: () => randomUUID(),
  v7: () => timeOrderedUuid(),
  envelope: () => createEnvelope(probe as never, {}, { accountId: '1', source: 'bench' }).id,
  // ffffffff-…: above every random and time-ordered key; a plain counter
  seq: () => `ffffffff-ffff-4fff-8fff-${(seq++).toString(16).padStart(12, '0')}`,
};

const lsnBytes = async (c: Client): Promise<bigint> => BigInt((await c.query<{ b: string }>(`SELECT (pg_current_wal_insert_lsn() - '0/0')::text AS b`)).rows[0].b);
const nodeCpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const load = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

async function main(): Promise<void> {
  const db = await benchDatabase('sb-uuidwal-', { settings: { max_wal_size: '4GB', checkpoint_timeout: '30min', shared_buffers: '256MB' } });
  const c = new Client({ connectionString: db.url });
  await c.connect();
  const cpuPg = clusterCpuReader(db.pgDir!);
  try {
    console.log(`uuid-keys-wal: ${UNITS} units a phase in batches of ${BATCH}; preload ${PRELOAD_EVENTS} events x ${CONSUMERS} consumers' claims, ${PRELOAD_MESSAGES} messages; load ${load()}`);
    console.log(`the tree's createEnvelope id: ${generators.envelope()}`);
    await c.query(`CREATE SCHEMA b`);
    await c.query(outboxTableSql('b'));
    await c.query(`CREATE TABLE b.message (uuid uuid PRIMARY KEY, account_id bigint NOT NULL, status smallint NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`);
    await c.query(`CREATE TABLE b.inbound (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, uuid uuid NOT NULL UNIQUE, account_id bigint NOT NULL, body text NOT NULL)`);
    const t0 = Date.now();
    for (let done = 0; done < PRELOAD_EVENTS; done += 500_000) {
      const n = Math.min(500_000, PRELOAD_EVENTS - done);
      await c.query(`CREATE TEMP TABLE ids AS SELECT gen_random_uuid() AS id FROM generate_series(1, $1)`, [n]);
      await c.query(`INSERT INTO b.outbox (event_id, topic, key, type, payload, published_at) SELECT id, 'bench.probe', 'k', 'bench.probe', '{}', now() FROM ids`);
      for (const name of consumers) await c.query(`INSERT INTO b.processed_events (consumer, event_id) SELECT $1, id FROM ids`, [name]);
      await c.query(`DROP TABLE ids`);
    }
    for (let done = 0; done < PRELOAD_MESSAGES; done += 500_000) {
      const n = Math.min(500_000, PRELOAD_MESSAGES - done);
      await c.query(`INSERT INTO b.message (uuid, account_id, status) SELECT gen_random_uuid(), 1 + i % 50, 1 FROM generate_series(1, $1) i`, [n]);
      await c.query(`INSERT INTO b.inbound (uuid, account_id, body) SELECT gen_random_uuid(), 1 + i % 50, 'hello' FROM generate_series(1, $1) i`, [n]);
    }
    await c.query(`VACUUM ANALYZE`);
    // no autovacuum or autoanalyze of these tables during the phases: a long phase's rows would set it off in the next
    // phase, and its pruning and hint-bit pages would be counted there (seen at 200,000 units a phase)
    for (const t of ['outbox', 'processed_events', 'message', 'inbound']) await c.query(`ALTER TABLE b.${t} SET (autovacuum_enabled = off)`);
    const sizes = (await c.query<{ r: string; s: string }>(`SELECT c.relname AS r, pg_size_pretty(pg_relation_size(c.oid)) AS s FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'b' AND c.relkind = 'i' ORDER BY 1`)).rows;
    console.log(`preloaded in ${((Date.now() - t0) / 1000).toFixed(1)} s; indexes: ${sizes.map((x) => `${x.r} ${x.s}`).join(', ')}`);

    const rows: string[] = [];
    for (const mode of IDS) {
      const gen = generators[mode];
      if (!gen) throw new Error(`unknown IDS generator ${mode}`);
      for (const phase of ['events', 'messages'] as const) {
        await c.query('CHECKPOINT');
        (global as { gc?: () => void }).gc?.();
        const l = load();
        const mark = WALREL ? await walMark(c) : null;
        const w0 = await lsnBytes(c);
        const p0 = cpuPg();
        const n0 = nodeCpuMs();
        const started = Date.now();
        for (let done = 0; done < UNITS; done += BATCH) {
          const ids = Array.from({ length: Math.min(BATCH, UNITS - done) }, gen);
          if (phase === 'events') {
            await c.query('BEGIN');
            await c.query(
              `INSERT INTO b.outbox (event_id, topic, key, type, payload) SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::jsonb[])`,
              [ids, ids.map(() => 'bench.probe'), ids.map(() => 'k'), ids.map(() => 'bench.probe'), ids.map((id) => JSON.stringify({ id, type: 'bench.probe', data: {} }))],
            );
            for (const name of consumers) {
              await c.query(`INSERT INTO b.processed_events (consumer, event_id) SELECT $1, id FROM unnest($2::uuid[]) AS t(id) ON CONFLICT (consumer, event_id) DO NOTHING RETURNING event_id`, [name, ids]);
            }
            await c.query('COMMIT');
          } else {
            await c.query('BEGIN');
            await c.query(`INSERT INTO b.message (uuid, account_id, status) SELECT id, 7, 1 FROM unnest($1::uuid[]) AS t(id)`, [ids]);
            await c.query(`INSERT INTO b.inbound (uuid, account_id, body) SELECT id, 7, 'hello' FROM unnest($1::uuid[]) AS t(id)`, [ids]);
            await c.query('COMMIT');
          }
        }
        const wall = Date.now() - started;
        const nodeMs = nodeCpuMs() - n0;
        const pgMs = cpuPg() - p0;
        const wal = Number((await lsnBytes(c)) - w0);
        const [fpi] = (await c.query<{ f: string }>(`SELECT wal_fpi::text AS f FROM pg_stat_wal`)).rows;
        const line = `${mode.padEnd(8)} ${phase.padEnd(8)} WAL ${(wal / UNITS).toFixed(0).padStart(6)} B a unit, PostgreSQL ${((pgMs / UNITS) * 1000).toFixed(1).padStart(6)} µs, node ${((nodeMs / UNITS) * 1000).toFixed(1).padStart(6)} µs, wall ${wall} ms, load ${l}`;
        console.log(line + ` (wal_fpi total ${fpi.f})`);
        rows.push(line);
        if (mark) await printWalByRelation(c, mark, UNITS, { indent: '    ', top: 8 });
      }
    }
    console.log('\nsummary (a unit: an event = its outbox row and one claim a consumer; a message = a row in each message table)');
    for (const r of rows) console.log('  ' + r);
  } finally {
    await c.end();
    await db.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
