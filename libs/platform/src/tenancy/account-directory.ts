import { z } from 'zod';
import { AccountStatus, CustomerCreatedV1, CustomerUpdatedV1, ErrorCode, Topics, type AccountStatusValue, type EventEnvelope } from '@switchboard/contracts';
import type { EventBus } from '../bus/event-bus';
import type { Principal } from '../context/request-context';
import { AppError } from '../errors/app-error';
import type { AccessRule } from '../http/decorators';

/**
 * The status of every account as this process last heard it from the accounts service, so any service can refuse
 * work in a disabled or deleted account without asking anyone (spec 6: non-super-admins are denied when the
 * current account is disabled). `undefined` means "not heard of yet": the caller decides (the access guard lets the
 * token's account through, since auth only puts enterable accounts in tokens).
 */
export abstract class AccountDirectory {
  abstract status(accountId: string): AccountStatusValue | undefined;
}

/** Statuses in which only super administrators may work in an account. */
export const CLOSED_ACCOUNT_STATUSES: readonly AccountStatusValue[] = Object.freeze([AccountStatus.Disable, AccountStatus.Delete]);

export const isClosedAccountStatus = (status: AccountStatusValue | undefined): boolean => status !== undefined && CLOSED_ACCOUNT_STATUSES.includes(status);

/**
 * The access guard's account check (spec 6: non-super-admins are denied when the current account is disabled): on
 * a route that works in an account (a permission rule, or `authenticated` with `accountRequired`), a caller who is
 * not a super admin gets 403 ACCESS_DENIED when the directory knows the account as disabled or deleted. Routes
 * without an account (profile, account switch) stay open, so the user can still leave for another account.
 */
export function assertAccountOpen(directory: AccountDirectory | null | undefined, rule: AccessRule, principal: Principal): void {
  if (!directory || principal.superAdmin || !principal.accountId) return;
  const scoped = rule.kind === 'permissions' || (rule.kind === 'authenticated' && rule.accountRequired);
  if (!scoped) return;
  const status = directory.status(principal.accountId);
  if (isClosedAccountStatus(status)) throw AppError.forbidden(`this account is ${status === AccountStatus.Delete ? 'deleted' : 'disabled'}`, ErrorCode.AccessDenied);
}

interface Entry {
  status: AccountStatusValue;
  /** occurredAt of the snapshot applied, in ms: an older snapshot arriving late never overwrites a newer one. */
  at: number;
}

/** A map in memory, fed by `accounts.customer.*` events through `registerAccountDirectoryConsumer`. */
export class InMemoryAccountDirectory extends AccountDirectory {
  private readonly entries = new Map<string, Entry>();

  status(accountId: string): AccountStatusValue | undefined {
    return this.entries.get(String(accountId))?.status;
  }

  /**
   * Records a status snapshot unless a newer one is already held (events of one account come in order on one
   * partition, but a replay or a redelivery may bring an old one again). Returns whether it was applied.
   */
  apply(accountId: string, status: AccountStatusValue, occurredAt: Date | string | number): boolean {
    const at = new Date(occurredAt).getTime();
    if (!Number.isFinite(at)) throw new Error(`account directory: invalid time ${String(occurredAt)}`);
    const key = String(accountId);
    const current = this.entries.get(key);
    if (current && current.at > at) return false;
    this.entries.set(key, { status, at });
    return true;
  }

  get size(): number {
    return this.entries.size;
  }
}

const CUSTOMER_EVENT_TYPES = new Set([CustomerCreatedV1.type, CustomerUpdatedV1.type]);

// Only what the directory needs; other fields of the snapshot are ignored (consumers ignore unknown fields).
const statusSnapshot = z.object({
  accountId: z.string().regex(/^\d+$/),
  status: z.enum([AccountStatus.Active, AccountStatus.Restrict, AccountStatus.Disable, AccountStatus.Delete]),
});

/** Applies one event to the directory; anything but a version-1 customer snapshot is ignored. Returns whether it changed the directory. */
export function applyAccountEvent(directory: InMemoryAccountDirectory, event: Pick<EventEnvelope, 'type' | 'version' | 'occurredAt' | 'data'>): boolean {
  if (!CUSTOMER_EVENT_TYPES.has(event.type) || event.version !== 1) return false;
  const parsed = statusSnapshot.safeParse(event.data);
  // A malformed snapshot is the producer's bug; retrying it would not help and must not stall the partition.
  if (!parsed.success) return false;
  return directory.apply(parsed.data.accountId, parsed.data.status, event.occurredAt);
}

/**
 * Subscribes a directory to the accounts topic under `group`. Register before the bus starts.
 *
 * Every process keeps its own directory, so every process needs every event: with Kafka the group must be unique
 * per process (e.g. `<service>.account-directory.<hostname>`) and start from the beginning of the topic, which
 * must therefore keep customer events (retention, not compaction: the topic also carries other events keyed by
 * account). With the in-memory bus one group per process is enough.
 */
export async function registerAccountDirectoryConsumer(bus: EventBus, directory: InMemoryAccountDirectory, group: string): Promise<void> {
  await bus.subscribe({
    group,
    topics: [Topics.Accounts],
    handler: async (event) => {
      applyAccountEvent(directory, event);
    },
  });
}
