/**
 * The filter counts come from the server (the list's totals): after live events the store asks again, once per burst
 * (`delayMs` after the last event), and only the newest answer is applied. A page load's own totals supersede a
 * refresh still in flight.
 */
export class TotalsRefresher<T> {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private seq = 0;

  constructor(
    private readonly fetchTotals: () => Promise<T>,
    private readonly apply: (totals: T) => void,
    private readonly delayMs = 300,
  ) {}

  /** An event changed what the counts may be: refresh after the burst. */
  schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.run();
    }, this.delayMs);
  }

  /** Totals just came with a page: an older refresh in flight must not overwrite them. */
  supersede(): void {
    this.seq++;
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.seq++;
  }

  private async run(): Promise<void> {
    const mine = ++this.seq;
    try {
      const totals = await this.fetchTotals();
      if (mine === this.seq) this.apply(totals);
    } catch {
      // the next event or page load asks again
    }
  }
}
