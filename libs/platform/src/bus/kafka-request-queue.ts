/**
 * kafkajs 2.2.4's request queue (one per broker connection) re-arms a `setTimeout` of `throttledUntil - now` after every
 * check, even with nothing pending and no throttle: the delay is negative, Node runs it after 1 ms, and the check arms
 * it again. Every connection of every consumer and producer so spins a timer a thousand times a second while idle
 * (tulios/kafkajs#1556, fix proposed in #1667, unreleased). In this platform one process holds dozens of consumer
 * groups: the idle spin was a third of a core in the campaign bench (docs/decisions/0073).
 *
 * The patch keeps kafkajs' own schedule whenever there is something to wait for (a pending request: after the throttle,
 * or every 10 ms while the in-flight limit is reached; a throttle still running) and arms nothing otherwise. Nothing is
 * lost by not arming: a request that cannot go at once is queued by `push`, which schedules a check itself, and every
 * answered or timed-out request checks the queue again.
 */
interface KafkaRequestQueue {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

/** kafkajs' interval between checks while requests are pending and no throttle is running (its CHECK_PENDING_REQUESTS_INTERVAL). */
const CHECK_PENDING_REQUESTS_INTERVAL = 10;
const PATCHED = Symbol.for('switchboard.kafkajs.requestQueue.idleTimer');

/** kafkajs' RequestQueue class (not exported by its index; its module is the class). */
export function kafkaRequestQueueClass(): new (options: Record<string, unknown>) => KafkaRequestQueue {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- kafkajs' internal module, no typings
  return require('kafkajs/src/network/requestQueue') as new (options: Record<string, unknown>) => KafkaRequestQueue;
}

/** Idempotent: patches kafkajs' RequestQueue once per process. */
export function patchKafkaRequestQueueIdleTimer(): void {
  const proto = kafkaRequestQueueClass().prototype as KafkaRequestQueue & { [PATCHED]?: boolean };
  if (proto[PATCHED]) return;
  proto[PATCHED] = true;
  proto.scheduleCheckPendingRequests = function (this: KafkaRequestQueue): void {
    if (this.throttleCheckTimeoutId) return;
    const untilUnthrottled = this.throttledUntil - Date.now();
    // Nothing pending and no throttle to outlast: nothing to check until push() or an answer asks again.
    if (this.pending.length === 0 && untilUnthrottled <= 0) return;
    const scheduleAt = untilUnthrottled > 0 ? untilUnthrottled : CHECK_PENDING_REQUESTS_INTERVAL;
    this.throttleCheckTimeoutId = setTimeout(() => {
      this.throttleCheckTimeoutId = null;
      this.checkPendingRequests();
    }, scheduleAt);
  };
}
