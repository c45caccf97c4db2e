/**
 * Realtime subjects: `rt.<accountId>.<resource>[.<id>...]`. Browser-facing fan-out only; never a source of truth.
 * The gateway's `/realtime` endpoint maps spec topics (e.g. `campaigns`, `streams`) to subjects of the caller's account.
 */
export const realtimeSubject = (accountId: string | number, ...parts: Array<string | number>): string =>
  ['rt', String(accountId), ...parts.map(String)].join('.');

/**
 * The realtime topic of the inbox's websocket rooms (services/inbox publishes, the gateway's `/ws` bridges): not one
 * the SSE `/realtime` endpoint serves. Its events are numbered per room and replayed from the inbox's own room log.
 */
export const INBOX_WS_TOPIC = 'inboxws';

/**
 * Topics that keep a log of their own: the drivers' `lastEventId` replay buffer does not hold their messages (SSE
 * never replays them, and at an inbox's rate they would push an account's SSE history out of its bounded buffer).
 */
export const SELF_REPLAYED_REALTIME_TOPICS: readonly string[] = [INBOX_WS_TOPIC];

export interface RealtimeMessage<T = unknown> {
  /** Monotonic per process, usable as SSE `id` and `lastEventId`. */
  id: string;
  subject: string;
  accountId: string;
  topic: string;
  type: string;
  data: T;
  at: string;
}
