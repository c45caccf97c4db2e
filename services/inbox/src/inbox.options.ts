import { Clock, SystemClock } from './clock';

export interface InboxModuleOptions {
  /** Run the inbox migrations at start (embedded mode, tests); distributed mode runs them first (compose, k8s). Default true. */
  migrationsRun?: boolean;
  /** The clock (tests freeze it for the WhatsApp 24-hour window). */
  clock?: Clock;
}

export interface ResolvedInboxOptions {
  migrationsRun: boolean;
}

export const INBOX_OPTIONS = Symbol('INBOX_OPTIONS');
export const INBOX_CONNECTION = 'inbox';
export const INBOX_SCHEMA = 'inbox';

export function resolveInboxOptions(o: InboxModuleOptions): ResolvedInboxOptions {
  return { migrationsRun: o.migrationsRun ?? true };
}

export function createClock(o: InboxModuleOptions): Clock {
  return o.clock ?? new SystemClock();
}
