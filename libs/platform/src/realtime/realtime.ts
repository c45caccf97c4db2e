import type { RealtimeMessage } from '@switchboard/contracts';

export type RealtimeListener = (message: RealtimeMessage) => void;

/**
 * Browser-facing fan-out: services publish to `rt.<accountId>.<resource>...`; the gateway subscribes per account and
 * bridges to `/realtime` (SSE). In-memory in embedded mode, NATS in distributed mode. Never a source of truth.
 */
export abstract class RealtimeFanout {
  abstract publish(subject: string, message: Omit<RealtimeMessage, 'id' | 'subject' | 'at'>): Promise<void>;
  /** Subject patterns use NATS wildcards: `*` one token, `>` the rest. Returns an unsubscribe function. */
  abstract subscribe(pattern: string, listener: RealtimeListener): Promise<() => Promise<void>>;
  abstract close(): Promise<void>;
}
