/**
 * Dispatch replicas as separate processes on Kafka (librdkafka's mock cluster through kcat), one PostgreSQL, one SMSC.
 *
 *   node scripts/build.mjs --server-only
 *   node dist/bench/dispatch-replicas.js limits [replicas=2] [seconds=20] [accountTps=200] [streamTps=100]
 *   node dist/bench/dispatch-replicas.js stalls [rate=200] [phaseSeconds=15]
 *
 * limits: an account at `accountTps` (its one stream without a rate of its own) and a stream at `streamTps` (its
 * account far above), `seconds` worth of each at once, sent by `replicas` dispatch processes. Printed: each limit's
 * submit_sm/s at the SMSC over the steady window (2 s after the first submit to 2 s before the last) against the
 * configured rate, which is the ceiling here (a limit is met, not beaten), and the one-second windows. With
 * BENCH_SHARE_MS=0 the processes apply the whole rates each (the behaviour before docs/decisions/0047): the contrast.
 *
 * stalls: `rate` messages/s offered all along; one replica for a phase, a second one joins, a phase later the first is
 * SIGKILLed, a phase later the run ends. Printed: the longest gap between two submits at the SMSC in each phase and
 * the messages delivered, lost (0 expected) and resent. DATABASE_URL uses an existing PostgreSQL, else an embedded one.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { CustomerUpdatedV1, StreamCreatedV1 } from '@switchboard/contracts';
import { createEnvelope, KafkaEventBus, startEmbeddedPostgres, type OutgoingEvent } from '@switchboard/platform';
import { acceptedMessage, startKafkaMock, type NodeProcess } from '@switchboard/platform/testing';
import { resolveDispatchOptions, SmppPeer } from '@switchboard/dispatch';
import { startDispatchChild } from './dispatch-child';

function machine(): string {
  const cpus = os.cpus();
  return `${cpus.length} x ${cpus[0]?.model ?? 'unknown cpu'}, node ${process.version}, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`;
}

const accepted = (i: number, accountId: string, streamId: string, sender: string) => acceptedMessage(i, { accountId, streamId, sender, source: 'bench' });

interface Env {
  url: string;
  kafka: { url: string; stop: () => Promise<void> };
  peer: SmppPeer;
  port: number;
  db: Client;
  producer: KafkaEventBus;
  start: () => Promise<NodeProcess>;
  close: () => Promise<void>;
}

async function environment(): Promise<Env> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dispatch-replicas-'));
  fs.chmodSync(dir, 0o755);
  const pg = process.env.DATABASE_URL ? null : await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), persistent: false });
  const url = process.env.DATABASE_URL ?? pg!.url();
  const kafka = await startKafkaMock(1);
  const peer = new SmppPeer({ redeliverUnacked: true });
  const port = await peer.listen();
  const db = new Client({ connectionString: url });
  await db.connect();
  const producer = new KafkaEventBus({ clientId: 'bench-producer', brokers: kafka.url.split(',') });
  const children: NodeProcess[] = [];
  return {
    url,
    kafka,
    peer,
    port,
    db,
    producer,
    start: async () => {
      const c = await startDispatchChild(url, kafka.url, port, { smpp: { tps: 5000 }, dispatcher: { heartbeatMs: 500, staleAfterMs: 3000, idleMs: 20, ...(process.env.BENCH_OWNERSHIP ? { rateOwnership: process.env.BENCH_OWNERSHIP !== "0" } : {}), ...(process.env.BENCH_SHARE_MS ? { rateShareMs: Number(process.env.BENCH_SHARE_MS) } : {}) } }, ['--max-semi-space-size=64']);
      children.push(c);
      return c;
    },
    close: async () => {
      for (const c of children) await c.stop('SIGKILL');
      await producer.stop();
      await db.end();
      await peer.close();
      await kafka.stop();
      await pg?.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await sleep(200);
  }
  return false;
}

const count = async (db: Client, sql: string): Promise<number> => {
  try {
    return Number((await db.query(sql)).rows[0].n);
  } catch {
    return 0; // schema not migrated yet
  }
};

async function limits(replicas: number, seconds: number, accountTps: number, streamTps: number): Promise<void> {
  const env = await environment();
  const shareMs = Number(process.env.BENCH_SHARE_MS ?? resolveDispatchOptions({}).dispatcher.rateShareMs);
  console.log(`dispatch-replicas limits: ${replicas} dispatch processes, account ${accountTps}/s, stream ${streamTps}/s, ${seconds} s each, shares ${shareMs > 0 ? `renewed every ${shareMs} ms${process.env.BENCH_OWNERSHIP === '0' ? ' (shares)' : ''}` : 'OFF (each process applies the whole rates)'}; ${machine()}`);
  const procs: NodeProcess[] = [await env.start()];
  const now = new Date().toISOString();
  const customer = (accountId: string, tps: number) =>
    createEnvelope(CustomerUpdatedV1, { accountId, name: `bench ${accountId}`, shortName: null, status: 'active', active: 1, currency: 'EUR', tps, dailyLimit: null, customSettings: {}, genSettings: {}, createdAt: now }, { accountId, source: 'accounts' });
  await env.producer.publish([
    customer('1', accountTps),
    customer('2', 100_000),
    createEnvelope(
      StreamCreatedV1,
      { streamId: '201', accountId: '2', streamUid: randomUUID(), name: 'paced', streamType: 2, status: 0, staticServiceType: null, sender: 'STREAM', enableSending: true, isDefault: false, tps: streamTps, updatedAt: now },
      { accountId: '2', source: 'streams' },
    ),
  ]);
  await until(async () => (await count(env.db, `SELECT count(*) AS n FROM dispatch.account_limit`)) === 2 && (await count(env.db, `SELECT count(*) AS n FROM dispatch.stream_channel WHERE tps > 0`)) === 1, 60_000);
  for (let i = 1; i < replicas; i++) procs.push(await env.start());
  // every replica in the group and bound before the load
  await sleep(8000);
  const events: OutgoingEvent[] = [];
  for (let i = 0; i < accountTps * seconds; i++) events.push(accepted(i, '1', '101', 'ACCOUNT'));
  for (let i = 0; i < streamTps * seconds; i++) events.push(accepted(1_000_000 + i, '2', '201', 'STREAM'));
  const total = events.length;
  for (let i = 0; i < events.length; i += 1000) await env.producer.publish(events.slice(i, i + 1000));
  const cpu0 = process.cpuUsage();
  // the shares granted, sampled: their sum per limit (at most the rate), and how often it was below
  const sums = new Map<string, number[]>();
  const stored: string[] = [];
  // BENCH_TRACE=2: each replica's row per limit, sampled every 100 ms, printed against each SMSC session's sends
  const rowsTrace: Array<{ at: number; rows: Array<{ key: string; i: string; share: number; prior: number; sat: boolean; demand: number }> }> = [];
  const rowSampler =
    process.env.BENCH_TRACE === '2'
      ? setInterval(() => {
          const at = Date.now();
          env.db
            .query<{ key: string; i: string; share: number; prior: number; sat: boolean; demand: number }>(
              `SELECT key, instance_id::text AS i, share::float8, CASE WHEN prior_until > now() THEN prior_share ELSE 0 END::float8 AS prior, saturated AS sat, demand::float8
                 FROM dispatch.rate_share WHERE expires_at > now() AND key IN ('a:1', 'a:2', 's:201') ORDER BY key, instance_id`,
            )
            .then((r) => rowsTrace.push({ at, rows: r.rows }))
            .catch(() => undefined);
        }, 100)
      : null;
  const sampler = setInterval(() => {
    env.db
      .query<{ key: string; total: number; n: number }>(`SELECT key, sum(share)::float8 AS total, count(*)::int AS n FROM dispatch.rate_share WHERE expires_at > now() GROUP BY key`)
      .then((r) => r.rows.forEach((x) => sums.set(x.key, [...(sums.get(x.key) ?? []), x.total])))
      .catch(() => undefined);
    if (process.env.BENCH_TRACE)
      void env.db
        .query<{ n: number; q: number; h: number }>(`SELECT count(*)::int AS n, count(*) FILTER (WHERE send_state = 'queued')::int AS q, count(*) FILTER (WHERE send_state = 'submitting')::int AS h FROM dispatch.message`)
        .then((r) => stored.push(`${r.rows[0].n}/${r.rows[0].q}/${r.rows[0].h}`))
        .catch(() => undefined);
  }, 250);
  const done = await until(async () => (await count(env.db, `SELECT count(*) AS n FROM dispatch.message WHERE send_state = 'done'`)) >= total, seconds * 4000 + 60_000);
  const perProcess = await env.db.query<{ n: number }>(`SELECT count(DISTINCT instance_id)::int AS n FROM dispatch.rate_share`);
  for (const [sender, rate] of [
    ['ACCOUNT', accountTps],
    ['STREAM', streamTps],
  ] as const) {
    const times = env.peer.parts.filter((p) => p.source === sender).map((p) => p.at).sort((a, b) => a - b);
    const from = times.findIndex((t) => t >= times[0] + 2000);
    const to = times.findIndex((t) => t >= times[times.length - 1] - 2000);
    const measured = (to - from) / ((times[to] - times[from]) / 1000);
    const perSecond: number[] = [];
    for (let t = times[from]; t + 1000 <= times[to]; t += 1000) perSecond.push(times.filter((x) => x >= t && x < t + 1000).length);
    // the busiest one-second window anywhere in the run (sliding, from each submit): what a carrier counting any second sees
    let sliding = 0;
    for (let i = 0, j = 0; i < times.length; i++) {
      while (times[i] - times[j] >= 1000) j++;
      sliding = Math.max(sliding, i - j + 1);
    }
    console.log(
      `  ${sender === 'ACCOUNT' ? `account 1 (${accountTps}/s)` : `stream 201 (${streamTps}/s)`}: ${times.length} submitted, ${measured.toFixed(1)} submit_sm/s over ${((times[to] - times[from]) / 1000).toFixed(1)} s; ` +
        `ceiling (the contracted rate) ${rate}/s, ratio ${(measured / rate).toFixed(3)} (${(((measured - rate) / rate) * 100).toFixed(2)}%); one-second windows ${Math.min(...perSecond)} to ${Math.max(...perSecond)}; busiest sliding one-second window ${sliding} (limit ${rate})`,
    );
  }
  clearInterval(sampler);
  if (rowSampler) {
    clearInterval(rowSampler);
    const t0 = Math.min(...env.peer.parts.map((p) => p.at));
    const ids = [...new Set(rowsTrace.flatMap((x) => x.rows.map((r) => r.i)))];
    for (const [sender, key] of [
      ['ACCOUNT', 'a:1'],
      ['STREAM', process.env.BENCH_OWNER_TRACE ? 'a:2' : 's:201'],
    ] as const) {
      console.log(`  ${key} per 250 ms: t(s) | sends/s per SMSC session | share (prior) per replica, * = held back`);
      const parts = env.peer.parts.filter((p) => p.source === sender);
      const end = Math.max(...parts.map((p) => p.at));
      for (let t = t0; t < end; t += 250) {
        const inSlot = parts.filter((p) => p.at >= t && p.at < t + 250);
        const per = new Map<number, number>();
        for (const p of inSlot) per.set(p.session, (per.get(p.session) ?? 0) + 1);
        const sample = rowsTrace.find((x) => x.at >= t) ?? rowsTrace[rowsTrace.length - 1];
        const shares = ids.map((i) => {
          const r = sample?.rows.find((x) => x.i === i && x.key === key);
          return r ? `${r.share.toFixed(0)}${r.prior > r.share ? `(${r.prior.toFixed(0)})` : ''}${r.sat ? '*' : ''}` : '-';
        });
        console.log(`   ${((t - t0) / 1000).toFixed(2)} | ${inSlot.length * 4} = ${[...per.entries()].sort((a, b) => a[0] - b[0]).map(([k, n]) => `${k}:${n * 4}`).join(' ')} | ${shares.join(' ')}`);
      }
    }
  }
  if (process.env.BENCH_TRACE) console.log(`  stored/queued/submitting: ${stored.join(' ')}`);
  for (const [key, list] of sums) {
    if (process.env.BENCH_TRACE) console.log(`  ${key} shares: ${list.map((x) => x.toFixed(0)).join(' ')}`);
    console.log(`  shares of ${key}: sum ${Math.min(...list).toFixed(1)} to ${Math.max(...list).toFixed(1)}, below the rate in ${list.filter((x) => x < (key === 'a:1' ? accountTps : streamTps) - 0.5).length} of ${list.length} samples`);
  }
  const cpu = process.cpuUsage(cpu0);
  console.log(`  ${done ? 'all' : 'NOT all'} ${total} messages final; replicas holding shares: ${perProcess.rows[0].n}; bench process CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s`);
  for (const p of procs) void p.stop('SIGTERM');
  await sleep(2000);
  await env.close();
}

async function stalls(rate: number, phase: number): Promise<void> {
  const env = await environment();
  console.log(`dispatch-replicas stalls: ${rate} messages/s offered, phases of ${phase} s: one replica, a second joins, the first is SIGKILLed; ${machine()}`);
  const now = new Date().toISOString();
  await env.producer.publish([createEnvelope(CustomerUpdatedV1, { accountId: '1', name: 'bench', shortName: null, status: 'active', active: 1, currency: 'EUR', tps: 100_000, dailyLimit: null, customSettings: {}, genSettings: {}, createdAt: now }, { accountId: '1', source: 'accounts' })]);
  const first = await env.start();
  await sleep(5000);
  let producing = true;
  let published = 0;
  const marks: Array<{ at: number; what: string }> = [];
  const produce = (async () => {
    const t0 = Date.now();
    while (producing) {
      const due = Math.floor(((Date.now() - t0) / 1000) * rate);
      const events: OutgoingEvent[] = [];
      for (; published < due; published++) events.push(accepted(published, '1', '101', 'STALLS'));
      if (events.length) await env.producer.publish(events);
      await sleep(20);
    }
  })();
  marks.push({ at: Date.now(), what: 'one replica' });
  await sleep(phase * 1000);
  marks.push({ at: Date.now(), what: 'a second replica joins' });
  await env.start();
  await sleep(phase * 1000);
  marks.push({ at: Date.now(), what: 'the first replica SIGKILLed' });
  void first.stop('SIGKILL');
  await sleep(phase * 1000);
  marks.push({ at: Date.now(), what: 'end' });
  producing = false;
  await produce;
  await until(async () => (await count(env.db, `SELECT count(*) AS n FROM dispatch.message WHERE send_state = 'done'`)) >= published, 120_000);
  const times = env.peer.parts.map((p) => p.at).sort((a, b) => a - b);
  for (let i = 0; i + 1 < marks.length; i++) {
    const inPhase = times.filter((t) => t >= marks[i].at && t < marks[i + 1].at);
    let gap = 0;
    let prev = marks[i].at;
    for (const t of inPhase) {
      gap = Math.max(gap, t - prev);
      prev = t;
    }
    gap = Math.max(gap, marks[i + 1].at - prev);
    console.log(`  ${marks[i].what}: ${inPhase.length} submitted (${(inPhase.length / ((marks[i + 1].at - marks[i].at) / 1000)).toFixed(0)}/s), longest gap between two submits ${(gap / 1000).toFixed(2)} s (target <= 10 s)`);
  }
  const rows = (
    await env.db.query(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE send_state = 'done')::int AS done, count(*) FILTER (WHERE possible_duplicate)::int AS flagged,
              max(extract(epoch FROM sent_at - accepted_at)) FILTER (WHERE NOT possible_duplicate)::float8 AS waited FROM dispatch.message`,
    )
  ).rows[0] as { n: number; done: number; flagged: number; waited: number };
  console.log(`  longest wait of one message from acceptance to the SMSC (resent ones aside): ${Number(rows.waited).toFixed(2)} s`);
  const texts = new Map<string, number>();
  for (const p of env.peer.parts) texts.set(p.text, (texts.get(p.text) ?? 0) + 1);
  const twice = [...texts.values()].filter((n) => n > 1).length;
  console.log(`  published ${published}, stored ${rows.n}, final ${rows.done}; lost ${published - texts.size}; reached the SMSC twice ${twice} (flagged possible_duplicate: ${rows.flagged})`);
  await env.close();
}

const [mode, a, b, c, d] = process.argv.slice(2);
const run = mode === 'stalls' ? stalls(Number(a ?? 200), Number(b ?? 15)) : limits(Number(a ?? 2), Number(b ?? 20), Number(c ?? 200), Number(d ?? 100));
run.then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
