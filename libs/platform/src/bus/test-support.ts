import { randomUUID } from 'node:crypto';
import type { OutgoingEvent } from './event-bus';

// Helpers for the bus and outbox tests; not exported from the barrel.

/** Polls until `condition` holds. Waiting, not asserting: the jest timeout is the only deadline. */
export async function waitFor(condition: () => boolean | Promise<boolean>, intervalMs = 20): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, intervalMs));
}

/** A minimal valid event with a fresh id. */
export function testEvent(topic: string, key: string, data: Record<string, unknown> = {}): OutgoingEvent {
  return {
    id: randomUUID(),
    type: 'test.thing.happened',
    version: 1,
    occurredAt: new Date().toISOString(),
    source: 'test',
    accountId: null,
    traceId: null,
    key,
    data,
    topic,
  };
}

/** A logger that keeps quiet and remembers, for asserting on warnings without noise in the test output. */
export function silentLogger(): { log: (m: string) => void; warn: (m: string) => void; error: (m: string) => void; lines: string[] } {
  const lines: string[] = [];
  return { lines, log: (m) => lines.push(m), warn: (m) => lines.push(m), error: (m) => lines.push(m) };
}
