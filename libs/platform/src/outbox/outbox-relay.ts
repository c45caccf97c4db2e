import { createHash } from 'node:crypto';
import { Logger, type LoggerService } from '@nestjs/common';
import type { EventEnvelope } from '@switchboard/contracts';
import type { DataSource, EntityManager } from 'typeorm';
import { preparedQuery } from '../database/prepared';
import { describeError, toEnvelope } from '../bus/delivery';
import type { EventBus, OutgoingEvent } from '../bus/event-bus';
import { isPermanentPublishError } from '../bus/failures';
import { countDeadLetter, deadLetterParams, insertDeadLetterSql } from '../deadletter/store';
import { OutboxMetrics, watchOutbox } from '../metrics/metrics';
import { outboxByteSetting, outboxMaxBatchBytes, PACKED_OUTBOX_TYPE } from './outbox';
import { quoteSchema, statementAlias } from './sql';

export interface OutboxRelayOptions {
  schema: string;
  dataSource: DataSource;
  bus: EventBus;
  /** How often to look for rows when nobody kicks. Default 1000 ms. */
  pollIntervalMs?: number;
  /** Events per publish (a packed row counts its events; a pass takes at least one row). Default 100. */
  batchSize?: number;
  logger?: Pick<LoggerService, 'error'>;
  /**
   * Published outbox rows, and `processed_events` rows (the consumers' dedupe memory), older than this are deleted
   * by the running relay. It must exceed the longest a redelivery can come late (a consumer down, a dead letter
   * replayed): past it, a redelivered event is handled again. 0 keeps everything. Default 7 days.
   */
  retentionMs?: number;
  /** How often the running relay prunes. Default 10 minutes. */
  pruneIntervalMs?: number;
  /**
   * Most bytes (serialised envelopes) per publish call: a pass's events go out in calls of at most this much, so a
   * Kafka produce request stays under the broker's `message.max.bytes` (1 MiB by default). Default 900 000, or
   * `OUTBOX_MAX_BATCH_BYTES`. An event larger than this goes out alone.
   */
  maxBatchBytes?: number;
  /**
   * An event whose serialised envelope is larger than this can never be published: it is moved to the schema's
   * dead-letter store (kind `publish`) instead of blocking every event behind it. Default 1 000 000 (under Kafka's
   * default 1 048 588 with room for the record overhead), or `OUTBOX_MAX_EVENT_BYTES`.
   */
  maxEventBytes?: number;
  /**
   * Deletes each row in the pass that publishes it, instead of marking it `published_at` (docs/decisions/0096). A
   * mark writes a whole new version of the row, payload and index entries included (~1 KB of WAL per event on a hot
   * path); a delete writes a few bytes. Same guarantees: the delete commits with the pass, after the bus took the
   * events, so a crash in between publishes them again with the same ids. What is lost is the published rows
   * themselves (no audit of what left, and an event id can be added again once its row is gone): for a schema whose
   * published rows nobody reads and whose event ids are fresh per event. Default false.
   */
  deletePublished?: boolean;
  /**
   * Packed row types of this schema besides `$packed` (docs/decisions/0110), each starting with `$`: a row of such a
   * type is read as a `$packed` one (its `packed` text the array of events, `key` the number of events it publishes),
   * and its parsed events go through the type's function, which returns the events to publish, in order. The function
   * must be pure (a relay that dies after publishing publishes the row again: the same events, the same ids), and its
   * events together serialise to at most three times the row's text (the relay sizes its publish calls by that bound).
   * A row of a `$` type the relay does not know is never published as a plain row: the pass fails, is logged and
   * retried (a relay older than the writer of such rows).
   */
  unpack?: Record<string, (events: OutgoingEvent[]) => OutgoingEvent[]>;
  /**
   * For an `unpack` type whose events serialise to more than three times its row's text (a compact row of values,
   * docs/decisions/0159): a bound of its events' bytes from the row's text (its UTF-8 bytes) and the events the type's
   * function returned, instead of three times the text. It must not be below what the events serialise to.
   */
  unpackBound?: Record<string, (textBytes: number, events: OutgoingEvent[]) => number>;
  /**
   * For an `unpack` type whose row's bound is over the publish cap: a bound of one of its events' bytes, or undefined
   * for an event the relay is to measure by serialising it. A row's events are otherwise each serialised to be sized
   * (docs/decisions/0220: streams' compact rows hold a few batch events of hundreds of KB, each bounded by its fold).
   * It must not be below what the event serialises to.
   */
  unpackEventBound?: Record<string, (event: OutgoingEvent) => number | undefined>;
}

/** The bytes of an event's envelope as the bus sends it. */
const eventBytes = (event: OutgoingEvent): number => Buffer.byteLength(JSON.stringify(toEnvelope(event)));

/** The relay's events are its own, parsed from their rows for the publish (PublishOptions.handOver). */
const HAND_OVER = Object.freeze({ handOver: true });

/** The dead-letter group of a schema's relay: `<schema>.outbox-relay`. */
export const relayDeadLetterGroup = (schema: string): string => `${schema}.outbox-relay`;

const PRUNE_CHUNK = 5000;
const DEFAULT_RETENTION_MS = 7 * 24 * 3600_000;

/**
 * A row's event with its topic. Object.assign, not `{ ...payload, topic }`: once its call site has seen a few events,
 * V8 gave each event so made (a property added to a spread of a parsed object) a hidden class of its own, about 4 µs
 * and 500 bytes an event, and every consumer's property reads met as many shapes as events (docs/decisions/0112).
 */
export function relayEvent(payload: EventEnvelope, topic: string): OutgoingEvent {
  return Object.assign({}, payload, { topic });
}

/** A pass whose publish failed after its read deleted the rows it took: the pass rolls back, then counts the attempt. */
class PublishFailed extends Error {
  constructor(
    override readonly cause: unknown,
    readonly ids: string[],
  ) {
    super('outbox publish failed');
  }
}

interface OutboxRow {
  id: string;
  topic: string;
  type: string;
  /** The envelope as PostgreSQL's text of the jsonb (read with `jsonAsText`), parsed by the relay; null for a packed row. */
  payload: string | null;
  packed: string | null;
}

/**
 * Publishes a schema's outbox rows and marks them published, oldest first.
 *
 * There is no "last published id" cursor: ids are taken when a transaction inserts, not when it commits, so a
 * transaction can commit row 1 after row 2 was published. Each pass takes the unpublished rows as they are now.
 * A crash between publish and mark leaves the rows unpublished, so they are published again with the same
 * event ids: delivery is at-least-once and consumers dedupe (IdempotentConsumer).
 */
export class OutboxRelay {
  private readonly table: string;
  /** `<schema>.outbox AS outbox_<schema>`: this schema's statements, an entry each in pg_stat_statements (statementAlias). */
  private readonly aliased: string;
  private readonly lockKey: string;
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  private readonly logger: Pick<LoggerService, 'error'>;
  private readonly maxBatchBytes: number;
  private readonly maxEventBytes: number;
  /** Events moved to the dead-letter store by this relay (the alert metric; each one is also an error log line). */
  deadLettered = 0;
  private running = false;
  private loop?: Promise<void>;
  private kicked = false;
  /** Whether the last pass left rows behind (cut by batchSize). */
  private lastPassFull = false;
  private wake?: () => void;
  private pruneTimer?: NodeJS.Timeout;
  private pruning?: Promise<unknown>;
  /** The row types read as packed: `$packed` and the `unpack` option's. */
  private readonly packedTypes: string[];
  private readonly unpackers: Map<string, (events: OutgoingEvent[]) => OutgoingEvent[]>;

  constructor(private readonly options: OutboxRelayOptions) {
    this.table = `${quoteSchema(options.schema)}.outbox`;
    this.aliased = `${this.table} AS ${statementAlias('outbox', options.schema)}`;
    this.lockKey = createHash('sha256').update(`outbox-relay:${options.schema}`).digest().readBigInt64BE(0).toString();
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.batchSize = Math.max(1, options.batchSize ?? 100);
    this.logger = options.logger ?? new Logger(`OutboxRelay(${options.schema})`);
    this.maxBatchBytes = outboxMaxBatchBytes(options.maxBatchBytes);
    this.maxEventBytes = outboxByteSetting(options.maxEventBytes, 'OUTBOX_MAX_EVENT_BYTES', 1_000_000);
    this.unpackers = new Map(Object.entries(options.unpack ?? {}));
    for (const type of this.unpackers.keys()) if (!type.startsWith('$') || type === PACKED_OUTBOX_TYPE) throw new Error(`outbox unpack type "${type}": a packed row type starts with $ and is not ${PACKED_OUTBOX_TYPE}`);
    this.packedTypes = [PACKED_OUTBOX_TYPE, ...this.unpackers.keys()];
  }

  private unwatch?: () => void;

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.unwatch = watchOutbox({
      schema: this.options.schema,
      backlog: async () => {
        const [row] = await this.options.dataSource.query<Array<{ n: string; age: number | null }>>(
          `SELECT coalesce(sum(CASE WHEN type = ANY($1::text[]) THEN key::int ELSE 1 END), 0) AS n,
                  extract(epoch FROM now() - min(created_at))::float8 AS age
             FROM ${this.aliased} WHERE published_at IS NULL`,
          [this.packedTypes],
        );
        return { count: Number(row?.n ?? 0), oldestAgeSeconds: Math.max(0, Number(row?.age ?? 0)) };
      },
    });
    this.loop = this.run();
    if ((this.options.retentionMs ?? DEFAULT_RETENTION_MS) > 0) {
      this.pruneTimer = setInterval(() => {
        if (this.pruning) return;
        this.pruning = this.prune()
          .catch((error: unknown) => this.logger.error(`pruning ${this.table} failed: ${describeError(error)}`))
          .finally(() => (this.pruning = undefined));
      }, this.options.pruneIntervalMs ?? 10 * 60_000);
      this.pruneTimer.unref();
    }
  }

  /** Finishes the pass in progress, then stops. */
  async stop(): Promise<void> {
    this.running = false;
    this.unwatch?.();
    clearInterval(this.pruneTimer);
    this.wake?.();
    await this.loop;
    await this.pruning;
    this.loop = undefined;
  }

  /**
   * Deletes published outbox rows and processed_events rows older than the retention, a chunk per statement (short
   * transactions, no long lock). Unpublished rows are never deleted, however old. Returns what it deleted.
   */
  async prune(now = new Date()): Promise<{ outbox: number; processedEvents: number }> {
    const retentionMs = this.options.retentionMs ?? DEFAULT_RETENTION_MS;
    const deleted = { outbox: 0, processedEvents: 0 };
    if (retentionMs <= 0) return deleted;
    const cutoff = new Date(now.getTime() - retentionMs);
    const schema = quoteSchema(this.options.schema);
    const chunk = async (sql: string): Promise<number> => {
      const [, count] = await this.options.dataSource.query<[unknown[], number]>(sql, [cutoff, PRUNE_CHUNK]);
      return Number(count);
    };
    for (let n = PRUNE_CHUNK; n === PRUNE_CHUNK; deleted.outbox += n) {
      // oldest ids first: published rows are old at the low end of the primary key
      n = await chunk(
        `DELETE FROM ${this.aliased} WHERE id IN (SELECT id FROM ${this.table} WHERE published_at IS NOT NULL AND published_at < $1 ORDER BY id LIMIT $2)`,
      );
    }
    for (let n = PRUNE_CHUNK; n === PRUNE_CHUNK; deleted.processedEvents += n) {
      n = await chunk(`DELETE FROM ${schema}.processed_events WHERE ctid IN (SELECT ctid FROM ${schema}.processed_events WHERE processed_at < $1 LIMIT $2)`);
    }
    return deleted;
  }

  /** Runs a pass now instead of at the next poll: call it after committing outbox rows. */
  kick(): void {
    this.kicked = true;
    this.wake?.();
  }

  /**
   * One pass: publishes up to `batchSize` unpublished events and marks their rows. Returns how many events were published; 0
   * also when another relay of the schema is in a pass. Rejects if the bus rejects; the rows then stay
   * unpublished with their `attempts` counted.
   */
  relayOnce(): Promise<number> {
    return this.pass(false);
  }

  /**
   * Publishes every row committed before the call, in full batches until none is left. Unlike relayOnce it
   * waits for a concurrent pass rather than skip. For tests and graceful shutdown. Returns how many it published.
   */
  async flush(): Promise<number> {
    let total = 0;
    for (;;) {
      total += await this.pass(true);
      if (!this.lastPassFull) return total;
    }
  }

  private async pass(waitForLock: boolean): Promise<number> {
    try {
      return await this.passOnce(waitForLock);
    } catch (error) {
      if (!(error instanceof PublishFailed)) throw error;
      // The pass rolled back, its rows are unpublished again; the attempt count is how operators spot a stuck row.
      await this.options.dataSource.query(`UPDATE ${this.aliased} SET attempts = attempts + 1 WHERE id = ANY($1::bigint[])`, [error.ids]);
      throw error.cause;
    }
  }

  private async passOnce(waitForLock: boolean): Promise<number> {
    const outcome = await this.options.dataSource.transaction(async (manager): Promise<{ published: number; full: boolean } | { failed: unknown }> => {
      // One relay per schema at a time, whatever the number of replicas: two relays publishing interleaved
      // batches would reorder one key's events. A polling pass that finds the lock taken skips; flush waits.
      if (waitForLock) await manager.query('SELECT pg_advisory_xact_lock($1::bigint)', [this.lockKey]);
      // ONE statement (docs/decisions/0082): a polling pass's lock (taken first, once: a materialised CTE; nothing is
      // read without it), the unpublished ids with the number of events of each row (packed rows keep it in `key`),
      // SKIP LOCKED so a pass never waits on rows another session holds, and the payloads of the rows that fit in
      // batchSize events (always the first), so a pass reads no payload it would not publish.
      // Prepared once per connection (docs/decisions/0101): parsing and planning it cost PostgreSQL more than running it.
      // With deletePublished the read IS the delete (docs/decisions/0144): the rows the pass takes are deleted in the
      // same statement and come back by RETURNING, so a pass is three round trips (begin, read, commit), not four: under
      // ack 'handled' every message waits behind the pass. The delete commits only with the pass, after the bus took the events;
      // a failed publish rolls it back (the rows come back unpublished) and the attempt is counted after.
      const take = this.options.deletePublished
        ? `, d AS (DELETE FROM ${this.table} o USING c WHERE o.id = c.id AND (c.rn = 1 OR c.upto <= $1)
                  RETURNING o.id, o.topic, o.type, CASE WHEN o.type = ANY($2::text[]) THEN NULL ELSE o.payload END AS payload,
                            CASE WHEN o.type = ANY($2::text[]) THEN o.packed END AS packed, c.heads)
         SELECT id, topic, type, payload, packed, heads FROM d ORDER BY id`
        : `
         SELECT o.id, o.topic, o.type, CASE WHEN o.type = ANY($2::text[]) THEN NULL ELSE o.payload END AS payload,
                CASE WHEN o.type = ANY($2::text[]) THEN o.packed END AS packed, c.heads
           FROM c JOIN ${this.table} o ON o.id = c.id WHERE c.rn = 1 OR c.upto <= $1 ORDER BY c.id`;
      const rows = await preparedQuery<OutboxRow & { heads: string }>(
        manager,
        `outbox_relay_${this.options.deletePublished ? 'take' : 'read'}_${this.options.schema}_${waitForLock ? 'wait' : 'try'}`,
        `WITH l AS MATERIALIZED (SELECT ${waitForLock ? 'true' : 'pg_try_advisory_xact_lock($3::bigint)'} AS locked),
         h AS (SELECT id, CASE WHEN type = ANY($2::text[]) THEN key::int ELSE 1 END AS n FROM ${this.aliased}
                WHERE published_at IS NULL AND (SELECT locked FROM l) ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED),
         c AS (SELECT id, sum(n) OVER (ORDER BY id) AS upto, row_number() OVER (ORDER BY id) AS rn, count(*) OVER () AS heads FROM h)${take}`,
        waitForLock ? [this.batchSize, this.packedTypes] : [this.batchSize, this.packedTypes, this.lockKey],
        // the payload's text, not pg's parse of it: the relay parses it once into the event it hands the bus, and the
        // text's length bounds the event's size, so no event is serialised again only to be measured (0194)
        { jsonAsText: true },
      );
      if (rows.length === 0) return { published: 0, full: false };
      const heads = Number(rows[0].heads);
      const ids = rows.map((r) => r.id);
      const outgoing: OutgoingEvent[] = [];
      const sizes: number[] = [];
      for (const row of rows) {
        const unpack = this.unpackers.get(row.type);
        if (row.type === PACKED_OUTBOX_TYPE || unpack) {
          const text = row.packed ?? '[]';
          const parsed = JSON.parse(text) as OutgoingEvent[];
          const events = unpack ? unpack(parsed) : parsed;
          outgoing.push(...events);
          // A packed row (thousands of small events) is measured whole: when it is below the publish cap, each event
          // is counted at the row's average (no event of it can be over the cap); only a larger row is measured event by event.
          // An unpacked row's events are bounded by three times its text (OutboxRelayOptions.unpack).
          const textBytes = Buffer.byteLength(text);
          const bound = unpack && this.options.unpackBound?.[row.type];
          const bytes = bound ? bound(textBytes, events) : unpack ? 3 * textBytes : textBytes;
          // A row of one event bounds that event's size from above (the row is the event with its topic, in brackets),
          // so a large event packed alone (an audience chunk) is not serialised again either unless it is near a cap.
          if (bytes <= this.maxBatchBytes) {
            const each = Math.ceil(bytes / Math.max(1, events.length));
            for (let i = 0; i < events.length; i++) sizes.push(each);
          } else if (events.length === 1 && bytes <= this.maxEventBytes) sizes.push(bytes);
          else {
            const eventBound = unpack && this.options.unpackEventBound?.[row.type];
            for (const event of events) {
              const b = eventBound ? eventBound(event) : undefined;
              sizes.push(b !== undefined && b <= this.maxEventBytes ? b : eventBytes(event));
            }
          }
        } else if (row.type.startsWith('$')) {
          throw new Error(`outbox row ${row.id} of type ${row.type}: a packed type this relay cannot read (an older relay than its writer?)`);
        } else {
          const text = row.payload ?? 'null';
          const event = relayEvent(JSON.parse(text) as EventEnvelope, row.topic);
          outgoing.push(event);
          // PostgreSQL's text of the payload bounds the envelope's JSON from above (the same members and strings, with
          // a space after each colon and comma; a number written by JSON.stringify never comes back shorter), so the
          // event is measured by it, and serialised only when that bound is over the event cap (to decide exactly).
          const bound = Buffer.byteLength(text);
          sizes.push(bound <= this.maxEventBytes ? bound : eventBytes(event));
        }
      }
      // The rows' texts are parsed: let go of them before the publish, which waits for every consumer under ack
      // 'handled', so that they are not still held (and moved to the old generation) by then (0194).
      rows.length = 0;
      try {
        await this.publishAll(outgoing, sizes, async (event, error) => this.deadLetter(manager, event, error));
      } catch (failed) {
        // Taken rows were deleted by the read: roll that back, then count the attempt (below).
        if (this.options.deletePublished) throw new PublishFailed(failed, ids);
        // Commit the attempt count rather than roll back: it is how operators spot a stuck row.
        await manager.query(`UPDATE ${this.aliased} SET attempts = attempts + 1 WHERE id = ANY($1::bigint[])`, [ids]);
        return { failed };
      }
      if (!this.options.deletePublished) {
        await manager.query(`UPDATE ${this.aliased} SET published_at = now(), attempts = attempts + 1 WHERE id = ANY($1::bigint[])`, [ids]);
      }
      OutboxMetrics.published().inc({ schema: this.options.schema }, outgoing.length);
      // More may be waiting when the pass was cut by the event cap or took a full page of rows.
      return { published: outgoing.length, full: ids.length < heads || heads === this.batchSize };
    });
    if ('failed' in outcome) throw outcome.failed;
    this.lastPassFull = outcome.full;
    return outcome.published;
  }

  /**
   * Publishes `events` in order, in calls of at most `maxBatchBytes`. An event over `maxEventBytes` is given to
   * `giveUp` unsent. A call refused for good (isPermanentPublishError: too large, invalid) is retried event by event,
   * and an event refused on its own is given to `giveUp`: the events behind it go on. Any other failure (an outage,
   * anything unknown) is thrown, for the whole pass to be tried again later.
   */
  private async publishAll(events: OutgoingEvent[], sizes: number[], giveUp: (event: OutgoingEvent, error: string) => Promise<void>): Promise<void> {
    let chunk: OutgoingEvent[] = [];
    let bytes = 0;
    const flush = async (): Promise<void> => {
      if (chunk.length === 0) return;
      const sending = chunk;
      chunk = [];
      bytes = 0;
      try {
        // handed over: the events were parsed from the rows for this publish, nothing else holds them (0194)
        await this.options.bus.publish(sending, HAND_OVER);
      } catch (error) {
        if (!isPermanentPublishError(error)) throw error;
        if (sending.length === 1) return giveUp(sending[0], `refused by the bus: ${describeError(error)}`);
        for (const event of sending) {
          try {
            await this.options.bus.publish([event], HAND_OVER);
          } catch (single) {
            if (!isPermanentPublishError(single)) throw single;
            await giveUp(event, `refused by the bus: ${describeError(single)}`);
          }
        }
      }
    };
    for (let i = 0; i < events.length; i++) {
      const event = events[i];
      const size = sizes[i];
      if (size > this.maxEventBytes) {
        await flush();
        await giveUp(event, `event of ${size} bytes is over the relay's limit of ${this.maxEventBytes} bytes (OUTBOX_MAX_EVENT_BYTES)`);
        continue;
      }
      if (chunk.length > 0 && bytes + size > this.maxBatchBytes) await flush();
      chunk.push(event);
      bytes += size;
    }
    await flush();
  }

  /** Moves an event that can never be published to `<schema>.dead_letter`, in the pass's transaction, and alerts. */
  private async deadLetter(manager: EntityManager, event: OutgoingEvent, error: string): Promise<void> {
    const group = relayDeadLetterGroup(this.options.schema);
    const [{ exists }] = await manager.query<Array<{ exists: boolean }>>(`SELECT to_regclass($1) IS NOT NULL AS exists`, [`${quoteSchema(this.options.schema)}.dead_letter`]);
    this.deadLettered++;
    OutboxMetrics.deadLettered().inc({ schema: this.options.schema });
    const total = countDeadLetter(group);
    if (!exists) {
      this.logger.error(`ALERT outbox ${this.table}: event ${event.id} (${event.type}) to ${event.topic} DROPPED, no dead_letter table: ${error} [dead letters: ${total}]`);
      return;
    }
    const record = { group, topic: event.topic, envelope: toEnvelope(event), raw: null, error, attempts: 1 };
    await manager.query(insertDeadLetterSql(this.options.schema), deadLetterParams('publish', record));
    this.logger.error(`ALERT outbox ${this.table}: event ${event.id} (${event.type}) to ${event.topic} moved to the dead-letter store: ${error} [dead letters: ${total}]`);
  }

  private async run(): Promise<void> {
    // woken by the poll timer, not a kick, after a pass that left nothing behind
    let polled = false;
    while (this.running) {
      this.kicked = false;
      let backlog = false;
      try {
        // A poll first asks, in one statement outside any transaction, whether anything is unpublished: most polls
        // find nothing (a kick follows every commit in a relaying process), and a pass is a transaction of three round
        // trips (docs/decisions/0208). A kicked pass, or one after a full pass, reads at once.
        if (!polled || (await this.anythingUnpublished())) {
          await this.relayOnce();
          backlog = this.lastPassFull;
        }
      } catch (error) {
        this.logger.error(`publishing ${this.table} failed, will retry: ${describeError(error)}`);
      }
      // A kick during the pass may concern rows the pass did not see.
      polled = this.running && !backlog && !this.kicked ? await this.sleep() : false;
    }
  }

  /**
   * Whether any row is unpublished now (rows being taken by another relay's pass included): a poll's probe. A row
   * committed just after it is read by the next kick or poll, as a row committed just after a pass's read always was.
   */
  private async anythingUnpublished(): Promise<boolean> {
    const [row] = await preparedQuery<{ any: boolean }>(
      this.options.dataSource,
      `outbox_relay_probe_${this.options.schema}`,
      `SELECT EXISTS (SELECT 1 FROM ${this.aliased} WHERE published_at IS NULL) AS any`,
      [],
    );
    return row?.any === true;
  }

  /** Waits for the poll interval or a kick (or stop); true when the poll timer ended the wait. */
  private sleep(): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = undefined;
        resolve(true);
      }, this.pollIntervalMs);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve(false);
      };
    });
  }
}
