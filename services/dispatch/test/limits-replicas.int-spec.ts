import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Pool } from 'pg';
import { CustomerUpdatedV1, StreamCreatedV1 } from '@switchboard/contracts';
import { createEnvelope } from '@switchboard/platform';
import { acceptedMessage, createTestDatabase, startKafkaMock, type RunningBroker, type TestDatabase } from '@switchboard/platform/testing';
import { SmppPeer } from '../src';
import { startDispatchReplica, waitUntil, type DispatchReplica } from './support';

/**
 * Limits across replicas (docs/decisions/0047-limits-across-replicas.md): two dispatch replicas in one consumer group
 * on the Kafka mock cluster (a cluster of this file's own, so no other test's dispatch joins the group), one database,
 * one SMSC. Without shares each replica applied the whole rate, so the two sent at twice the contracted rate; with a
 * share held by a replica whose own backlog had run out, a stream ran at half its rate (issue 17).
 */
describe('account and stream rates across two dispatch replicas on Kafka', () => {
  let kafka: RunningBroker;
  let db: TestDatabase;
  let pool: Pool;
  let peer: SmppPeer;
  let burner: ChildProcess | null = null;
  const replicas: DispatchReplica[] = [];
  const ACCOUNT_LIMITED = '31';
  const ACCOUNT_WIDE = '32';
  const ACCOUNT_RATE = 40;
  const STREAM_RATE = 20;

  // staleAfterMs as in production (10 s): a replica sends what it claimed while its last heartbeat started less than
  // 7.5 s ago (decision 0078); at load 40 heartbeats queued behind the pool's other queries for over 2 s
  const startReplica = async () => {
    const r = await startDispatchReplica({ kafkaUrl: kafka.url, databaseUrl: db.url, peerPort, dispatcher: { idleMs: 20, heartbeatMs: 300, staleAfterMs: 10_000, rateShareMs: 250 } });
    replicas.push(r);
    return r;
  };
  let peerPort = 0;


  beforeAll(async () => {
    kafka = await startKafkaMock(1);
    db = await createTestDatabase();
    pool = new Pool({ connectionString: db.url, max: 2 });
    peer = new SmppPeer();
    peerPort = await peer.listen();
  }, 60_000);

  afterAll(async () => {
    burner?.kill('SIGKILL');
    for (const r of replicas) await r.app.close().catch(() => undefined);
    await peer?.close();
    await pool?.end();
    await db?.drop();
    await kafka?.stop();
  }, 60_000);

  it(`holds an account's ${ACCOUNT_RATE}/s and a stream's ${STREAM_RATE}/s in total (at most 2% over, at least 65%), not per replica`, async () => {
    const a = await startReplica();
    const now = new Date().toISOString();
    const customer = (accountId: string, tps: number) =>
      createEnvelope(
        CustomerUpdatedV1,
        { accountId, name: `acc ${accountId}`, shortName: null, status: 'active', active: 1, currency: 'EUR', tps, dailyLimit: null, customSettings: {}, genSettings: {}, createdAt: now },
        { accountId, source: 'accounts' },
      );
    await a.bus.publish([
      customer(ACCOUNT_LIMITED, ACCOUNT_RATE),
      customer(ACCOUNT_WIDE, 1000),
      createEnvelope(
        StreamCreatedV1,
        { streamId: '3201', accountId: ACCOUNT_WIDE, streamUid: randomUUID(), name: 'paced', streamType: 2, status: 0, staticServiceType: null, sender: 'PACED', enableSending: true, isDefault: false, tps: STREAM_RATE, updatedAt: now },
        { accountId: ACCOUNT_WIDE, source: 'streams' },
      ),
    ]);
    await waitUntil(async () => (await pool.query(`SELECT 1 FROM dispatch.account_limit WHERE account_id IN (31, 32)`)).rowCount === 2 && (await pool.query(`SELECT 1 FROM dispatch.stream_channel WHERE stream_id = 3201 AND tps = $1`, [STREAM_RATE])).rowCount === 1);
    // the second replica reads both limits at start, as a replica started later does
    const b = await startReplica();
    await waitUntil(() => a.bus.consumersJoined().joined && b.bus.consumersJoined().joined);
    await waitUntil(() => peer.binds >= 2);

    // A CPU burner alongside while they send (issue 17: on a loaded runner share renewals, give-backs and claims
    // lagged, and the limits ran at 79% to 86% of their rates): the replicas contend for the CPU with it.
    burner = spawn(process.execPath, ['-e', 'for (;;) Math.sqrt(Math.random())'], { stdio: 'ignore' });
    // this process's event loop stalls (the SMSC's timestamps are taken here)
    const lag = monitorEventLoopDelay({ resolution: 20 });
    lag.enable();

    // ten seconds of each limit's rate, all at once, keyed over the partitions of both replicas
    const seconds = 10;
    const accepted = (i: number, accountId: string, streamId: string, sender: string) => acceptedMessage(30_000_000 + i, { accountId, streamId, sender });
    const events = [];
    for (let i = 0; i < ACCOUNT_RATE * seconds; i++) events.push(accepted(i, ACCOUNT_LIMITED, '3101', 'ACCOUNT'));
    for (let i = 0; i < STREAM_RATE * seconds; i++) events.push(accepted(10_000 + i, ACCOUNT_WIDE, '3201', 'PACED'));
    await a.bus.publish(events);

    // while they send: which replicas hold each account's pacing
    const holders = new Map<string, Set<string>>();
    const atOnce = new Map<string, number>();
    const watch = setInterval(() => {
      void pool
        .query<{ key: string; instance_id: string }>(`SELECT key, instance_id::text FROM dispatch.rate_share WHERE share > 0 AND expires_at > now()`)
        .then((r) => {
          r.rows.forEach((x) => holders.set(x.key, (holders.get(x.key) ?? new Set()).add(x.instance_id)));
          for (const key of new Set(r.rows.map((x) => x.key))) atOnce.set(key, Math.max(atOnce.get(key) ?? 0, r.rows.filter((x) => x.key === key).length));
        })
        .catch(() => undefined);
    }, 200);
    const total = events.length;
    await waitUntil(async () => Number((await pool.query(`SELECT count(*) AS n FROM dispatch.message WHERE status IN ('sent', 'delivered', 'undelivered')`)).rows[0].n) >= total, 'every message final', 120_000);
    clearInterval(watch);
    burner.kill('SIGKILL');
    burner = null;
    lag.disable();

    // one replica at a time paced each account (decision 0094): the other took its part of the events from Kafka and
    // handed that account's messages to the owner through the queue
    expect(a.dispatcher.stats.ingested).toBeGreaterThan(0);
    expect(b.dispatcher.stats.ingested).toBeGreaterThan(0);
    expect(a.dispatcher.stats.forwarded + b.dispatcher.stats.forwarded).toBeGreaterThan(0);
    expect(holders.get(`a:${ACCOUNT_LIMITED}`)?.size).toBeGreaterThanOrEqual(1);
    expect(atOnce.get(`a:${ACCOUNT_LIMITED}`)).toBe(1);
    expect(atOnce.get(`a:${ACCOUNT_WIDE}`)).toBe(1);

    for (const [sender, rate, count] of [
      ['ACCOUNT', ACCOUNT_RATE, ACCOUNT_RATE * seconds],
      ['PACED', STREAM_RATE, STREAM_RATE * seconds],
    ] as const) {
      const times = peer.parts.filter((p) => p.source === sender).map((p) => p.at).sort((x, y) => x - y);
      // every message once
      expect(times).toHaveLength(count);
      // over the steady window, from 2 s after the first submit to 2 s before the last (the backlog of both replicas
      // is held back by the limit throughout; at the end one replica runs out first, gives its share back at once, and
      // the other takes it at its next renewal): never more than 2% over the rate, and at least 65% of it. What is lost
      // is the shares moving and a loaded machine's stalls: 79% to 86% on a CI runner with two test workers before the
      // fixes of decision 0061; with the park (0078) 75% and 83% at load 16 to 30 with the burner, 99% to 101% alone;
      // a replica that kept an idle share, the bug this guards, gave 54%. The window's ends are moments, not submits: a
      // window that began at a submit would leave out the gap before a burst of late timers and count the burst.
      const from = times[0] + 2000;
      const to = times[times.length - 1] - 2000;
      const inWindow = times.filter((t) => t >= from && t < to).length;
      const measured = inWindow / ((to - from) / 1000);
      // The SMSC's clock is this process's, whose event loop stalls on a loaded machine: the submits planned in the
      // longest stall before the window's start may arrive inside it, on top of the window's own (at most that many).
      const stallMs = lag.max / 1e6;
      const allowed = rate * 1.02 * ((to - from) / 1000) + (rate * stallMs) / 1000;
      // one-second windows, each from a submit in the steady window: late timers firing together after a stall make a
      // few of them run over the rate, two replicas each applying the whole rate (the bug) make all of them twice it
      const perSecond: number[] = [];
      for (let i = 0, j = 0; j < times.length && times[i] < to; i++) {
        while (j < times.length && times[j] - times[i] < 1000) j++;
        if (times[i] >= from) perSecond.push(j - i);
      }
      perSecond.sort((x, y) => x - y);
      const p75 = perSecond[Math.floor(perSecond.length * 0.75)];
      const seen = `${sender}: ${measured.toFixed(2)}/s of ${rate}/s over ${((to - from) / 1000).toFixed(1)} s (${inWindow} submits, at most ${allowed.toFixed(1)} with the longest stall of ${stallMs.toFixed(0)} ms); one-second windows: median ${perSecond[Math.floor(perSecond.length / 2)]}, 75th percentile ${p75}, most ${perSecond[perSecond.length - 1]}; A ${a.dispatcher.stats.sent} sent, ${a.dispatcher.stats.deferred} given back, ${a.dispatcher.stats.lapsed} lapsed; B ${b.dispatcher.stats.sent} sent, ${b.dispatcher.stats.deferred} given back, ${b.dispatcher.stats.lapsed} lapsed`;
      if (inWindow > allowed || measured < rate * 0.65 || p75 > rate * 1.5) console.log(seen);
      expect(inWindow).toBeLessThanOrEqual(allowed);
      expect(measured).toBeGreaterThanOrEqual(rate * 0.65);
      expect(p75).toBeLessThanOrEqual(rate * 1.5);
    }
  }, 180_000);
});
