/**
 * Records every error a consumer's `handle` throws (the bus retries those) until `restore()`: an outage test cuts the
 * database, waits for a few failed tries with `atLeast(n)`, then checks they were all infrastructure errors.
 */
export function recordHandleFailures<E, R>(target: { handle: (event: E) => Promise<R> }): {
  failures: unknown[];
  atLeast: (n: number, timeoutMs?: number) => Promise<void>;
  restore: () => void;
} {
  const failures: unknown[] = [];
  const handle = target.handle.bind(target);
  target.handle = async (event: E) => {
    try {
      return await handle(event);
    } catch (err) {
      failures.push(err);
      throw err;
    }
  };
  return {
    failures,
    atLeast: async (n, timeoutMs = 10_000) => {
      const end = Date.now() + timeoutMs;
      while (failures.length < n && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    },
    restore: () => {
      target.handle = handle;
    },
  };
}
