import type { EntityManager } from 'typeorm';
import { toEnvelope } from '../bus/delivery';
import type { OutgoingEvent } from '../bus/event-bus';
import { timeOrderedUuid } from '../database/time-ordered-uuid';
import { quoteSchema, statementAlias } from './sql';
import { pgArrayParameters } from '../database/pg-literals';

/** The `type` of an outbox row holding many events (see Outbox.addPacked). */
export const PACKED_OUTBOX_TYPE = '$packed';

export const Outbox = {
  /**
   * Writes events to `<schema>.outbox` in the caller's transaction, so they exist if and only if the business
   * rows they describe commit. Call `relay.kick()` after the commit to publish without waiting for the next poll.
   */
  async add(manager: EntityManager, schema: string, events: OutgoingEvent[]): Promise<void> {
    if (events.length === 0) return;
    if (!manager.queryRunner?.isTransactionActive) {
      // Outside a transaction the events would commit on their own, without the rows they describe.
      throw new Error("Outbox.add needs the caller's transaction: pass the manager given by dataSource.transaction()");
    }
    // unnest keeps the array order, so ids follow the order of `events`.
    await manager.query(`INSERT INTO ${quoteSchema(schema)}.outbox AS ${statementAlias('outbox', schema)} (event_id, topic, key, type, payload) ${Outbox.rowsSql(1)}`, pgArrayParameters(Outbox.rowsParams(events)));
  },

  /**
   * For a hot path that writes its row and its events in ONE statement (a single statement commits or fails whole, so
   * it needs no transaction, and costs one round trip instead of four): `INSERT INTO <schema>.outbox (event_id, topic,
   * key, type, payload) ${rowsSql(n)}` in a CTE of that statement, with `rowsParams(events)` as parameters n to n+4.
   */
  rowsSql(first: number): string {
    const p = (i: number) => `$${first + i}`;
    return `SELECT * FROM unnest(${p(0)}::uuid[], ${p(1)}::text[], ${p(2)}::text[], ${p(3)}::text[], ${p(4)}::jsonb[])`;
  },

  rowsParams(events: OutgoingEvent[]): [string[], string[], string[], string[], string[]] {
    return [events.map((e) => e.id), events.map((e) => e.topic), events.map((e) => e.key), events.map((e) => e.type), events.map((e) => JSON.stringify(toEnvelope(e)))];
  },

  /**
   * Writes many events as ONE outbox row (its `packed` text the array of envelopes with their topics, in order), for hot
   * paths that commit thousands of events at once: one row and one index entry instead of one per event, both when
   * writing and when the relay marks it published. The relay publishes every event of the row, each with its own
   * id, in the array's order; consumers see no difference. `key` holds the number of events, so the relay can cap a
   * pass without reading the payloads. The schema's outbox needs the `packed` column (addPackedOutboxColumn). `json`:
   * `JSON.stringify(events)` when the caller already has it (it measured the row), not serialised again. `type`: a
   * packed row type of the schema's relay (`OutboxRelayOptions.unpack`) whose `json` is its own form of `events`.
   */
  async addPacked(manager: EntityManager, schema: string, events: OutgoingEvent[], json?: string, type = PACKED_OUTBOX_TYPE): Promise<void> {
    if (events.length === 0) return;
    if (!manager.queryRunner?.isTransactionActive) {
      throw new Error("Outbox.addPacked needs the caller's transaction: pass the manager given by dataSource.transaction()");
    }
    await manager.query(
      `INSERT INTO ${quoteSchema(schema)}.outbox AS ${statementAlias('outbox', schema)} (event_id, topic, key, type, payload, packed) VALUES ($1, '', $2, $3, '{}', $4)`,
      [timeOrderedUuid(), String(events.length), type, json ?? JSON.stringify(events)],
    );
  },
};
