import type { EntityManager } from 'typeorm';
import { toEnvelope } from '../bus/delivery';
import type { OutgoingEvent } from '../bus/event-bus';
import { timeOrderedUuid } from '../database/time-ordered-uuid';
import { quoteSchema, statementAlias } from './sql';
import { pgArrayParameters } from '../database/pg-literals';

/** The `type` of an outbox row holding many events (see Outbox.addPacked). */
export const PACKED_OUTBOX_TYPE = '$packed';

/**
 * A byte size setting of the outbox: the option if given, else the variable's value, else the default; at least 1 KB.
 */
export function outboxByteSetting(value: number | undefined, env: string, fallback: number): number {
  const raw = value ?? (process.env[env] ? Number(process.env[env]) : fallback);
  if (!Number.isInteger(raw) || raw < 1024) throw new Error(`${env} must be an integer of at least 1024 bytes, got ${String(raw)}`);
  return raw;
}

/** The relay's cap of a publish call's bytes (OUTBOX_MAX_BATCH_BYTES, 900,000 by default), also the largest packed row written. */
export function outboxMaxBatchBytes(value?: number): number {
  return outboxByteSetting(value, 'OUTBOX_MAX_BATCH_BYTES', 900_000);
}

/** A packed row's text and its number of events. */
export interface PackedRowText {
  count: number;
  text: string;
}

/** Events of this many or more are serialised in runs at once (a large row is likely): no whole text made first to be cut. */
const SPLIT_FIRST = 256;
/** The events serialised together when a row may be cut: one call a run, cheaper than one an event (0220). */
const RUN = 64;

/**
 * The packed rows of `events`, in order: one row (`json`, or the array serialised) when its UTF-8 text is at most
 * `maxRowBytes`, else consecutive runs of the events each at most that size, an event larger than it alone in its
 * row. Each row's text is exactly `JSON.stringify` of its events.
 */
export function packedRows(events: OutgoingEvent[], json: string | undefined, maxRowBytes: number): PackedRowText[] {
  if (json === undefined && events.length < SPLIT_FIRST) json = JSON.stringify(events);
  // a UTF-16 code unit is at most 3 UTF-8 bytes: most rows are known to fit without counting
  if (json !== undefined && (json.length * 3 <= maxRowBytes || Buffer.byteLength(json) <= maxRowBytes)) return [{ count: events.length, text: json }];
  const rows: PackedRowText[] = [];
  // the row's pieces without their brackets (slices: no copy), joined once when the row is full
  let inner: string[] = [];
  let bytes = 2;
  let count = 0;
  const close = (): void => {
    if (inner.length > 0) rows.push({ count, text: `[${inner.join(',')}]` });
    inner = [];
    bytes = 2;
    count = 0;
  };
  // a piece `[a,b]` of `size` bytes adds `a,b` and a comma to the row
  const add = (piece: string, size: number, n: number): void => {
    if (inner.length > 0 && bytes + size - 1 > maxRowBytes) close();
    bytes += inner.length > 0 ? size - 1 : size - 2;
    inner.push(piece.slice(1, -1));
    count += n;
  };
  for (let i = 0; i < events.length; i += RUN) {
    const run = events.slice(i, i + RUN);
    const piece = JSON.stringify(run);
    const size = Buffer.byteLength(piece);
    if (size <= maxRowBytes || run.length === 1) add(piece, size, run.length);
    else {
      for (const event of run) {
        const one = JSON.stringify([event]);
        add(one, Buffer.byteLength(one), 1);
      }
    }
  }
  close();
  return rows;
}

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
   * packed row type of the schema's relay (`OutboxRelayOptions.unpack`) whose `json` is its own form of `events`,
   * written as given (its relay bounds it, `unpackBound`).
   *
   * Events whose text is over `maxRowBytes` (the relay's publish cap, OUTBOX_MAX_BATCH_BYTES) go in several `$packed`
   * rows, in order, each at most that size (an event larger than it alone in its row): the relay sizes the events of a
   * row under its cap by the row's average, where a larger row had every event serialised again only to be measured
   * (docs/decisions/0220: dispatch's status rows of 2,000 events and 3.4 MB).
   */
  async addPacked(manager: EntityManager, schema: string, events: OutgoingEvent[], json?: string, type = PACKED_OUTBOX_TYPE, maxRowBytes = outboxMaxBatchBytes()): Promise<void> {
    if (events.length === 0) return;
    if (!manager.queryRunner?.isTransactionActive) {
      throw new Error("Outbox.addPacked needs the caller's transaction: pass the manager given by dataSource.transaction()");
    }
    if (type !== PACKED_OUTBOX_TYPE && json === undefined) throw new Error(`Outbox.addPacked: a ${type} row needs its text`);
    // a row a statement, in order (a bigserial id each: the relay reads them in this order); nearly always one
    const rows = type === PACKED_OUTBOX_TYPE ? packedRows(events, json, maxRowBytes) : [{ count: events.length, text: json! }];
    for (const row of rows) {
      await manager.query(
        `INSERT INTO ${quoteSchema(schema)}.outbox AS ${statementAlias('outbox', schema)} (event_id, topic, key, type, payload, packed) VALUES ($1, '', $2, $3, '{}', $4)`,
        [timeOrderedUuid(), String(row.count), type, row.text],
      );
    }
  },
};
