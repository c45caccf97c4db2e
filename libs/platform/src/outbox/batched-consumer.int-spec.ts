import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '../testing/database';
import { BatchedIdempotentConsumer, laneOfKey, type BatchItem } from './batched-consumer';
import { outboxTableSql } from './sql';

const SCHEMA = 'ledger';

describe('BatchedIdempotentConsumer', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let consumers = 0;

  beforeAll(async () => {
    db = await createTestDatabase('batched');
    dataSource = await new DataSource({ type: 'postgres', url: db.url, applicationName: 'batched-test' }).initialize();
    await dataSource.query(`CREATE SCHEMA ${SCHEMA}; CREATE TABLE ${SCHEMA}.effects (event_id uuid NOT NULL, value int NOT NULL)`);
    await dataSource.query(outboxTableSql(SCHEMA));
  });

  afterAll(async () => {
    await dataSource.destroy();
    await db.drop();
  });

  /** A consumer writing one effect row per fresh event; `value` 13 is poison. Records its batches. */
  function consumer(claim?: (v: number) => boolean): { c: BatchedIdempotentConsumer<number>; batches: number[][]; committed: number[][]; name: string } {
    const batches: number[][] = [];
    const committed: number[][] = [];
    const name = `test-${++consumers}`;
    const c = new BatchedIdempotentConsumer<number>({
      dataSource,
      schema: SCHEMA,
      consumer: name,
      claim,
      apply: async (m, items: Array<BatchItem<number>>) => {
        const values = items.map((i) => i.data);
        batches.push(values);
        if (values.includes(13)) throw new Error('poison');
        await m.query(`INSERT INTO ${SCHEMA}.effects (event_id, value) SELECT * FROM unnest($1::uuid[], $2::int[])`, [items.map((i) => i.event.id), values]);
        return () => committed.push(values);
      },
    });
    return { c, batches, committed, name };
  }

  it('records the ids of the events that need a claim only; the others are applied as they come, a repeat in the same batch too', async () => {
    // even values claim (their effect adds up), odd ones do not (their effect is idempotent by itself)
    const { c, batches, name } = consumer((v) => v % 2 === 0);
    const events = Array.from({ length: 4 }, (_, i) => ({ id: randomUUID(), value: i + 1 }));
    await Promise.all([...events, events[0], events[1]].map((e) => c.handle({ id: e.id }, e.value)));
    // the unclaimed repeat is handed over again (its id is not even hashed), the claimed one counts once
    expect(batches).toEqual([[1, 2, 3, 4, 1]]);
    const ids = await dataSource.query<Array<{ event_id: string }>>(`SELECT event_id FROM ${SCHEMA}.processed_events WHERE consumer = $1 ORDER BY event_id`, [name]);
    expect(ids.map((r) => r.event_id)).toEqual([events[1].id, events[3].id].sort());
    await c.handle({ id: events[0].id }, 1); // redelivered, no claim: applied again
    await c.handle({ id: events[1].id }, 2); // redelivered, claimed: nothing
    expect(batches).toEqual([[1, 2, 3, 4, 1], [1]]);
  });

  const effectsOf = async (ids: string[]) =>
    (await dataSource.query<Array<{ value: number }>>(`SELECT value FROM ${SCHEMA}.effects WHERE event_id = ANY($1::uuid[]) ORDER BY value`, [ids])).map((r) => r.value);

  it('writes the calls of one turn in one transaction, in order, each event once even when delivered twice', async () => {
    const { c, batches, committed } = consumer();
    const events = Array.from({ length: 5 }, (_, i) => ({ id: randomUUID(), value: i + 1 }));
    await Promise.all([...events, events[1], events[3]].map((e) => c.handle({ id: e.id }, e.value)));

    expect(batches).toEqual([[1, 2, 3, 4, 5]]);
    expect(committed).toEqual([[1, 2, 3, 4, 5]]);
    expect(await effectsOf(events.map((e) => e.id))).toEqual([1, 2, 3, 4, 5]);

    await c.handle({ id: events[0].id }, 1); // a later redelivery: nothing applied
    expect(batches).toHaveLength(1);
  });

  it('applies, of a batch mixing redelivered and new events, only the new ones, each once (the claim answers which ids were new, 0194)', async () => {
    const { c, batches } = consumer();
    const old = Array.from({ length: 3 }, (_, i) => ({ id: randomUUID(), value: 100 + i }));
    await Promise.all(old.map((e) => c.handle({ id: e.id }, e.value)));
    const fresh = Array.from({ length: 3 }, (_, i) => ({ id: randomUUID(), value: 200 + i }));
    const mixed = [old[0], fresh[0], old[1], fresh[1], fresh[0], old[2], fresh[2], old[0]];
    await Promise.all(mixed.map((e) => c.handle({ id: e.id }, e.value)));

    expect(batches).toEqual([[100, 101, 102], [200, 201, 202]]);
    expect(await effectsOf([...old, ...fresh].map((e) => e.id))).toEqual([100, 101, 102, 200, 201, 202]);
  });

  it('fails only the bad event of a batch: the others commit, one transaction each, after the batch rolled back', async () => {
    const { c, committed } = consumer();
    const events = [11, 12, 13, 14].map((value) => ({ id: randomUUID(), value }));
    const results = await Promise.allSettled(events.map((e) => c.handle({ id: e.id }, e.value)));

    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(await effectsOf(events.map((e) => e.id))).toEqual([11, 12, 14]);
    expect(committed).toEqual([[11], [12], [14]]);
    // the poison event is not recorded as processed: a redelivery tries it again
    await expect(c.handle({ id: events[2].id }, 13)).rejects.toThrow('poison');
  });

  it('fails a whole batch at once for an outage, without a transaction per event, and applies it when retried', async () => {
    let down = true;
    const attempts: number[] = [];
    const c = new BatchedIdempotentConsumer<number>({
      dataSource,
      schema: SCHEMA,
      consumer: `test-${++consumers}`,
      apply: async (_m, items) => {
        attempts.push(items.length);
        if (down) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      },
    });
    const items = Array.from({ length: 50 }, (_, i) => ({ event: { id: randomUUID() }, data: i }));
    await expect(c.handleMany(items)).rejects.toThrow('ECONNREFUSED');
    // one attempt for the 50 events, not 50 more transactions each meeting the same outage
    expect(attempts).toEqual([50]);
    down = false;
    await c.handleMany(items);
    expect(attempts).toEqual([50, 50]);
  });

  it('keeps at most maxBatch events in a transaction', async () => {
    const batches: number[] = [];
    const c = new BatchedIdempotentConsumer<number>({
      dataSource,
      schema: SCHEMA,
      consumer: `test-${++consumers}`,
      maxBatch: 4,
      apply: async (_m, items) => void batches.push(items.length),
    });
    await Promise.all(Array.from({ length: 10 }, (_, i) => c.handle({ id: randomUUID() }, i)));
    expect(batches).toEqual([4, 4, 2]);
  });

  it('with a key, puts the queued events of one key in the same batch (at most maxBatch each, a key larger than a batch split), every event applied once', async () => {
    const batches: number[][] = [];
    const c = new BatchedIdempotentConsumer<number>({
      dataSource,
      schema: SCHEMA,
      consumer: `test-${++consumers}`,
      maxBatch: 4,
      claim: () => false,
      // the key is the value's tens; 90-95 a key of six events, more than a batch takes; 100 and up no key
      key: (v) => (v >= 100 ? null : String(Math.floor(v / 10))),
      apply: async (_m, items) => void batches.push(items.map((i) => i.data)),
    });
    // arrival order as two bus lanes deliver them: the keys' first events, then their second ones
    const values = [10, 20, 30, 100, 40, 90, 11, 21, 31, 41, 91, 92, 93, 94, 95];
    await c.handleMany(values.map((v) => ({ event: { id: randomUUID() }, data: v })));
    expect(batches).toEqual([[10, 11, 20, 21], [30, 31, 100], [40, 41], [90, 91, 92, 93], [94, 95]]);
    expect(batches.flat().sort((a, b) => a - b)).toEqual([...values].sort((a, b) => a - b));
  });

  it('with parallel lanes, runs a batch a lane at once, each in its own transaction, a lane value\'s events always in its lane; the first lane without one', async () => {
    const keyOf = (v: number) => (v >= 100 ? null : `key-${v % 10}`);
    const lanes = (values: number[]) => new Set(values.map((v) => (keyOf(v) === null ? 0 : laneOfKey(keyOf(v)!, 2))));
    const batches: number[][] = [];
    const pids: number[] = [];
    let inFlight = 0;
    let most = 0;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const c = new BatchedIdempotentConsumer<number>({
      dataSource,
      schema: SCHEMA,
      consumer: `test-${++consumers}`,
      maxBatch: 100,
      claim: () => false,
      key: keyOf,
      lane: keyOf,
      parallel: 2,
      apply: async (m, items) => {
        inFlight++;
        most = Math.max(most, inFlight);
        batches.push(items.map((i) => i.data));
        const [{ pid }] = await m.query<Array<{ pid: number }>>('SELECT pg_backend_pid() AS pid');
        pids.push(pid);
        // the first batch holds its transaction until a second one is running beside it
        if (batches.length === 1) await Promise.race([gate, new Promise((r) => setTimeout(r, 5_000))]);
        else release();
        inFlight--;
      },
    });
    // ten keys, each with events 0-9, 10-19, ... spread over the delivery; 100 and up without a key
    const values = [...Array.from({ length: 60 }, (_, i) => i), 100, 101];
    await c.handleMany(values.map((v) => ({ event: { id: randomUUID() }, data: v })));
    expect(most).toBe(2);
    expect(new Set(pids).size).toBe(2);
    // every batch is one lane's: a key's events never in two transactions at once
    for (const b of batches) expect(lanes(b).size).toBe(1);
    expect(batches.find((b) => b.includes(100))).toEqual(expect.arrayContaining([100, 101]));
    expect(lanes([100])).toEqual(new Set([0]));
    expect(batches.flat().sort((a, b) => a - b)).toEqual(values);
  });
});
