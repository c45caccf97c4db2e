/**
 * Joins the calls made while a write is in flight (and those of the same turn) into one write of them all: for
 * idempotent consumer effects (an `INSERT ... ON CONFLICT DO NOTHING` copy of an event) that would otherwise cost a
 * round trip each. One write at a time; each call resolves when the write that carried it succeeded, and rejects
 * with its error otherwise (the bus then retries that event, which joins a later write).
 *
 * `lingerMs` (default 0: none): a write does not start before its oldest call has waited that long, unless `maxBatch`
 * calls are waiting, so calls arriving at a steady rate are written `rate x max(lingerMs, write time)` at a time rather than one
 * or two a write when writes are quick (docs/decisions/0139). Each call waits at most `lingerMs` more than without it.
 */
export class BatchedWriter<T> {
  private queue: Array<{ item: T; at: number; resolve: () => void; reject: (e: unknown) => void }> = [];
  private busy = false;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly maxBatch = 1000,
    private readonly lingerMs = 0,
  ) {}

  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ item, at: this.lingerMs > 0 ? performance.now() : 0, resolve, reject });
      if (this.busy) return;
      if (this.lingerMs > 0 && this.queue.length === this.maxBatch) setImmediate(() => void this.flush());
      else if (this.queue.length === 1) {
        if (this.lingerMs > 0) setTimeout(() => void this.flush(), this.lingerMs);
        else setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      while (this.queue.length > 0) {
        if (this.lingerMs > 0 && this.queue.length < this.maxBatch) {
          const wait = this.queue[0].at + this.lingerMs - performance.now();
          if (wait >= 1) await new Promise((r) => setTimeout(r, wait));
        }
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          await this.write(batch.map((b) => b.item));
          batch.forEach((b) => b.resolve());
        } catch (error) {
          batch.forEach((b) => b.reject(error));
        }
      }
    } finally {
      this.busy = false;
    }
  }
}
