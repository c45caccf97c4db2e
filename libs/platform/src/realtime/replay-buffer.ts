import { SELF_REPLAYED_REALTIME_TOPICS, type RealtimeMessage } from '@switchboard/contracts';
import { parseEventId } from './event-id';
import type { ReplayResult } from './realtime';
import { parseRealtimeSubject, subjectMatches } from './subjects';

export interface ReplayBufferOptions {
  /** Messages kept per account, newest win. Default 1000. */
  perAccount?: number;
  /** Accounts kept; the one written least recently is forgotten first. Default 10 000. */
  maxAccounts?: number;
  now?: () => number;
  /** Topics not kept (their publishers keep a log of their own). Default SELF_REPLAYED_REALTIME_TOPICS (the inbox's rooms). */
  skipTopics?: readonly string[];
}

interface Entry {
  message: RealtimeMessage;
  /** Publish time, from the id (the publisher's clock). */
  ms: number;
  /** Arrival here (this process's clock). */
  arrived: number;
}

interface AccountLog {
  entries: Entry[];
  /** Time of the newest message this log lost to its size bound: history before it is incomplete. */
  evictedMs: number;
}

/**
 * The last messages of each account, so a client that reconnects with `lastEventId` gets what it missed. It is a
 * cache of a fan-out, not a log: it starts empty, holds a bounded amount, and says when it cannot answer fully.
 */
export class ReplayBuffer {
  private readonly perAccount: number;
  private readonly maxAccounts: number;
  private readonly now: () => number;
  private readonly accounts = new Map<string, AccountLog>();
  private readonly skip: ReadonlySet<string>;
  /** When this buffer started listening: older history is unknown. */
  private readonly startedMs: number;
  /** Last time delivery may have skipped messages (a broker outage); 0 if never. */
  private gapMs = 0;
  /** Newest message of any account log forgotten to the account bound. */
  private forgottenMs = 0;

  constructor(options: ReplayBufferOptions = {}) {
    this.perAccount = options.perAccount ?? 1000;
    this.maxAccounts = options.maxAccounts ?? 10_000;
    this.now = options.now ?? Date.now;
    this.startedMs = this.now();
    this.skip = new Set(options.skipTopics ?? SELF_REPLAYED_REALTIME_TOPICS);
  }

  add(message: RealtimeMessage): void {
    // a topic with its own log (the inbox's websocket rooms) is never asked of this buffer: keeping it would only
    // push the account's SSE history out (the message's topic is checked against its subject when published)
    if (this.skip.has(message.topic)) return;
    const parsed = parseRealtimeSubject(message.subject);
    if (!parsed || this.skip.has(parsed.topic)) return;
    let log = this.accounts.get(parsed.accountId);
    if (log) {
      // Re-insert so Map order is least-recently-written first.
      this.accounts.delete(parsed.accountId);
    } else {
      log = { entries: [], evictedMs: this.forgottenMs };
    }
    this.accounts.set(parsed.accountId, log);
    log.entries.push({ message, ms: timeOf(message), arrived: this.now() });
    if (log.entries.length > this.perAccount) {
      const evicted = log.entries.shift() as Entry;
      log.evictedMs = Math.max(log.evictedMs, evicted.ms);
    }
    if (this.accounts.size > this.maxAccounts) {
      const [oldestId, oldest] = this.accounts.entries().next().value as [string, AccountLog];
      this.accounts.delete(oldestId);
      const newest = oldest.entries[oldest.entries.length - 1];
      this.forgottenMs = Math.max(this.forgottenMs, newest?.ms ?? 0, oldest.evictedMs);
    }
  }

  /** Delivery may have skipped messages until now (e.g. a broker reconnect): older ids replay as incomplete. */
  markGap(): void {
    this.gapMs = Math.max(this.gapMs, this.now());
  }

  replay(accountId: string, lastEventId: string, patterns: readonly string[]): ReplayResult {
    const log = this.accounts.get(accountId);
    const entries = log?.entries ?? [];
    const wanted = (e: Entry) => patterns.some((p) => subjectMatches(p, e.message.subject));
    const index = entries.findIndex((e) => e.message.id === lastEventId);
    if (index >= 0) {
      // Held: everything after it is still here (the log is FIFO), unless the fan-out itself had a gap since.
      const after = entries.slice(index + 1).filter(wanted);
      return { messages: after.map((e) => e.message), complete: entries[index].arrived >= this.gapMs };
    }
    const last = parseEventId(lastEventId);
    if (!last) return { messages: [], complete: false };
    // Not held (evicted, from before a restart, or never seen here): answer by time. Messages of the same
    // millisecond are included, so a client may see one twice rather than miss one.
    const evictedMs = Math.max(log?.evictedMs ?? 0, this.forgottenMs);
    const complete = last.ms >= Math.max(this.startedMs, this.gapMs) && last.ms > evictedMs;
    return { messages: entries.filter((e) => e.ms >= last.ms && wanted(e)).map((e) => e.message), complete };
  }

  /** For tests and metrics. */
  stats(): { accounts: number; messages: number } {
    let n = 0;
    this.accounts.forEach((l) => (n += l.entries.length));
    return { accounts: this.accounts.size, messages: n };
  }
}

function timeOf(m: RealtimeMessage): number {
  return parseEventId(m.id)?.ms ?? Date.parse(m.at);
}
