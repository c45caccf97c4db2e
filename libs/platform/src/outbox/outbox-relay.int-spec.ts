import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { EventBus, type OutgoingEvent, type SubscribeOptions } from '../bus/event-bus';
import { silentLogger, testEvent, waitFor } from '../bus/test-support';
import { createTestDatabase, type TestDatabase } from '../testing/database';
import { Outbox } from './outbox';
import { OutboxRelay, type OutboxRelayOptions } from './outbox-relay';
import { outboxTableSql } from './sql';

const TOPIC = 'switchboard.test';

/** Records what the relay publishes; `beforeAck` runs after the events count as published. */
class RecordingBus extends EventBus {
  readonly published: OutgoingEvent[] = [];
  beforeAck?: () => Promise<void>;
  failWith?: Error;

  async publish(events: OutgoingEvent[]): Promise<void> {
    if (this.failWith) throw this.failWith;
    this.published.push(...events);
    await this.beforeAck?.();
  }
  async subscribe(_options: SubscribeOptions): Promise<void> {}
  async start(): Promise<void> {}
  async stop(): Promise<void> {}

  ids(): string[] {
    return this.published.map((e) => e.id);
  }
}

describe('OutboxRelay', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let schemaCount = 0;
  const cleanups: Array<() => Promise<unknown>> = [];

  const connect = (applicationName: string): Promise<DataSource> =>
    new DataSource({ type: 'postgres', url: db.url, applicationName }).initialize();

  /** A service schema with its outbox and one business table. */
  const newSchema = async (): Promise<string> => {
    const schema = `svc_${++schemaCount}`;
    await dataSource.query(`CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.orders (id text PRIMARY KEY)`);
    await dataSource.query(outboxTableSql(schema));
    return schema;
  };

  const newRelay = (options: Pick<OutboxRelayOptions, 'schema' | 'bus'> & Partial<OutboxRelayOptions>): OutboxRelay => {
    const relay = new OutboxRelay({ dataSource, logger: silentLogger(), ...options });
    cleanups.push(() => relay.stop());
    return relay;
  };

  const placeOrder = (schema: string, orderId: string, event: OutgoingEvent) =>
    dataSource.transaction(async (manager) => {
      await manager.query(`INSERT INTO ${schema}.orders (id) VALUES ($1)`, [orderId]);
      await Outbox.add(manager, schema, [event]);
    });

  /** A recording bus that also keeps each publish call's events. */
  const recordingCalls = (): { bus: RecordingBus; calls: OutgoingEvent[][] } => {
    const bus = new RecordingBus();
    const calls: OutgoingEvent[][] = [];
    const publish = bus.publish.bind(bus);
    bus.publish = async (events) => {
      calls.push(events);
      return publish(events);
    };
    return { bus, calls };
  };

  const unpublished = async (schema: string): Promise<string[]> =>
    (await dataSource.query<Array<{ event_id: string }>>(`SELECT event_id FROM ${schema}.outbox WHERE published_at IS NULL ORDER BY id`)).map(
      (r) => r.event_id,
    );

  beforeAll(async () => {
    db = await createTestDatabase('outbox');
    dataSource = await connect('outbox-test');
  });

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  afterAll(async () => {
    await dataSource.destroy();
    await db.drop();
  });

  it('publishes events of a committed transaction and nothing of a rolled-back one', async () => {
    const schema = await newSchema();
    const bus = new RecordingBus();
    const relay = newRelay({ schema, bus });
    const committed = testEvent(TOPIC, 'order-1');
    const rolledBack = testEvent(TOPIC, 'order-2');

    await placeOrder(schema, 'order-1', committed);
    await expect(
      dataSource.transaction(async (manager) => {
        await Outbox.add(manager, schema, [rolledBack]);
        await manager.query(`INSERT INTO ${schema}.orders (id) VALUES ($1)`, ['order-1']); // duplicate key: rolls back
      }),
    ).rejects.toThrow(/duplicate key/);
    await relay.flush();

    expect(bus.published).toEqual([committed]);
    expect(await unpublished(schema)).toEqual([]);
    expect(await relay.flush()).toBe(0);
  });

  it('refuses to write events outside a transaction', async () => {
    const schema = await newSchema();
    await expect(Outbox.add(dataSource.manager, schema, [testEvent(TOPIC, 'k')])).rejects.toThrow(/transaction/);
  });

  it('publishes in id order, in batches', async () => {
    const schema = await newSchema();
    const bus = new RecordingBus();
    const relay = newRelay({ schema, bus, batchSize: 2 });
    const events = Array.from({ length: 5 }, (_, i) => testEvent(TOPIC, `k${i}`));
    await dataSource.transaction((manager) => Outbox.add(manager, schema, events));

    expect(await relay.relayOnce()).toBe(2);
    expect(await relay.flush()).toBe(3);
    expect(bus.ids()).toEqual(events.map((e) => e.id));
  });

  it('publishes a row that commits after a row with a higher id was published', async () => {
    const schema = await newSchema();
    const bus = new RecordingBus();
    const relay = newRelay({ schema, bus });
    const early = testEvent(TOPIC, 'a');
    const late = testEvent(TOPIC, 'b');

    // Transaction A takes the lower id and stays open; B takes the next id and commits.
    const txA = dataSource.createQueryRunner();
    cleanups.push(() => txA.release());
    await txA.startTransaction();
    await Outbox.add(txA.manager, schema, [early]);
    await dataSource.transaction((manager) => Outbox.add(manager, schema, [late]));

    await relay.flush();
    expect(bus.ids()).toEqual([late.id]);

    await txA.commitTransaction();
    await relay.flush();
    expect(bus.ids()).toEqual([late.id, early.id]);

    const rows = await dataSource.query<Array<{ event_id: string }>>(`SELECT event_id FROM ${schema}.outbox ORDER BY id`);
    expect(rows.map((r) => r.event_id)).toEqual([early.id, late.id]);
  });

  it.each([
    ['marks', false],
    ['deletes', true],
  ])('publishes again with the same event ids when the relay dies between publish and mark (a relay that %s published rows)', async (_, deletePublished) => {
    const schema = await newSchema();
    const events = [testEvent(TOPIC, 'a'), testEvent(TOPIC, 'b')];
    await dataSource.transaction((manager) => Outbox.add(manager, schema, events));

    // The first relay's connection is killed once the bus has taken the events: the mark never commits.
    const doomed = await connect('relay-that-dies');
    cleanups.push(() => doomed.destroy());
    const firstBus = new RecordingBus();
    firstBus.beforeAck = async () => {
      const admin = new Client({ connectionString: db.url });
      await admin.connect();
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'relay-that-dies'`,
      );
      await admin.end();
    };
    const firstRelay = newRelay({ schema, bus: firstBus, dataSource: doomed, deletePublished });
    // the mark (or, for a relay that deletes in its read, the commit) fails: its connection is gone
    await expect(firstRelay.relayOnce()).rejects.toThrow();
    expect(firstBus.ids()).toEqual(events.map((e) => e.id));
    expect(await unpublished(schema)).toEqual(events.map((e) => e.id));

    const secondBus = new RecordingBus();
    const secondRelay = newRelay({ schema, bus: secondBus, deletePublished });
    await secondRelay.flush();

    expect(secondBus.published).toEqual(firstBus.published);
    expect(await unpublished(schema)).toEqual([]);
  });

  it.each([
    ['marks', false],
    ['deletes', true],
  ])('keeps rows unpublished when the bus rejects them, counts the attempt, and publishes them later (a relay that %s published rows)', async (_, deletePublished) => {
    const schema = await newSchema();
    const bus = new RecordingBus();
    const relay = newRelay({ schema, bus, deletePublished });
    const event = testEvent(TOPIC, 'a');
    await placeOrder(schema, 'order-1', event);

    bus.failWith = new Error('broker unavailable');
    await expect(relay.relayOnce()).rejects.toThrow('broker unavailable');
    expect(await unpublished(schema)).toEqual([event.id]);

    const [failed] = await dataSource.query<Array<{ attempts: number }>>(`SELECT attempts FROM ${schema}.outbox`);
    expect(failed.attempts).toBe(1);

    bus.failWith = undefined;
    await relay.flush();
    expect(bus.ids()).toEqual([event.id]);
    const rows = await dataSource.query<Array<{ attempts: number }>>(`SELECT attempts FROM ${schema}.outbox`);
    expect(rows.map((r) => r.attempts)).toEqual(deletePublished ? [] : [2]);
  });

  it('deletes, with deletePublished, exactly the rows a pass published: plain and packed, never one committed later or left for the next pass', async () => {
    const schema = await newSchema();
    const bus = new RecordingBus();
    const relay = newRelay({ schema, bus, batchSize: 3, deletePublished: true });
    const plain = [testEvent(TOPIC, 'a'), testEvent(TOPIC, 'b')];
    const packed = [testEvent(TOPIC, 'c'), testEvent(TOPIC, 'd')];
    const rest = [testEvent(TOPIC, 'e'), testEvent(TOPIC, 'f')];
    await dataSource.transaction(async (manager) => {
      await Outbox.add(manager, schema, plain);
      await Outbox.addPacked(manager, schema, packed);
      await Outbox.add(manager, schema, rest);
    });
    const stored = async () => (await dataSource.query<Array<{ event_id: string }>>(`SELECT event_id FROM ${schema}.outbox ORDER BY id`)).map((r) => r.event_id);

    // batchSize 3: the two plain rows (2 events), then the packed row would make 4, so the pass stops at 2
    expect(await relay.relayOnce()).toBe(2);
    expect(bus.ids()).toEqual(plain.map((e) => e.id));
    const afterFirst = await stored();
    expect(afterFirst).toHaveLength(3); // the packed row and the two of `rest`, untouched
    expect(afterFirst.slice(1)).toEqual(rest.map((e) => e.id));

    const late = testEvent(TOPIC, 'g');
    await placeOrder(schema, 'order-late', late);
    expect(await relay.flush()).toBe(5);
    expect(bus.ids()).toEqual([...plain, ...packed, ...rest, late].map((e) => e.id));
    expect(await stored()).toEqual([]);
    expect(await relay.flush()).toBe(0);
  });

  it('lets one relay per schema publish at a time: a polling pass skips, flush waits its turn', async () => {
    const schema = await newSchema();
    const first = testEvent(TOPIC, 'a');
    const second = testEvent(TOPIC, 'b');
    await placeOrder(schema, 'order-1', first);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const busyBus = new RecordingBus();
    busyBus.beforeAck = () => released;
    const busy = newRelay({ schema, bus: busyBus });
    const otherBus = new RecordingBus();
    const other = newRelay({ schema, bus: otherBus });

    const busyPass = busy.relayOnce();
    await waitFor(() => busyBus.published.length === 1);
    await placeOrder(schema, 'order-2', second);
    expect(await other.relayOnce()).toBe(0);
    const flushed = other.flush();
    await waitFor(async () => {
      const [{ n }] = await dataSource.query<Array<{ n: number }>>(
        `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_database d ON d.oid = l.database
         WHERE d.datname = current_database() AND l.locktype = 'advisory' AND NOT l.granted`,
      );
      return n === 1;
    });
    release();

    expect(await busyPass).toBe(1);
    expect(await flushed).toBe(1);
    expect(busyBus.ids()).toEqual([first.id]);
    expect(otherBus.ids()).toEqual([second.id]);
    expect(await unpublished(schema)).toEqual([]);
  });

  it('polls for new rows once started', async () => {
    const schema = await newSchema();
    const bus = new RecordingBus();
    const relay = newRelay({ schema, bus, pollIntervalMs: 10 });
    await relay.start();
    const event = testEvent(TOPIC, 'a');

    await placeOrder(schema, 'order-1', event);
    await waitFor(() => bus.published.length > 0);

    expect(bus.ids()).toEqual([event.id]);
  });

  it('asks before a poll: an idle poll is one statement and no transaction, and a row written without a kick is still published by the next poll (0208)', async () => {
    const schema = await newSchema();
    const statements: string[] = [];
    // one connection, so the probe's executions show in its session's prepared statements
    const logged = await new DataSource({
      type: 'postgres',
      url: db.url,
      applicationName: 'outbox-probe',
      extra: { max: 1 },
      logging: ['query'],
      logger: { logQuery: (query: string) => void statements.push(query.trim().split(/\s+/)[0]), logQueryError: () => {}, logQuerySlow: () => {}, logSchemaBuild: () => {}, logMigration: () => {}, log: () => {} },
    }).initialize();
    cleanups.push(() => logged.destroy());
    const bus = new RecordingBus();
    const relay = new OutboxRelay({ schema, dataSource: logged, bus, logger: silentLogger(), pollIntervalMs: 10 });
    cleanups.push(() => relay.stop());
    const probes = async (): Promise<number> => {
      const [row] = await logged.query<Array<{ n: number }>>(
        `SELECT coalesce(sum(generic_plans + custom_plans), 0)::int AS n FROM pg_prepared_statements WHERE name = $1`,
        [`outbox_relay_probe_${schema}`],
      );
      return row.n;
    };
    await relay.start();
    // the first pass (a transaction), then polls that find nothing
    await waitFor(async () => (await probes()) >= 5);
    const transactions = () => statements.filter((q) => q === 'START').length;
    const idle = transactions();
    await waitFor(async () => (await probes()) >= 10);
    expect(transactions()).toBe(idle);
    expect(bus.published).toEqual([]);

    // a writer in another process: committed, never kicked
    const event = testEvent(TOPIC, 'a');
    await placeOrder(schema, 'order-1', event);
    await waitFor(() => bus.published.length > 0);
    expect(bus.ids()).toEqual([event.id]);
    expect(transactions()).toBeGreaterThan(idle);
    await waitFor(async () => (await unpublished(schema)).length === 0);
  });

  it('publishes at once when kicked, without waiting for the next poll', async () => {
    const schema = await newSchema();
    const bus = new RecordingBus();
    // An hour between polls: after its first pass the relay only moves again when kicked.
    const relay = newRelay({ schema, bus, pollIntervalMs: 3_600_000 });
    const first = testEvent(TOPIC, 'a');
    const second = testEvent(TOPIC, 'b');
    await placeOrder(schema, 'order-1', first);
    await relay.start();
    await waitFor(() => bus.published.length === 1);

    await placeOrder(schema, 'order-2', second);
    relay.kick();
    await waitFor(() => bus.published.length === 2);

    expect(bus.ids()).toEqual([first.id, second.id]);
  });

  it('publishes a packed row as its events, in order and with their own ids, between the rows around it', async () => {
    const schema = await newSchema();
    const bus = new RecordingBus();
    const relay = newRelay({ schema, bus, batchSize: 1000 });
    const before = testEvent(TOPIC, 'a');
    const packed = Array.from({ length: 5 }, (_, i) => testEvent(i % 2 ? TOPIC : `${TOPIC}.other`, `k${i}`));
    const after = testEvent(TOPIC, 'b');
    await placeOrder(schema, 'order-1', before);
    await dataSource.transaction((manager) => Outbox.addPacked(manager, schema, packed));
    await placeOrder(schema, 'order-2', after);

    expect(await relay.flush()).toBe(7);

    expect(bus.ids()).toEqual([before.id, ...packed.map((e) => e.id), after.id]);
    expect(bus.published.map((e) => e.topic)).toEqual([TOPIC, ...packed.map((e) => e.topic), TOPIC]);
    expect(bus.published[3]).toEqual(packed[2]);
    expect(await unpublished(schema)).toEqual([]);
  });

  it('writes events over the publish cap as several packed rows, in order: the relay publishes them all, every call under the cap (0220)', async () => {
    const schema = await newSchema();
    const { bus, calls } = recordingCalls();
    const maxBatchBytes = 8192;
    const relay = newRelay({ schema, bus, batchSize: 1000, maxBatchBytes });
    const packed = Array.from({ length: 40 }, (_, i) => testEvent(TOPIC, `k${i}`, { text: 'é'.repeat(100 + 10 * i) }));
    await placeOrder(schema, 'order-1', testEvent(TOPIC, 'a'));
    await dataSource.transaction((manager) => Outbox.addPacked(manager, schema, packed, undefined, undefined, maxBatchBytes));
    const rows = await dataSource.query<Array<{ key: string; bytes: number }>>(`SELECT key, octet_length(packed) AS bytes FROM ${schema}.outbox WHERE type = '$packed' ORDER BY id`);
    expect(rows.length).toBeGreaterThan(2);
    expect(rows.reduce((n, r) => n + Number(r.key), 0)).toBe(40);
    for (const r of rows) expect(r.bytes).toBeLessThanOrEqual(maxBatchBytes);

    expect(await relay.flush()).toBe(41);
    expect(bus.published.map((e) => e.key)).toEqual(['a', ...packed.map((e) => e.key)]);
    expect(bus.published[40]).toEqual(packed[39]);
    // the envelopes of a call, as the bus sends them, sum to at most the cap; more than one call was needed
    const envelopeBytes = (e: OutgoingEvent) => Buffer.byteLength(JSON.stringify({ ...e, topic: undefined }));
    for (const call of calls) expect(call.reduce((n, e) => n + envelopeBytes(e), 0)).toBeLessThanOrEqual(maxBatchBytes);
    expect(calls.length).toBeGreaterThan(2);
    expect(await unpublished(schema)).toEqual([]);
  });

  it('publishes a row of an unpack type as its function’s events, counted by its key in the pass cap, and never a $ type it does not know as a plain row', async () => {
    const schema = await newSchema();
    const bus = new RecordingBus();
    // each packed event is followed by a copy under a derived id (as links' relay adds a first click's event)
    const unpack = { '$test.pairs': (events: OutgoingEvent[]) => [...events, ...events.map((e) => ({ ...e, id: `${e.id}-copy`, type: 'test.thing.copied' }))] };
    const relay = newRelay({ schema, bus, batchSize: 5, unpack });
    const rows = [0, 1].map((r) => Array.from({ length: 2 }, (_, i) => testEvent(TOPIC, `r${r}-${i}`)));
    for (const events of rows)
      await dataSource.query(`INSERT INTO ${schema}.outbox (event_id, topic, key, type, payload, packed) VALUES (gen_random_uuid(), '', '4', '$test.pairs', '{}', $1)`, [JSON.stringify(events)]);

    expect(await relay.relayOnce()).toBe(4); // the second row's 4 events would make 8 > 5
    expect(bus.ids()).toEqual([...rows[0].map((e) => e.id), ...rows[0].map((e) => `${e.id}-copy`)]);
    expect(await relay.flush()).toBe(4);
    expect(bus.published.slice(4).map((e) => e.type)).toEqual(['test.thing.happened', 'test.thing.happened', 'test.thing.copied', 'test.thing.copied']);
    expect(await unpublished(schema)).toEqual([]);

    // a relay without the function (older than the rows' writer) publishes nothing of such a row and keeps it
    await dataSource.query(`INSERT INTO ${schema}.outbox (event_id, topic, key, type, payload, packed) VALUES (gen_random_uuid(), '', '2', '$test.pairs', '{}', $1)`, [JSON.stringify([testEvent(TOPIC, 'late')])]);
    const older = newRelay({ schema, bus: new RecordingBus() });
    await expect(older.relayOnce()).rejects.toThrow(/\$test\.pairs/);
    expect(await unpublished(schema)).toHaveLength(1);
    expect(() => newRelay({ schema, bus, unpack: { 'test.plain': (e) => e } })).toThrow(/starts with \$/);
  });

  it('sizes the publish calls of an unpack type by its unpackBound when its events outgrow three times its text', async () => {
    const schema = await newSchema();
    const calls: number[] = [];
    const bus = new (class extends RecordingBus {
      override async publish(events: OutgoingEvent[]): Promise<void> {
        calls.push(events.reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e)), 0));
        await super.publish(events);
      }
    })();
    // each packed event (a few hundred bytes) is published with a 5,000-byte field added (as a row of values expands)
    const grow = (events: OutgoingEvent[]) => events.map((e) => ({ ...e, data: { ...(e.data as object), note: 'x'.repeat(5000) } }));
    const events = Array.from({ length: 10 }, (_, i) => testEvent(TOPIC, `g${i}`));
    const add = () => dataSource.query(`INSERT INTO ${schema}.outbox (event_id, topic, key, type, payload, packed) VALUES (gen_random_uuid(), '', '10', '$test.grows', '{}', $1)`, [JSON.stringify(events)]);

    await add();
    const bounded = newRelay({ schema, bus, maxBatchBytes: 20_000, unpack: { '$test.grows': grow }, unpackBound: { '$test.grows': (textBytes, out) => textBytes + out.length * 5100 } });
    expect(await bounded.flush()).toBe(10);
    expect(calls.length).toBeGreaterThan(1);
    for (const bytes of calls) expect(bytes).toBeLessThanOrEqual(20_000);

    // three times the text would let them all go in one call of ~50 KB
    calls.length = 0;
    await add();
    const unbounded = newRelay({ schema, bus, maxBatchBytes: 20_000, unpack: { '$test.grows': grow } });
    expect(await unbounded.flush()).toBe(10);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toBeGreaterThan(20_000);
  });

  it('sizes the events of an unpack row over the cap by its unpackEventBound, measuring only those it gives no bound (0220)', async () => {
    const schema = await newSchema();
    const calls: string[][] = [];
    const bus = new (class extends RecordingBus {
      override async publish(events: OutgoingEvent[]): Promise<void> {
        calls.push(events.map((e) => e.key));
        await super.publish(events);
      }
    })();
    // ten events of ~5 KB each once unpacked: 50 KB, over the 20,000-byte cap whatever the row's bound
    const grow = (events: OutgoingEvent[]) => events.map((e) => ({ ...e, data: { ...(e.data as object), note: 'x'.repeat(5000) } }));
    const events = Array.from({ length: 10 }, (_, i) => testEvent(TOPIC, `g${i}`));
    const add = () => dataSource.query(`INSERT INTO ${schema}.outbox (event_id, topic, key, type, payload, packed) VALUES (gen_random_uuid(), '', '10', '$test.grows', '{}', $1)`, [JSON.stringify(events)]);
    const rowBound = { '$test.grows': (textBytes: number, out: OutgoingEvent[]) => textBytes + out.length * 5100 };

    // measured, three events fit in a call; bounded at 8,000 bytes each (a loose bound), two do; g5 has none: measured
    await add();
    const relay = newRelay({ schema, bus, maxBatchBytes: 20_000, unpack: { '$test.grows': grow }, unpackBound: rowBound, unpackEventBound: { '$test.grows': (e) => (e.key === 'g5' ? undefined : 8000) } });
    expect(await relay.flush()).toBe(10);
    expect(calls).toEqual([['g0', 'g1'], ['g2', 'g3'], ['g4', 'g5'], ['g6', 'g7'], ['g8', 'g9']]);

    calls.length = 0;
    await add();
    const measuring = newRelay({ schema, bus, maxBatchBytes: 20_000, unpack: { '$test.grows': grow }, unpackBound: rowBound });
    expect(await measuring.flush()).toBe(10);
    expect(calls).toEqual([['g0', 'g1', 'g2'], ['g3', 'g4', 'g5'], ['g6', 'g7', 'g8'], ['g9']]);
  });

  it('caps a pass near batchSize events however the rows pack them, and publishes the rest in the next pass', async () => {
    const schema = await newSchema();
    const bus = new RecordingBus();
    const relay = newRelay({ schema, bus, batchSize: 10 });
    const rows = [0, 1, 2].map((r) => Array.from({ length: 6 }, (_, i) => testEvent(TOPIC, `r${r}-${i}`)));
    for (const events of rows) await dataSource.transaction((manager) => Outbox.addPacked(manager, schema, events));

    expect(await relay.relayOnce()).toBe(6); // a second row would make 12 > 10
    expect(bus.ids()).toEqual(rows[0].map((e) => e.id));
    expect(await relay.flush()).toBe(12);
    expect(bus.ids()).toEqual(rows.flat().map((e) => e.id));
  });

  it('publishes a large event packed alone in a call of its own, and one just under the event cap although its row (with the topic) is over it', async () => {
    const schema = await newSchema();
    const bus = new RecordingBus();
    const calls: number[] = [];
    const publish = bus.publish.bind(bus);
    bus.publish = async (events) => {
      calls.push(events.length);
      return publish(events);
    };
    const maxEventBytes = 4096;
    const relay = newRelay({ schema, bus, batchSize: 1000, maxBatchBytes: 2048, maxEventBytes });
    const small = testEvent(TOPIC, 'a');
    const large = testEvent(TOPIC, 'b', { text: 'x"\\'.repeat(750) });
    // an envelope of exactly maxEventBytes - 2: publishable, though its packed row is larger than maxEventBytes
    const edge = testEvent(TOPIC, 'c', { text: '' });
    const envelopeBytes = (e: OutgoingEvent) => Buffer.byteLength(JSON.stringify({ ...e, topic: undefined }));
    edge.data = { text: 'y'.repeat(maxEventBytes - 2 - envelopeBytes(edge)) };
    expect(envelopeBytes(edge)).toBe(maxEventBytes - 2);
    expect(Buffer.byteLength(JSON.stringify([edge]))).toBeGreaterThan(maxEventBytes);
    await placeOrder(schema, 'order-1', small);
    for (const e of [large, edge]) await dataSource.transaction((manager) => Outbox.addPacked(manager, schema, [e]));
    await placeOrder(schema, 'order-2', testEvent(TOPIC, 'd'));

    expect(await relay.flush()).toBe(4);
    expect(bus.published.map((e) => e.key)).toEqual(['a', 'b', 'c', 'd']);
    expect(bus.published[1]).toEqual(large);
    expect(bus.published[2]).toEqual(edge);
    expect(calls).toEqual([1, 1, 1, 1]);
    expect(relay.deadLettered).toBe(0);
    expect(await unpublished(schema)).toEqual([]);
  });

  it('measures a plain row by its payload text, never below the event: calls stay under maxBatchBytes, the cap decided exactly (0194)', async () => {
    const schema = await newSchema();
    const { bus, calls } = recordingCalls();
    const maxEventBytes = 2048;
    const maxBatchBytes = 4096;
    const relay = newRelay({ schema, bus, batchSize: 1000, maxBatchBytes, maxEventBytes });
    const envelopeBytes = (e: OutgoingEvent) => Buffer.byteLength(JSON.stringify({ ...e, topic: undefined }));
    // awkward members: numbers PostgreSQL writes out in full, escapes, non-ASCII, nesting
    const awkward = (i: number) => ({ big: 1e21 * (i + 1), small: 1.5e-7, third: 1 / 3, int: 2 ** 53 + i, text: `é"\\\n\u0001${'z'.repeat(i * 37)}`, list: [{ a: null }, [], {}] });
    const events = Array.from({ length: 40 }, (_, i) => testEvent(TOPIC, `k${i}`, awkward(i)));
    // one envelope exactly at the cap (its jsonb text, with PostgreSQL's spaces, is over it): published
    const sized = (key: string, bytes: number): OutgoingEvent => {
      const e = testEvent(TOPIC, key, { text: '' });
      e.data = { text: 'y'.repeat(bytes - envelopeBytes(e)) };
      expect(envelopeBytes(e)).toBe(bytes);
      return e;
    };
    const atCap = sized('cap', maxEventBytes);
    // and one a byte over: dead-lettered
    const over = sized('over', maxEventBytes + 1);
    await dataSource.transaction((manager) => Outbox.add(manager, schema, [...events.slice(0, 20), atCap, over, ...events.slice(20)]));

    expect(await relay.flush()).toBe(42);
    expect(relay.deadLettered).toBe(1);
    expect(bus.published.map((e) => e.key)).toEqual([...events.slice(0, 20).map((e) => e.key), 'cap', ...events.slice(20).map((e) => e.key)]);
    expect(bus.published).toEqual(JSON.parse(JSON.stringify([...events.slice(0, 20), atCap, ...events.slice(20)])));
    for (const call of calls) {
      if (call.length > 1) expect(call.reduce((n, e) => n + envelopeBytes(e), 0)).toBeLessThanOrEqual(maxBatchBytes);
    }
    expect(calls.length).toBeGreaterThan(3);
  });

  it("finds PostgreSQL's text of a jsonb payload never shorter than the payload's JSON (the relay's size bound, 0194)", async () => {
    let seed = 194;
    const random = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)];
    const number = (): number =>
      pick([
        () => Math.floor(random() * 1e6),
        () => random() * 10 ** Math.floor(random() * 60 - 30),
        () => -random() * 10 ** Math.floor(random() * 60 - 30),
        () => 2 ** Math.floor(random() * 80),
        () => pick([0, -0, 1e21, 1e-7, 123456789012345680000, 5e-324, 1.7976931348623157e308, 0.1, 1 / 3]),
      ])();
    const text = (): string => Array.from({ length: Math.floor(random() * 12) }, () => pick(['a', 'é', '€', '𝄞', '"', '\\', '\n', '\u0001', '\u007f', '\u2028', ' ', '/'])).join('');
    const gen = (depth: number): unknown => {
      const r = random();
      if (depth > 3 || r < 0.4) return pick([number, text, () => pick([true, false, null])])();
      if (r < 0.7) return Array.from({ length: Math.floor(random() * 4) }, () => gen(depth + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(random() * 4) }, () => [text(), gen(depth + 1)]));
    };
    const values = Array.from({ length: 500 }, () => ({ data: gen(0) }));
    const texts = values.map((v) => JSON.stringify(v));
    const rows = await dataSource.query<Array<{ t: string }>>(`SELECT t::jsonb::text AS t FROM unnest($1::text[]) WITH ORDINALITY AS u(t, o) ORDER BY o`, [texts]);
    rows.forEach(({ t }) => {
      expect(Buffer.byteLength(t)).toBeGreaterThanOrEqual(Buffer.byteLength(JSON.stringify(JSON.parse(t))));
    });
  });

  it('refuses to pack events outside a transaction', async () => {
    const schema = await newSchema();
    await expect(Outbox.addPacked(dataSource.manager, schema, [testEvent(TOPIC, 'a')])).rejects.toThrow(/transaction/);
  });

  it('prunes published rows and dedupe records past the retention, never an unpublished row', async () => {
    const schema = await newSchema();
    const bus = new RecordingBus();
    const relay = newRelay({ schema, bus, retentionMs: 3600_000 });
    const [oldPublished, oldStuck, recent] = [testEvent(TOPIC, 'a'), testEvent(TOPIC, 'b'), testEvent(TOPIC, 'c')];
    await placeOrder(schema, 'order-1', oldPublished);
    await placeOrder(schema, 'order-2', oldStuck);
    await placeOrder(schema, 'order-3', recent);
    await dataSource.query(`UPDATE ${schema}.outbox SET published_at = now() - interval '2 hours' WHERE event_id = $1`, [oldPublished.id]);
    await dataSource.query(`UPDATE ${schema}.outbox SET created_at = now() - interval '2 hours' WHERE event_id = $1`, [oldStuck.id]);
    await dataSource.query(`UPDATE ${schema}.outbox SET published_at = now() - interval '10 minutes' WHERE event_id = $1`, [recent.id]);
    await dataSource.query(
      `INSERT INTO ${schema}.processed_events (consumer, event_id, processed_at) VALUES ('c', $1, now() - interval '2 hours'), ('c', $2, now())`,
      [oldPublished.id, recent.id],
    );

    expect(await relay.prune()).toEqual({ outbox: 1, processedEvents: 1 });

    const left = await dataSource.query<Array<{ event_id: string }>>(`SELECT event_id FROM ${schema}.outbox ORDER BY id`);
    expect(left.map((r) => r.event_id)).toEqual([oldStuck.id, recent.id]);
    const dedupe = await dataSource.query<Array<{ event_id: string }>>(`SELECT event_id FROM ${schema}.processed_events`);
    expect(dedupe.map((r) => r.event_id)).toEqual([recent.id]);
    expect(await relay.prune()).toEqual({ outbox: 0, processedEvents: 0 });
  });

  it('keeps everything when the retention is 0', async () => {
    const schema = await newSchema();
    const relay = newRelay({ schema, bus: new RecordingBus(), retentionMs: 0 });
    const event = testEvent(TOPIC, 'a');
    await placeOrder(schema, 'order-1', event);
    await dataSource.query(`UPDATE ${schema}.outbox SET published_at = now() - interval '400 days'`);
    expect(await relay.prune()).toEqual({ outbox: 0, processedEvents: 0 });
    expect(await unpublished(schema)).toEqual([]);
    expect((await dataSource.query(`SELECT 1 FROM ${schema}.outbox`)).length).toBe(1);
  });

  it('plans its read once per connection, not once per pass: each pass after the fifth runs the generic plan of one prepared statement', async () => {
    const schema = await newSchema();
    // one connection, so the relay's passes and the look at its prepared statements share a session
    const single = await new DataSource({ type: 'postgres', url: db.url, applicationName: 'outbox-prepared', extra: { max: 1 } }).initialize();
    cleanups.push(() => single.destroy());
    const bus = new RecordingBus();
    const relay = new OutboxRelay({ schema, dataSource: single, bus, logger: silentLogger(), deletePublished: true });
    const events = Array.from({ length: 12 }, (_, i) => testEvent(TOPIC, `k${i}`));
    for (const [i, event] of events.entries()) {
      await placeOrder(schema, `order-${i}`, event);
      expect(await relay.relayOnce()).toBe(1);
    }
    await relay.relayOnce(); // and an idle pass
    expect(bus.ids()).toEqual(events.map((e) => e.id));
    const prepared = await single.query<Array<{ name: string; generic: number; custom: number }>>(
      `SELECT name, generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE name LIKE 'outbox_relay_%'`,
    );
    expect(prepared).toEqual([{ name: `outbox_relay_take_${schema}_try`, generic: 8, custom: 5 }]);
  });

  it('takes, with deletePublished, its rows in its read: a pass is begin, the read, the publish and commit, nothing in between', async () => {
    const schema = await newSchema();
    const statements: string[] = [];
    const logged = await new DataSource({
      type: 'postgres',
      url: db.url,
      applicationName: 'outbox-statements',
      logging: ['query'],
      logger: { logQuery: (query: string) => void statements.push(query.trim().split(/\s+/)[0]), logQueryError: () => {}, logQuerySlow: () => {}, logSchemaBuild: () => {}, logMigration: () => {}, log: () => {} },
    }).initialize();
    cleanups.push(() => logged.destroy());
    const bus = new RecordingBus();
    bus.beforeAck = async () => void statements.push('(published)');
    const relay = new OutboxRelay({ schema, dataSource: logged, bus, logger: silentLogger(), deletePublished: true });
    const events = [testEvent(TOPIC, 'a'), testEvent(TOPIC, 'b')];
    await dataSource.transaction((manager) => Outbox.add(manager, schema, events));
    statements.length = 0;
    expect(await relay.relayOnce()).toBe(2);
    // the read is a prepared statement on the pass's connection (not logged); nothing but the commit follows the publish
    expect(statements).toEqual(['START', '(published)', 'COMMIT']);
    expect(bus.ids()).toEqual(events.map((e) => e.id));
    expect(await unpublished(schema)).toEqual([]);
    expect((await dataSource.query(`SELECT 1 FROM ${schema}.outbox`)).length).toBe(0);
  });
});
