import type { EventEnvelope } from '@switchboard/contracts';
import type { PoolClient } from 'pg';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { isInfrastructureError } from '../bus/failures';
import { quoteSchema } from './sql';

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
   * One connection for the batches, and the next batch's transaction (BEGIN and the claim) sent behind the previous
   * batch's COMMIT without waiting for its answer (node-postgres queues a connection's statements and sends the next
   * as soon as the previous one answered), so PostgreSQL goes from one batch to the next without waiting for node
   * (docs/decisions/0166). Still one transaction at a time in PostgreSQL, and each batch's events are resolved only
   * after its own COMMIT answered. A batch commits only after every batch before it committed: when a COMMIT fails,
   * the batch behind it is rolled back, and given back to the queue behind the failed batch's event-by-event retries
   * (or, for an outage, rejected with it: the bus retries both). For a handler fed more than a batch at a time (the
   * bus's `chunkAhead`).
   */
  pipeline?: boolean;
}

/** A batch whose COMMIT was sent (pipeline): its answer settles the batch's events. */
interface Committing<T> {
  batch: Array<Pending<T>>;
  commit: Promise<unknown>;
  after: (() => void) | void;
  runner: QueryRunner;
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

/**
 * IdempotentConsumer for many events at once: the handler calls of a subscription with `concurrency` > 1 join a
 * batch, and one transaction records their `processed_events` rows (skipping those handled before) and applies
 * the effects of the rest; each call resolves when its batch committed. One batch at a time per consumer, so hot
 * rows (an account's balance) are not fought over by its own transactions. A batch that fails is retried one event
 * per transaction, so one bad event fails alone (and goes to its retries and dead letter) instead of its batch; a
 * batch that fails for an outage (isInfrastructureError) fails whole, at once, for the bus to retry.
 */
export class BatchedIdempotentConsumer<T> {
  private queue: Array<Pending<T>> = [];
  private flushing = false;
  private scheduled = false;
  /** Whether the queue is grouped by key since its last arrival. */
  private grouped = false;
  private readonly maxBatch: number;
  /** The pipeline's connection (held while batches run, released when the queue is empty). */
  private runner: QueryRunner | null = null;
  /** The pipeline waiting for events while a batch commits: called a turn after events arrived. */
  private wake: (() => void) | null = null;
  private wakeScheduled = false;

  constructor(private readonly options: BatchedConsumerOptions<T>) {
    this.maxBatch = Math.max(1, options.maxBatch ?? 1000);
  }

  /** Resolves once the event's effect committed, or at once for an event already handled. */
  handle(event: Pick<EventEnvelope, 'id'>, data: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      // `key` present from the start: groupByKey setting it later would give each entry a new shape and a property store
      this.queue.push({ event, data, resolve, reject, key: undefined });
      this.grouped = false;
      this.schedule();
    });
  }

  /**
   * Many events at once (a chunk a bus batch handler took): resolves once every one's effect committed, rejects with
   * the first failure. One pair of callbacks for all, not a promise per event.
   */
  handleMany(items: Array<BatchItem<T>>): Promise<void> {
    if (items.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      let left = items.length;
      let failure: { error: unknown } | null = null;
      const done = () => {
        if (--left > 0) return;
        if (failure) reject(failure.error);
        else resolve();
      };
      const fail = (error: unknown) => {
        failure ??= { error };
        done();
      };
      for (const item of items) this.queue.push({ event: item.event, data: item.data, resolve: done, reject: fail, key: undefined });
      this.grouped = false;
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.flushing && this.wake && !this.wakeScheduled && this.queue.length > 0) {
      // the pipeline waits on a COMMIT: let it take the events of this turn (a turn later, as below) and queue the next
      // batch's transaction behind the COMMIT
      this.wakeScheduled = true;
      setImmediate(() => {
        this.wakeScheduled = false;
        this.wake?.();
      });
    }
    if (this.flushing || this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    // the calls of one delivered chunk arrive in the same turn: wait for the turn to end and take them together
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    if (this.options.pipeline) {
      try {
        await this.flushPipelined();
      } finally {
        this.flushing = false;
        this.schedule();
      }
      return;
    }
    try {
      while (this.queue.length > 0) {
        const batch = this.take();
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
      this.flushing = false;
      this.schedule();
    }
  }

  /** The next batch: at most maxBatch events from the queue's head, with the key option a key's events not split. */
  private take(): Array<Pending<T>> {
    const keyOf = this.options.key;
    if (!keyOf || this.queue.length <= this.maxBatch) return this.queue.splice(0, this.maxBatch);
    if (!this.grouped) {
      this.queue = groupByKey(this.queue, keyOf);
      this.grouped = true;
    }
    let cut = this.maxBatch;
    const k = this.queue[cut].key;
    if (k !== null && k !== undefined) {
      while (cut > 0 && this.queue[cut - 1].key === k) cut--;
      // one key with more events than a batch takes: split
      if (cut === 0) cut = this.maxBatch;
    }
    return this.queue.splice(0, cut);
  }

  /**
   * The `pipeline` loop (docs/decisions/0166): each batch's BEGIN and claim are sent on the one connection right behind
   * the previous batch's COMMIT; the previous batch's events are settled when its COMMIT answers, before this batch's
   * statements go further. A failed batch (not an outage) is retried event by event, as in flush, before any later
   * batch commits.
   */
  private async flushPipelined(): Promise<void> {
    let committing: Committing<T> | null = null;
    try {
      for (;;) {
        if (this.queue.length === 0) {
          if (!committing) break;
          // wait for the COMMIT, or for events to send the next batch's transaction behind it
          const prev: Committing<T> = committing;
          let woken = false;
          await Promise.race([prev.commit.then(nothing, nothing), new Promise<void>((resolve) => (this.wake = () => ((woken = true), resolve())))]);
          this.wake = null;
          if (woken && this.queue.length > 0) continue;
          committing = null;
          await this.settleCommit(prev, null);
          continue;
        }
        const batch = this.take();
        let runner: QueryRunner;
        try {
          runner = await this.connection();
        } catch (error) {
          // no connection: an outage for this batch (the one committing, on its own connection, settles below)
          batch.forEach((p) => p.reject(error));
          continue;
        }
        const client = (runner as unknown as { databaseConnection: PoolClient }).databaseConnection;
        const ids = this.claimIds(batch);
        // sent now, run by PostgreSQL as soon as the previous batch's COMMIT is done
        const begun = client.query('BEGIN');
        const claimed = ids.length > 0 ? client.query<{ event_id: string }>(this.claimText(), [this.options.consumer, ids]) : null;
        begun.catch(nothing);
        claimed?.catch(nothing);
        if (committing) {
          const prev: Committing<T> = committing;
          committing = null;
          const failure = await this.settleCommit(prev, batch);
          if (failure) {
            // this batch must not commit ahead of the failed one: rolled back and given back (see settleCommit)
            await this.abandon(runner, failure.error);
            if (!failure.outage) this.requeue(batch);
            continue;
          }
        }
        try {
          await begun;
          const fresh = new Set(((claimed ? await claimed : null)?.rows ?? []).map((r) => r.event_id));
          const after = await this.applyFresh(runner.manager, batch, fresh);
          const commit = client.query('COMMIT');
          commit.catch(nothing);
          committing = { batch, commit, after, runner };
        } catch (error) {
          await this.abandon(runner, error);
          if (batch.length === 1 || isInfrastructureError(error)) batch.forEach((p) => p.reject(error));
          else for (const p of batch) await this.run([p]).then(p.resolve, p.reject);
        }
      }
    } finally {
      if (this.runner) {
        const runner = this.runner;
        this.runner = null;
        await runner.release().catch(nothing);
      }
    }
  }

  /**
   * Settles a batch whose COMMIT was sent: its events resolve once it answered. A failure: an outage rejects them
   * (and `next`, sent behind it, must fail with it); any other failure retries them event by event, each in its own
   * transaction, after `next` (if any) was rolled back by the caller. Answers the failure, if any.
   */
  private async settleCommit(c: Committing<T>, next: Array<Pending<T>> | null): Promise<{ error: unknown; outage: boolean } | null> {
    try {
      await c.commit;
    } catch (error) {
      const outage = isInfrastructureError(error);
      this.drop(c.runner, error);
      if (outage || c.batch.length === 1) c.batch.forEach((p) => p.reject(error));
      else {
        // the batch behind it is given back first (the caller requeues it after these retries have run): a later batch
        // never commits ahead of an earlier one's events
        const retry = c.batch;
        if (next) {
          this.pendingRetries = retry;
          return { error, outage };
        }
        for (const p of retry) await this.run([p]).then(p.resolve, p.reject);
      }
      if (outage && next) next.forEach((p) => p.reject(error));
      return { error, outage };
    }
    c.batch.forEach((p) => p.resolve());
    c.after?.();
    return null;
  }

  /** The failed batch whose events are retried one at a time once the batch sent behind it was rolled back. */
  private pendingRetries: Array<Pending<T>> | null = null;

  /** Rolls back a batch's transaction on the pipeline's connection (dropping the connection if that fails too). */
  private async abandon(runner: QueryRunner, error: unknown): Promise<void> {
    if (this.runner === runner) {
      const client = (runner as unknown as { databaseConnection: PoolClient }).databaseConnection;
      try {
        await client.query('ROLLBACK');
      } catch {
        this.drop(runner, error);
      }
    }
    const retry = this.pendingRetries;
    this.pendingRetries = null;
    if (retry) for (const p of retry) await this.run([p]).then(p.resolve, p.reject);
  }

  /** A batch given back to the head of the queue (its events keep their places before the ones that came later). */
  private requeue(batch: Array<Pending<T>>): void {
    this.queue = batch.concat(this.queue);
    this.grouped = false;
  }

  /** The pipeline's connection, taken from the pool when there is none. */
  private async connection(): Promise<QueryRunner> {
    if (this.runner) return this.runner;
    const runner = this.options.dataSource.createQueryRunner();
    await runner.connect();
    this.runner = runner;
    return runner;
  }

  /** Gives up the pipeline's connection after a failure: destroyed, not pooled again (it may be broken or mid-transaction). */
  private drop(runner: QueryRunner, error: unknown): void {
    if (this.runner === runner) this.runner = null;
    const r = runner as unknown as { releasePostgresConnection?: (e: unknown) => Promise<void>; isReleased: boolean };
    if (r.isReleased) return;
    if (r.releasePostgresConnection) void r.releasePostgresConnection(error instanceof Error ? error : new Error(String(error))).catch(nothing);
    else void runner.release().catch(nothing);
  }

  private claimIds(batch: Array<Pending<T>>): string[] {
    const claim = this.options.claim;
    const toClaim = claim ? batch.filter((p) => claim(p.data)) : batch;
    return [...new Set(toClaim.map((p) => p.event.id))];
  }

  private claimText(): string {
    return `INSERT INTO ${quoteSchema(this.options.schema)}.processed_events (consumer, event_id)
             SELECT $1, id FROM unnest($2::uuid[]) AS t(id)
             ON CONFLICT (consumer, event_id) DO NOTHING RETURNING event_id`;
  }

  /** Hands `apply` the batch's events that are not claimed repeats (see run). */
  private applyFresh(manager: EntityManager, batch: Array<Pending<T>>, fresh: Set<string>): Promise<(() => void) | void> {
    const claim = this.options.claim;
    const items: Array<BatchItem<T>> = [];
    for (const p of batch) {
      if ((claim && !claim(p.data)) || fresh.delete(p.event.id)) items.push(p);
    }
    return items.length > 0 ? this.options.apply(manager, items) : Promise.resolve();
  }

  private async run(batch: Array<Pending<T>>): Promise<void> {
    const committed = await this.options.dataSource.transaction(async (manager): Promise<(() => void) | void> => {
      const claim = this.options.claim;
      const toClaim = claim ? batch.filter((p) => claim(p.data)) : batch;
      const ids = [...new Set(toClaim.map((p) => p.event.id))];
      const claimed = ids.length
        ? await manager.query<Array<{ event_id: string }>>(
            `INSERT INTO ${quoteSchema(this.options.schema)}.processed_events (consumer, event_id)
             SELECT $1, id FROM unnest($2::uuid[]) AS t(id)
             ON CONFLICT (consumer, event_id) DO NOTHING RETURNING event_id`,
            [this.options.consumer, ids],
          )
        : [];
      const fresh = new Set(claimed.map((r) => r.event_id));
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

function nothing(): void {
  // a promise's failure handled where it is awaited
}
