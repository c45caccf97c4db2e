import { Pool, type PoolClient } from 'pg';
import { CustomerUpdatedV1 } from '@switchboard/contracts';
import { createEnvelope } from '@switchboard/platform';
import { acceptedMessage, createTestDatabase, startKafkaMock, type RunningBroker, type TestDatabase } from '@switchboard/platform/testing';
import { SmppPeer } from '../src';
import { startDispatchReplica, waitUntil, type DispatchReplica } from './support';

/**
 * Messages parked in memory under shared rates (docs/decisions/0078) stay `submitting`, claimed by their replica, for
 * up to three seconds. When that replica's heartbeat does not get through (a lock, a full pool, a stalled process),
 * crash recovery hands its claims to another replica, which sends them; the parked copies must then not be sent too.
 * Two dispatch replicas in one consumer group on the Kafka mock cluster, one database, one SMSC.
 */
describe('messages parked by a replica whose heartbeat lapses, with two dispatch replicas on Kafka', () => {
  let kafka: RunningBroker;
  let db: TestDatabase;
  let pool: Pool;
  let peer: SmppPeer;
  let peerPort = 0;
  let lock: PoolClient | null = null;
  const replicas: DispatchReplica[] = [];
  const ACCOUNT = '41';
  const RATE = 10;
  const COUNT = 120;


  beforeAll(async () => {
    kafka = await startKafkaMock(1);
    db = await createTestDatabase();
    pool = new Pool({ connectionString: db.url, max: 3 });
    peer = new SmppPeer();
    peerPort = await peer.listen();
  }, 60_000);

  afterAll(async () => {
    await lock?.query('ROLLBACK').catch(() => undefined);
    lock?.release();
    for (const r of replicas) await r.app.close().catch(() => undefined);
    await peer?.close();
    await pool?.end();
    await db?.drop();
    await kafka?.stop();
  }, 60_000);

  it('sends each message to the SMSC exactly once: what the lapsed replica parked goes out from the other one only', async () => {
    // staleAfterMs 6 s: a replica sends what it claimed for 4.5 s after a heartbeat started, and what it wrote has the
    // rest (and crash recovery's period, 3 s) to be recorded on a loaded machine
    const start = () => startDispatchReplica({ kafkaUrl: kafka.url, databaseUrl: db.url, peerPort, dispatcher: { idleMs: 20, heartbeatMs: 300, staleAfterMs: 6000, rateShareMs: 250 } });
    const a = await start();
    replicas.push(a);
    await a.bus.publish([
      createEnvelope(
        CustomerUpdatedV1,
        { accountId: ACCOUNT, name: 'paced', shortName: null, status: 'active', active: 1, currency: 'EUR', tps: RATE, dailyLimit: null, customSettings: {}, genSettings: {}, createdAt: new Date().toISOString() },
        { accountId: ACCOUNT, source: 'accounts' },
      ),
    ]);
    await waitUntil(async () => (await pool.query(`SELECT 1 FROM dispatch.account_limit WHERE account_id = $1`, [ACCOUNT])).rowCount === 1, 'the account limit in dispatch');
    const b = await start();
    replicas.push(b);
    await waitUntil(() => a.bus.consumersJoined().joined && b.bus.consumersJoined().joined, 'both replicas in the group');
    await waitUntil(() => peer.binds >= 2, 'both replicas bound to the SMSC');

    // twelve seconds of the account's rate at once, keyed over both replicas' partitions
    const events = Array.from({ length: COUNT }, (_, i) => acceptedMessage(41_000_000 + i, { accountId: ACCOUNT, streamId: '4101', sender: 'PARKED' }));
    await a.bus.publish(events);
    const destinations = events.map((e) => e.data.destination.replace(/^\+/, ''));

    // the replica that parks messages is the account's pacing owner (0094): whichever of the two took the lease first
    // (A usually; B when the machine delayed A). Once it parks, its heartbeat stops getting through: a transaction holds
    // its instance row. Below, `lapsed` is that replica and `other` the one that takes its claims over.
    await waitUntil(() => replicas.some((r) => r.dispatcher.parkedMessages > 0), 'a replica parks messages');
    const [lapsed, other] = a.dispatcher.parkedMessages > 0 ? [a, b] : [b, a];
    const parkedAtLapse = lapsed.dispatcher.parkedMessages;
    lock = await pool.connect();
    await lock.query('BEGIN');
    await lock.query(`SELECT 1 FROM dispatch.instance WHERE id = $1 FOR UPDATE`, [lapsed.dispatcher.instanceId]);
    // held until crash recovery (every 3 s, on both replicas) may have handed its claims on: its heartbeat is older
    // than staleAfterMs plus a period of it; then its heartbeat gets through again
    await waitUntil(
      async () => (await pool.query(`SELECT 1 FROM dispatch.instance WHERE id = $1 AND heartbeat_at < now() - interval '9.5 seconds'`, [lapsed.dispatcher.instanceId])).rowCount === 1,
      'the parking replica\'s heartbeat older than staleAfterMs and a recovery period',
    );
    await lock.query('COMMIT');
    lock.release();
    lock = null;

    const state = async () =>
      (await pool.query<{ status: string; n: number }>(`SELECT status, count(*)::int AS n FROM dispatch.message GROUP BY status ORDER BY status`)).rows.map((r) => `${r.status} ${r.n}`).join(', ');
    await waitUntil(async () => Number((await pool.query(`SELECT count(*) AS n FROM dispatch.message WHERE status IN ('sent', 'delivered')`)).rows[0].n) === COUNT, 'every message sent', 120_000).catch(async (e: Error) => {
      throw new Error(`${e.message} (${await state()}; ${peer.parts.length} submits)`);
    });
    // nothing left in either replica's memory that could still go out
    await waitUntil(() => replicas.every((r) => r.dispatcher.pendingSends === 0 && r.dispatcher.parkedMessages === 0), 'both replicas idle');

    const times = new Map<string, number>();
    for (const p of peer.parts.filter((x) => x.source === 'PARKED')) times.set(p.destination, (times.get(p.destination) ?? 0) + 1);
    const twice = destinations.filter((d) => (times.get(d) ?? 0) !== 1);
    if (twice.length) console.log(`parked at the lapse: ${parkedAtLapse}; lapsed: ${JSON.stringify(lapsed.dispatcher.stats)}; other: ${JSON.stringify(other.dispatcher.stats)}`);
    expect(twice.map((d) => `${d} x${times.get(d) ?? 0}`)).toEqual([]);
    expect(peer.parts.filter((x) => x.source === 'PARKED')).toHaveLength(COUNT);
    // the lapse was real: the lapsed replica's claims were handed on, and it dropped copies it held in memory
    expect(other.dispatcher.stats.sent).toBeGreaterThan(0);
    expect(lapsed.dispatcher.stats.lapsed).toBeGreaterThan(0);
    // under rate ownership (0094) the lapsed replica gave the account's pacing up, else the other would have handed it all back
    expect(lapsed.dispatcher.stats.leasesGivenUp).toBeGreaterThan(0);
  }, 180_000);
});
