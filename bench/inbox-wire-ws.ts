/**
 * Wire to websocket (issue 14): customers' replies, SMS sent by a local SMSC (a real SMPP 3.4 peer, `deliver_sm`) and
 * WhatsApp messages posted by the local Cloud API's signed webhooks, at RATE per second for SECONDS (the two channels
 * in turns; `CHANNELS=sms` or `whatsapp` for one only), through dispatch (inbound), the bus, the inbox (routing,
 * conversation, timeline) and the gateway's `/ws` to an agent's socket in the team's room: the latency of each message
 * from its send on the wire to its `incoming_message` event on the socket, p50 / p95 / p99, and the rate that was
 * sustained. Embedded mode: every service module in one process, as `npm start` runs them. The providers and the
 * agent run in a child process of their own (`inbox-wire-peers.ts`), so the measured process is the platform alone;
 * their CPU is printed apart ("peers"). Ceiling, same run: the same websocket carrying room events the inbox's room
 * service emits directly (no provider, no dispatch, no bus, no conversation write), at the same rate.
 *
 *   node scripts/build.mjs --server-only && node --expose-gc --max-semi-space-size=64 dist/bench/inbox-wire-ws.js [rate] [seconds]
 *
 * The platform starts cold: the first WARMUP seconds (default 3) of the same traffic are printed apart ("cold", the
 * first messages after start, while V8 compiles the path and the pools open), then the measured SECONDS ("wire", the
 * sustained rate issue 14 asks about). `--max-semi-space-size=64` is how `npm start` runs the embedded platform.
 *
 * PROFILE_DIR=dir writes a CPU profile of the platform process for each phase (the wire, the ceiling) there, for
 * `--cpu-prof`-style reading without the start-up in it. TRACE=1 stamps each wire message at every stage of the path
 * (dispatch's receive, its owner lookup, its group commit, the outbox relay's publish, the inbox consumer's batch, the
 * commit, the room publish, the socket) and prints p50 / p99 of the time spent between consecutive stages. PGSS=1 runs
 * PostgreSQL with pg_stat_statements and prints, for the wire phase, the statements per message by schema and the
 * costliest ones. ROUTES=n (after the ceiling) posts n signed WhatsApp notifications from this process in blocks,
 * in turns by the path providers post to (answered in front of Express's router, docs/decisions/0127) and by a
 * spelling only the Nest route takes, the same message every time (stored once, a provider's retry): the platform's
 * CPU a request of each, and the difference, in one process at the same moments. WALREL=1 prints the wire phase's WAL
 * by relation (tables, indexes, TOAST; full-page images apart) and each index's scans in it (bench/pg-wal.ts).
 */
import 'reflect-metadata';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fork, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { Session } from 'node:inspector/promises';
import { PerformanceObserver } from 'node:perf_hooks';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Client } from 'pg';
import { ALL_PERMISSIONS, InboxWsEvent, MemberChangedV1 } from '@switchboard/contracts';
import { configureHttpApp, createEnvelope, DevMailbox, generateSigningKeys, InMemoryEventBus, InMemoryRealtime, PlatformModule, startEmbeddedPostgres, TokenSigner, TokenVerifier } from '@switchboard/platform';
import { AccountsBootstrapService } from '@switchboard/accounts';
import { GatewayModule } from '@switchboard/gateway';
import { RoomEvents } from '@switchboard/inbox';
import { WhatsAppPeer } from '@switchboard/dispatch';
import { InboundService } from '../services/dispatch/src/services/inbound.service';
import { MessagingConsumer } from '../services/inbox/src/services/messaging.consumer';
import { embeddedServiceModules } from '../apps/platform/src/embedded-server';
import { clusterCpuReader } from './bench-database';
import { printStatementsPerUnit } from './pg-statements';
import { printWalByRelation, walMark, type WalMark } from './pg-wal';
import { WA_BUSINESS, WA_PHONE_ID, WA_TOKEN, WA_APP_SECRET, type Channels, type DriveAnswer } from './inbox-wire-peers';

const RATE = Number(process.argv[2] ?? 500);
const SECONDS = Number(process.argv[3] ?? 20);
const OUR_NUMBER = '+4930111111';
const PGSS = process.env.PGSS === '1';
/** WALREL=1: the wire phase's WAL by relation and full-page images (pg_walinspect), and its index scans. */
const WALREL = process.env.WALREL === '1';
/**
 * TAIL=1 (with TRACE's stamps): what the slowest messages (the last 2 %) have in common. Each stage's share for them
 * against all, and which of the platform's events overlapped their path: a GC pause of the platform process, the
 * event loop late by 20 ms or more, one of dispatch's relay publishes (a pass's consumers) over 50 ms, an inbox
 * batch over 50 ms, a checkpoint or an autovacuum run of the bench's PostgreSQL (its log).
 */
const TAIL = process.env.TAIL === '1';
const pgLog: string[] = [];
const CHANNELS = (process.env.CHANNELS ?? 'both') as Channels;
if (!['sms', 'whatsapp', 'both'].includes(CHANNELS)) throw new Error('CHANNELS: sms, whatsapp or both');
/** Absolute time in ms on the machine's clock, comparable between this process and the peers'. */
const now = (): number => performance.timeOrigin + performance.now();

/** The peers' child process: asks answered in order of their ids. */
class Peers {
  private seq = 0;
  private readonly waiting = new Map<number, (m: Record<string, unknown>) => void>();
  private constructor(readonly child: ChildProcess) {
    child.on('message', (m: { id: number } & Record<string, unknown>) => {
      this.waiting.get(m.id)?.(m);
      this.waiting.delete(m.id);
    });
  }
  static async start(): Promise<{ peers: Peers; smppPort: number; waUrl: string }> {
    const child = fork(path.join(__dirname, 'inbox-wire-peers.js'), [], { stdio: 'inherit' });
    const peers = new Peers(child);
    const first = await new Promise<Record<string, unknown>>((resolve, reject) => {
      peers.waiting.set(0, resolve);
      child.once('exit', (code) => reject(new Error(`the peers' process exited (${code})`)));
    });
    return { peers, smppPort: Number(first.smppPort), waUrl: String(first.waUrl) };
  }
  ask<T = Record<string, unknown>>(cmd: string, args: Record<string, unknown> = {}): Promise<T> {
    const id = ++this.seq;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve as (m: Record<string, unknown>) => void);
      this.child.send({ id, cmd, ...args });
    });
  }
}
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers read field by field

const expect2xx = (r: { status: number; body: unknown }, what: string) => {
  if (r.status < 200 || r.status > 299) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
};
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inbox-wire-'));
  fs.chmodSync(dir, 0o755);
  const pg = await startEmbeddedPostgres({
    dataDir: path.join(dir, 'pg'),
    persistent: false,
    settings: {
      ...(PGSS ? { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all', 'pg_stat_statements.max': '10000', 'pg_stat_statements.track_planning': 'on' } : {}),
      // TAIL=1: the server's checkpoints and autovacuum runs, each line stamped with its epoch time, to lay beside the slowest messages
      ...(TAIL ? { log_checkpoints: 'on', log_autovacuum_min_duration: '0', log_line_prefix: '%n [%p] ' } : {}),
    },
    log: TAIL ? (line) => pgLog.push(line) : undefined,
  });
  const keys = generateSigningKeys();
  const { peers, smppPort: smscPort, waUrl } = await Peers.start();
  const bus = new InMemoryEventBus({ ack: 'handled', partitions: 16 });
  @Module({
    imports: [
      PlatformModule.forRoot({ bus, realtime: new InMemoryRealtime(), mailer: new DevMailbox(), verifier: new TokenVerifier(keys.publicKey), databaseUrl: pg.url(), processName: 'bench' }),
      ...embeddedServiceModules({ privateKey: keys.privateKey, dataDir: dir, appUrl: 'http://127.0.0.1:3000', providerApis: { whatsapp: waUrl } }),
      GatewayModule.register({ mode: 'embedded' }),
    ],
  })
  class BenchModule {}
  const app = await NestFactory.create<NestExpressApplication>(BenchModule, { logger: ['error'] });
  configureHttpApp(app);
  await app.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  const signer = new TokenSigner(keys.privateKey);
  const account = String((await app.get(AccountsBootstrapService).seed({ demoAccountName: 'Bench' })).demoAccountId);
  const token = (sub: string, perms: readonly string[], sa = false) => signer.signAccess({ sub, email: `${sub}@bench`, acc: account, perms: [...perms], roles: [], sa, sid: 'bench' }, 3600);
  const admin = token('1', ALL_PERMISSIONS, true);
  const call = async (method: string, p: string, body?: unknown): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${url}/api${p}`, { method, headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
  };
  const until = async <T>(probe: () => Promise<T | null | undefined | false>, what: string): Promise<T> => {
    for (let i = 0; i < 600; i++) {
      await bus.drain();
      const v = await probe();
      if (v) return v;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`not reached: ${what}`);
  };

  const vendor = await call('POST', '/service_type_manager/vendor', { name: 'Bench SMSC', service_type: 'sms', adapter: 'smpp', carrier: 'Bench', currency: 'EUR', config: { host: '127.0.0.1', port: smscPort, systemId: 'acme', password: 'secret', sourceTon: 1, sourceNpi: 1 } });
  await call('PUT', '/service_type_manager/countries_mapping', { iso2: 'DE', serviceType: 'sms', vendorIds: [String(vendor.body.id)] });
  await call('POST', '/service_type_manager/refresh', {});
  const sender = await call('POST', '/senders', { name: 'Our number', value: OUR_NUMBER, type: 'inbound-outbound' });
  await call('PUT', `/senders/superadmin/${sender.body.id as number}`, { approved: 1 });
  const stream = await call('POST', '/streams', { name: 'Two-way', streamType: 4, sender: OUR_NUMBER });
  await bus.publish([
    createEnvelope(MemberChangedV1, { accountId: account, userId: '77', email: 'agent@bench', firstName: 'Ann', lastName: 'Lee', status: 1, platformRole: null, inboxRole: { id: '5', name: 'Inbox Agent' }, permissions: ['INBOX_VIEW'], removed: false }, { source: 'auth', accountId: account }),
  ]);
  const space = await call('POST', '/spaces', { name: 'Support' });
  const team = await until(async () => {
    const r = await call('POST', '/teams', { name: 'Front', space: space.body.id, agents: [77] });
    return r.status === 201 && r;
  }, 'the team');
  const uid = await until(async () => (await call('GET', `/streams/${stream.body.id as number}`)).body.streamUid as string, 'the stream');
  await until(async () => (await call('POST', '/incoming_routings', { name: 'Two-way', stream: uid, team: team.body.id, space: space.body.id })).status === 201, 'the routing');
  await until(async () => Number((await peers.ask('binds')).binds) > 0, 'the bind');
  // WhatsApp: the account allowed it, a vendor at the local Cloud API, a stream for the business's number, its routing
  expect2xx(await call('PUT', `/customers/${account}`, { customSettings: { allow_whatsapp: 1 } }), 'allow WhatsApp');
  const waVendor = await call('POST', '/service_type_manager/vendor', { name: 'Local Cloud API', service_type: 'whatsapp', adapter: 'whatsapp', active: true, carrier: 'Meta', product_name: 'WhatsApp', product_id: 'local-wa', currency: 'EUR', config: { baseUrl: waUrl, apiVersion: 'v21.0', appSecret: WA_APP_SECRET } });
  await call('PUT', '/service_type_manager/countries_mapping', { iso2: 'DE', serviceType: 'whatsapp', vendorIds: [String(waVendor.body.id)] });
  await call('POST', '/service_type_manager/refresh', {});
  const waStream = await until(async () => {
    const r = await call('POST', '/streams', { name: 'WhatsApp', streamType: 5, params: { auth_token: WA_TOKEN, business_id: WA_BUSINESS, phone_number: WA_PHONE_ID } });
    return r.status === 201 && r;
  }, 'the WhatsApp stream');
  const waUid = await until(async () => (await call('GET', `/streams/${waStream.body.id as number}`)).body.streamUid as string, 'the WhatsApp stream uid');
  await until(async () => (await call('POST', '/incoming_routings', { name: 'WhatsApp', stream: waUid, team: team.body.id, space: space.body.id })).status === 201, 'the WhatsApp routing');
  const webhookUrl = `${url}/api/dispatch/webhooks/whatsapp/${waUid}`;

  const room = `team:${team.body.id as number}`;
  await peers.ask('connect', { wsUrl: `${url.replace('http', 'ws')}/ws?access_token=${token('77', ALL_PERMISSIONS.filter((p) => p.startsWith('INBOX_') && p !== 'INBOX_ADMIN' && p !== 'INBOX_TEAM_VIEW'))}`, room });

  // CPU time, which the other work on the machine inflates less than wall time: this process (the platform), the
  // peers' process (the providers and the agent's socket) and every process of this bench's own PostgreSQL cluster (the postmaster's children, from /proc)
  const clusterCpuMs = clusterCpuReader(path.join(dir, 'pg'));
  // system calls of this process (reads, writes: /proc/self/io), which a loaded machine does not inflate
  const syscalls = (): { r: number; w: number } => {
    const io = fs.readFileSync('/proc/self/io', 'utf8');
    return { r: Number(/syscr: (\d+)/.exec(io)?.[1] ?? 0), w: Number(/syscw: (\d+)/.exec(io)?.[1] ?? 0) };
  };
  const walLsn = async (): Promise<bigint> => {
    const [hi, lo] = (await pgc.query<{ l: string }>('SELECT pg_current_wal_insert_lsn()::text AS l')).rows[0].l.split('/');
    return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
  };
  const figures: Record<string, { node: number; db: number; peers: number }> = {};
  const pgc = new Client({ connectionString: pg.url() });
  await pgc.connect();
  if (PGSS) await pgc.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const stamps = process.env.TRACE === '1' || TAIL ? traceStages(bus) : null;
  /** A phase: `send` drives it from this process (the ceiling), or the peers drive it (the wire). */
  const drive = async (label: string, send?: (key: string, i: number) => void, seconds = SECONDS) => {
    const total = Math.round(RATE * seconds);
    const waitMs = 60_000;
    const profiler = process.env.PROFILE_DIR ? new Session() : null;
    if (profiler) {
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.start');
    }
    if (PGSS) await pgc.query('SELECT pg_stat_statements_reset()');
    const cpu0 = process.cpuUsage();
    const db0 = clusterCpuMs();
    const sys0 = syscalls();
    const wal0 = await walLsn();
    const mark: WalMark | null = WALREL && label === 'wire' ? await walMark(pgc) : null;
    let answer: DriveAnswer;
    let offered: number;
    const sent = new Map<string, number>();
    if (!send) {
      // the warm-up's customers and WhatsApp ids are its own (after the measured phase's), not a provider's retries
      answer = await peers.ask<DriveAnswer>('drive', { label, total, rate: RATE, channels: CHANNELS, webhookUrl, ourNumber: OUR_NUMBER, waitMs, first: label === 'cold' ? 10_000_000 : 0 });
      for (const [k, t] of answer.sent) sent.set(k, t);
      offered = answer.offered;
    } else {
      await peers.ask('arm', { label });
      const collected = peers.ask<DriveAnswer>('collect', { total, waitMs: SECONDS * 1000 + waitMs });
      const t0 = performance.now();
      for (let i = 0; i < total; i++) {
        const due = t0 + (i * 1000) / RATE;
        const wait = due - performance.now();
        if (wait > 1) await new Promise((r) => setTimeout(r, wait));
        const key = `${label}${i}`;
        sent.set(key, now());
        send(key, i);
      }
      offered = total / ((performance.now() - t0) / 1000);
      answer = await collected;
    }
    const cpu = process.cpuUsage(cpu0);
    const db = (clusterCpuMs() - db0) / total;
    const sys1 = syscalls();
    const wal = Number((await walLsn()) - wal0) / total;
    const node = (cpu.user + cpu.system) / 1000 / total;
    const peerCpu = answer.cpuMs / total;
    figures[label] = { node, db, peers: peerCpu };
    if (profiler) {
      const { profile } = await profiler.post('Profiler.stop');
      fs.writeFileSync(path.join(process.env.PROFILE_DIR as string, `inbox-${label}.cpuprofile`), JSON.stringify(profile));
      profiler.disconnect();
    }
    const arrived = new Map(answer.arrived);
    const lat = [...sent.entries()].filter(([k]) => arrived.has(k)).map(([k, t]) => (arrived.get(k) ?? t) - t).sort((a, b) => a - b);
    if (stamps && label === 'wire') printStages(stamps, sent, arrived);
    if (stamps && TAIL && label === 'wire') printTail(stamps, sent, arrived);
    if (PGSS && label === 'wire') await printStatements(pgc, total);
    if (mark) await printWalByRelation(pgc, mark, total);
    const failures = answer.webhookFailures > 0 ? `; ${answer.webhookFailures} webhook POSTs not answered 200 (${Object.entries(answer.webhookAnswers).map(([why, n]) => `${why}: ${n}`).join(', ')})` : '';
    console.log(
      `${label}: ${lat.length}/${total} arrived; offered ${offered.toFixed(0)}/s${label === 'wire' ? ` (${CHANNELS === 'both' ? 'SMPP and WhatsApp in turns' : CHANNELS})` : ''}; latency p50 ${pct(lat, 50).toFixed(1)} ms p95 ${pct(lat, 95).toFixed(1)} ms p99 ${pct(lat, 99).toFixed(1)} ms max ${lat[lat.length - 1].toFixed(1)} ms; CPU per message: node ${node.toFixed(2)} ms, PostgreSQL ${db.toFixed(2)} ms, peers ${peerCpu.toFixed(2)} ms (not the platform's); per message: node system calls ${((sys1.r - sys0.r) / total).toFixed(2)} reads ${((sys1.w - sys0.w) / total).toFixed(2)} writes, WAL ${wal.toFixed(0)} bytes${failures}`,
    );
  };
  console.log(`machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; shared with other work; ${RATE}/s for ${SECONDS} s`);
  // the peers send (each customer a number of their own, one conversation each, the key first in the text)
  const backends = async () => (await pgc.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend'`)).rows[0].n;
  // WARMUP=s (default 3; 0 for none): the same wire traffic for s seconds first, printed as the "cold" line and not
  // counted in the sustained figure: the platform's first second of traffic after start is JIT, connections and
  // statements' first plans (docs/decisions/0154, 0157). Issue 14's p99 is the "wire" line, 500/s sustained.
  const warmup = Number(process.env.WARMUP ?? 3);
  if (warmup > 0) {
    const b0 = await backends();
    await drive('cold', undefined, warmup);
    console.log(`warm-up: PostgreSQL client backends ${b0} before, ${await backends()} after`);
  }
  const b1 = await backends();
  await drive('wire');
  if (TAIL) console.log(`PostgreSQL client backends: ${b1} before the wire phase, ${await backends()} after`);
  const rooms = app.get(RoomEvents);
  await drive('ceiling', (key) => void rooms.emit(account, [room], InboxWsEvent.InternalNote, { marker: key }));
  const ratio = (k: 'node' | 'db') => (figures.wire[k] / Math.max(0.001, figures.ceiling[k])).toFixed(1);
  console.log(`ratio wire/ceiling, CPU per message: node ${ratio('node')}, PostgreSQL ${ratio('db')}`);
  if (Number(process.env.ROUTES ?? 0) > 0) await routes(Number(process.env.ROUTES), webhookUrl);

  await peers.ask('stop');
  await pgc.end();
  await app.close();
  await pg.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}

/** ROUTES=n: the webhook's early route against Nest's route, CPU a request of this process, blocks in turns. */
async function routes(n: number, webhookUrl: string): Promise<void> {
  // a signed notification with nothing to store (the routing, the signature check and the answer; no statement)
  const raw = JSON.stringify(WhatsAppPeer.notification(WA_PHONE_ID, {}));
  const headers = { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${createHmac('sha256', WA_APP_SECRET).update(raw).digest('hex')}` };
  const nest = webhookUrl.replace('/webhooks/whatsapp/', '/webhooks/WHATSAPP/'); // Express matches routes case-insensitively
  const block = Math.max(50, Math.floor(n / 10));
  const cpu: Record<'early' | 'nest', number[]> = { early: [], nest: [] };
  for (let done = 0, turn = 0; done < n; done += block, turn++) {
    for (const side of (turn % 2 ? ['nest', 'early'] : ['early', 'nest']) as Array<'early' | 'nest'>) {
      const c0 = process.cpuUsage();
      let next = 0;
      const post = async (): Promise<void> => {
        for (; next < block; next++) {
          const res = await fetch(side === 'early' ? webhookUrl : nest, { method: 'POST', headers, body: raw });
          await res.text();
          if (res.status !== 200) throw new Error(`${side}: ${res.status}`);
        }
      };
      await Promise.all(Array.from({ length: 16 }, post));
      const c = process.cpuUsage(c0);
      cpu[side].push((c.user + c.system) / block);
    }
  }
  const range = (xs: number[]) => `${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)} µs (median ${[...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)].toFixed(0)})`;
  const diffs = cpu.early.map((e, i) => cpu.nest[i] - e);
  console.log(`routes: ${n} POSTs a side in blocks of ${block}, CPU a request of this process (its HTTP client included, the same on both): early route ${range(cpu.early)}, Nest route ${range(cpu.nest)}; Nest minus early, block by block ${range(diffs)}`);
}

/** pg_stat_statements since the reset (bench/pg-statements.ts), with the outboxes' row counts. */
async function printStatements(pgc: Client, units: number): Promise<void> {
  await printStatementsPerUnit(pgc, units, {
    indent: '',
    between: async () => {
      const outboxes = (await pgc.query<{ s: string; ins: string; upd: string; idx: string; seq: string; live: string }>(
        `SELECT schemaname AS s, n_tup_ins::text AS ins, n_tup_upd::text AS upd, idx_scan::text AS idx, seq_scan::text AS seq, n_live_tup::text AS live FROM pg_stat_user_tables WHERE relname = 'outbox' AND (n_tup_ins > 0 OR idx_scan > 0) ORDER BY schemaname`,
      )).rows;
      console.log(`  outboxes (rows inserted, updated, index scans, seq scans, live rows since start): ${outboxes.map((o) => `${o.s} ${o.ins}/${o.upd}/${o.idx}/${o.seq}/${o.live}`).join(', ')}`);
    },
  });
}

/** The stages a wire message passes, in order; each stamped the first time the message reaches it. */
const STAGES = ['receive', 'looked up', 'write start', 'written', 'relay publish', 'consumer', 'batch start', 'batch applied', 'room publish'] as const;
type Stage = (typeof STAGES)[number];
type Stamps = Map<string, Partial<Record<Stage, number>>>;
const keyOf = (body: unknown): string => String(body ?? '').split(' ')[0];
/* eslint-disable @typescript-eslint/no-explicit-any -- the bench wraps private methods of the path to stamp them */
function traceStages(bus: InMemoryEventBus): Stamps {
  const stamps: Stamps = new Map();
  const stamp = (key: string, stage: Stage) => {
    const s = stamps.get(key) ?? {};
    if (s[stage] === undefined) s[stage] = now();
    stamps.set(key, s);
  };
  const wrap = (proto: any, name: string, before?: (args: any[]) => void, after?: (args: any[]) => void) => {
    const original = proto[name];
    proto[name] = async function (this: unknown, ...args: any[]) {
      before?.(args);
      const result = await original.apply(this, args);
      after?.(args);
      return result;
    };
  };
  wrap(InboundService.prototype, 'receive', ([raw]) => stamp(keyOf(raw.body), 'receive'));
  wrap(InboundService.prototype, 'streamOf', undefined, ([m]) => stamp(keyOf(m.body), 'looked up'));
  wrap(
    InboundService.prototype,
    'insertGroup',
    ([items]) => items.forEach((i: any) => stamp(keyOf(i.values[11]), 'write start')),
    ([items]) => items.forEach((i: any) => stamp(keyOf(i.values[11]), 'written')),
  );
  const publish = bus.publish.bind(bus);
  bus.publish = (events) => {
    let wire = 0;
    for (const e of events) {
      if (e.type !== 'dispatch.message.received') continue;
      wire++;
      stamp(keyOf((e.data as any).body), 'relay publish');
    }
    if (!wire || !TAIL) return publish(events);
    const t0 = now();
    return publish(events).finally(() => tail.relay.push([t0, now(), wire]));
  };
  wrap(MessagingConsumer.prototype, 'onReceived', ([e]) => stamp(keyOf(e.data.body), 'consumer'));
  wrap(
    MessagingConsumer.prototype,
    'applyReceived',
    ([, items]) => {
      items.forEach((i: any) => stamp(keyOf(i.data.body), 'batch start'));
      (items as any[]).forEach((i) => ((i as any).tailStart = now()));
    },
    ([, items]) => {
      items.forEach((i: any) => stamp(keyOf(i.data.body), 'batch applied'));
      if (TAIL && items.length) tail.batch.push([(items[0] as any).tailStart as number, now(), items.length]);
    },
  );
  if (TAIL) {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) tail.gc.push([performance.timeOrigin + e.startTime, performance.timeOrigin + e.startTime + e.duration, (e as any).detail?.kind ?? 0]);
    }).observe({ entryTypes: ['gc'] });
    let last = now();
    setInterval(() => {
      const t = now();
      if (t - last > 30) tail.lag.push([last + 10, t, t - last - 10]);
      last = t;
    }, 10).unref();
  }
  wrap(RoomEvents.prototype, 'publish', ([recorded]) => recorded.forEach((r: any) => r.message.payload?.message && stamp(keyOf(r.message.payload.message.content?.body), 'room publish')));
  return stamps;
}
/* eslint-enable @typescript-eslint/no-explicit-any */

/** TAIL=1: intervals [start, end, size] of the platform's events, absolute ms. */
const tail = { gc: [] as Array<[number, number, number]>, lag: [] as Array<[number, number, number]>, relay: [] as Array<[number, number, number]>, batch: [] as Array<[number, number, number]> };

function printTail(stamps: Stamps, sent: Map<string, number>, arrived: Map<string, number>): void {
  const names = ['sent', ...STAGES, 'socket'];
  const all: Array<{ t: number[]; total: number }> = [];
  for (const [key, t0] of sent) {
    const s = stamps.get(key);
    const t = [t0, ...STAGES.map((st) => s?.[st]), arrived.get(key)];
    if (t.some((x) => x === undefined)) continue;
    all.push({ t: t as number[], total: (t[t.length - 1] as number) - t0 });
  }
  all.sort((a, b) => a.total - b.total);
  const slow = all.slice(Math.floor(all.length * 0.98));
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const share = (set: typeof all, i: number) => mean(set.map((m) => m.t[i + 1] - m.t[i]));
  console.log(`tail: the slowest ${slow.length} of ${all.length} messages (from ${slow[0]?.total.toFixed(1)} ms); each stage's mean, slowest 2 % / all, and how often it was the slowest message's largest stage`);
  const largest = names.slice(1).map(() => 0);
  for (const m of slow) {
    let k = 0;
    for (let i = 1; i < m.t.length - 1; i++) if (m.t[i + 1] - m.t[i] > m.t[k + 1] - m.t[k]) k = i;
    largest[k]++;
  }
  names.slice(1).forEach((n, i) => console.log(`  ${names[i]} -> ${n}: ${share(slow, i).toFixed(1)} / ${share(all, i).toFixed(1)} ms; largest in ${largest[i]}`));
  const t0 = all.length ? Math.min(...all.map((m) => m.t[0])) : 0;
  const pgEvents: Array<[number, number, string]> = [];
  for (const line of pgLog.flatMap((l) => l.split('\n')).map((l) => l.replace(/^\[error\] /, ''))) {
    const m = /^(\d+\.\d+) \[\d+\] LOG:\s+(checkpoint (?:starting|complete)|automatic (?:vacuum|analyze) of table "([^"]+)")(.*)$/.exec(line);
    if (!m) continue;
    const at = Number(m[1]) * 1000;
    const elapsed = /elapsed: ([\d.]+) s/.exec(line) ?? /total=([\d.]+) s/.exec(line);
    pgEvents.push([at - (elapsed ? Number(elapsed[1]) * 1000 : 0), at, m[3] ? `autovacuum ${m[3]}` : m[2]]);
  }
  const t1 = all.length ? Math.max(...all.map((m) => m.t[m.t.length - 1])) : 0;
  const inRun = <T extends [number, number, ...unknown[]]>(xs: T[]) => xs.filter(([a, b]) => b >= t0 && a <= t1);
  const kinds: Array<[string, Array<[number, number, ...unknown[]]>]> = [
    ['GC pause >= 5 ms', inRun(tail.gc).filter(([a, b]) => b - a >= 5)],
    ['event loop late >= 20 ms', inRun(tail.lag)],
    ['relay publish >= 50 ms', inRun(tail.relay).filter(([a, b]) => b - a >= 50)],
    ['inbox batch >= 50 ms', inRun(tail.batch).filter(([a, b]) => b - a >= 50)],
    ['checkpoint or autovacuum', inRun(pgEvents)],
  ];
  const overlaps = (m: { t: number[] }, xs: Array<[number, number, ...unknown[]]>) => xs.some(([a, b]) => b >= m.t[0] && a <= m.t[m.t.length - 1]);
  for (const [what, xs] of kinds) {
    const dur = xs.map(([a, b]) => b - a).sort((a, b) => a - b);
    const inSlow = slow.filter((m) => overlaps(m, xs)).length;
    const inAll = all.filter((m) => overlaps(m, xs)).length;
    console.log(`  ${what}: ${xs.length} in the run (longest ${dur.length ? dur[dur.length - 1].toFixed(1) : '-'} ms, total ${dur.reduce((a, b) => a + b, 0).toFixed(0)} ms); overlapped ${inSlow}/${slow.length} slowest, ${inAll}/${all.length} of all`);
  }
  const gcs = inRun(tail.gc);
  console.log(`  GC in the run: ${gcs.length} pauses, ${gcs.reduce((a, [x, y]) => a + y - x, 0).toFixed(0)} ms (kinds ${[...new Set(gcs.map((g) => g[2]))].join(',')}, longest ${Math.max(0, ...gcs.map(([x, y]) => y - x)).toFixed(1)} ms)`);
  const relays = inRun(tail.relay).map(([a, b, n]) => [b - a, n]);
  const rs = relays.map(([d]) => d).sort((a, b) => a - b);
  console.log(`  relay publishes (a pass's consumers, ack handled): ${relays.length}, p50 ${pct(rs, 50)?.toFixed(1)} p99 ${pct(rs, 99)?.toFixed(1)} max ${rs[rs.length - 1]?.toFixed(1)} ms, mean ${mean(relays.map(([, n]) => n)).toFixed(1)} messages`);
  for (const [a, b, w] of inRun(pgEvents)) console.log(`  PostgreSQL: ${w} at +${(a - t0).toFixed(0)} ms for ${(b - a).toFixed(0)} ms`);
  // when in the run the slowest were sent (by second)
  const bySecond = new Map<number, number>();
  for (const m of slow) bySecond.set(Math.floor((m.t[0] - t0) / 1000), (bySecond.get(Math.floor((m.t[0] - t0) / 1000)) ?? 0) + 1);
  const chan = (m: { t: number[] }) => all.indexOf(m as (typeof all)[number]);
  void chan;
  const buckets = new Map<number, number[]>();
  for (const m of all) {
    const b = Math.floor((m.t[0] - t0) / 250);
    if (b < 12) buckets.set(b, [...(buckets.get(b) ?? []), m.t[1] - m.t[0]]);
  }
  console.log(`  sent -> receive, max by 250 ms of the first 3 s: ${[...buckets.entries()].sort((a, b) => a[0] - b[0]).map(([b, xs]) => `${b * 250}:${Math.max(...xs).toFixed(0)}`).join(' ')}`);
  console.log(`  event loop late (start +ms, late ms) in the first 3 s: ${inRun(tail.lag).filter(([a]) => a - t0 < 3000).map(([a, , l]) => `${(a - t0).toFixed(0)}:${l.toFixed(0)}`).join(' ')}`);
  console.log(`  GC (start +ms, ms) in the first 3 s: ${inRun(tail.gc).filter(([a]) => a - t0 < 3000).map(([a, b]) => `${(a - t0).toFixed(0)}:${(b - a).toFixed(0)}`).join(' ')}`);
  console.log(`  PostgreSQL log lines kept: ${pgLog.length}; ${pgLog.slice(-3).join(' | ').slice(0, 300)}`);
  console.log(`  slowest sent in second: ${[...bySecond.entries()].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}:${n}`).join(' ')}`);
}

/** p50 / p99 / max of each stage's share of the latency (from the previous stage), and of the whole. */
function printStages(stamps: Stamps, sent: Map<string, number>, arrived: Map<string, number>): void {
  const names = ['sent', ...STAGES, 'socket'];
  const rows: number[][] = names.slice(1).map(() => []);
  for (const [key, t0] of sent) {
    const s = stamps.get(key);
    const t = [t0, ...STAGES.map((st) => s?.[st]), arrived.get(key)];
    if (t.some((x) => x === undefined)) continue;
    for (let i = 1; i < t.length; i++) rows[i - 1].push((t[i] as number) - (t[i - 1] as number));
  }
  console.log(`stages of ${rows[0].length} messages (ms from the previous stage): p50 / p99 / max`);
  rows.forEach((xs, i) => {
    xs.sort((a, b) => a - b);
    console.log(`  ${names[i]} -> ${names[i + 1]}: ${pct(xs, 50).toFixed(1)} / ${pct(xs, 99).toFixed(1)} / ${xs[xs.length - 1].toFixed(1)}`);
  });
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
