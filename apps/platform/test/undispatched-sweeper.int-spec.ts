import { randomUUID } from 'node:crypto';
import { Client, Pool } from 'pg';
import {
  ACCEPTED_REPUBLISH_SOURCE,
  ALL_PERMISSIONS,
  BalanceAdjustedV1,
  CustomerCreatedV1,
  MessageAcceptedV1,
  MessagesReconciledV1,
  MessagesReconcileRequestedV1,
  MessageStatusChangedV1,
  MessageStatusesChangedV1,
  PriceChangedV1,
  type EventData,
  type EventDefinition,
  type EventEnvelope,
} from '@switchboard/contracts';
import { createEnvelope, metricsRegistry, type OutgoingEvent } from '@switchboard/platform';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { DispatchModule, SmppPeer } from '@switchboard/dispatch';
import { acceptedEventId as acceptedEventIdOf, ManualClock, StreamsModule, UndispatchedSweeper } from '@switchboard/streams';
import { streamsAndDispatchSettling } from './settle';

/**
 * The sweeper of messages streams accepted that dispatch never got (docs/decisions/0087): streams and dispatch as the
 * embedded server runs them, an SMSC on loopback, and a bus that loses (or holds back) chosen events the way a
 * broker's retention or an operator skipping offsets does. Streams' clock is manual: a message is due for the sweep
 * only when the test moves the clock past the sweeper's age.
 */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers are read field by field

const AFTER_MS = 15 * 60_000;
const A = '7101';
const B = '7102';
const phone = (n: number): string => `+1415555${String(2600 + n).padStart(4, '0')}`;

describe('the sweeper of accepted messages dispatch never got', () => {
  let peer: SmppPeer;
  let t: TestApp;
  let pool: Pool;
  let sweeper: UndispatchedSweeper;
  const clock = new ManualClock(Date.now());
  /** Every event that went over the bus (after the losses below), in order. */
  const passed: EventEnvelope[] = [];
  /** Destinations whose first accepted events (`times`, default 1) the bus loses; with `hold`, kept to be delivered later. */
  const lose = new Map<string, { hold: boolean; times?: number }>();
  const held: OutgoingEvent[] = [];
  /** Message uuids whose status events never reach streams (dispatch has them; streams still says accepted). */
  const muteStatuses = new Set<string>();
  /** When set, the held originals go out in the same publish as the first re-published accepted event. */
  let raceHeld = false;

  const { settle, until } = streamsAndDispatchSettling(() => t, { pollMs: 25, timeoutMs: 30_000 });
  const publish = async <T>(def: EventDefinition<T>, data: T, accountId: string | null = null) => {
    await t.bus.publish([createEnvelope(def, data, { accountId, source: 'test' })]);
    await settle();
  };
  const call = async (method: string, path: string, token: string, body?: unknown): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${t.url}/api${path}`, { method, headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
  };
  const streamTokens = new Map<string, string>();
  const send = async (acc: string, to: string): Promise<string> => {
    const r = await call('POST', '/streams/messages', streamTokens.get(acc) as string, { phone: to, message: `Hello ${to}` });
    expect(r.status).toBe(202);
    return String(r.body.message_uuid);
  };
  const acceptedOf = (uuid: string) => passed.filter((e) => e.type === MessageAcceptedV1.type && (e.data as Json).messageUuid === uuid);
  const submitsTo = (to: string) => peer.parts.filter((p) => p.destination === to.replace(/^\+/, '')).length;
  const streamsStatus = async (uuid: string) => (await pool.query<{ status: string }>(`SELECT status FROM streams.message WHERE uuid = $1`, [uuid])).rows[0]?.status;
  const inDispatch = async (uuid: string) => (await pool.query(`SELECT 1 FROM dispatch.message WHERE uuid = $1`, [uuid])).rowCount === 1;
  const republishedMetric = async () => {
    const m = (await metricsRegistry.getSingleMetric('switchboard_streams_undispatched_messages_total')?.get())?.values ?? [];
    return m.find((v) => v.labels.outcome === 'republished')?.value ?? 0;
  };
  /** Moves streams' clock past the sweeper's age and waits for the sweeps and their answers. */
  const age = async () => {
    clock.advance(AFTER_MS + 1000);
    const before = sweeper.stats.sweeps;
    await until(() => sweeper.stats.sweeps >= before + 2, 'two sweeps');
    await settle();
  };

  async function account(acc: string): Promise<void> {
    await publish(CustomerCreatedV1, {
      accountId: acc,
      name: `Account ${acc}`,
      shortName: null,
      status: 'active',
      active: 1,
      currency: 'EUR',
      tps: 100,
      dailyLimit: null,
      customSettings: {},
      genSettings: {},
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    await publish(BalanceAdjustedV1, { accountId: acc, adjustmentId: randomUUID(), amountMicros: 10_000_000, currency: 'EUR', reason: 'top-up' });
    const member = t.token({ sub: `u${acc}`, acc, perms: [...ALL_PERMISSIONS] });
    const created = await call('POST', '/streams', member, { name: 'API', streamType: 2, sender: 'Acme' });
    expect(created.status).toBe(201);
    streamTokens.set(acc, String((await call('GET', `/streams/token/${created.body.id}`, member)).body.token));
  }

  beforeAll(async () => {
    peer = new SmppPeer();
    const port = await peer.listen();
    t = await createTestApp(() => ({
      imports: [
        StreamsModule.register({ secret: 'integration-secret-of-streams', cacheTtlMs: 0, clock, undispatched: { afterMs: AFTER_MS, intervalMs: 100, batch: 2, requestsPerSweep: 3 } }),
        DispatchModule.register({
          realtimeIntervalMs: 20,
          dispatcher: { idleMs: 20, heartbeatMs: 200, staleAfterMs: 1000, unknownResendAfterMs: 50, retryBaseMs: 20 },
          seedVendors: [{ name: 'Local SMSC', serviceType: 'sms', adapter: 'smpp', config: { host: '127.0.0.1', port, systemId: 'dispatch', password: 'secret', reconnectMs: 50 } }],
        }),
      ],
    }));
    sweeper = t.app.get(UndispatchedSweeper);
    const bus = t.bus;
    const publishOriginal = bus.publish.bind(bus);
    jest.spyOn(bus, 'publish').mockImplementation(async (events: OutgoingEvent[]) => {
      const out: OutgoingEvent[] = [];
      for (const e of events) {
        const d = e.data as Json;
        if (e.type === MessageAcceptedV1.type && lose.has(d.destination)) {
          const l = lose.get(d.destination) as { hold: boolean; times?: number };
          if (l.hold) held.push(e);
          if ((l.times ?? 1) > 1) l.times = (l.times ?? 1) - 1;
          else lose.delete(d.destination);
          continue;
        }
        if (e.type === MessageStatusChangedV1.type && muteStatuses.has(d.messageUuid)) continue;
        if (e.type === MessageStatusesChangedV1.type) {
          // a batch (the default since docs/decisions/0173) loses only the muted messages' items
          const items = (d.items as { data: Json }[]).filter((it) => !muteStatuses.has(it.data.messageUuid as string));
          if (items.length) out.push({ ...e, data: { ...d, items } });
          continue;
        }
        out.push(e);
        if (e.type === MessageAcceptedV1.type && raceHeld && held.length) {
          raceHeld = false;
          out.push(...held.splice(0));
        }
      }
      for (const e of out) passed.push(JSON.parse(JSON.stringify(e)) as EventEnvelope);
      return publishOriginal(out);
    });
    pool = new Pool({ connectionString: t.db.url, max: 2 });
    pool.on('error', () => undefined); // an idle client ended by the outage test; the pool replaces it
    await publish(PriceChangedV1, { accountId: null, iso2: 'US', pricePerSegmentMicros: 50_000, currency: 'EUR' });
    await account(A);
    await account(B);
    const admin = t.token({ sub: 'root', acc: null, perms: [], sa: true });
    const vendor = (await pool.query<{ id: string }>(`SELECT id::text FROM dispatch.vendor WHERE name = 'Local SMSC'`)).rows[0].id;
    expect((await call('PUT', '/service_type_manager/countries_mapping', admin, { iso2: 'US', serviceType: 'sms', vendorIds: [vendor] })).status).toBe(200);
    await until(() => peer.binds > 0, 'the SMSC bound');
  });

  afterAll(async () => {
    await pool?.end();
    await t?.close();
    await peer?.close();
  });

  it('publishes again, once and under its first event id, a message whose accepted event was lost, and the SMSC gets it once', async () => {
    const to = phone(1);
    lose.set(to, { hold: false });
    const metricBefore = await republishedMetric();
    const uuid = await send(A, to);
    await settle();
    expect(lose.has(to)).toBe(false); // the bus lost it
    expect(acceptedOf(uuid)).toHaveLength(0);
    expect(await inDispatch(uuid)).toBe(false);

    await age();
    await until(async () => (await streamsStatus(uuid)) === 'delivered', 'delivered after the re-publish');
    expect(submitsTo(to)).toBe(1);
    const again = acceptedOf(uuid);
    expect(again).toHaveLength(1);
    expect(again[0].id).toBe(acceptedEventIdOf(uuid));
    expect(again[0]).toMatchObject({ accountId: A, data: { messageUuid: uuid, accountId: A, destination: to, text: `Hello ${to}`, priceMicros: 50_000, currency: 'EUR', campaignId: null } });
    // its own source: accounts counts its usage only when no accepted batch it counted holds the message (0199)
    expect(again[0].source).toBe(ACCEPTED_REPUBLISH_SOURCE);
    expect(await republishedMetric()).toBe(metricBefore + 1);

    // asked again later (the message is final now): nothing more goes out
    await age();
    expect(acceptedOf(uuid)).toHaveLength(1);
    expect(submitsTo(to)).toBe(1);
  });

  it('publishes again a message whose re-published accepted event was lost too, and the SMSC gets it once', async () => {
    const to = phone(7);
    lose.set(to, { hold: false, times: 2 });
    const metricBefore = await republishedMetric();
    const uuid = await send(A, to);
    await settle();
    await age(); // asked, answered unknown, published again: and lost again
    await until(() => !lose.has(to), 'the re-published event lost too');
    expect(acceptedOf(uuid)).toHaveLength(0);
    expect(await inDispatch(uuid)).toBe(false);
    expect(await streamsStatus(uuid)).toBe('accepted');

    await age(); // asked again: the second answer must publish it again under the same event id
    await until(async () => (await streamsStatus(uuid)) === 'delivered', 'delivered after the second re-publish');
    expect(submitsTo(to)).toBe(1);
    const again = acceptedOf(uuid);
    expect(again).toHaveLength(1);
    expect(again[0].id).toBe(acceptedEventIdOf(uuid));
    expect(await republishedMetric()).toBe(metricBefore + 2);
    // one outbox row under the event id, whatever the number of re-publishes
    expect((await pool.query(`SELECT 1 FROM streams.outbox WHERE event_id = $1`, [acceptedEventIdOf(uuid)])).rowCount).toBe(1);
  });

  it('asks about a message dispatch has whose statuses streams never heard, and does not publish it again', async () => {
    const to = phone(2);
    const uuid = await send(A, to);
    muteStatuses.add(uuid);
    await until(() => submitsTo(to) === 1, 'sent');
    await until(async () => (await pool.query(`SELECT 1 FROM dispatch.message WHERE uuid = $1 AND status = 'delivered'`, [uuid])).rowCount === 1, 'delivered in dispatch');
    expect(await streamsStatus(uuid)).toBe('accepted');

    const answers = () => passed.filter((e) => e.type === MessagesReconciledV1.type && (e.data as EventData<typeof MessagesReconciledV1>).known.some((k) => k.messageUuid === uuid));
    await age();
    await until(() => answers().length > 0, 'dispatch answered');
    expect((answers()[0].data as EventData<typeof MessagesReconciledV1>).known).toContainEqual({ messageUuid: uuid, status: 'delivered', sendState: 'done' });
    await settle();
    expect(acceptedOf(uuid)).toHaveLength(1);
    expect(submitsTo(to)).toBe(1);
  });

  it('sends once a re-published message whose original arrives at dispatch at the same time', async () => {
    const to = phone(3);
    lose.set(to, { hold: true });
    const uuid = await send(A, to);
    await settle();
    expect(held.map((e) => (e.data as Json).messageUuid)).toEqual([uuid]);
    raceHeld = true;
    await age();
    await until(async () => (await streamsStatus(uuid)) === 'delivered', 'delivered');
    const both = acceptedOf(uuid);
    expect(both).toHaveLength(2);
    expect(new Set(both.map((e) => e.id))).toEqual(new Set([acceptedEventIdOf(uuid)]));
    await settle();
    expect(submitsTo(to)).toBe(1);
    expect((await pool.query(`SELECT possible_duplicate FROM dispatch.message WHERE uuid = $1`, [uuid])).rows).toEqual([{ possible_duplicate: false }]);
  });

  it("never asks about or publishes another account's message for a request or an answer that names it", async () => {
    const to = phone(4);
    lose.set(to, { hold: false });
    const theirs = await send(B, to);
    await settle();
    const mine = await send(A, phone(5));
    await until(async () => (await streamsStatus(mine)) === 'delivered', 'delivered');

    // account A's request naming B's message and its own; a request whose envelope is another account's
    await publish(MessagesReconcileRequestedV1, { requestId: randomUUID(), accountId: A, messageUuids: [theirs, mine] }, A);
    await publish(MessagesReconcileRequestedV1, { requestId: randomUUID(), accountId: B, messageUuids: [theirs] }, A);
    const answers = passed.filter((e) => e.type === MessagesReconciledV1.type && e.accountId === A && JSON.stringify(e.data).includes(theirs));
    expect(answers).toHaveLength(1);
    expect(answers[0].data).toMatchObject({ accountId: A, unknown: [theirs], known: [{ messageUuid: mine, status: 'delivered' }] });
    expect(passed.filter((e) => e.type === MessagesReconciledV1.type && e.accountId === B)).toHaveLength(0);
    // answers to A naming B's message as unknown; an answer whose envelope is another account's
    await publish(MessagesReconciledV1, { requestId: randomUUID(), accountId: A, known: [], unknown: [theirs] }, A);
    await publish(MessagesReconciledV1, { requestId: randomUUID(), accountId: B, known: [], unknown: [theirs] }, A);
    await settle();
    expect(acceptedOf(theirs)).toHaveLength(0);
    expect(await inDispatch(theirs)).toBe(false);
    expect(submitsTo(to)).toBe(0);

    // B's own sweep still finds it
    await age();
    await until(async () => (await streamsStatus(theirs)) === 'delivered', "B's message delivered");
    expect(submitsTo(to)).toBe(1);
  });

  /** Whether the sweeper's floor has passed `at` (docs/decisions/0204). */
  const floorPassed = async (at: Date) => (await pool.query<{ passed: boolean }>(`SELECT floor_at >= $1 AS passed FROM streams.undispatched_floor`, [at])).rows[0].passed;
  /** The floor's age the sweeper last reported (seconds behind its clock, at the end of a pass). */
  const floorAge = async () => ((await metricsRegistry.getSingleMetric('switchboard_streams_undispatched_floor_age_seconds')?.get())?.values ?? [])[0]?.value;
  const askedAbout = (uuid: string) => passed.filter((e) => e.type === MessagesReconcileRequestedV1.type && (e.data as EventData<typeof MessagesReconcileRequestedV1>).messageUuids.includes(uuid));

  it('reads above a floor that passes a delivered message without ever asking about it or publishing it again', async () => {
    const to = phone(8);
    const uuid = await send(A, to);
    await until(async () => (await streamsStatus(uuid)) === 'delivered', 'delivered');
    const [{ created_at: at }] = (await pool.query<{ created_at: Date }>(`SELECT created_at FROM streams.message WHERE uuid = $1`, [uuid])).rows;
    expect(await floorPassed(at)).toBe(false);
    await age();
    await age();
    await age();
    // two passes over it, the second started after every transaction open at the end of the first had ended
    expect(await floorPassed(at)).toBe(true);
    expect(askedAbout(uuid)).toHaveLength(0);
    expect(acceptedOf(uuid)).toHaveLength(1);
    expect(submitsTo(to)).toBe(1);
  });

  it('finds a message whose accepting transaction committed after sweeps had passed its acceptance time, and the floor passes it only then', async () => {
    const to = phone(9);
    const template = await send(A, phone(10));
    await until(async () => (await streamsStatus(template)) === 'delivered', 'the template delivered');
    // a send whose transaction stays open (a stalled writer): its message is accepted now and committed much later
    const uuid = randomUUID();
    const at = clock.now();
    const late = new Client({ connectionString: t.db.url });
    await late.connect();
    try {
      await late.query('BEGIN');
      await late.query(
        `INSERT INTO streams.message (uuid, account_id, stream_id, campaign_id, sender, destination, iso2, text, encoding, segments, price_micros, currency, status, demo, created_at, updated_at)
         SELECT $1, account_id, stream_id, campaign_id, sender, $2, iso2, $3, encoding, segments, price_micros, currency, 'accepted', demo, $4, $4 FROM streams.message WHERE uuid = $5`,
        [uuid, to, `Hello ${to}`, at, template],
      );
      await age(); // each sweep reads past `at` (the row is not visible to it yet)
      await age();
      await age();
      expect(await floorPassed(at)).toBe(false); // its writer is still open: no pass can move the floor past it
      // and the floor's age shows it: at least the three clock moves since the writer took its time
      expect(await floorAge()).toBeGreaterThanOrEqual((3 * (AFTER_MS + 1000)) / 1000);
      expect(askedAbout(uuid)).toHaveLength(0);
      await late.query('COMMIT');
    } finally {
      await late.end();
    }
    await age(); // the next pass reads it from the floor
    await until(async () => (await streamsStatus(uuid)) === 'delivered', 'delivered after the late commit');
    expect(askedAbout(uuid)).toHaveLength(1);
    expect(acceptedOf(uuid)).toHaveLength(1);
    expect(acceptedOf(uuid)[0].id).toBe(acceptedEventIdOf(uuid));
    expect(submitsTo(to)).toBe(1);
    await age();
    await age();
    expect(await floorPassed(at)).toBe(true);
    expect(askedAbout(uuid)).toHaveLength(1);
    // once it ended, the floor trails the clock by the age limit and at most one clock move again
    expect(await floorAge()).toBeLessThanOrEqual((2 * AFTER_MS + 1000) / 1000);
  });

  it('asks about each due message once while three sweepers run at once, a message a page', async () => {
    const tos = [phone(11), phone(12), phone(13), phone(14)];
    for (const to of tos) lose.set(to, { hold: false });
    const uuids: string[] = [];
    for (const to of tos) uuids.push(await send(to === phone(12) ? B : A, to));
    await settle();
    for (const u of uuids) expect(acceptedOf(u)).toHaveLength(0);
    // two more sweepers on the same database, each reading one message a page, besides the module's own
    const s = sweeper as unknown as { ds: unknown; o: { undispatched: object }; relay: unknown; clock: unknown };
    const more = [1, 2].map(
      () =>
        new UndispatchedSweeper(
          s.ds as never,
          { ...s.o, undispatched: { ...s.o.undispatched, scanRows: 1, batch: 1 } } as never,
          { http: false, consumers: false, relay: false, schedulers: false },
          s.relay as never,
          s.clock as never,
        ),
    );
    clock.advance(AFTER_MS + 1000);
    const before = sweeper.stats.sweeps;
    for (let n = 0; n < 5; n++) await Promise.all(more.map((m) => m.sweepOnce()));
    await until(() => sweeper.stats.sweeps >= before + 2, 'two sweeps of the module');
    await settle();
    for (const [n, u] of uuids.entries()) {
      await until(async () => (await streamsStatus(u)) === 'delivered', `message ${n} delivered`);
      expect(askedAbout(u)).toHaveLength(1);
      expect(acceptedOf(u)).toHaveLength(1);
      expect(submitsTo(tos[n])).toBe(1);
    }
  });

  it('moves a message status forward in place: the status updates of streams.message are heap-only', async () => {
    const counts = async () => (await pool.query<{ upd: string; hot: string }>(`SELECT n_tup_upd AS upd, n_tup_hot_upd AS hot FROM pg_stat_user_tables WHERE relid = 'streams.message'::regclass`)).rows[0];
    const c0 = await counts();
    const uuids: string[] = [];
    for (let n = 0; n < 60; n++) uuids.push(await send(A, phone(100 + n)));
    for (const u of uuids) await until(async () => (await streamsStatus(u)) === 'delivered', 'delivered');
    // the projector's sessions report their counts within a second or so of going idle
    let upd = 0;
    let hot = 0;
    await until(async () => {
      const c = await counts();
      upd = Number(c.upd) - Number(c0.upd);
      hot = Number(c.hot) - Number(c0.hot);
      return upd >= uuids.length;
    }, 'the updates counted');
    // with the partial index of 0087 (status in its predicate) none was
    expect(hot).toBeGreaterThanOrEqual(upd / 2);
  });

  it('pauses while the database is down and resumes when it is back, sending the lost message once', async () => {
    const to = phone(6);
    lose.set(to, { hold: false });
    const uuid = await send(A, to);
    await settle();
    expect(acceptedOf(uuid)).toHaveLength(0);

    const admin = new Client({ connectionString: t.db.url.replace(/\/[^/]*$/, '/postgres') });
    await admin.connect();
    const failedBefore = sweeper.stats.failedSweeps;
    const asked = sweeper.stats.asked;
    try {
      await admin.query(`ALTER DATABASE "${t.db.name}" ALLOW_CONNECTIONS false`);
      await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, [t.db.name]);
      clock.advance(AFTER_MS + 1000);
      await until(() => sweeper.stats.failedSweeps >= failedBefore + 3, 'sweeps failing during the outage');
      expect(sweeper.stats.asked).toBe(asked);
    } finally {
      await admin.query(`ALTER DATABASE "${t.db.name}" ALLOW_CONNECTIONS true`);
      await admin.end();
    }
    await until(async () => (await streamsStatus(uuid).catch(() => undefined)) === 'delivered', 'delivered after the outage', 60_000);
    expect(acceptedOf(uuid)).toHaveLength(1);
    expect(submitsTo(to)).toBe(1);
  });
});

