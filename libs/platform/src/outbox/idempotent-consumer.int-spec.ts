import { randomUUID } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import { waitFor } from '../bus/test-support';
import { createTestDatabase, type TestDatabase } from '../testing/database';
import { IdempotentConsumer } from './idempotent-consumer';
import { createOutboxTables } from './sql';

const SCHEMA = 'stats';
const CONSUMER = 'stats.campaign-projector';

describe('IdempotentConsumer', () => {
  let db: TestDatabase;
  let dataSource: DataSource;

  const effect = (eventId: string) => async (manager: EntityManager) => {
    await manager.query(`INSERT INTO ${SCHEMA}.effects (event_id) VALUES ($1)`, [eventId]);
  };
  const effectCount = async (eventId: string): Promise<number> => {
    const [{ n }] = await dataSource.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM ${SCHEMA}.effects WHERE event_id = $1`, [eventId]);
    return n;
  };

  beforeAll(async () => {
    db = await createTestDatabase('idem');
    dataSource = await new DataSource({ type: 'postgres', url: db.url, applicationName: 'idempotent-test', extra: { max: 20 } }).initialize();
    await dataSource.query(`CREATE SCHEMA ${SCHEMA}; CREATE TABLE ${SCHEMA}.effects (event_id uuid NOT NULL)`);
    await createOutboxTables(dataSource.createQueryRunner(), SCHEMA);
  });

  afterAll(async () => {
    await dataSource.destroy();
    await db.drop();
  });

  it('runs the effect for a new event and skips a redelivery of it', async () => {
    const event = { id: randomUUID() };

    expect(await IdempotentConsumer.handleOnce(dataSource, SCHEMA, CONSUMER, event, effect(event.id))).toBe(true);
    expect(await IdempotentConsumer.handleOnce(dataSource, SCHEMA, CONSUMER, event, effect(event.id))).toBe(false);

    expect(await effectCount(event.id)).toBe(1);
  });

  it('tracks each consumer separately', async () => {
    const event = { id: randomUUID() };

    expect(await IdempotentConsumer.handleOnce(dataSource, SCHEMA, 'stats.a', event, effect(event.id))).toBe(true);
    expect(await IdempotentConsumer.handleOnce(dataSource, SCHEMA, 'stats.b', event, effect(event.id))).toBe(true);

    expect(await effectCount(event.id)).toBe(2);
  });

  it('records nothing when the effect fails, so a redelivery runs it', async () => {
    const event = { id: randomUUID() };
    const failing = async (manager: EntityManager) => {
      await effect(event.id)(manager);
      throw new Error('downstream failed');
    };

    await expect(IdempotentConsumer.handleOnce(dataSource, SCHEMA, CONSUMER, event, failing)).rejects.toThrow('downstream failed');
    expect(await effectCount(event.id)).toBe(0);

    expect(await IdempotentConsumer.handleOnce(dataSource, SCHEMA, CONSUMER, event, effect(event.id))).toBe(true);
    expect(await effectCount(event.id)).toBe(1);
  });

  it('skips a duplicate delivered while the first delivery is still in its transaction', async () => {
    const event = { id: randomUUID() };
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let firstStarted = false;
    let duplicateRan = false;

    const first = IdempotentConsumer.handleOnce(dataSource, SCHEMA, CONSUMER, event, async (manager) => {
      await effect(event.id)(manager);
      firstStarted = true;
      await released;
    });
    await waitFor(() => firstStarted);
    const duplicate = IdempotentConsumer.handleOnce(dataSource, SCHEMA, CONSUMER, event, async (manager) => {
      duplicateRan = true;
      await effect(event.id)(manager);
    });
    // The duplicate's insert waits on the first transaction's uncommitted key: no read-then-write race.
    await waitFor(async () => {
      const [{ n }] = await dataSource.query<Array<{ n: number }>>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'idempotent-test' AND wait_event_type = 'Lock'`,
      );
      return n === 1;
    });
    release();

    expect(await Promise.all([first, duplicate])).toEqual([true, false]);
    expect(duplicateRan).toBe(false);
    expect(await effectCount(event.id)).toBe(1);
  });

  it('runs the effect exactly once when many deliveries race', async () => {
    const event = { id: randomUUID() };

    const results = await Promise.all(
      Array.from({ length: 10 }, () => IdempotentConsumer.handleOnce(dataSource, SCHEMA, CONSUMER, event, effect(event.id))),
    );

    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await effectCount(event.id)).toBe(1);
  });
});
