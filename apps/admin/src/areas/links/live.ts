import type { RealtimeFrame } from '../contacts/types';

/** A domain's change as the `domains` topic of /realtime announces it (services/links: `domain.changed`, `domain.deleted`). */
export interface DomainChange {
  id: number;
  deleted: boolean;
  state: number | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * Spec 4 "Live connections": a domain message is checked against its schema (a whole-number id, a state 0 to 7) and
 * ignored when invalid, and accepted only for the current account. Pool and offer frames of the topic are not domain
 * changes.
 */
export function domainChange(frame: RealtimeFrame, accountId: string | number | undefined): DomainChange | null {
  if (frame.topic !== 'domains' || (frame.type !== 'domain.changed' && frame.type !== 'domain.deleted') || !isObject(frame.data)) return null;
  if (accountId === undefined || String(frame.accountId) !== String(accountId)) return null;
  const { id, state } = frame.data;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0) return null;
  if (state !== undefined && state !== null && (typeof state !== 'number' || !Number.isInteger(state) || state < 0 || state > 7)) return null;
  return { id, deleted: frame.type === 'domain.deleted', state: typeof state === 'number' ? state : null };
}
