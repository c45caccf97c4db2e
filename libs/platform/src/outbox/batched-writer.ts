/**
 * Joins the calls made while a write is in flight (and those of the same turn) into one write of them all: for
 * idempotent consumer effects (an `INSERT ... ON CONFLICT DO NOTHING` copy of an event) that would otherwise cost a
 * round trip each. One write at a time; each call resolves when the write that carried it succeeded, and rejects
 * with its error otherwise (the bus then retries that event, which joins a later write).
 */
export class BatchedWriter<T> {
  private queue: Array<{ item: T; resolve: () => void; reject: (e: unknown) => void }> = [];
  private busy = false;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly maxBatch = 1000,
  ) {}

  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.queue.length === 1 && !this.busy) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      while (this.queue.length > 0) {
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
