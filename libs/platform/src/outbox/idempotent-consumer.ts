import type { EventEnvelope } from '@switchboard/contracts';
import type { DataSource, EntityManager } from 'typeorm';
import { quoteSchema, statementAlias } from './sql';

/**
 * Records `(consumer, eventId)` in `<schema>.processed_events` inside the caller's transaction. True when this
 * delivery is the first (the caller applies the effect in the same transaction), false for one handled before.
 * A concurrent delivery of the same event blocks on the uncommitted key until the first transaction ends (see
 * `IdempotentConsumer.handleOnce`).
 */
export async function claimEvent(manager: Pick<EntityManager, 'query'>, schema: string, consumer: string, eventId: string): Promise<boolean> {
  const claimed = await manager.query<unknown[]>(
    `INSERT INTO ${quoteSchema(schema)}.processed_events AS ${statementAlias('processed_events', schema)} (consumer, event_id) VALUES ($1, $2)
     ON CONFLICT (consumer, event_id) DO NOTHING RETURNING event_id`,
    [consumer, eventId],
  );
  return claimed.length > 0;
}

export const IdempotentConsumer = {
  /**
   * Runs `effect` for an event at most once per consumer: records `(consumer, event.id)` in
   * `<schema>.processed_events` in the same transaction as the effect. Returns false, without running the
   * effect, for an event already processed.
   *
   * The record is inserted first. A concurrent delivery of the same event blocks on that uncommitted key until
   * the first transaction ends: if it commits, ON CONFLICT skips the duplicate; if the effect failed and rolled
   * back, the duplicate takes over. Relies on READ COMMITTED (the default): under REPEATABLE READ the blocked
   * insert would fail with a serialization error instead of skipping.
   */
  async handleOnce(
    dataSource: DataSource,
    schema: string,
    consumer: string,
    event: Pick<EventEnvelope, 'id'>,
    effect: (manager: EntityManager) => Promise<unknown>,
  ): Promise<boolean> {
    return dataSource.transaction(async (manager) => {
      if (!(await claimEvent(manager, schema, consumer, event.id))) return false;
      await effect(manager);
      return true;
    });
  },
};
