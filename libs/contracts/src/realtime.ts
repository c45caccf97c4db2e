/**
 * Realtime subjects: `rt.<accountId>.<resource>[.<id>...]`. Browser-facing fan-out only; never a source of truth.
 * The gateway's `/realtime` endpoint maps spec topics (e.g. `campaigns`, `streams`) to subjects of the caller's account.
 */
export const realtimeSubject = (accountId: string | number, ...parts: Array<string | number>): string =>
  ['rt', String(accountId), ...parts.map(String)].join('.');

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
