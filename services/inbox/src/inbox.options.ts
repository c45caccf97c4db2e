import { Clock, SystemClock } from './clock';

export interface InboxModuleOptions {
  /** Run the inbox migrations at start (embedded mode, tests); distributed mode runs them first (compose, k8s). Default true. */
  migrationsRun?: boolean;
  /** How long a send request waits for streams' answer (OK or SENT_FAILED) before answering OK with `sending`. Default 5000 ms. */
  sendWaitMs?: number;
  /** The clock (tests freeze it for the WhatsApp 24-hour window). */
  clock?: Clock;
}

export interface ResolvedInboxOptions {
  migrationsRun: boolean;
  sendWaitMs: number;
}

export const INBOX_OPTIONS = Symbol('INBOX_OPTIONS');
export const INBOX_CONNECTION = 'inbox';
export const INBOX_SCHEMA = 'inbox';

export function resolveInboxOptions(o: InboxModuleOptions): ResolvedInboxOptions {
  const sendWaitMs = o.sendWaitMs ?? 5000;
  if (!Number.isInteger(sendWaitMs) || sendWaitMs < 0) throw new Error(`InboxModule: sendWaitMs must be a non-negative integer (got ${String(o.sendWaitMs)})`);
  return { migrationsRun: o.migrationsRun ?? true, sendWaitMs };
}

export function createClock(o: InboxModuleOptions): Clock {
  return o.clock ?? new SystemClock();
}
