import { pgArrayParameters } from '../database/pg-literals';
import type { EventEnvelope } from '@switchboard/contracts';
import type { DataSource, EntityManager } from 'typeorm';
import { isInfrastructureError } from '../bus/failures';
import { countdown } from './countdown';
import { quoteSchema, statementAlias } from './sql';

export interface BatchItem<T> {
  event: Pick<EventEnvelope, 'id'>;
  data: T;
}

export interface BatchedConsumerOptions<T> {
  dataSource: DataSource;
  /** The schema whose `processed_events` records what was handled. */
  schema: string;
  /** The consumer (group) name the records are kept under. */
  consumer: string;
  /**
   * Applies the effects of the events not handled before, in arrival order (grouped by key with `key`), in the batch's
   * transaction. May return
   * a function to run once the transaction committed (realtime notifications, caches).
   */
  apply: (manager: EntityManager, fresh: Array<BatchItem<T>>) => Promise<(() => void) | void>;
  /** Events per transaction, at most. Default 1000. */
  maxBatch?: number;
  /**
   * Whether an event needs its id recorded in `processed_events` before its effect (default: every event). An event
   * whose effect is idempotent by itself (a forward-only state, a value set once) may say no: a redelivery then
   * reapplies it and changes nothing, and the consumer saves a write per event. Repeats of a claimed event within one
   * batch count once (the first occurrence); an unclaimed event is handed to `apply` as often as it came, so `apply`
   * must take a repeat in the same batch as it takes a redelivery (its ids are not even hashed: hashing each event id
   * was a fifth of the rollup consumer's CPU, docs/decisions/0088).
   */
  claim?: (data: T) => boolean;
  /**
   * What an event's effect is about (a message, an account), or null for nothing in particular. With a key, when more
   * events wait than one batch takes, the waiting events of one key go to the same batch (each key's events in their
   * arrival order, the keys in the order they first arrived; a key with more events than a batch takes is split), so a
   * row that several of them change is read and written once instead of once per batch they would have fallen in
   * (docs/decisions/0095). Events of different keys are then applied in another order than they arrived: give a key
   * only when `apply` does not depend on the order of events of different keys.
   */
  key?: (data: T) => string | null;
  /**
   * Lanes of batches in flight at once, each batch in its own transaction on its own connection (default 1; only with
   * `lane`): the next batch is built in node while PostgreSQL runs another (docs/decisions/0174).
   */
  parallel?: number;
  /**
   * An event's lane with `parallel`: the hash of this (null: the first lane). Events of one lane value are never in two
   * transactions at once, so give a value whose events share the rows `apply` writes (an account, for rollups of an
   * account): lanes that wrote the same rows would wait on each other's locks. `apply` must take its events in any order.
   */
  lane?: (data: T) => string | null;
}

interface Pending<T> extends BatchItem<T> {
  resolve: () => void;
  reject: (e: unknown) => void;
  /** Set when the queue was grouped by the key option. */
  key?: string | null;
}

/**
 * The queue with each key's events together, in the order the keys first came and each key's events in arrival order;
 * an event without a key stays where its turn is. Each element's key is kept on it for the cut.
 */
function groupByKey<T>(queue: Array<Pending<T>>, keyOf: (data: T) => string | null): Array<Pending<T>> {
  const n = queue.length;
  const next = new Int32Array(n).fill(-1);
  const tails = new Map<string, number>();
  const heads: number[] = [];
  for (let i = 0; i < n; i++) {
    const p = queue[i];
    const k = keyOf(p.data);
    p.key = k;
    if (k === null) {
      heads.push(i);
      continue;
    }
    const t = tails.get(k);
    if (t === undefined) heads.push(i);
    else next[t] = i;
    tails.set(k, i);
  }
  const out = new Array<Pending<T>>(n);
  let o = 0;
  for (const h of heads) for (let j = h; j !== -1; j = next[j]) out[o++] = queue[j];
  return out;
}

interface Lane<T> {
  queue: Array<Pending<T>>;
  flushing: boolean;
  scheduled: boolean;
  /** Whether the queue is grouped by key since its last arrival. */
  grouped: boolean;
}

/**
 * The lane of a value among `lanes` (`BatchedConsumerOptions.lane`): FNV-1a of its characters, which spreads values
 * that differ only in a few characters (account ids, ordered uuids) over the lanes.
 */
export function laneOfKey(k: string, lanes: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < k.length; i++) h = Math.imul(h ^ k.charCodeAt(i), 0x01000193);
  return (h >>> 0) % lanes;
}

/**
 * IdempotentConsumer for many events at once: the handler calls of a subscription with `concurrency` > 1 join a
 * batch, and one transaction records their `processed_events` rows (skipping those handled before) and applies
 * the effects of the rest; each call resolves when its batch committed. One batch at a time per consumer (per lane
 * with `parallel`), so hot rows (an account's balance) are not fought over by its own transactions. A batch that fails is retried one event
 * per transaction, so one bad event fails alone (and goes to its retries and dead letter) instead of its batch; a
 * batch that fails for an outage (isInfrastructureError) fails whole, at once, for the bus to retry.
 */
export class BatchedIdempotentConsumer<T> {
  /** One queue and flush loop a lane; one lane unless `parallel` (docs/decisions/0174). */
  private readonly lanes: Array<Lane<T>>;
  private readonly maxBatch: number;

  constructor(private readonly options: BatchedConsumerOptions<T>) {
    this.maxBatch = Math.max(1, options.maxBatch ?? 1000);
    const parallel = options.lane ? Math.max(1, Math.floor(options.parallel ?? 1)) : 1;
    this.lanes = Array.from({ length: parallel }, () => ({ queue: [], flushing: false, scheduled: false, grouped: false }));
  }

  /** The lane of an event: by its lane value's hash with parallel lanes, else the only one. */
  private laneOf(data: T): Lane<T> {
    if (this.lanes.length === 1) return this.lanes[0];
    const k = this.options.lane!(data);
    return this.lanes[k === null ? 0 : laneOfKey(k, this.lanes.length)];
  }

  /** Resolves once the event's effect committed, or at once for an event already handled. */
  handle(event: Pick<EventEnvelope, 'id'>, data: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const lane = this.laneOf(data);
      // `key` present from the start: groupByKey setting it later would give each entry a new shape and a property store
      lane.queue.push({ event, data, resolve, reject, key: undefined });
      lane.grouped = false;
      this.schedule(lane);
    });
  }

  /**
   * Many events at once (a chunk a bus batch handler took): resolves once every one's effect committed, rejects with
   * the first failure. One pair of callbacks for all, not a promise per event.
   */
  handleMany(items: Array<BatchItem<T>>): Promise<void> {
    if (items.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const { done, fail } = countdown(items.length, { resolve, reject });
      for (const item of items) this.laneOf(item.data).queue.push({ event: item.event, data: item.data, resolve: done, reject: fail, key: undefined });
      for (const lane of this.lanes) {
        lane.grouped = false;
        this.schedule(lane);
      }
    });
  }

  private schedule(lane: Lane<T>): void {
    if (lane.flushing || lane.scheduled || lane.queue.length === 0) return;
    lane.scheduled = true;
    // the calls of one delivered chunk arrive in the same turn: wait for the turn to end and take them together
    setImmediate(() => {
      lane.scheduled = false;
      void this.flush(lane);
    });
  }

  private async flush(lane: Lane<T>): Promise<void> {
    if (lane.flushing) return;
    lane.flushing = true;
    try {
      while (lane.queue.length > 0) {
        const batch = this.take(lane);
        try {
          await this.run(batch);
          batch.forEach((p) => p.resolve());
        } catch (error) {
          // an outage fails every event alike: the whole batch goes back to its callers (the bus retries their chunk
          // once the database is back) instead of a transaction per event, each waiting on the outage in turn
          if (batch.length === 1 || isInfrastructureError(error)) {
            batch.forEach((p) => p.reject(error));
            continue;
          }
          for (const p of batch) {
            await this.run([p]).then(p.resolve, p.reject);
          }
        }
      }
    } finally {
      lane.flushing = false;
      this.schedule(lane);
    }
  }

  /** The next batch: at most maxBatch events from the queue's head, with the key option a key's events not split. */
  private take(lane: Lane<T>): Array<Pending<T>> {
    const keyOf = this.options.key;
    if (!keyOf || lane.queue.length <= this.maxBatch) return lane.queue.splice(0, this.maxBatch);
    if (!lane.grouped) {
      lane.queue = groupByKey(lane.queue, keyOf);
      lane.grouped = true;
    }
    let cut = this.maxBatch;
    const k = lane.queue[cut].key;
    if (k !== null && k !== undefined) {
      while (cut > 0 && lane.queue[cut - 1].key === k) cut--;
      // one key with more events than a batch takes: split
      if (cut === 0) cut = this.maxBatch;
    }
    return lane.queue.splice(0, cut);
  }

  private async run(batch: Array<Pending<T>>): Promise<void> {
    const committed = await this.options.dataSource.transaction(async (manager): Promise<(() => void) | void> => {
      const claim = this.options.claim;
      const toClaim = claim ? batch.filter((p) => claim(p.data)) : batch;
      const unique = new Set<string>();
      for (const p of toClaim) unique.add(p.event.id);
      // The claim answers one row: null when every id was new (the usual case: no row, and no string, an event, held
      // until the batch commits), else the ids that were (docs/decisions/0194).
      let fresh = unique;
      if (unique.size > 0) {
        const [{ fresh: claimed }] = await manager.query<Array<{ fresh: string[] | null }>>(
          `WITH c AS (INSERT INTO ${quoteSchema(this.options.schema)}.processed_events AS ${statementAlias('processed_events', this.options.schema)} (consumer, event_id)
                      SELECT $1, id FROM unnest($2::uuid[]) AS t(id)
                      ON CONFLICT (consumer, event_id) DO NOTHING RETURNING event_id)
           SELECT CASE WHEN count(*) = $3 THEN NULL ELSE coalesce(array_agg(event_id), '{}') END AS fresh FROM c`,
          [this.options.consumer, pgArrayParameters([[...unique]])[0], unique.size],
        );
        if (claimed) fresh = new Set(claimed);
      }
      // a claimed event redelivered inside the same batch counts once (the first occurrence); an unclaimed one is
      // idempotent by itself and goes through as it came
      // the pending entries themselves are the items (no second object per event)
      const items: Array<BatchItem<T>> = [];
      for (const p of batch) {
        if ((claim && !claim(p.data)) || fresh.delete(p.event.id)) items.push(p);
      }
      if (items.length > 0) return this.options.apply(manager, items);
    });
    committed?.();
  }
}
