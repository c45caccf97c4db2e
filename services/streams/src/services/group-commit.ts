export interface GroupCommitOptions {
  /** Most items in one batch. */
  maxBatch: number;
  /** Batches written at the same time. */
  maxInFlight: number;
}

interface Waiting<I, R> {
  item: I;
  /** Items sharing a key are never written at the same time: the later one waits for the earlier one's batch. */
  keys: readonly string[];
  resolve: (r: R) => void;
  reject: (e: unknown) => void;
}

/**
 * Group commit: items submitted while a batch is being written (or within the same turn of the event loop) are
 * written together by the next one, so a thousand requests a second cost a few hundred statements and commits, not
 * a thousand. `write` answers every item of its batch, in order; if it throws, every item of the batch fails with it.
 * No timer: an item submitted to an idle queue is written on the next turn of the event loop.
 */
export class GroupCommit<I, R> {
  private readonly queue: Array<Waiting<I, R>> = [];
  /** Keys of the batches being written: an item holding one waits for that batch's outcome. */
  private readonly busy = new Set<string>();
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly write: (items: I[]) => Promise<R[]>,
    private readonly o: GroupCommitOptions,
  ) {}

  submit(item: I, keys: readonly string[] = []): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, keys, resolve, reject });
      this.schedule();
    });
  }

  /** Items waiting for a batch (not those being written). */
  get waiting(): number {
    return this.queue.length;
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.o.maxInFlight || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private take(): Array<Waiting<I, R>> {
    const batch: Array<Waiting<I, R>> = [];
    const rest: Array<Waiting<I, R>> = [];
    // Keys of items left waiting: a later item holding one waits too, so items sharing a key keep their order.
    const held = new Set<string>();
    for (const w of this.queue) {
      if (batch.length >= this.o.maxBatch || w.keys.some((k) => this.busy.has(k) || held.has(k))) {
        for (const k of w.keys) held.add(k);
        rest.push(w);
        continue;
      }
      for (const k of w.keys) this.busy.add(k);
      batch.push(w);
    }
    this.queue.length = 0;
    this.queue.push(...rest);
    return batch;
  }

  private async flush(): Promise<void> {
    if (this.inFlight >= this.o.maxInFlight) return;
    const batch = this.take();
    if (batch.length === 0) return;
    this.inFlight++;
    // the next batch may start gathering (and go) while this one is written
    this.schedule();
    try {
      const results = await this.write(batch.map((w) => w.item));
      if (results.length !== batch.length) throw new Error(`group commit: ${results.length} answers for ${batch.length} items`);
      for (let i = 0; i < batch.length; i++) batch[i].resolve(results[i]);
    } catch (e) {
      for (const w of batch) w.reject(e);
    } finally {
      for (const w of batch) for (const k of w.keys) this.busy.delete(k);
      this.inFlight--;
      this.schedule();
    }
  }
}
