import { InMemoryEventBus } from '@switchboard/platform';
import type { TestApp } from '@switchboard/platform/testing';
import { DispatchOutboxRelay } from '@switchboard/dispatch';
import { StreamsOutboxRelay } from '@switchboard/streams';

type Probe<T> = () => Promise<T | undefined | null | false> | T | undefined | null | false;

/**
 * For a test app with streams and dispatch: `settle` publishes what both outboxes hold and lets the in-process bus
 * deliver it; `until` settles and asks `probe` again until it answers something, or fails naming `what`.
 * `app` is read at each call (the app is made in beforeAll).
 */
export function streamsAndDispatchSettling(app: () => TestApp, { pollMs = 25, timeoutMs = 30_000 } = {}): {
  settle: () => Promise<void>;
  until: <T>(probe: Probe<T>, what: string, ms?: number) => Promise<T>;
} {
  const settle = async (): Promise<void> => {
    const t = app();
    await t.app.get(StreamsOutboxRelay).relay.flush();
    await t.app.get(DispatchOutboxRelay).relay.flush();
    if (t.bus instanceof InMemoryEventBus) await t.bus.drain();
  };
  const until = async <T>(probe: Probe<T>, what: string, ms = timeoutMs): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      await settle().catch(() => undefined);
      const v = await probe();
      if (v) return v;
      if (Date.now() > end) throw new Error(`not reached: ${what}`);
      await new Promise((r) => setTimeout(r, pollMs));
    }
  };
  return { settle, until };
}
