import { z } from 'zod';
import { DataSource } from 'typeorm';
import { defineEvent, Topics, type RealtimeMessage } from '@switchboard/contracts';
import { RequestContext } from '../context/request-context';
import { EventBus, type OutgoingEvent, type SubscribeOptions } from '../bus/event-bus';
import { silentLogger, waitFor } from '../bus/test-support';
import type { ProcessRoles } from '../module/platform.module';
import { RealtimeFanout, type RealtimeListener } from '../realtime/realtime';
import { createTestDatabase, type TestDatabase } from '../testing/database';
import { createOutboxTables } from './sql';
import { ServiceOutboxRelay, UnitOfWork } from './unit-of-work';

const OrderPlaced = defineEvent<{ orderId: string }>({
  type: 'test.order.placed',
  version: 1,
  topic: Topics.Accounts,
  key: (d) => d.orderId,
  schema: z.object({ orderId: z.string() }),
});

class RecordingBus extends EventBus {
  readonly published: OutgoingEvent[] = [];
  async publish(events: OutgoingEvent[]): Promise<void> {
    this.published.push(...events);
  }
  async subscribe(_options: SubscribeOptions): Promise<void> {}
  async start(): Promise<void> {}
  async stop(): Promise<void> {}
}

/** Records each message with how many orders were committed when it was published. */
class RecordingRealtime extends RealtimeFanout {
  readonly published: Array<{ subject: string; message: Omit<RealtimeMessage, 'id' | 'subject' | 'at'>; committedOrders: number }> = [];
  failWith?: Error;

  constructor(private readonly committedOrders: () => Promise<number>) {
    super();
  }
  async publish(subject: string, message: Omit<RealtimeMessage, 'id' | 'subject' | 'at'>): Promise<void> {
    if (this.failWith) throw this.failWith;
    this.published.push({ subject, message, committedOrders: await this.committedOrders() });
  }
  async subscribe(_pattern: string, _listener: RealtimeListener): Promise<() => Promise<void>> {
    return async () => undefined;
  }
  async close(): Promise<void> {}
}

const roles = (relay: boolean): ProcessRoles => ({ http: true, consumers: true, relay, schedulers: true });

describe('UnitOfWork and ServiceOutboxRelay', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let schemaCount = 0;
  const relays: ServiceOutboxRelay[] = [];

  const newSchema = async (): Promise<string> => {
    const schema = `uow_${++schemaCount}`;
    await dataSource.query(`CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.orders (id text PRIMARY KEY)`);
    await createOutboxTables(dataSource.createQueryRunner(), schema);
    return schema;
  };

  const setup = async (opts: { relayRole?: boolean; realtime?: boolean; packOver?: number } = {}) => {
    const schema = await newSchema();
    const bus = new RecordingBus();
    const relay = new ServiceOutboxRelay(schema, dataSource, bus, roles(opts.relayRole ?? false), { logger: silentLogger() });
    relays.push(relay);
    const kicks = jest.spyOn(relay, 'kick');
    const committedOrders = async (): Promise<number> =>
      Number((await dataSource.query<Array<{ n: string }>>(`SELECT count(*) AS n FROM ${schema}.orders`))[0].n);
    const realtime = new RecordingRealtime(committedOrders);
    const log = silentLogger();
    const at = new Date('2026-01-02T03:04:05.000Z');
    const uow = new UnitOfWork({
      dataSource,
      schema,
      source: 'orders',
      relay,
      realtime: opts.realtime === false ? undefined : { fanout: realtime, topic: 'orders' },
      now: () => at,
      logger: log,
      packOver: opts.packOver,
    });
    const outbox = async () =>
      dataSource.query<Array<{ event_id: string; topic: string; key: string; type: string; payload: Record<string, unknown>; published_at: Date | null }>>(
        `SELECT event_id, topic, key, type, payload, published_at FROM ${schema}.outbox ORDER BY id`,
      );
    const placeOrder = (id: string) =>
      uow.run(async (m, emit, notify) => {
        await m.query(`INSERT INTO ${schema}.orders (id) VALUES ($1)`, [id]);
        emit(OrderPlaced, { orderId: id }, 'acc-1');
        notify({ accountId: 'acc-1', type: 'order_placed', data: { id } });
        return id;
      });
    return { schema, bus, relay, kicks, realtime, log, at, uow, outbox, placeOrder, committedOrders };
  };

  beforeAll(async () => {
    db = await createTestDatabase('uow');
    dataSource = await new DataSource({ type: 'postgres', url: db.url, applicationName: 'uow-test' }).initialize();
  });

  afterEach(async () => {
    for (const relay of relays.splice(0)) await relay.onModuleDestroy();
  });

  afterAll(async () => {
    await dataSource.destroy();
    await db.drop();
  });

  it('writes the events of a committed transaction to the outbox as envelopes of the service, then kicks the relay', async () => {
    const { placeOrder, outbox, kicks, at } = await setup();

    const result = await RequestContext.run({ principal: null, traceId: 'trace-1', ip: null }, () => placeOrder('o-1'));

    expect(result).toBe('o-1');
    const rows = await outbox();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ topic: Topics.Accounts, key: 'o-1', type: 'test.order.placed', published_at: null });
    expect(rows[0].payload).toMatchObject({
      id: rows[0].event_id,
      source: 'orders',
      accountId: 'acc-1',
      traceId: 'trace-1',
      occurredAt: at.toISOString(),
      data: { orderId: 'o-1' },
    });
    expect(kicks).toHaveBeenCalledTimes(1);
  });

  it('leaves no event, no notification and no kick when the transaction rolls back', async () => {
    const { placeOrder, outbox, kicks, realtime, committedOrders } = await setup();
    await placeOrder('o-1');
    kicks.mockClear();
    realtime.published.length = 0;

    await expect(placeOrder('o-1')).rejects.toThrow(/duplicate key/);

    expect(await outbox()).toHaveLength(1);
    expect(await committedOrders()).toBe(1);
    expect(realtime.published).toEqual([]);
    expect(kicks).not.toHaveBeenCalled();
  });

  it('does not kick the relay for a transaction without events', async () => {
    const { uow, kicks, outbox } = await setup();
    await uow.run(async () => 'nothing');
    expect(kicks).not.toHaveBeenCalled();
    expect(await outbox()).toEqual([]);
  });

  it('sends notifications on rt.<accountId>.<topic> only after the transaction committed', async () => {
    const { uow, schema, realtime } = await setup();

    await uow.run(async (m, _emit, notify) => {
      notify({ accountId: 'acc-1', type: 'order_placed', data: { id: 'o-1' } });
      await m.query(`INSERT INTO ${schema}.orders (id) VALUES ($1)`, ['o-1']);
      expect(realtime.published).toEqual([]);
    });

    expect(realtime.published).toEqual([
      { subject: 'rt.acc-1.orders', message: { accountId: 'acc-1', topic: 'orders', type: 'order_placed', data: { id: 'o-1' } }, committedOrders: 1 },
    ]);
  });

  it('logs a failed notification instead of failing the committed work', async () => {
    const { placeOrder, realtime, log, committedOrders } = await setup();
    realtime.failWith = new Error('fan-out down');

    await expect(placeOrder('o-1')).resolves.toBe('o-1');

    expect(await committedOrders()).toBe(1);
    expect(log.lines).toEqual([expect.stringContaining('fan-out down')]);
  });

  it('refuses notify without a realtime fan-out, rolling the work back', async () => {
    const { placeOrder, outbox, committedOrders } = await setup({ realtime: false });

    await expect(placeOrder('o-1')).rejects.toThrow(/realtime/);

    expect(await committedOrders()).toBe(0);
    expect(await outbox()).toEqual([]);
  });

  it('with packOver, writes a large unit as one packed row, which the relay publishes as the same events in order', async () => {
    const { uow, schema, relay, bus, at } = await setup({ packOver: 2_000 });
    const large = Array.from({ length: 40 }, (_, i) => `o-${i}-${'x'.repeat(40)}-é"\\`);
    const runUnit = (ids: string[]) =>
      uow.run(async (m, emit) => {
        for (const id of ids) {
          await m.query(`INSERT INTO ${schema}.orders (id) VALUES ($1)`, [id]);
          emit(OrderPlaced, { orderId: id }, 'acc-1');
        }
      });

    await runUnit(large); // about 9 kB of JSON: one packed row
    await runUnit(['small-1', 'small-2']); // under the threshold: a jsonb row an event
    const rows = await dataSource.query<Array<{ type: string; key: string; payload: unknown; packed: string | null }>>(
      `SELECT type, key, payload, packed FROM ${schema}.outbox ORDER BY id`,
    );
    expect(rows.map((r) => [r.type, r.key])).toEqual([['$packed', '40'], ['test.order.placed', 'small-1'], ['test.order.placed', 'small-2']]);
    expect(rows[0].payload).toEqual({});
    expect(rows[1].packed).toBeNull();
    expect(rows[1].payload).toMatchObject({ data: { orderId: 'small-1' }, source: 'orders', accountId: 'acc-1' });

    expect(await relay.relay.flush()).toBe(42);
    expect(bus.published.map((e) => (e.data as { orderId: string }).orderId)).toEqual([...large, 'small-1', 'small-2']);
    const [first] = bus.published;
    expect(first).toMatchObject({ type: 'test.order.placed', version: 1, topic: Topics.Accounts, key: large[0], source: 'orders', accountId: 'acc-1', occurredAt: at.toISOString() });
    // the same event whichever row it left from: the packed one and a jsonb one differ only in their data
    const shape = (e: OutgoingEvent) => Object.keys(e).sort();
    expect(shape(bus.published[0])).toEqual(shape(bus.published[40]));
    expect(new Set(bus.published.map((e) => e.id)).size).toBe(42);
  });

  it('publishes committed events at once in a process with the relay role', async () => {
    const { relay, bus, placeOrder, outbox } = await setup({ relayRole: true });
    await relay.onApplicationBootstrap();

    await placeOrder('o-1');
    await waitFor(() => bus.published.length === 1);

    expect(bus.published[0]).toMatchObject({ key: 'o-1', source: 'orders', topic: Topics.Accounts });
    await waitFor(async () => (await outbox())[0].published_at !== null);
  });

  it('neither starts nor kicks the relay in a process without the relay role', async () => {
    const { relay, placeOrder, bus, outbox } = await setup({ relayRole: false });
    const start = jest.spyOn(relay.relay, 'start');
    const kick = jest.spyOn(relay.relay, 'kick');
    await relay.onApplicationBootstrap();

    await placeOrder('o-1');

    expect(start).not.toHaveBeenCalled();
    expect(kick).not.toHaveBeenCalled();
    expect(bus.published).toEqual([]);
    expect((await outbox())[0].published_at).toBeNull();
  });
});
