/**
 * A campaign sent end to end in embedded mode (issue 12): every module of the embedded platform in one process, the
 * campaign runner asking streams (pricing, charging, limits), dispatch sending over SMPP to a local SMSC (the `smpp`
 * package's server, in a worker thread) that answers every submit_sm with a delivery receipt, until every recipient is
 * delivered in the campaign's statistics. Then the pause: the same kind of campaign paused at full speed, and the time
 * from the pause's answer to the last submit_sm the SMSC receives.
 *
 *   node scripts/build.mjs --server-only
 *   node dist/bench/campaign-send.js [recipients=20000] [memory|kafka]
 *
 * Set up through the API as a super admin would (an SMPP vendor for Germany, an approved sender, a stream, the account's
 * TPS at 20,000 and a balance); the list's contacts are written by COPY before the clock starts and announced as
 * contacts announces a ready list. Figures: messages/s from the start to the last delivered status, CPU per message
 * (node, all modules and the SMSC worker, and PostgreSQL from /proc), load average.
 *
 * Ceiling, same run, first: dispatch's own path for as many messages — `streams.message.accepted` events published
 * straight on the bus (what streams' relay would deliver), dispatch sending them to the same SMSC, until each is final
 * and its statuses are consumed (every module that listens to dispatch's statuses runs, as in the campaign). The
 * campaign's CPU per message is compared with it.
 *
 * STAGES=1: CPU per message by stage (bench/stage-cpu.ts) for the ceiling and the campaign: node (the main thread's
 * CPU split by the time each stage's callbacks ran) and PostgreSQL (by the sessions' application names).
 * kafka: a librdkafka mock cluster (as bench/dispatch-smpp.ts starts it) instead of the in-memory bus.
 * IDLE_SECONDS (default 5): first the idle platform's CPU per second (main thread, PostgreSQL), and for each phase the
 * share of its CPU that idle rate explains over its wall time (docs/decisions/0073).
 * PAUSE=0: no pause phase (profiling runs). CPUPROF=<dir>: V8 CPU profiles of the ceiling and the campaign phases;
 * HEAPPROF=<dir>: sampling heap profiles of what they allocate (collected objects too; HEAPPROF_OLD=1: only what
 * survived the young generation, the old space's traffic).
 * PGSS=1: PostgreSQL with pg_stat_statements; after the ceiling and the campaign, the statements per message (top
 * level, and each service's by the schema it names), the statements that took the most time, and the row updates (HOT
 * ones) of the per-message tables (docs/decisions/0074).
 * STREAMS_COMPACT_SEND_ROWS=0|1 (also false|true): streams' compact send rows off or on (docs/decisions/0210; default on),
 * an A/B in one build; DISPATCH_COMPACT_OUTBOX=0|1 likewise, dispatch's compact outbox rows (docs/decisions/0217; default on).
 * DISPATCH_STATUS_BATCHES, STREAMS_CHARGE_BATCHES, STREAMS_ACCEPT_BATCHES likewise (1 on, else off).
 * RECEIPT_DELAY_MS (default 0): the SMSC sends each delivery receipt that many ms after its submit_sm_resp (a real
 * carrier's receipts come seconds later); 0 sends it at once, which lets dispatch merge the send and the final status
 * into one write (docs/decisions/0206). The time to the last delivered status grows by about the delay.
 * PG_SETTINGS='k=v;k=v': PostgreSQL settings for the run (e.g. `session_preload_libraries=auto_explain;
 * auto_explain.log_min_duration=20;auto_explain.log_analyze=on` with PG_LOG=<file>; not logging_collector: the
 * server's start is recognised from its log on stderr).
 * BENCH_NODE_ARGS: node flags (default `--max-semi-space-size=64`, as `npm start` runs the platform; empty: V8's own).
 * PG_TCP=1: the platform reaches PostgreSQL over TCP loopback, not its unix socket as `npm start` does (docs/decisions/0196).
 * STATE_FILLFACTOR=<n>: stats.message_state's fillfactor set before the campaign (docs/decisions/0201).
 * RECIPIENT_FILLFACTOR=<n>: campaigns.recipient's fillfactor set before the campaign (0074's HOT experiment).
 * RECIPIENT_SQL='<statement>[;<statement>]': run before the campaign (e.g. an index dropped: an upper bound, 0182/0207).
 * WALREL=1: each campaign's WAL by relation (table, index, TOAST) and record kind, full-page images apart
 * (pg_walinspect, bench/pg-wal.ts), and the index scans of the phase (docs/decisions/0222).
 */
import 'reflect-metadata';
// first: the threads alive at load are the main thread and V8's platform (bench/thread-cpu.ts)
import { ThreadCpu, threadCpuSeconds } from './thread-cpu';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { spawnSync } from 'node:child_process';
import { Session } from 'node:inspector';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { randomUUID } from 'node:crypto';
import { ALL_PERMISSIONS, ContactListReadyV1, MessageAcceptedV1, type EventData } from '@switchboard/contracts';
import {
  configureHttpApp,
  createEnvelope,
  DevMailbox,
  generateSigningKeys,
  InMemoryEventBus,
  InMemoryRealtime,
  KafkaEventBus,
  PlatformModule,
  startEmbeddedPostgres,
  TokenSigner,
  TokenVerifier,
  OutboxRelay,
  type EventBus,
  type OutgoingEvent,
} from '@switchboard/platform';
import { startKafkaMock } from '@switchboard/platform/testing';
import { AccountsBootstrapService } from '@switchboard/accounts';
import { CampaignRunner } from '@switchboard/campaigns';
import { Dispatcher } from '@switchboard/dispatch';
import * as pgModule from 'pg';
import { printStatementsPerUnit } from './pg-statements';
import { printWalByRelation, walMark, type WalMark } from './pg-wal';
import { StageCpu } from './stage-cpu';
import { embeddedServiceModules } from '../apps/platform/src/embedded-server';

const RECIPIENTS = Number(process.argv[2] ?? 20_000);
const DRIVER = (process.argv[3] ?? 'memory') as 'memory' | 'kafka';
const TPS = 20_000;
const ROUNDS = Math.max(1, Number(process.env.ROUNDS ?? 1));
const STAGES = process.env.STAGES === '1' ? new StageCpu() : null;
const PGSS = process.env.PGSS === '1';
const CPUPROF = process.env.CPUPROF ?? '';
const HEAPPROF = process.env.HEAPPROF ?? '';

/**
 * CPUPROF=<dir>: a V8 CPU profile of the main thread for one phase only (`<dir>/<phase>.cpuprofile`).
 * HEAPPROF=<dir>: a sampling heap profile of everything the main thread allocates in one phase, collected or not
 * (`<dir>/<phase>.heapprofile`, bytes by allocating function): where the young generation's traffic comes from.
 */
async function profilePhase<T>(phase: string, work: () => Promise<T>): Promise<T> {
  if (!CPUPROF && !HEAPPROF) return work();
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) => new Promise<unknown>((resolve, reject) => session.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res))));
  if (CPUPROF) {
    await post('Profiler.enable');
    await post('Profiler.setSamplingInterval', { interval: 500 });
    await post('Profiler.start');
  }
  if (HEAPPROF) {
    await post('HeapProfiler.enable');
    // HEAPPROF_OLD=1: only what left the young generation (collected later by an old-space collection, or still live)
    const old = process.env.HEAPPROF_OLD === '1';
    await post('HeapProfiler.startSampling', { samplingInterval: 16_384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: !old });
  }
  try {
    return await work();
  } finally {
    if (CPUPROF) {
      const { profile } = (await post('Profiler.stop')) as { profile: unknown };
      fs.mkdirSync(CPUPROF, { recursive: true });
      fs.writeFileSync(path.join(CPUPROF, `${phase}.cpuprofile`), JSON.stringify(profile));
    }
    if (HEAPPROF) {
      const { profile } = (await post('HeapProfiler.stopSampling')) as { profile: unknown };
      fs.mkdirSync(HEAPPROF, { recursive: true });
      fs.writeFileSync(path.join(HEAPPROF, `${phase}.heapprofile`), JSON.stringify(profile));
    }
    session.disconnect();
  }
}

const rowsReadBefore = new Map<string, { seq: number; idx: number }>();

/** pg_stat_statements since the last reset (bench/pg-statements.ts), with the wide rows' updates and their HOT share. */
async function printStatements(pgc: Client, units: number, label: string): Promise<void> {
  if (!PGSS) return;
  // a backend reports its table counters when idle, up to 10 s late (PostgreSQL's idle stats flush): read the row
  // updates once every backend of the phase has reported (docs/decisions/0182: read at once, 3.00 updates showed as 2.65)
  await new Promise((r) => setTimeout(r, 11_000));
  const rows = await printStatementsPerUnit(pgc, units, {
    indent: '  ',
    label,
    width: 150,
    between: async () => {
      const hot = (await pgc.query<{ rel: string; upd: string; hot: string }>(
        `SELECT schemaname || '.' || relname AS rel, n_tup_upd::text AS upd, n_tup_hot_upd::text AS hot FROM pg_stat_user_tables
          WHERE (schemaname, relname) IN (('campaigns', 'recipient'), ('streams', 'message'), ('dispatch', 'message'), ('stats', 'message_state'))`,
      )).rows;
      console.log(`    row updates since start (HOT of them): ${hot.map((h) => `${h.rel} ${h.upd} (${h.hot})`).join(', ')}`);
      // stats' message states: rows inserted, the heap's pages and its primary key's (docs/decisions/0201)
      const ms = (await pgc.query<{ ins: string; heap: string; pk: string; width: string }>(
        `SELECT n_tup_ins::text AS ins, (pg_relation_size('stats.message_state') / 8192)::text AS heap,
                (pg_relation_size('stats.message_state_pkey') / 8192)::text AS pk,
                (SELECT round(avg(pg_column_size(m.*)))::text FROM stats.message_state m) AS width
           FROM pg_stat_user_tables WHERE schemaname = 'stats' AND relname = 'message_state'`,
      )).rows[0];
      if (ms) console.log(`    stats.message_state: ${ms.ins} rows inserted since start, heap ${ms.heap} pages, primary key ${ms.pk} pages, a row ${ms.width} B`);
      // rows read (sequential scans' rows and index fetches) since the last print, per unit (docs/decisions/0116)
      const read = (await pgc.query<{ rel: string; seq: string; idx: string }>(
        `SELECT schemaname || '.' || relname AS rel, coalesce(seq_tup_read, 0)::text AS seq, coalesce(idx_tup_fetch, 0)::text AS idx FROM pg_stat_user_tables
          WHERE (schemaname, relname) IN (('campaigns', 'recipient'), ('streams', 'message'))`,
      )).rows;
      const per = read.map((r) => {
        const was = rowsReadBefore.get(r.rel) ?? { seq: 0, idx: 0 };
        rowsReadBefore.set(r.rel, { seq: Number(r.seq), idx: Number(r.idx) });
        return `${r.rel} ${((Number(r.seq) - was.seq) / units).toFixed(1)} + ${((Number(r.idx) - was.idx) / units).toFixed(1)}`;
      });
      console.log(`    rows read per unit since the last print (sequential + index fetches): ${per.join(', ')}`);
    },
  });
  // the platform's statements on every schema's outbox and dedupe tables, by schema (docs/decisions/0208: each names
  // its table `outbox_<schema>` / `processed_events_<schema>`, so PostgreSQL 18 counts each schema's apart): calls and
  // execution per unit, wall ms, rows and buffers a call. A relay read's wall time includes the server waiting for a busy
  // node to take a large packed row (auto_explain shows its plan at 0.1-0.5 ms), so it is not CPU.
  const platform = rows.filter((r) => r.toplevel && /\b(outbox|processed_events)_[a-z_0-9]+\b/.test(r.query));
  if (platform.length > 0) {
    const extra = new Map(
      (await pgc.query<{ query: string; rows: string; blks: string }>(
        `SELECT query, rows::text, (shared_blks_hit + shared_blks_read)::text AS blks FROM pg_stat_statements WHERE toplevel AND query ~ '(outbox|processed_events)_[a-z]'`,
      )).rows.map((r) => [r.query, r]),
    );
    console.log(`    the platform's outbox and dedupe statements by schema (calls, µs of execution per unit; ms, rows, buffers a call):`);
    for (const r of platform.sort((a, b) => b.ms - a.ms)) {
      const c = Math.max(1, Number(r.calls));
      const [, table, schema] = /\b(outbox|processed_events)_([a-z_0-9]+)\b/.exec(r.query)!;
      const kind = table === 'processed_events' ? 'claim' : /^\s*WITH l AS/.test(r.query) ? (/DELETE FROM/.test(r.query) ? 'relay take' : 'relay read') : /^\s*INSERT/.test(r.query) ? 'insert' : /^\s*UPDATE/.test(r.query) ? 'mark' : /^\s*SELECT EXISTS/.test(r.query) ? 'poll probe' : 'other';
      const x = extra.get(r.query);
      console.log(
        `      ${schema.padEnd(12)} ${kind.padEnd(10)} ${(Number(r.calls) / units).toFixed(4)} ${((r.ms * 1000) / units).toFixed(1).padStart(6)} µs  ${(r.ms / c).toFixed(3).padStart(7)} ms ${(Number(x?.rows ?? 0) / c).toFixed(1).padStart(7)} rows ${(Number(x?.blks ?? 0) / c).toFixed(0).padStart(6)} bufs`,
      );
    }
  }
  const ob = (await pgc.query<{ rel: string; ins: string; upd: string; del: string; hot: string; live: string; dead: string; vac: string }>(
    `SELECT schemaname AS rel, n_tup_ins::text AS ins, n_tup_upd::text AS upd, n_tup_del::text AS del, n_tup_hot_upd::text AS hot, n_live_tup::text AS live,
            n_dead_tup::text AS dead, (autovacuum_count + vacuum_count)::text AS vac
       FROM pg_stat_user_tables t WHERE relname = 'outbox' AND n_tup_ins > 0 ORDER BY n_tup_ins DESC`,
  )).rows;
  console.log(`    outbox tables since the start (rows inserted, updated (HOT), deleted, live, dead, vacuums): ${ob.map((o) => `${o.rel} ${o.ins}, ${o.upd} (${o.hot}), ${o.del}, ${o.live}, ${o.dead}, ${o.vac}`).join('; ')}`);
  // the packed rows still there (a marking relay's; a deleting relay's are gone): how many, and their mean text
  const packedRows: string[] = [];
  for (const o of ob) {
    const [p] = (await pgc.query<{ n: string; kb: string }>(`SELECT count(*)::text AS n, round(coalesce(avg(octet_length(packed)), 0) / 1000)::text AS kb FROM "${o.rel}".outbox WHERE packed IS NOT NULL`)).rows;
    if (Number(p.n) > 0) packedRows.push(`${o.rel} ${p.n} of ${p.kb} KB`);
  }
  if (packedRows.length > 0) console.log(`    packed outbox rows kept (count, mean text): ${packedRows.join(', ')}`);
  // accounts' daily usage statements, however small (docs/decisions/0199): its claims and its counts
  const usage = rows.filter((r) => /accounts"?\.(processed_events|usage_batch|daily_usage)/.test(r.query));
  const sum = (f: (r: (typeof usage)[number]) => number) => usage.reduce((t, r) => t + f(r), 0);
  console.log(
    `    accounts' usage statements: ${(sum((r) => Number(r.calls)) / units).toFixed(4)} per unit, ${((sum((r) => r.ms) * 1000) / units).toFixed(1)} µs, ${(sum((r) => r.wal) / units).toFixed(0)} WAL bytes per unit`,
  );
  for (const r of usage) console.log(`      ${((r.ms * 1000) / units).toFixed(1).padStart(6)} µs ${(r.wal / units).toFixed(0).padStart(5)} B ${r.query.replace(/\s+/g, ' ').slice(0, 110)}`);
}

/** A raw stage (bench/stage-cpu.ts) in the pipeline's terms. */
function stageGroup(stage: string): string {
  const [kind, name = ''] = stage.split(/:(.*)/s);
  const service = name.replace(/^switchboard-/, '').split(/[.-]/)[0];
  if (kind === 'h' && /^(contacts\.audience|campaigns\.audience)$/.test(name)) return 'snapshot (contacts, campaigns)';
  if (stage === 'campaigns.runner' || stage === 'relay:campaigns') return 'campaigns runner: compose, send-batch request, its relay';
  if (stage === 'h:streams.send-batches' || stage === 'h:campaigns.send-answers') return "streams' send batches, campaigns' answers";
  if (stage === 'relay:streams') return "bus: streams' events (accepted, charged, answers)";
  if (stage === 'relay:dispatch') return "bus: dispatch's events (statuses, EDR)";
  if (stage === 'dispatch.loops' || stage === 'h:dispatch.sender') return 'dispatch: store, send, receipts';
  if (kind === 'h') return `consumer: ${service} (${name})`;
  if (kind === 'relay') return `bus: ${name}'s events`;
  if (kind === 'pg-client') return `pg client: ${service}`;
  return 'other (http, timers, unattributed)';
}

async function printStages(pgc: Client, units: number, label: string): Promise<void> {
  if (!STAGES) return;
  const r = await STAGES.report(pgc, units, stageGroup);
  const rows = (m: Map<string, number>) => [...m].filter(([, v]) => v >= 0.5).sort((a, b) => b[1] - a[1]);
  const sum = (m: Map<string, number>) => [...m.values()].reduce((s, v) => s + v, 0);
  console.log(`  ${label}, CPU µs per message by stage (STAGES=1: the async hook slows the process, read shares): node main thread ${sum(r.node).toFixed(0)}`);
  for (const [k, v] of rows(r.node)) console.log(`    ${v.toFixed(0).padStart(6)}  ${k}`);
  console.log(`    PostgreSQL by session ${sum(r.pg).toFixed(0)}:`);
  for (const [k, v] of rows(r.pg)) console.log(`    ${v.toFixed(0).padStart(6)}  ${k}`);
}

const threadCpu = threadCpuSeconds;
const THREADS = new ThreadCpu();

function mainThreadCpu(): number {
  return threadCpu(process.pid);
}

/** A message as streams' relay delivers it to dispatch (the ceiling's input). */
function accepted(i: number, accountId: string, streamId: string): OutgoingEvent<EventData<typeof MessageAcceptedV1>> {
  const messageUuid = randomUUID();
  const data: EventData<typeof MessageAcceptedV1> = {
    messageUuid,
    accountId,
    streamId,
    streamUid: 'bench-stream',
    streamType: 1,
    channel: 'sms',
    sender: 'SHOP',
    destination: `+49151${String(10_000_000 + i).padStart(8, '0')}`,
    iso2: 'DE',
    text: `Hi Name${i}, our spring sale starts today!`,
    encoding: 'GSM7',
    segments: 1,
    priceMicros: 45_000,
    currency: 'EUR',
    payload: null,
    campaignId: null,
    notBefore: null,
    acceptedAt: new Date().toISOString(),
  };
  return { id: randomUUID(), type: MessageAcceptedV1.type, version: MessageAcceptedV1.version, occurredAt: data.acceptedAt, source: 'bench', accountId, traceId: null, key: messageUuid, data, topic: MessageAcceptedV1.topic };
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers read field by field

function pgCpuSeconds(dataDir: string): number {
  let ticks = 0;
  const procs = fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  const master = procs.find((p) => {
    try {
      return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(dataDir);
    } catch {
      return false;
    }
  });
  if (!master) return 0;
  for (const p of procs) {
    try {
      const s = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      if (p === master) ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
      else if (f[1] === master) ticks += Number(f[11]) + Number(f[12]);
    } catch {
      // exited meanwhile
    }
  }
  return ticks / 100;
}

interface Smsc {
  port: number;
  /** the SMSC worker's thread id (its CPU: threadCpu) */
  tid: number;
  submitted: number;
  samples: Array<[number, number]>;
  close: () => Promise<void>;
}

async function startSmsc(): Promise<Smsc> {
  // RECEIPT_DELAY_MS: each receipt that long after its submit_sm_resp, as a real carrier's come (seconds later), so that
  // dispatch's path is the one with two updates a message (submitted, then final) rather than one merged write
  const receiptDelayMs = Number(process.env.RECEIPT_DELAY_MS ?? 0);
  const worker = new Worker(path.join(__dirname, 'dispatch-smsc-worker.js'), { workerData: { systemId: 'bench', password: 'secret', receiptDelayMs } });
  const smsc: Smsc = {
    port: 0,
    tid: 0,
    submitted: 0,
    samples: [],
    close: async () => {
      worker.postMessage({ stop: true });
      await new Promise((r) => worker.once('exit', r));
    },
  };
  await new Promise<void>((resolve, reject) => {
    worker.on('message', (m: { port?: number; tid?: number; submitted?: number; at?: number }) => {
      if (m.port) {
        smsc.port = m.port;
        smsc.tid = m.tid ?? 0;
        resolve();
      }
      if (m.submitted !== undefined) {
        smsc.submitted = m.submitted;
        smsc.samples.push([m.at ?? Date.now(), m.submitted]);
      }
    });
    worker.once('error', reject);
  });
  return smsc;
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'campaign-send-'));
  fs.chmodSync(dir, 0o755);
  const dataDir = path.join(dir, 'pg');
  const pgServer = await startEmbeddedPostgres({
    dataDir,
    persistent: false,
    // PG_LOG=<file>: the server's log lines (auto_explain's plans with PG_SETTINGS) appended to a file
    ...(process.env.PG_LOG ? { log: (line: string) => fs.appendFileSync(process.env.PG_LOG!, `${line}\n`) } : {}),
    settings: {
      ...(PGSS ? { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all', 'pg_stat_statements.max': '10000' } : {}),
      // PG_SETTINGS='k=v;k=v': more server settings (auto_explain, ...)
      ...Object.fromEntries((process.env.PG_SETTINGS ?? '').split(';').filter((kv) => kv.includes('=')).map((kv) => kv.split(/=(.*)/s).slice(0, 2))),
    },
  });
  // as `npm start` connects (docs/decisions/0196); PG_TCP=1: over TCP loopback instead
  const url = process.env.PG_TCP === '1' ? pgServer.url() : pgServer.localUrl();
  const pg = new Client({ connectionString: url });
  await pg.connect();
  await pg.query(`ALTER SYSTEM SET max_wal_size = '4GB'`);
  await pg.query(`SELECT pg_reload_conf()`);
  if (PGSS) await pg.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const resetStatements = async () => {
    if (PGSS) await pg.query('SELECT pg_stat_statements_reset()');
  };
  await THREADS.start();
  const smsc = await startSmsc();
  THREADS.name(smsc.tid, 'SMSC worker');
  let kafka: Awaited<ReturnType<typeof startKafkaMock>> | null = null;
  let bus: EventBus;
  if (DRIVER === 'kafka') {
    kafka = await startKafkaMock(1);
    bus = new KafkaEventBus({ clientId: 'campaign-bench', brokers: kafka.url.split(','), consumer: { partitionsConsumedConcurrently: 8, maxWaitTimeMs: 100, maxBytesPerPartition: 2 * 1024 * 1024 } });
  } else {
    bus = new InMemoryEventBus({ ack: 'handled', partitions: 64 });
  }
  if (STAGES) {
    STAGES.wrapBus(bus as never);
    STAGES.wrap(OutboxRelay.prototype, 'start', (r: { options: { schema: string } }) => `relay:${r.options.schema}`);
    STAGES.wrap(OutboxRelay.prototype, 'kick', (r: { options: { schema: string } }) => `relay:${r.options.schema}`);
    STAGES.wrap(Dispatcher.prototype, 'onApplicationBootstrap', () => 'dispatch.loops');
    STAGES.wrap(CampaignRunner.prototype, 'onApplicationBootstrap', () => 'campaigns.runner');
    STAGES.wrapPg(pgModule.Client);
  }
  const keys = generateSigningKeys();
  @Module({
    imports: [
      PlatformModule.forRoot({ bus, realtime: new InMemoryRealtime(), mailer: new DevMailbox(), verifier: new TokenVerifier(keys.publicKey), databaseUrl: url, processName: 'bench' }),
      ...embeddedServiceModules({ privateKey: keys.privateKey, dataDir: dir, appUrl: 'http://127.0.0.1:3000', dispatchStatusBatches: process.env.DISPATCH_STATUS_BATCHES === undefined ? undefined : process.env.DISPATCH_STATUS_BATCHES === '1', dispatchCompactOutbox: process.env.DISPATCH_COMPACT_OUTBOX === undefined ? undefined : ['1', 'true'].includes(process.env.DISPATCH_COMPACT_OUTBOX), streamsChargeBatches: process.env.STREAMS_CHARGE_BATCHES === undefined ? undefined : process.env.STREAMS_CHARGE_BATCHES === '1', streamsAcceptBatches: process.env.STREAMS_ACCEPT_BATCHES === undefined ? undefined : process.env.STREAMS_ACCEPT_BATCHES === '1', streamsCompactSendRows: process.env.STREAMS_COMPACT_SEND_ROWS === undefined ? undefined : ['1', 'true'].includes(process.env.STREAMS_COMPACT_SEND_ROWS) }),
    ],
  })
  class BenchModule {}
  const app = await NestFactory.create<NestExpressApplication>(BenchModule, { logger: ['error', 'warn'] });
  configureHttpApp(app);
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/api`;
  const account = String((await app.get(AccountsBootstrapService).seed({ demoAccountName: 'Bench' })).demoAccountId);
  const signer = new TokenSigner(keys.privateKey);
  const token = signer.signAccess({ sub: '1', email: 'admin@bench.local', acc: account, perms: [...ALL_PERMISSIONS], roles: [], sa: true, sid: 'bench' }, 3600);
  const call = async (method: string, p: string, body?: unknown): Promise<{ status: number; body: Json }> => {
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await fetch(`${base}${p}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
        const text = await res.text();
        return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
      } catch (e) {
        // a kept-alive connection the server closed while idle ("other side closed", seen at load 23 on the progress
        // polls): a GET is asked again on a new one
        if (method !== 'GET' || attempt >= 2) throw e;
      }
    }
  };
  const must = async (method: string, p: string, body?: unknown): Promise<Json> => {
    const r = await call(method, p, body);
    if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const until = async <T>(probe: () => Promise<T | null | undefined | false>, what: string, ms = 60_000): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      const v = await probe();
      if (v) return v;
      if (Date.now() > end) throw new Error(`not reached: ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  // ---- setup, untimed ----
  const vendor = await must('POST', '/service_type_manager/vendor', {
    name: 'Bench SMSC',
    service_type: 'sms',
    adapter: 'smpp',
    carrier: 'Bench',
    currency: 'EUR',
    config: { host: '127.0.0.1', port: smsc.port, systemId: 'bench', password: 'secret', window: 256, connections: 2 },
  });
  await must('PUT', '/service_type_manager/countries_mapping', { iso2: 'DE', serviceType: 'sms', vendorIds: [String(vendor.id)] });
  await must('POST', '/service_type_manager/refresh', {});
  const sender = await must('POST', '/senders', { name: 'Shop', value: 'SHOP', type: 'outbound-only' });
  await must('PUT', `/senders/superadmin/${sender.id as number}`, { approved: 1 });
  const stream = await must('POST', '/streams', { name: 'Campaigns', streamType: 1, sender: 'SHOP' });
  // the TPS the issue asks for, and no daily limit in the way of two campaigns
  await must('PUT', `/customers/${account}`, { tps: TPS, customSettings: { streams_max_messages_per_day: 100 * RECIPIENTS } });
  await must('POST', `/customers/${account}/balance`, { amount: '1000000', reason: 'bench' });

  const lists: string[] = [];
  for (const name of [...Array.from({ length: ROUNDS }, (_, r) => (r === 0 ? 'throughput' : `throughput ${r + 1}`)), 'pause']) {
    const [{ id: listId }] = (await pg.query<{ id: string }>(`INSERT INTO contacts.contact_list (account_id, name, type, status, num_of_contacts) VALUES ($1, $2, 'list', 2, $3) RETURNING id::text`, [account, name, RECIPIENTS])).rows;
    let text = '';
    const offset = lists.length * RECIPIENTS;
    for (let i = 0; i < RECIPIENTS; i++) {
      const phone = `+49151${String(10_000_000 + offset + i).padStart(8, '0')}`; // the ceiling uses 2 x RECIPIENTS on
      text += `${account}\t${phone}\t${phone}\tDE\tEurope/Berlin\tName${i}\t{${listId}}\n`;
    }
    const s = pg.query(copyFrom('COPY contacts.contact (account_id, phone, normalized_phone, country, timezone, first_name, list_ids) FROM STDIN'));
    await new Promise<void>((resolve, reject) => {
      s.on('finish', () => resolve());
      s.on('error', reject);
      s.end(text);
    });
    await bus.publish([createEnvelope(ContactListReadyV1, { accountId: account, contactListId: listId, name, type: 'list', numOfContacts: RECIPIENTS, importListId: null, readyAt: new Date().toISOString() }, { accountId: account, source: 'contacts' })]);
    lists.push(listId);
  }
  await pg.query('VACUUM ANALYZE contacts.contact');
  const campaign = async (name: string, listId: string): Promise<number> => {
    const body = { name, stream: stream.id, contactLists: [Number(listId)], campaignVariants: [{ text: 'Hi {{firstName}}, {our|the} spring sale starts today!' }], campaignsSenders: [{ sender: sender.id }], activityTime: { working_hours: { start: '00:00', end: '23:59' }, working_days: [1, 2, 3, 4, 5, 6, 7], timezone_mode: 'recipient' } };
    return (await until(async () => {
      const r = await call('POST', '/campaigns', body);
      return r.status === 201 ? (r.body.id as number) : null;
    }, 'the campaign created (read models in)')) as number;
  };
  const stats = async (id: number) => (await must('GET', `/campaigns/${id}`)) as { status: number; stats: { total: number; created: number; sent: number; delivered: number } };
  await until(async () => smsc.samples.length > 0, 'the SMSC reporting');
  let ceiling: { node: number; main: number; pg: number } | null = null;

  console.log(`campaign-send: ${RECIPIENTS.toLocaleString('en')} recipients, driver ${DRIVER}, node flags '${process.execArgv.join(' ')}', ${os.cpus().length} x ${os.cpus()[0]?.model}, node ${process.version}, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);

  // ---- idle: what the platform costs per second of wall time with nothing to do (the Kafka driver's fetch loops) ----
  const idleSeconds = Number(process.env.IDLE_SECONDS ?? 5);
  let idle = { main: 0, pg: 0 };
  if (idleSeconds > 0) {
    const mainI = mainThreadCpu();
    const pgI = pgCpuSeconds(dataDir);
    const tI = Date.now();
    await new Promise((r) => setTimeout(r, idleSeconds * 1000));
    const s = (Date.now() - tI) / 1000;
    idle = { main: (mainThreadCpu() - mainI) / s, pg: (pgCpuSeconds(dataDir) - pgI) / s };
    console.log(`  idle, ${s.toFixed(1)} s with no traffic: main thread ${(idle.main * 1000).toFixed(0)} ms CPU per second, PostgreSQL ${(idle.pg * 1000).toFixed(0)} ms per second`);
  }
  const idleShare = (wallS: number, main: number, pgS: number) =>
    `idle share over ${wallS.toFixed(1)} s: main ${((idle.main * wallS * 1e6) / RECIPIENTS).toFixed(0)} µs, PostgreSQL ${((idle.pg * wallS * 1e6) / RECIPIENTS).toFixed(0)} µs per message; net of it main ${(((main - idle.main * wallS) / RECIPIENTS) * 1e6).toFixed(0)} µs, PostgreSQL ${(((pgS - idle.pg * wallS) / RECIPIENTS) * 1e6).toFixed(0)} µs`;

  // ---- 0. ceiling: dispatch's own path for as many messages ----
  const dispatcher = app.get(Dispatcher);
  {
    const finalized0 = dispatcher.stats.finalized;
    await STAGES?.reset(pg);
    await resetStatements();
    const cpuC = process.cpuUsage();
    const mainC = mainThreadCpu();
    const smscC = threadCpu(smsc.tid);
    const threadsC = THREADS.sample();
    const pgC = pgCpuSeconds(dataDir);
    const tC = Date.now();
    await profilePhase('ceiling', async () => {
      for (let i = 0; i < RECIPIENTS; i += 1000) {
        const events: OutgoingEvent[] = [];
        for (let k = i; k < Math.min(RECIPIENTS, i + 1000); k++) events.push(accepted((ROUNDS + 1) * RECIPIENTS + k, account, String(stream.id)));
        await bus.publish(events);
      }
      await until(
        async () => dispatcher.stats.finalized - finalized0 >= RECIPIENTS && (await pg.query(`SELECT 1 FROM dispatch.outbox WHERE published_at IS NULL LIMIT 1`)).rowCount === 0,
        'the ceiling messages final and their statuses consumed',
        30 * 60_000,
      );
    });
    const wallC = (Date.now() - tC) / 1000;
    const c = process.cpuUsage(cpuC);
    const nodeC = (c.user + c.system) / 1e6;
    const pgCpuC = pgCpuSeconds(dataDir) - pgC;
    ceiling = { node: nodeC, main: mainThreadCpu() - mainC, pg: pgCpuC };
    const smscCpuC = threadCpu(smsc.tid) - smscC;
    console.log(
      `  ceiling, dispatch's own path (accepted events -> SMSC -> final, statuses consumed): ${Math.round(RECIPIENTS / wallC).toLocaleString('en')} messages/s; CPU per message node ${((nodeC / RECIPIENTS) * 1e6).toFixed(0)} µs (main thread ${((ceiling.main / RECIPIENTS) * 1e6).toFixed(0)}, the SMSC worker ${((smscCpuC / RECIPIENTS) * 1e6).toFixed(0)}), PostgreSQL ${((pgCpuC / RECIPIENTS) * 1e6).toFixed(0)} µs`,
    );
    console.log(`  ceiling ${THREADS.line(threadsC, RECIPIENTS)}`);
    console.log(`  ceiling ${idleShare(wallC, ceiling.main, pgCpuC)}`);
    await printStages(pg, RECIPIENTS, 'ceiling');
    await printStatements(pg, RECIPIENTS, 'ceiling');
  }

  // ---- 1. throughput: start -> every recipient delivered ----
  if (process.env.STATE_FILLFACTOR) await pg.query(`ALTER TABLE stats.message_state SET (fillfactor = ${Number(process.env.STATE_FILLFACTOR)})`);
  if (process.env.RECIPIENT_FILLFACTOR) await pg.query(`ALTER TABLE campaigns.recipient SET (fillfactor = ${Number(process.env.RECIPIENT_FILLFACTOR)})`);
  for (const sql of (process.env.RECIPIENT_SQL ?? '').split(';').filter((x) => x.trim())) await pg.query(sql);
  // ROUNDS=<n>: n campaigns in turn, each measured alone (the later ones run on code V8 has already optimised)
  for (let round = 0; round < ROUNDS; round++) {
    const label = round === 0 ? 'campaign' : `campaign ${round + 1}`;
    const first = await campaign(round === 0 ? 'Throughput' : `Throughput ${round + 1}`, lists[round]);
    const submitted0 = smsc.submitted;
    await STAGES?.reset(pg);
    await resetStatements();
    // WALREL=1: the phase's WAL by relation and record kind (pg_walinspect), printed after its statements
    const walFrom: WalMark | null = process.env.WALREL === '1' ? await walMark(pg) : null;
    const cpu0 = process.cpuUsage();
    const main0 = mainThreadCpu();
    const smsc0 = threadCpu(smsc.tid);
    const threads0 = THREADS.sample();
    const pg0 = pgCpuSeconds(dataDir);
    const t0 = Date.now();
    let firstSubmitAt = 0;
    await profilePhase(label.replace(' ', '-'), async () => {
      await must('POST', `/campaigns/${first}/start`);
      let lastReport = t0;
      for (;;) {
        const s = await stats(first);
        if (!firstSubmitAt && smsc.submitted > submitted0) firstSubmitAt = Date.now();
        if (s.stats.delivered >= RECIPIENTS) break;
        if (Date.now() - lastReport > 5000) {
          lastReport = Date.now();
          console.log(`  ${((Date.now() - t0) / 1000).toFixed(0)} s: status ${s.status}, created ${s.stats.created}, SMSC ${smsc.submitted - submitted0}, delivered ${s.stats.delivered}`);
        }
        if (Date.now() - t0 > 30 * 60_000) throw new Error('not finished in 30 min');
        await new Promise((r) => setTimeout(r, 50));
      }
    });
    const wall = (Date.now() - t0) / 1000;
    const threadsLine = THREADS.line(threads0, RECIPIENTS);
    const mainCpu = mainThreadCpu() - main0;
    const smscCpu = threadCpu(smsc.tid) - smsc0;
    const cpu = process.cpuUsage(cpu0);
    const pgCpu = pgCpuSeconds(dataDir) - pg0;
    const nodeCpu = (cpu.user + cpu.system) / 1e6;
    const [dup] = (await pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM (SELECT destination FROM dispatch.message GROUP BY destination HAVING count(*) > 1) x`)).rows;
    console.log(`  ${label}: ${RECIPIENTS.toLocaleString('en')} messages from start to delivered in ${wall.toFixed(1)} s: ${Math.round(RECIPIENTS / wall).toLocaleString('en')} messages/s end to end (first submit_sm after ${((firstSubmitAt - t0) / 1000).toFixed(1)} s)`);
    console.log(`  CPU per message: node ${((nodeCpu / RECIPIENTS) * 1e6).toFixed(0)} µs (every module, the SMSC worker${DRIVER === 'kafka' ? ', the Kafka clients' : ''}; main thread ${((mainCpu / RECIPIENTS) * 1e6).toFixed(0)}, the SMSC worker ${((smscCpu / RECIPIENTS) * 1e6).toFixed(0)}), PostgreSQL ${((pgCpu / RECIPIENTS) * 1e6).toFixed(0)} µs: ${Math.round(RECIPIENTS / (nodeCpu + pgCpu)).toLocaleString('en')} messages per CPU-second; load average now ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    console.log(`  ${label} ${threadsLine}`);
    console.log(`  SMSC received ${smsc.submitted - submitted0} submit_sm; numbers sent more than once: ${dup.n}`);
    if (ceiling) {
      const perMsg = (x: number) => ((x / RECIPIENTS) * 1e6).toFixed(0);
      console.log(
        `  against the ceiling: node main thread ${perMsg(mainCpu)} vs ${perMsg(ceiling.main)} µs (${(mainCpu / ceiling.main).toFixed(2)}x), PostgreSQL ${perMsg(pgCpu)} vs ${perMsg(ceiling.pg)} µs (${(pgCpu / ceiling.pg).toFixed(2)}x), together ${((mainCpu + pgCpu) / (ceiling.main + ceiling.pg)).toFixed(2)}x`,
      );
    }
    console.log(`  ${label} ${idleShare(wall, mainCpu, pgCpu)}`);
    await printStages(pg, RECIPIENTS, label);
    await printStatements(pg, RECIPIENTS, label);
    if (walFrom) await printWalByRelation(pg, walFrom, RECIPIENTS, { indent: '  ', top: 40 });
  }

  // ---- 2. pause at full speed: the pause's answer -> the last submit_sm the SMSC receives (PAUSE=0: skipped) ----
  if (process.env.PAUSE === '0') {
    await app.close();
    await smsc.close();
    await kafka?.stop();
    await pg.end();
    await pgServer.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    return;
  }
  const second = await campaign('Pause', lists[ROUNDS]);
  const submitted1 = smsc.submitted;
  await must('POST', `/campaigns/${second}/start`);
  await until(async () => smsc.submitted - submitted1 >= Math.min(RECIPIENTS / 4, 5000) && smsc.submitted, 'the second campaign at speed', 10 * 60_000);
  const before = smsc.samples.length;
  const asked = Date.now();
  await must('POST', `/campaigns/${second}/pause`);
  const acked = Date.now();
  const atAck = smsc.submitted;
  await new Promise((r) => setTimeout(r, 5000));
  const after = smsc.samples.slice(before);
  let lastMove = acked;
  for (let i = 1; i < after.length; i++) if (after[i][1] > after[i - 1][1]) lastMove = after[i][0];
  const rate = (() => {
    const s = smsc.samples.filter(([t]) => t >= asked - 2000 && t <= asked);
    return s.length > 1 ? ((s[s.length - 1][1] - s[0][1]) * 1000) / (s[s.length - 1][0] - s[0][0]) : 0;
  })();
  console.log(
    `  pause: answered in ${acked - asked} ms at ~${Math.round(rate).toLocaleString('en')} submit_sm/s; ${smsc.submitted - atAck} submit_sm after the answer, the last ${Math.max(0, lastMove - acked)} ms after it (SMSC samples every 100 ms)`,
  );
  const s2 = await stats(second);
  console.log(`  paused campaign: status ${s2.status}, created ${s2.stats.created} of ${RECIPIENTS}`);

  await app.close();
  await smsc.close();
  await kafka?.stop();
  await pg.end();
  await pgServer.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * The platform's node flags as `npm start` runs it (scripts/start.mjs) and as streams and dispatch are deployed: a young
 * generation of 2 x 64 MB. Without it the collector cost ~100 µs more a campaign message (docs/decisions/0191).
 * BENCH_NODE_ARGS overrides them (empty: V8's defaults); the bench runs itself again with them when node was started
 * without.
 */
const NODE_FLAGS = process.env.BENCH_NODE_ARGS === undefined ? ['--max-semi-space-size=64'] : process.env.BENCH_NODE_ARGS.split(' ').filter(Boolean);
if (NODE_FLAGS.some((f) => !process.execArgv.includes(f))) {
  const child = spawnSync(process.execPath, [...process.execArgv, ...NODE_FLAGS, __filename, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(child.status ?? 1);
} else {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
