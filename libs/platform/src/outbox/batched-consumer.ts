import type { EventEnvelope } from '@switchboard/contracts';
import type { DataSource, EntityManager } from 'typeorm';
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
   * Transactions in flight at once (default 1), for a consumer whose `apply` waits on the database long enough for node
   * to prepare another batch meanwhile (docs/decisions/0153). Needs `key`: batches in flight never share a key, so one
   * key's events are never applied by two transactions at once (a batch with a key of one in flight waits for it), and
   * a batch holding an event without a key runs alone. A queue that one batch would take whole, of at least
   * `2 * splitAt` events, is cut into two batches at a key's boundary, run at once. `apply` must lock the rows its
   * batches share (rollup rows) in one fixed order, as it must for replicas anyway.
   */
  transactions?: number;
  /** With `transactions` > 1, the smallest batch a queue is cut into (default 500). */
  splitAt?: number;
  /**
   * With `transactions` > 1: what a key's effects share rows by (a message's account and stream: its rollup rows). A
   * queue cut in two is ordered by it first (each key's events by the first's), and cut where it changes when such a
   * place lies between a quarter and three quarters of the queue, so the two batches lock fewer rows in common (one
   * waits for the other's locks on those and writes them again).
   */
  affinity?: (data: T) => string | null;
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
  private readonly transactions: number;
  private readonly splitAt: number;
  /** The keys of the batches in flight (with `transactions` > 1). */
  private readonly busyKeys = new Set<string>();
  /** The batches in flight, each settling (never rejecting) when its events were resolved or rejected. */
  private readonly inFlight = new Set<Promise<void>>();
  /** Whether the batch in flight holds an event without a key (it runs alone). */
  private alone = false;

  constructor(private readonly options: BatchedConsumerOptions<T>) {
    this.maxBatch = Math.max(1, options.maxBatch ?? 1000);
    this.transactions = options.key ? Math.max(1, options.transactions ?? 1) : 1;
    this.splitAt = Math.max(1, options.splitAt ?? 500);
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
    if (this.flushing || this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    // the calls of one delivered chunk arrive in the same turn: wait for the turn to end and take them together
    setImmediate(() => {
      this.scheduled = false;
      if (this.transactions > 1) this.startBatches();
      else void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.queue.length > 0) await this.settle(this.take(this.maxBatch));
    } finally {
      this.flushing = false;
      this.schedule();
    }
  }

  /**
   * With `transactions` > 1 (docs/decisions/0153): starts batches until `transactions` are in flight, no key in two of
   * them, so node builds one batch while the database runs another's statements. A batch whose keys meet one in
   * flight, or that holds an event without a key while another runs, waits for the batches in flight to settle (and a
   * batch holding an event without a key runs alone). Each event's caller is settled by its own batch, in whatever
   * order the batches commit; one key's events keep their order, as they never run in two batches at once. Called a
   * turn after events arrive and when a batch settles (schedule), so a chunk delivered in one turn is taken whole.
   */
  private startBatches(): void {
    while (this.queue.length > 0 && this.inFlight.size < this.transactions && !this.alone) {
      // a queue one batch would take whole is cut in two when nothing runs: the halves run at once
      const len = this.queue.length;
      // (the cut first: it may replace the queue by its grouped order)
      const cut = this.inFlight.size === 0 && len <= this.maxBatch && len >= 2 * this.splitAt ? this.halfAt() : this.cutAt(this.maxBatch);
      let keyless = false;
      let busy = false;
      for (let i = 0; i < cut; i++) {
        const k = this.keyOf(this.queue[i]);
        if (k === null) keyless = true;
        else if (this.busyKeys.has(k)) busy = true;
      }
      if (this.inFlight.size > 0 && (busy || keyless)) return;
      const batch = this.queue.splice(0, cut);
      const keys: string[] = [];
      for (const p of batch) {
        const k = p.key as string | null;
        if (k !== null && !this.busyKeys.has(k)) {
          this.busyKeys.add(k);
          keys.push(k);
        }
      }
      this.alone = keyless;
      const running: Promise<void> = this.settle(batch).finally(() => {
        for (const k of keys) this.busyKeys.delete(k);
        this.inFlight.delete(running);
        if (keyless) this.alone = false;
        this.schedule();
      });
      this.inFlight.add(running);
    }
  }

  /**
   * Where a queue one batch would take whole is cut in two: at a key's boundary, by `affinity` where it changes near
   * the middle (the queue ordered by it first), else at the middle's key boundary.
   */
  private halfAt(): number {
    const keyOf = this.options.key as (data: T) => string | null;
    const affinity = this.options.affinity;
    const len = this.queue.length;
    if (!this.grouped) {
      this.queue = groupByKey(this.queue, keyOf);
      this.grouped = true;
      if (affinity) {
        // each key's events take the affinity of its first; a queue with an event without a key keeps its order (that
        // batch runs alone anyway)
        const runs: Array<{ a: string; from: number; to: number }> = [];
        let keyless = false;
        for (let i = 0; i < len && !keyless; ) {
          const k = this.queue[i].key;
          if (k === null || k === undefined) keyless = true;
          let j = i + 1;
          while (j < len && this.queue[j].key === k) j++;
          runs.push({ a: affinity(this.queue[i].data) ?? '', from: i, to: j });
          i = j;
        }
        if (!keyless) {
          runs.sort((x, y) => (x.a < y.a ? -1 : x.a > y.a ? 1 : x.from - y.from));
          const ordered = new Array<Pending<T>>(len);
          let o = 0;
          for (const r of runs) for (let i = r.from; i < r.to; i++) ordered[o++] = this.queue[i];
          this.queue = ordered;
          let best = -1;
          let prev = '';
          let at = 0;
          for (const r of runs) {
            if (at > 0 && r.a !== prev && Math.abs(at - len / 2) < Math.abs(best - len / 2) && at >= len / 4 && at <= (3 * len) / 4) best = at;
            prev = r.a;
            at += r.to - r.from;
          }
          if (best > 0) return best;
        }
      }
    }
    // the key boundary nearest the middle (none: one key, not cut)
    const mid = Math.ceil(len / 2);
    const k = this.queue[mid].key;
    if (k === null || k === undefined) return mid;
    let back = mid;
    while (back > 0 && this.queue[back - 1].key === k) back--;
    let fwd = mid;
    while (fwd < len && this.queue[fwd].key === k) fwd++;
    return back > 0 && mid - back <= fwd - mid ? back : fwd;
  }

  /** An entry's key, computed once and kept on it. */
  private keyOf(p: Pending<T>): string | null {
    if (p.key === undefined) p.key = this.options.key ? this.options.key(p.data) : null;
    return p.key;
  }

  /** Runs a batch and settles its events' callers; never rejects. */
  private async settle(batch: Array<Pending<T>>): Promise<void> {
    try {
      await this.run(batch);
      batch.forEach((p) => p.resolve());
    } catch (error) {
      // an outage fails every event alike: the whole batch goes back to its callers (the bus retries their chunk
      // once the database is back) instead of a transaction per event, each waiting on the outage in turn
      if (batch.length === 1 || isInfrastructureError(error)) {
        batch.forEach((p) => p.reject(error));
        return;
      }
      for (const p of batch) {
        await this.run([p]).then(p.resolve, p.reject);
      }
    }
  }

  /** The next batch: at most `size` events from the queue's head, with the key option a key's events not split. */
  private take(size: number): Array<Pending<T>> {
    // the cut first: cutAt may replace the queue by its grouped order
    const cut = this.cutAt(size);
    return this.queue.splice(0, cut);
  }

  /** Where the next batch of at most `size` events ends (the queue grouped by key first when it is cut). */
  private cutAt(size: number): number {
    const keyOf = this.options.key;
    if (!keyOf || this.queue.length <= size) return Math.min(size, this.queue.length);
    if (!this.grouped) {
      this.queue = groupByKey(this.queue, keyOf);
      this.grouped = true;
    }
    let cut = size;
    const k = this.queue[cut].key;
    if (k !== null && k !== undefined) {
      while (cut > 0 && this.queue[cut - 1].key === k) cut--;
      // one key with more events than a batch takes: split
      if (cut === 0) cut = size;
    }
    return cut;
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
