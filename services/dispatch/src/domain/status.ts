import { MessageStatus, OutgoingStatus, type MessageStatusValue } from '@switchboard/contracts';

/**
 * Forward-only message lifecycle: accepted < sent < one final status. Receipts arrive twice, late, or before the
 * submit response; comparing ranks makes every such arrival either a step forward or a no-op.
 */
const RANK: Record<MessageStatusValue, number> = {
  [MessageStatus.Accepted]: 0,
  [MessageStatus.Sent]: 1,
  [MessageStatus.Delivered]: 2,
  [MessageStatus.Undelivered]: 2,
  [MessageStatus.SentFailed]: 2,
  [MessageStatus.NoRoutes]: 2,
  [MessageStatus.Rejected]: 2,
};

export const FINAL_STATUSES: readonly MessageStatusValue[] = [
  MessageStatus.Delivered,
  MessageStatus.Undelivered,
  MessageStatus.SentFailed,
  MessageStatus.NoRoutes,
  MessageStatus.Rejected,
];

export function isFinal(status: MessageStatusValue): boolean {
  return RANK[status] === 2;
}

/** True when moving from `from` to `to` is a step forward (never from a final status, never sideways). */
export function canAdvance(from: MessageStatusValue, to: MessageStatusValue): boolean {
  return RANK[to] > RANK[from];
}

/** The inbox's outgoing status: read beats delivered beats sent; failures are terminal. */
const OUTGOING_RANK: Record<string, number> = {
  [OutgoingStatus.Sending]: 0,
  [OutgoingStatus.Sent]: 1,
  [OutgoingStatus.Delivered]: 2,
  [OutgoingStatus.Read]: 3,
  [OutgoingStatus.Undelivered]: 4,
  [OutgoingStatus.Failed]: 4,
  [OutgoingStatus.FailedNotAuth]: 4,
};

export function canAdvanceOutgoing(from: string | null, to: string): boolean {
  if (from === null) return true;
  const a = OUTGOING_RANK[from] ?? -1;
  const b = OUTGOING_RANK[to] ?? -1;
  // a failure after delivery is a late contradictory report: the delivery stands
  if (b === 4) return a < 2;
  return b > a && a !== 4;
}
