import { DomainChangedV1, DomainState, type DnsRecordDto, type DomainDto, type DomainOptionDto, type DomainStateValue } from '@switchboard/contracts';
import type { UnitOfWorkEmit, UnitOfWorkNotify } from '@switchboard/platform';
import type { EntityManager } from 'typeorm';
import { DnsChecker } from '../dns/dns-checker';
import type { DnsTargets } from '../links.options';

export interface DomainRow {
  id: string;
  account_id: string;
  name: string;
  type: 'CNAME' | 'A';
  ip: string | null;
  state: DomainStateValue;
  state_before_archive: DomainStateValue | null;
  declined_reason: string | null;
  verification_token: string;
  claimed: boolean;
  blocked: boolean;
  messages_limit: string | null;
  total_usages: string;
  total_clicks: string;
  last_used_at: Date | null;
  checked_at: Date | null;
  created_at: Date;
}

export const DOMAIN_COLUMNS = `d.id::text, d.account_id::text, d.name, d.type, d.ip, d.state, d.state_before_archive, d.declined_reason, d.verification_token,
  d.claimed, d.blocked, d.messages_limit::text, d.total_usages::text, links.domain_clicks(d.account_id, d.id, d.total_clicks)::text AS total_clicks, d.last_used_at, d.checked_at, d.created_at`;

/** Clicks per usage in percent, two decimals. */
export const ctrOf = (clicks: number, usages: number): number => (usages > 0 ? Math.round((clicks / usages) * 10_000) / 100 : 0);

/** The records a customer creates: the routing record (CNAME, or A for apex names when an address is set) and the ownership TXT. */
export function dnsRecords(name: string, token: string, targets: DnsTargets): DnsRecordDto[] {
  const out: DnsRecordDto[] = [{ type: 'CNAME', host: name, value: targets.cnameTarget, purpose: 'routing' }];
  if (targets.aTarget) out.push({ type: 'A', host: name, value: targets.aTarget, purpose: 'routing' });
  out.push({ type: 'TXT', host: DnsChecker.ownershipHost(name), value: ownershipValue(token), purpose: 'ownership' });
  return out;
}

export const ownershipValue = (token: string): string => `switchboard-verify=${token}`;

export function toDomainDto(r: DomainRow, targets: DnsTargets): DomainDto {
  const usages = Number(r.total_usages);
  const clicks = Number(r.total_clicks);
  return {
    id: Number(r.id),
    name: r.name,
    type: r.type,
    ip: r.ip,
    state: r.state,
    ctr: ctrOf(clicks, usages),
    createdAt: new Date(r.created_at).toISOString(),
    lastUsedAt: r.last_used_at ? new Date(r.last_used_at).toISOString() : null,
    checkedAt: r.checked_at ? new Date(r.checked_at).toISOString() : null,
    declinedReason: r.declined_reason,
    totalUsages: usages,
    totalClicks: clicks,
    archived: r.state === DomainState.Archived,
    messagesLimit: r.messages_limit === null ? null : Number(r.messages_limit),
    dns: dnsRecords(r.name, r.verification_token, targets),
  };
}

export const toDomainOption = (r: DomainRow): DomainOptionDto => ({ id: Number(r.id), name: r.name, totalUsages: Number(r.total_usages), state: r.state });

/** Whether a new link may use the domain now: configured, not archived, blocked or over its limit. */
export const isUsable = (r: Pick<DomainRow, 'state'>): boolean => r.state === DomainState.Configured;

/**
 * Configured and reached-limit follow the usage counter and the limit (spec 4, state 6): a configured domain at or
 * over its messages_limit is "reached limit", one back under it (limit raised or removed) is configured again.
 * The same rule runs in the database (trigger `domain_limit_state`) for counters the redirect role's minting moves.
 */
export function limitAdjusted(state: DomainStateValue, limit: string | number | null, usages: string | number): DomainStateValue {
  const over = limit !== null && Number(usages) >= Number(limit);
  if (state === DomainState.Configured && over) return DomainState.ReachedLimit;
  if (state === DomainState.ReachedLimit && !over) return DomainState.Configured;
  return state;
}

/** Publishes a domain's state (links.domain.changed) in the unit of work, and tells the account's open consoles. */
export function announceDomain(emit: UnitOfWorkEmit, notify: UnitOfWorkNotify | null, r: DomainRow, at: Date, deleted = false): void {
  emit(
    DomainChangedV1,
    {
      accountId: r.account_id,
      domainId: r.id,
      name: r.name,
      state: r.state,
      declinedReason: r.declined_reason,
      messagesLimit: r.messages_limit === null ? null : Number(r.messages_limit),
      usable: !deleted && isUsable(r),
      deleted,
      changedAt: at.toISOString(),
    },
    r.account_id,
  );
  notify?.({ accountId: r.account_id, type: deleted ? 'domain.deleted' : 'domain.changed', data: { id: Number(r.id), state: r.state, declinedReason: r.declined_reason } });
}

/** Reads domains of one account by id, locked for the transaction, in id order (no deadlock between two bulk calls). */
export async function lockDomains(m: EntityManager, accountId: string, ids: readonly string[]): Promise<DomainRow[]> {
  if (!ids.length) return [];
  return m.query<DomainRow[]>(`SELECT ${DOMAIN_COLUMNS} FROM links.domain d WHERE d.account_id = $1 AND d.id = ANY($2::bigint[]) ORDER BY d.id FOR UPDATE`, [accountId, ids]);
}

/** `UPDATE`/`DELETE ... RETURNING` through TypeORM answers `[rows, count]` on PostgreSQL: the rows. */
export async function changed<T>(m: Pick<EntityManager, 'query'>, sql: string, params: unknown[]): Promise<T[]> {
  const r = (await m.query(sql, params)) as unknown;
  if (Array.isArray(r) && r.length === 2 && Array.isArray(r[0]) && typeof r[1] === 'number') return r[0] as T[];
  return r as T[];
}
