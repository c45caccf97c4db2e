import type { RealtimeMessage } from '@switchboard/contracts';

export type RealtimeListener = (message: RealtimeMessage) => void;

/** What a subscriber reconnecting with `lastEventId` missed, as far as the driver's bounded buffer knows. */
export interface ReplayResult {
  /** Missed messages matching the requested patterns, oldest first. */
  messages: RealtimeMessage[];
  /**
   * `false` when some messages may be missing (the buffer no longer reaches back to `lastEventId`, the id is
   * unknown, or the driver lost its broker connection since): the client should refetch what it shows.
   */
  complete: boolean;
}

/**
 * Browser-facing fan-out: services publish to `rt.<accountId>.<resource>...`; the gateway subscribes per account and
 * bridges to `/realtime` (SSE). In-memory in embedded mode, NATS in distributed mode. Never a source of truth.
 */
export abstract class RealtimeFanout {
  abstract publish(subject: string, message: Omit<RealtimeMessage, 'id' | 'subject' | 'at'>): Promise<void>;
  /** Subject patterns use NATS wildcards: `*` one token, `>` the rest. Returns an unsubscribe function. */
  abstract subscribe(pattern: string, listener: RealtimeListener): Promise<() => Promise<void>>;
  abstract close(): Promise<void>;

  /**
   * Messages of one account published after `lastEventId` that match any of `patterns` (each pattern must lie
   * inside `rt.<accountId>.`). Drivers without a buffer replay nothing and report the history as incomplete.
   */
  async replay(_accountId: string, _lastEventId: string, _patterns: readonly string[]): Promise<ReplayResult> {
    return { messages: [], complete: false };
  }

  /**
   * Called when live delivery may have skipped messages (e.g. the broker connection was lost and restored), so
   * connected clients can be told to refetch. Returns a function that removes the listener.
   */
  onGap(_listener: () => void): () => void {
    return () => undefined;
  }
}
