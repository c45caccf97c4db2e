import type { RealtimeMessage } from '@switchboard/contracts';
import { EventIdGenerator } from './event-id';
import { RealtimeFanout, type RealtimeListener, type ReplayResult } from './realtime';
import { ReplayBuffer, type ReplayBufferOptions } from './replay-buffer';
import { SubjectRouter } from './subject-router';
import { assertMessageMatchesSubject, assertPattern } from './subjects';

export interface InMemoryRealtimeOptions {
  /** Replay buffer bounds (default: the last 1000 messages of each account). */
  replay?: ReplayBufferOptions;
}

/**
 * Embedded-mode realtime: one process, no broker. NATS subject semantics, ids `<ms>-<seq>`, asynchronous delivery
 * in publish order per subscriber, and a bounded per-account buffer for `lastEventId` replay.
 */
export class InMemoryRealtime extends RealtimeFanout {
  private readonly router = new SubjectRouter();
  private readonly buffer: ReplayBuffer;
  private readonly ids = new EventIdGenerator();
  private closed = false;

  constructor(options: InMemoryRealtimeOptions = {}) {
    super();
    this.buffer = new ReplayBuffer(options.replay);
  }

  async publish(subject: string, message: Omit<RealtimeMessage, 'id' | 'subject' | 'at'>): Promise<void> {
    assertMessageMatchesSubject(subject, message);
    // Fan-out is best effort: a publish racing the shutdown is dropped rather than failing the caller's work.
    if (this.closed) return;
    const { id, ms } = this.ids.next();
    const full: RealtimeMessage = { ...message, id, subject, at: new Date(ms).toISOString() };
    this.buffer.add(full);
    this.router.dispatch(full);
  }

  async subscribe(pattern: string, listener: RealtimeListener): Promise<() => Promise<void>> {
    if (this.closed) throw new Error('realtime is closed');
    assertPattern(pattern);
    const remove = this.router.add(pattern, listener);
    return async () => remove();
  }

  override async replay(accountId: string, lastEventId: string, patterns: readonly string[]): Promise<ReplayResult> {
    return this.buffer.replay(accountId, lastEventId, patterns);
  }

  /** Live subscriptions, for tests that check clean-up. */
  get subscriptionCount(): number {
    return this.router.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.router.clear();
  }
}
