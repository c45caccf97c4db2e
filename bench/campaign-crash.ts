/**
 * The campaign path under SIGKILL (issue 12): a campaign of 200,000 recipients sent through the whole platform on
 * Kafka (librdkafka's mock cluster), with the campaigns service (runner and its consumers), streams and dispatch each
 * in its own process, killed with SIGKILL at random points in turn (campaigns, dispatch, streams, campaigns, ...) and
 * started again. Every other module (accounts and its ledger, contacts, stats, ...) runs in this process, and the
 * SMSC is a local SMPP peer that answers each submit with a receipt and keeps unacknowledged receipts for the next bind.
 *
 * Printed at the end, with the campaign finished:
 * - at the SMSC (each number is one recipient): lost (never received), received twice (each must be flagged
 *   possible_duplicate by dispatch, a resend of a submit whose answer the kill cut);
 * - final status exactly once: recipients whose campaign status is final, the campaign's final counters (delivered,
 *   undelivered, sent_failed, dlr_failed: one per recipient, so exactly the recipients), streams' messages of the
 *   campaign (one per recipient) and dispatch's messages (one per recipient, each final);
 * - exact charges: per message, accounts' ledger charge less refund against streams' price less refund; ledger
 *   entries of messages the campaign does not have; the balance's debit against the messages' cost.
 * Time lost: the run's wall time minus the same campaign's time without kills (the first phase, on a second list of
 * the same size), and per kill, from the kill to the campaign moving again.
 *
 *   node scripts/build.mjs --server-only
 *   node dist/bench/campaign-crash.js [recipients=200000] [kills=4]
 *   REFERENCE=0 REFERENCE_SECONDS=120 node dist/bench/campaign-crash.js [recipients] [kills]   (no reference run; kills spaced by about REFERENCE_SECONDS / (kills + 1))
 *   KILL=campaigns node dist/bench/campaign-crash.js ...   (kill only these processes, comma-separated; default campaigns,dispatch,streams)
 *   TPS=150 node dist/bench/campaign-crash.js ...   (the account's messages per second; default 20,000, i.e. as fast as the platform goes)
 *   KAFKA_COMPRESSION=none node dist/bench/campaign-crash.js ...   (record batches uncompressed; default gzip)
 *   UNDISPATCHED_AFTER_MS=60000 node dist/bench/campaign-crash.js ...   (streams' sweeper of accepted messages dispatch
 *     never got asks about a message still accepted this long after acceptance; default 300 s here, 15 minutes in
 *     production; swept every UNDISPATCHED_INTERVAL_MS, 5 s here)
 *   LEDGER_WAIT_SECONDS=300: how long the end waits for accounts' ledger to have every charge (a reset ledger group never will)
 *   SNAPSHOT_ONLY=1: stop once the killed campaign's audience snapshot is stored (every recipient in
 *     campaigns.recipient), after printing its wall time and the CPU of every process of the run (this one, the
 *     children alive, PostgreSQL's cluster, the Kafka mock); with kills=0, the Kafka path's snapshot on its own;
 *     SNAPSHOT_KILLS_AT=20,60 kills campaigns that many seconds after the start (if the snapshot is not stored yet)
 *   BATCH_REQUESTS=0: the runner's requests as state 2 on each recipient (before 0188), not a batch row
 *   CHILD_WARN=1: the child processes (campaigns, streams, dispatch) log warnings too, not only errors
 *   DOWN=dispatch:90 node dist/bench/campaign-crash.js ...   (a killed dispatch stays down 90 s before its restart:
 *     with KAFKA_COMPRESSION=none the mock's 5 MiB per partition then deletes accepted events dispatch had not read,
 *     its offset is reset, and the sweeper has work)
 *
 * The run ends only once every recipient has a final status (the campaign's counters and each recipient's status),
 * printing progress every PROGRESS_SECONDS (30): streams' messages, dispatch's, final recipients, the sweeper's counts.
 *
 * The runner's lease is 3 s here (default 10 s): a restarted runner takes its campaign over once the dead one's lease
 * ran out; batches requested and never answered are asked again after `resendAfterMs` (10 s here) with the same
 * messageUuids, which streams answers as duplicates.
 */
import 'reflect-metadata';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Kafka, logLevel } from 'kafkajs';
import { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { ALL_PERMISSIONS, ContactListReadyV1, Topics } from '@switchboard/contracts';
import {
  configureHttpApp,
  createEnvelope,
  DevMailbox,
  generateSigningKeys,
  InMemoryRealtime,
  KafkaEventBus,
  type KafkaCompression,
  PlatformModule,
  startEmbeddedPostgres,
  TokenSigner,
  TokenVerifier,
} from '@switchboard/platform';
import { startKafkaMock, startNodeProcess, type NodeProcess } from '@switchboard/platform/testing';
import { AccountsBootstrapService } from '@switchboard/accounts';
import { CampaignsModule } from '@switchboard/campaigns';
import { DispatchModule, SmppPeer } from '@switchboard/dispatch';
import { StreamsModule } from '@switchboard/streams';
import { embeddedServiceModules } from '../apps/platform/src/embedded-server';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers read field by field

/** Campaigns asking dispatch for statuses it lost (docs/decisions/0093), short for the drill: STATUSES_AFTER_MS (120 s). */
const STATUSES = { afterMs: Number(process.env.STATUSES_AFTER_MS ?? 120_000), intervalMs: Number(process.env.STATUSES_INTERVAL_MS ?? 5000) };
/** `BATCH_REQUESTS=0`: the runner writes state 2 on each requested recipient, not a batch row (docs/decisions/0188). */
const RUNNER = { leaseMs: 3000, resendAfterMs: 10_000, statuses: STATUSES, batchRequests: process.env.BATCH_REQUESTS !== '0' };
/** Streams' sweeper of accepted messages dispatch never got (docs/decisions/0087), short for the drill. */
const UNDISPATCHED = { afterMs: Number(process.env.UNDISPATCHED_AFTER_MS ?? 300_000), intervalMs: Number(process.env.UNDISPATCHED_INTERVAL_MS ?? 5000) };
/** `DOWN=dispatch:90,streams:30`: seconds a killed process stays down before its restart (default 0). */
const DOWN = new Map((process.env.DOWN ?? '').split(',').filter(Boolean).map((x) => [x.split(':')[0], Number(x.split(':')[1] ?? 0)] as const));
/** `KAFKA_COMPRESSION=none` to run without compression (default gzip, the bus's default). */
const COMPRESSION = process.env.KAFKA_COMPRESSION as KafkaCompression | undefined;

/** The processes killed in turn, each one service of the distributed deployment. */
const ROLES = { campaigns: CampaignsModule, streams: StreamsModule, dispatch: DispatchModule } as const;
type Role = keyof typeof ROLES;

/** One service's process (campaigns, streams or dispatch): its API on `port`, its consumers on Kafka; runs until killed. */
async function child(role: Role, url: string, brokers: string, port: number, dataDir: string): Promise<void> {
  const keys = { privateKey: process.env.BENCH_PRIVATE_KEY ?? '', publicKey: process.env.BENCH_PUBLIC_KEY ?? '' };
  const bus = new KafkaEventBus({ clientId: `${role}-crash`, brokers: brokers.split(','), compression: COMPRESSION, consumer: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500, rebalanceTimeoutMs: 8000, partitionsConsumedConcurrently: 8, maxWaitTimeMs: 100 } });
  // campaigns with the drill's runner options; streams and dispatch as embedded mode registers them (the same keys, so
  // streams' sealed provider secrets open in dispatch)
  const service =
    role === 'campaigns'
      ? CampaignsModule.register({ migrationsRun: true, runner: RUNNER })
      : embeddedServiceModules({ privateKey: keys.privateKey, dataDir, appUrl: 'http://127.0.0.1:3000', undispatched: UNDISPATCHED }).filter((m) => m.module === ROLES[role])[0];
  @Module({
    imports: [PlatformModule.forRoot({ bus, realtime: new InMemoryRealtime(), mailer: new DevMailbox(), verifier: new TokenVerifier(keys.publicKey), databaseUrl: url, processName: role }), service],
  })
  class ChildModule {}
  const app = await NestFactory.create<NestExpressApplication>(ChildModule, { logger: process.env.CHILD_WARN === '1' ? ['error', 'warn'] : ['error'] });
  configureHttpApp(app);
  await app.listen(port, '127.0.0.1');
  // the parent follows each group's committed offsets against the broker's log
  fs.writeFileSync(path.join(dataDir, `groups-${role}.json`), JSON.stringify(bus.subscribedGroups()));
  process.send?.('ready');
}

/** CPU seconds of a process from /proc (`withChildren`: with its reaped children), 0 when it is gone. */
function procCpu(pid: number | undefined, withChildren = false): number {
  if (!pid) return 0;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12]) + (withChildren ? Number(f[13]) + Number(f[14]) : 0)) / 100;
  } catch {
    return 0;
  }
}

/** CPU seconds of a PostgreSQL cluster: the postmaster with its reaped children, and its live server processes. */
function clusterCpu(postmaster: number): number {
  let total = procCpu(postmaster, true);
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster) total += procCpu(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function parent(total: number, kills: number): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'campaign-crash-'));
  fs.chmodSync(dir, 0o755);
  const pgServer = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), persistent: false });
  const url = pgServer.url();
  const db = new Client({ connectionString: url });
  await db.connect();
  await db.query(`ALTER SYSTEM SET max_wal_size = '4GB'`);
  await db.query(`SELECT pg_reload_conf()`);
  const kafka = await startKafkaMock(1);
  const peer = new SmppPeer({ systemId: 'bench', password: 'secret', redeliverUnacked: true });
  const smppPort = await peer.listen();
  const keys = generateSigningKeys();
  const bus = new KafkaEventBus({ clientId: 'platform-crash', brokers: kafka.url.split(','), compression: COMPRESSION, consumer: { partitionsConsumedConcurrently: 8, maxWaitTimeMs: 100, maxBytesPerPartition: 2 * 1024 * 1024 } });
  const roles = Object.keys(ROLES) as Role[];
  @Module({
    imports: [
      PlatformModule.forRoot({ bus, realtime: new InMemoryRealtime(), mailer: new DevMailbox(), verifier: new TokenVerifier(keys.publicKey), databaseUrl: url, processName: 'platform' }),
      // every module but campaigns, streams and dispatch, which run in the child processes that are killed
      ...embeddedServiceModules({ privateKey: keys.privateKey, dataDir: dir, appUrl: 'http://127.0.0.1:3000' }).filter((m) => !roles.some((r) => m.module === ROLES[r])),
    ],
  })
  class PlatformBenchModule {}
  const app = await NestFactory.create<NestExpressApplication>(PlatformBenchModule, { logger: ['error'] });
  configureHttpApp(app);
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/api`;
  const ports = Object.fromEntries(await Promise.all(roles.map(async (r) => [r, await freePort()] as const))) as Record<Role, number>;
  const at = (r: Role) => `http://127.0.0.1:${ports[r]}/api`;
  const campaignsBase = at('campaigns');
  const startChild = (role: Role): Promise<NodeProcess> =>
    startNodeProcess(
      __filename,
      { ipc: true },
      { args: ['child', role, url, kafka.url, String(ports[role]), dir], env: { BENCH_PRIVATE_KEY: keys.privateKey, BENCH_PUBLIC_KEY: keys.publicKey }, stdio: 'inherit', readyTimeoutMs: 300_000 },
    );
  const procs = Object.fromEntries(await Promise.all(roles.map(async (r) => [r, await startChild(r)] as const))) as Record<Role, NodeProcess>;
  const killOrder = (process.env.KILL ?? 'campaigns,dispatch,streams').split(',').filter((r): r is Role => r in ROLES);

  const account = String((await app.get(AccountsBootstrapService).seed({ demoAccountName: 'Crash' })).demoAccountId);
  const token = new TokenSigner(keys.privateKey).signAccess({ sub: '1', email: 'admin@bench.local', acc: account, perms: [...ALL_PERMISSIONS], roles: [], sa: true, sid: 'bench' }, 24 * 3600);
  const call = async (method: string, p: string, body?: unknown, at = base): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${at}${p}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) }).catch(() => null);
    if (!res) return { status: 0, body: {} };
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
  };
  const must = async (method: string, p: string, body?: unknown, at = base): Promise<Json> => {
    const r = await call(method, p, body, at);
    if (r.status >= 300 || r.status === 0) throw new Error(`${method} ${p}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const until = async <T>(probe: () => Promise<T | null | undefined | false>, what: string, ms = 120_000): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      const v = await probe();
      if (v) return v;
      if (Date.now() > end) throw new Error(`not reached: ${what}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const count = async (sql: string, params: unknown[] = []): Promise<number> => Number((await db.query<{ n: string }>(sql, params)).rows[0].n);

  const vendor = await must('POST', '/service_type_manager/vendor', {
    name: 'Crash SMSC',
    service_type: 'sms',
    adapter: 'smpp',
    carrier: 'Crash',
    currency: 'EUR',
    config: { host: '127.0.0.1', port: smppPort, systemId: 'bench', password: 'secret', window: 128, connections: 2, reconnectMs: 100 },
  }, at('dispatch'));
  await must('PUT', '/service_type_manager/countries_mapping', { iso2: 'DE', serviceType: 'sms', vendorIds: [String(vendor.id)] }, at('dispatch'));
  await must('POST', '/service_type_manager/refresh', {}, at('dispatch'));
  const sender = await must('POST', '/senders', { name: 'Shop', value: 'SHOP', type: 'outbound-only' }, at('streams'));
  await must('PUT', `/senders/superadmin/${sender.id as number}`, { approved: 1 }, at('streams'));
  const stream = await must('POST', '/streams', { name: 'Campaigns', streamType: 1, sender: 'SHOP' }, at('streams'));
  // TPS=<n> paces the campaign (the account's rate): on the Kafka mock the slowest group must stay within the log it keeps
  await must('PUT', `/customers/${account}`, { tps: Number(process.env.TPS ?? 20_000), customSettings: { streams_max_messages_per_day: 10 * total } });
  await must('POST', `/customers/${account}/balance`, { amount: '10000000', reason: 'bench' });

  const lists: string[] = [];
  for (const name of ['reference', 'crash']) {
    const [{ id: listId }] = (await db.query<{ id: string }>(`INSERT INTO contacts.contact_list (account_id, name, type, status, num_of_contacts) VALUES ($1, $2, 'list', 2, $3) RETURNING id::text`, [account, name, total])).rows;
    const offset = lists.length * total;
    const s = db.query(copyFrom('COPY contacts.contact (account_id, phone, normalized_phone, country, timezone, first_name, list_ids) FROM STDIN'));
    await new Promise<void>((resolve, reject) => {
      s.on('finish', () => resolve());
      s.on('error', reject);
      for (let i = 0; i < total; i += 10_000) {
        let text = '';
        for (let k = i; k < Math.min(total, i + 10_000); k++) {
          const phone = `+49151${String(10_000_000 + offset + k).padStart(8, '0')}`;
          text += `${account}\t${phone}\t${phone}\tDE\tEurope/Berlin\tName${k}\t{${listId}}\n`;
        }
        s.write(text);
      }
      s.end();
    });
    await bus.publish([createEnvelope(ContactListReadyV1, { accountId: account, contactListId: listId, name, type: 'list', numOfContacts: total, importListId: null, readyAt: new Date().toISOString() }, { accountId: account, source: 'contacts' })]);
    lists.push(listId);
  }
  await db.query('VACUUM ANALYZE contacts.contact');
  await until(async () => peer.binds > 0, 'the SMSC bound');

  const campaign = async (name: string, listId: string): Promise<number> => {
    const body = { name, stream: stream.id, contactLists: [Number(listId)], campaignVariants: [{ text: 'Hi {{firstName}}, our spring sale starts today!' }], campaignsSenders: [{ sender: sender.id }], activityTime: { working_hours: { start: '00:00', end: '23:59' }, working_days: [1, 2, 3, 4, 5, 6, 7], timezone_mode: 'recipient' } };
    return until(async () => {
      const r = await call('POST', '/campaigns', body, campaignsBase);
      return r.status === 201 && (r.body.id as number);
    }, 'the campaign created (read models in)');
  };
  const stats = async (id: number) => (await call('GET', `/campaigns/${id}`, undefined, campaignsBase)).body as { status?: number; stats?: { delivered: number; created: number } };
  /** The campaign's counted statuses and stored recipients (its own progress, moved only by the campaigns process). */
  const progress = async (id: number) =>
    count(`SELECT (SELECT sent + delivered + undelivered + sent_failed + dlr_failed FROM campaigns.campaign WHERE id = $1) + (SELECT count(*) FROM campaigns.recipient WHERE campaign_id = $1) AS n`, [id]);
  const finished = async (id: number) => count(`SELECT count(*) AS n FROM campaigns.campaign WHERE id = $1 AND status = 7 AND delivered + undelivered + sent_failed + dlr_failed >= $2`, [id, total]);

  /**
   * The broker's log against every group's committed offset, every 2 s: librdkafka's mock keeps at most 5 MiB of record
   * batches per partition (rdkafka_mock.c) and deletes the oldest beyond it. A group whose committed offset falls below
   * the log's start has skipped records (its offset is reset); the closest any group came to it is the run's headroom.
   */
  const groupNames = () => [...new Set([...bus.subscribedGroups(), ...roles.flatMap((r) => (fs.existsSync(path.join(dir, `groups-${r}.json`)) ? (JSON.parse(fs.readFileSync(path.join(dir, `groups-${r}.json`), 'utf8')) as string[]) : []))])];
  const admin = new Kafka({ clientId: 'crash-watch', brokers: kafka.url.split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  /** Everything this run started, stopped (the children killed), and its files removed. */
  const closeAll = async (): Promise<void> => {
    await admin.disconnect();
    for (const r of roles) await procs[r].stop('SIGKILL');
    await app.close();
    await peer.close();
    await kafka.stop();
    await db.end();
    await pgServer.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const watchTopics = [Topics.Campaigns, Topics.Streams, Topics.Dispatch, Topics.Accounts, Topics.Contacts];
  const logWatch = { samples: 0, largest: { records: 0, where: '' }, deleted: new Map<string, number>(), headroom: null as null | { records: number; where: string }, behind: [] as string[], resets: new Set<string>() };
  const watchLog = async (): Promise<void> => {
    const logs = new Map<string, Map<number, { low: number; high: number }>>();
    for (const topic of watchTopics) {
      const offsets = await admin.fetchTopicOffsets(topic).catch(() => []);
      logs.set(topic, new Map(offsets.map((o) => [o.partition, { low: Number(o.low), high: Number(o.high) }])));
      for (const o of offsets) {
        if (Number(o.low) > 0) logWatch.deleted.set(`${topic}/${o.partition}`, Number(o.low));
        if (Number(o.high) > logWatch.largest.records) logWatch.largest = { records: Number(o.high), where: `${topic}/${o.partition}` };
      }
    }
    for (const groupId of groupNames()) {
      const committed = await admin.fetchOffsets({ groupId, topics: watchTopics }).catch(() => []);
      for (const t of committed) {
        for (const p of t.partitions) {
          const log = logs.get(t.topic)?.get(p.partition);
          const at = Number(p.offset);
          if (!log) continue;
          const where = `${groupId} ${t.topic}/${p.partition}`;
          if (at === -2) logWatch.resets.add(where); // kafkajs' reset commits "earliest"
          if (at < 0 || at >= log.high || log.low === 0) continue; // caught up, or nothing deleted yet
          if (at < log.low) logWatch.behind.push(`${where} at ${at}, log from ${log.low}`);
          else if (!logWatch.headroom || at - log.low < logWatch.headroom.records) logWatch.headroom = { records: at - log.low, where: `${where} (at ${at}, log ${log.low} to ${log.high})` };
        }
      }
    }
    logWatch.samples++;
  };
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      await watchLog().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 2000));
    }
  })();

  const balance = async (): Promise<bigint> => BigInt((await must('GET', `/customers/${account}`)).balanceMicros as string);
  console.log(`campaign-crash: ${total.toLocaleString('en')} recipients, ${kills} kills (in turn: ${killOrder.join(', ')}${DOWN.size ? `; down before restart: ${[...DOWN].map(([r, n]) => `${r} ${n} s`).join(', ')}` : ''}), Kafka mock (compression ${COMPRESSION ?? 'gzip'}), account TPS ${process.env.TPS ?? 20_000}, undispatched sweeper after ${UNDISPATCHED.afterMs} ms every ${UNDISPATCHED.intervalMs} ms, status questions after ${STATUSES.afterMs} ms every ${STATUSES.intervalMs} ms, ${os.cpus().length} x ${os.cpus()[0]?.model}, node ${process.version}, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);

  /**
   * The sweeper's counters, read from each streams process's /metrics: summed over the processes that were killed
   * (read last before each kill of streams) and the one running now.
   */
  const sweeperBefore = new Map<string, number>();
  const sweeperNow = async (): Promise<Map<string, number>> => {
    const text = await fetch(`http://127.0.0.1:${ports.streams}/metrics`).then((r) => r.text()).catch(() => '');
    const m = new Map<string, number>();
    for (const line of text.split('\n')) {
      const hit = /^switchboard_streams_undispatched_(messages_total\{outcome="(\w+)"\}|sweep_failures_total) (\S+)/.exec(line);
      if (hit) m.set(hit[2] ?? 'sweep_failures', Number(hit[3]));
    }
    return m;
  };
  let sweeperLast = new Map<string, number>();
  const sweeperCounts = async (): Promise<string> => {
    const now = await sweeperNow();
    if (now.size) sweeperLast = now;
    const keys = ['asked', 'known', 'republished', 'not_rebuildable', 'sweep_failures'];
    return keys.map((k) => `${k} ${(sweeperBefore.get(k) ?? 0) + (sweeperLast.get(k) ?? 0)}`).join(', ');
  };
  const bankSweeper = async (): Promise<void> => {
    await sweeperCounts();
    for (const [k, v] of sweeperLast) sweeperBefore.set(k, (sweeperBefore.get(k) ?? 0) + v);
    sweeperLast = new Map();
  };

  /** Campaigns' status questions (docs/decisions/0093): its recipients asked about, and the current campaigns process's counters. */
  const statusQuestions = async (campaignId: number): Promise<string> => {
    const askedRecipients = await count(`SELECT count(*) AS n FROM campaigns.recipient WHERE campaign_id = $1 AND status_asked_at IS NOT NULL`, [campaignId]);
    const text = await fetch(`http://127.0.0.1:${ports.campaigns}/metrics`).then((r) => r.text()).catch(() => '');
    const m: string[] = [];
    for (const line of text.split('\n')) {
      const hit = /^switchboard_campaigns_status_reconcile_(recipients_total\{outcome="(\w+)"\}|sweep_failures_total) (\S+)/.exec(line);
      if (hit) m.push(`${hit[2] ?? 'sweep_failures'} ${hit[3]}`);
    }
    return `recipients asked about ${askedRecipients}; this campaigns process: ${m.join(', ') || 'none yet'}`;
  };

  // ---- reference: the same campaign without kills ----
  let refSecs = Number(process.env.REFERENCE_SECONDS ?? 60);
  if (process.env.REFERENCE !== '0') {
    const ref = await campaign('Reference', lists[0]);
    const t0 = Date.now();
    await must('POST', `/campaigns/${ref}/start`, undefined, campaignsBase);
    await until(async () => (await finished(ref)) > 0, 'the reference campaign finished', 6 * 3600_000);
    refSecs = (Date.now() - t0) / 1000;
    console.log(`  reference (no kill): ${refSecs.toFixed(1)} s, ${Math.round(total / refSecs)} messages/s`);
  }

  // ---- the campaign whose processes are killed ----
  const id = await campaign('Crash', lists[1]);
  const before = peer.parts.length;
  const ledgerFrom = (await db.query<{ id: string }>(`SELECT coalesce(max(id), 0)::text AS id FROM accounts.balance_entry`)).rows[0].id;
  const balanceBefore = await balance();
  const [{ pid: backend }] = (await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows;
  const postmaster = Number(fs.readFileSync(`/proc/${backend}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
  /** CPU of the run's processes: this one, the children alive (a killed child's CPU is lost), PostgreSQL, the mock broker. */
  const cpuNow = () => ({ node: process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6 + roles.reduce((a, r) => a + procCpu(procs[r].child.pid), 0), pg: clusterCpu(postmaster), broker: procCpu(kafka.process.pid) });
  const t1 = Date.now();
  const cpu1 = cpuNow();
  await must('POST', `/campaigns/${id}/start`, undefined, campaignsBase);
  // the audience snapshot: from the start to every recipient stored (it stalls the campaign until then), with its CPU
  const snapshotDone = (async () => {
    let lastPrint = Date.now();
    for (;;) {
      const [r] = (await db.query<{ received: number; total: number | null }>(`SELECT audience_received AS received, audience_total AS total FROM campaigns.run WHERE campaign_id = $1`, [id])).rows;
      if (r && r.total !== null && r.received >= r.total) {
        const secs = (Date.now() - t1) / 1000;
        const c = cpuNow();
        const node = c.node - cpu1.node;
        const pg = c.pg - cpu1.pg;
        const per = ((node + pg) / r.total) * 1e6;
        // where the time went, from the databases' clocks: the request leaving campaigns' outbox, contacts claiming it
        // (its snapshot transaction's start), the chunks leaving contacts' outbox (the first after that transaction's commit)
        const [ph] = (
          await db.query<Record<string, string | null>>(
            `SELECT extract(epoch FROM (SELECT min(o.published_at) FROM campaigns.outbox o WHERE o.topic = 'switchboard.campaigns' AND o.created_at >= r.created_at) - r.created_at)::text AS request,
                    extract(epoch FROM (SELECT max(p.processed_at) FROM contacts.processed_events p WHERE p.consumer = 'contacts.audience') - r.created_at)::text AS claimed,
                    extract(epoch FROM (SELECT min(o.published_at) FROM contacts.outbox o WHERE o.topic = '' AND o.created_at >= r.created_at) - r.created_at)::text AS first,
                    extract(epoch FROM (SELECT max(o.published_at) FROM contacts.outbox o WHERE o.topic = '' AND o.created_at >= r.created_at) - r.created_at)::text AS last,
                    extract(epoch FROM r.updated_at - r.created_at)::text AS stored
               FROM campaigns.run r WHERE r.campaign_id = $1`,
            [id],
          )
        ).rows;
        const at = (v: string | null | undefined) => (v == null ? '?' : `${Number(v).toFixed(1)} s`);
        console.log(`  snapshot phases from the run's creation: request published ${at(ph?.request)}, contacts' snapshot transaction began ${at(ph?.claimed)}, first chunk published ${at(ph?.first)}, last ${at(ph?.last)}, all stored ${at(ph?.stored)}`);
        console.log(
          `  snapshot: ${r.total.toLocaleString('en')} recipients stored in ${secs.toFixed(1)} s (${Math.round(r.total / secs)}/s); CPU node ${node.toFixed(2)} s (this process and the children alive) + PostgreSQL ${pg.toFixed(2)} s = ${per.toFixed(1)} µs a recipient; Kafka mock ${(c.broker - cpu1.broker).toFixed(2)} s; load ${os.loadavg()[0].toFixed(1)}`,
        );
        return;
      }
      if (Date.now() - lastPrint >= 10_000) {
        lastPrint = Date.now();
        console.log(`  snapshot at ${((Date.now() - t1) / 1000).toFixed(0)} s: ${r?.received ?? 0} recipients stored of ${r?.total ?? '?'}; load ${os.loadavg()[0].toFixed(1)}`);
      }
      await new Promise((res) => setTimeout(res, 250));
    }
  })();
  if (process.env.SNAPSHOT_ONLY === '1') {
    // SNAPSHOT_KILLS_AT=20,60: campaigns killed (SIGKILL) and started again that many seconds after the start
    let done = false;
    void snapshotDone.then(() => (done = true));
    for (const secs of (process.env.SNAPSHOT_KILLS_AT ?? '').split(',').filter(Boolean).map(Number)) {
      while (!done && Date.now() - t1 < secs * 1000) await new Promise((r) => setTimeout(r, 200));
      if (done) break;
      const [r] = (await db.query<{ received: number }>(`SELECT audience_received AS received FROM campaigns.run WHERE campaign_id = $1`, [id])).rows;
      await procs.campaigns.stop('SIGKILL');
      const killedAt = Date.now();
      procs.campaigns = await startChild('campaigns');
      console.log(`  kill of campaigns at ${((killedAt - t1) / 1000).toFixed(1)} s (${r?.received ?? 0} recipients stored), started again in ${((Date.now() - killedAt) / 1000).toFixed(1)} s`);
    }
    await snapshotDone;
    watching = false;
    await watcher;
    console.log(`  Kafka log: partitions whose oldest records the mock deleted ${logWatch.deleted.size}${logWatch.deleted.size ? ` (${[...logWatch.deleted].map(([k, v]) => `${k} from ${v}`).join(', ')})` : ''}; offsets reset ${logWatch.resets.size}${logWatch.resets.size ? ` (${[...logWatch.resets].join('; ')})` : ''}`);
    await closeAll();
    return;
  }
  /** How far the campaign got: streams' messages, the campaign's counters and stored recipients, and what the SMSC received. */
  const moved = async () => (await count(`SELECT count(*) AS n FROM streams.message WHERE campaign_id = $1`, [id])) + (await progress(id)) + peer.parts.length;
  const stalls: string[] = [];
  for (let k = 0; k < kills; k++) {
    // a random point of the run: the snapshot, sending, or waiting for answers
    const wait = 1000 + Math.random() * Math.max(2000, (refSecs * 1000) / (kills + 1));
    await new Promise((r) => setTimeout(r, wait));
    if ((await finished(id)) > 0) break;
    const role = killOrder[k % killOrder.length];
    const accepted = await count(`SELECT count(*) AS n FROM streams.message WHERE campaign_id = $1`, [id]);
    const mark = await moved();
    if (role === 'streams') await bankSweeper();
    await procs[role].stop('SIGKILL');
    const killedAt = Date.now();
    // requested and unanswered: state 1 or 2, or in an open batch row (docs/decisions/0188)
    const s =
      (await count(`SELECT count(*) AS n FROM campaigns.recipient WHERE campaign_id = $1 AND state IN (1, 2)`, [id])) +
      (await count(`SELECT coalesce(sum(size), 0) AS n FROM campaigns.send_batch WHERE campaign_id = $1 AND open`, [id]));
    console.log(`  kill ${k + 1} (${role}) at ${((killedAt - t1) / 1000).toFixed(1)} s: ${accepted} accepted by streams, ${s} requested and unanswered, ${peer.parts.length - before} at the SMSC${DOWN.get(role) ? `; down ${DOWN.get(role)} s` : ''}`);
    if (DOWN.get(role)) await new Promise((r) => setTimeout(r, (DOWN.get(role) ?? 0) * 1000));
    procs[role] = await startChild(role);
    const up = Date.now();
    // time lost: until the campaign moves again (all of it may have been requested before the kill)
    await until(async () => (await moved()) > mark || (await finished(id)) > 0, 'moving again after the restart', 600_000);
    stalls.push(`${role} ${((Date.now() - killedAt) / 1000).toFixed(1)} s (restart ${((up - killedAt) / 1000).toFixed(1)} s)`);
  }
  // the end: the campaign finished and every recipient final, with progress on the way
  const finalRecipients = () => count(`SELECT count(*) AS n FROM campaigns.recipient WHERE campaign_id = $1 AND status IN ('delivered', 'undelivered', 'sent_failed', 'dlr_failed')`, [id]);
  const progressEvery = Number(process.env.PROGRESS_SECONDS ?? 30) * 1000;
  let lastProgress = Date.now();
  await until(async () => {
    if ((await finished(id)) > 0 && (await finalRecipients()) === total) return true;
    if (Date.now() - lastProgress >= progressEvery) {
      lastProgress = Date.now();
      const accepted = await count(`SELECT count(*) AS n FROM streams.message WHERE campaign_id = $1`, [id]);
      const stillAccepted = await count(`SELECT count(*) AS n FROM streams.message WHERE campaign_id = $1 AND status = 'accepted'`, [id]);
      const asked = await count(`SELECT count(*) AS n FROM streams.message WHERE campaign_id = $1 AND reconciled_at IS NOT NULL`, [id]);
      const inDispatch = await count(`SELECT count(*) AS n FROM dispatch.message WHERE campaign_id = $1`, [id]);
      console.log(
        `  progress at ${((Date.now() - t1) / 1000).toFixed(0)} s: streams accepted ${accepted} (still accepted ${stillAccepted}, asked about ${asked}); dispatch ${inDispatch}; final recipients ${await finalRecipients()} of ${total}; at the SMSC ${peer.parts.length - before}; sweeper ${await sweeperCounts()}; status questions: ${await statusQuestions(id)}; load ${os.loadavg()[0].toFixed(1)}`,
      );
    }
    return false;
  }, 'every recipient of the killed campaign final', 12 * 3600_000);
  const secs = (Date.now() - t1) / 1000;
  // what the SMSC received for this campaign: each number once
  const perNumber = new Map<string, number>();
  for (const p of peer.parts.slice(before)) perNumber.set(p.destination, (perNumber.get(p.destination) ?? 0) + 1);
  const twice = [...perNumber].filter(([, n]) => n > 1).map(([d]) => `+${d.replace(/^\+/, '')}`);
  const flagged = twice.length ? await count(`SELECT count(*) AS n FROM dispatch.message WHERE campaign_id = $1 AND destination = ANY($2::text[]) AND possible_duplicate`, [id, twice]) : 0;
  const lost = total - perNumber.size;
  const s = await stats(id);
  console.log(`  killed campaign: finished in ${secs.toFixed(1)} s (status ${s.status}), ${Math.round(total / secs)} messages/s${process.env.REFERENCE !== '0' ? `; time lost against the reference ${(secs - refSecs).toFixed(1)} s` : ''}`);
  console.log(`  from each kill to the campaign moving again: ${stalls.join(', ')}`);
  const askedAbout = await count(`SELECT count(*) AS n FROM streams.message WHERE campaign_id = $1 AND reconciled_at IS NOT NULL`, [id]);
  console.log(`  undispatched sweeper (after ${UNDISPATCHED.afterMs} ms, every ${UNDISPATCHED.intervalMs} ms): messages of the campaign asked about ${askedAbout}; counters of the streams processes: ${await sweeperCounts()}`);
  console.log(`  status questions (after ${STATUSES.afterMs} ms, every ${STATUSES.intervalMs} ms): ${await statusQuestions(id)}`);
  console.log(`  at the SMSC: ${perNumber.size.toLocaleString('en')} of ${total.toLocaleString('en')} recipients received; lost ${lost}; received twice ${twice.length} (flagged possible_duplicate: ${flagged})`);

  // final status exactly once: each recipient final, counted once in the campaign, one message in streams and in dispatch
  const final = await count(`SELECT count(*) AS n FROM campaigns.recipient WHERE campaign_id = $1 AND status IN ('delivered', 'undelivered', 'sent_failed', 'dlr_failed')`, [id]);
  const [c] = (await db.query<Record<string, string>>(`SELECT delivered::text, undelivered::text, sent_failed::text, dlr_failed::text, sent::text, created::text FROM campaigns.campaign WHERE id = $1`, [id])).rows;
  const counted = Number(c.delivered) + Number(c.undelivered) + Number(c.sent_failed) + Number(c.dlr_failed);
  const inStreams = await count(`SELECT count(*) AS n FROM streams.message WHERE campaign_id = $1`, [id]);
  const [d] = (await db.query<{ n: string; final: string; recipients: string }>(`SELECT count(*)::text AS n, count(*) FILTER (WHERE final_at IS NOT NULL)::text AS final, count(DISTINCT destination)::text AS recipients FROM dispatch.message WHERE campaign_id = $1`, [id])).rows;
  console.log(
    `  final status: ${final} of ${total} recipients final; campaign counters ${counted} (delivered ${c.delivered}, undelivered ${c.undelivered}, sent_failed ${c.sent_failed}, dlr_failed ${c.dlr_failed}; sent ${c.sent}, created ${c.created}); streams ${inStreams} messages; dispatch ${d.n} messages (${d.final} final, ${d.recipients} numbers)${final === total && counted === total && inStreams === total && Number(d.n) === total && Number(d.final) === total ? ': exactly once' : ': OFF'}`,
  );

  // exact charges, once accounts' ledger has every charge and refund streams recorded (its consumer may lag)
  const ledgerBehind = () =>
    count(
      `SELECT count(*) AS n FROM streams.message m WHERE m.campaign_id = $1
          AND ((m.price_micros > 0 AND NOT EXISTS (SELECT 1 FROM accounts.balance_entry e WHERE e.kind = 'charge' AND e.source_id = m.uuid::text))
            OR (m.refunded_micros > 0 AND NOT EXISTS (SELECT 1 FROM accounts.balance_entry e WHERE e.kind = 'refund' AND e.source_id = m.uuid::text)))`,
      [id],
    );
  const ledgerWait = Date.now();
  while ((await ledgerBehind()) > 0 && Date.now() - ledgerWait < Number(process.env.LEDGER_WAIT_SECONDS ?? 300) * 1000) await new Promise((r) => setTimeout(r, 1000));
  const behind = await ledgerBehind();
  const cost = BigInt((await db.query<{ c: string }>(`SELECT coalesce(sum(price_micros - refunded_micros), 0)::text AS c FROM streams.message WHERE campaign_id = $1`, [id])).rows[0].c);
  const debit = balanceBefore - (await balance());
  const mismatched = await count(
    `SELECT count(*) AS n FROM (SELECT 1 FROM streams.message m LEFT JOIN accounts.balance_entry e ON e.source_id = m.uuid::text AND e.kind <> 'adjustment'
       WHERE m.campaign_id = $1 GROUP BY m.uuid, m.price_micros, m.refunded_micros HAVING coalesce(-sum(e.amount_micros), 0) <> m.price_micros - m.refunded_micros) x`,
    [id],
  );
  const unknown = await count(
    `SELECT count(*) AS n FROM accounts.balance_entry e WHERE e.id > $1 AND e.kind <> 'adjustment' AND NOT EXISTS (SELECT 1 FROM streams.message m WHERE m.uuid::text = e.source_id AND m.campaign_id = $2)`,
    [ledgerFrom, id],
  );
  console.log(
    `  charges: balance debit ${debit} µ against ${cost} µ of the campaign's messages less refunds${debit === cost ? '' : ': OFF'}; messages whose ledger charge less refund differs from their price less refund ${mismatched}; ledger entries of no message of the campaign ${unknown}; not in the ledger after the wait ${behind}`,
  );

  watching = false;
  await watcher;
  console.log(
    `  Kafka log (${logWatch.samples} samples, 2 s or more apart): most records written to a partition ${logWatch.largest.records} (${logWatch.largest.where}); partitions whose oldest records the mock deleted ${logWatch.deleted.size}${logWatch.deleted.size ? ` (${[...logWatch.deleted].map(([k, v]) => `${k} from ${v}`).join(', ')})` : ''}; a group's committed offset below the log's start ${logWatch.behind.length}${logWatch.behind.length ? ` (${logWatch.behind.slice(0, 5).join('; ')})` : ''}; offsets reset ${logWatch.resets.size}${logWatch.resets.size ? ` (${[...logWatch.resets].join('; ')})` : ''}; closest a lagging group came to the log's start: ${logWatch.headroom ? `${logWatch.headroom.records} records, ${logWatch.headroom.where}` : 'none lagged where the mock had deleted anything'}`,
  );
  await closeAll();
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === 'child') {
  const [role, url, brokers, port, dataDir] = rest;
  child(role as Role, url, brokers, Number(port), dataDir).catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
} else {
  parent(Number(mode ?? 200_000) || 200_000, Number(rest[0] ?? 4)).then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
