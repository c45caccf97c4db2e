/** A small per-process cache with a time to live and a size bound (oldest entry out first). TTL 0 caches nothing. */
export class TtlCache<K, V> {
  private readonly map = new Map<K, { value: V; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly max = 50_000,
  ) {}

  get(key: K): V | undefined {
    const e = this.map.get(key);
    if (!e) return undefined;
    if (e.until <= Date.now()) {
      this.map.delete(key);
      return undefined;
    }
    return e.value;
  }

  set(key: K, value: V): void {
    if (this.ttlMs <= 0) return;
    if (this.map.size >= this.max) {
      const first = this.map.keys().next();
      if (!first.done) this.map.delete(first.value);
    }
    this.map.set(key, { value, until: Date.now() + this.ttlMs });
  }

  delete(key: K): void {
    this.map.delete(key);
  }

  deleteWhere(test: (value: V, key: K) => boolean): void {
    for (const [k, e] of this.map) if (test(e.value, k)) this.map.delete(k);
  }

  clear(): void {
    this.map.clear();
  }
}
