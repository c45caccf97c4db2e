import { Injectable } from '@nestjs/common';
import type { MessageAcceptedV1, EventData } from '@switchboard/contracts';
import type { Principal } from '@switchboard/platform';
import type { EntityManager } from 'typeorm';
import { UsageRepository } from '../repositories';
import type { BatchClaim, UsageDelta } from '../repositories/usage.repository';
import { readCustomSettings } from '../rules/settings';
import { AccountGate } from './account-gate.service';

export interface DailyUsageDto {
  /** customSettings.streams_max_messages_per_day; null = no limit. */
  dailyLimit: number | null;
  dailyUsage: number;
}

/** The UTC day of an instant: daily limits and usage count per UTC day (docs/decisions/0010-accounts.md). */
export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

type Accepted = EventData<typeof MessageAcceptedV1>;

/** The accepted batches' claims are kept as long as the outbox relay keeps `processed_events` by default. */
export const USAGE_CLAIMS_RETENTION_MS = 7 * 24 * 3600_000;

/**
 * One usage event to count (docs/decisions/0199): a per-message accepted event (`ids` null; `republished` when it is the
 * undispatched sweeper's re-publish of a message), or an accepted batch's good items with their own event ids (`ids`),
 * under the batch's id (`id`).
 */
export interface UsageCount {
  id: string;
  accepted: Accepted[];
  ids: string[] | null;
  republished: boolean;
}

/** The UTC day an accepted message counts on (the day it was accepted, not the day its event arrives). */
function dayOf(d: Accepted): string {
  const at = new Date(d.acceptedAt);
  if (Number.isNaN(at.getTime())) throw new Error(`accepted message ${d.messageUuid} has an invalid acceptedAt "${d.acceptedAt}"`);
  return utcDay(at);
}

/** Adds `sign` x each message (and its segments) to its account's day in `into`; sign 0 only makes the day's entry. */
function tallyInto(into: Map<string, UsageDelta>, list: Accepted[], sign: number): void {
  for (const d of list) {
    const day = dayOf(d);
    const key = `${d.accountId}|${day}`;
    let t = into.get(key);
    if (!t) into.set(key, (t = { accountId: d.accountId, day, messages: 0, segments: 0 }));
    t.messages += sign;
    t.segments += sign * d.segments;
  }
}

function tally(list: Accepted[], sign: number): UsageDelta[] {
  const into = new Map<string, UsageDelta>();
  tallyInto(into, list, sign);
  return [...into.values()];
}

/** A batch's claim rows: one for each acceptance instant of its items (a send batch's items share one). */
function batchClaims(b: UsageCount): BatchClaim[] {
  const byAt = new Map<string, BatchClaim>();
  for (const a of b.accepted) {
    dayOf(a);
    let c = byAt.get(a.acceptedAt);
    if (!c) byAt.set(a.acceptedAt, (c = { batchId: b.id, acceptedAt: a.acceptedAt, accountId: a.accountId, messageUuids: [] }));
    c.messageUuids.push(a.messageUuid);
  }
  return [...byAt.values()];
}

@Injectable()
export class UsageService {
  constructor(
    private readonly usage: UsageRepository,
    private readonly gate: AccountGate,
  ) {}

  async daily(p: Principal, now = new Date()): Promise<DailyUsageDto> {
    const c = await this.gate.current(p);
    return { dailyLimit: readCustomSettings(c.customSettings).streams_max_messages_per_day, dailyUsage: await this.usage.messagesOn(c.id, utcDay(now)) };
  }

  /** recordAccepted for a batch: one upsert for all its accounts and days. */
  async recordAcceptedMany(m: EntityManager, list: Accepted[]): Promise<void> {
    await this.usage.addAll(tally(list, 1), m);
  }

  /**
   * Counts the accepted messages of fresh usage events exactly once (docs/decisions/0199). `list`: events whose own
   * claim (a per-message event's `processed_events` row) is new, and accepted batches, unclaimed as yet (repeats
   * included). In order, in the caller's transaction:
   * 1. each batch claims its rows in `usage_batch` (with its message uuids); a batch claimed before counts nothing;
   * 2. the per-message events (the stream API's) and the newly claimed batches are added to their days, and the days of
   *    the sweeper's re-publishes locked (+0): from here on the transaction holds every day row it may change;
   * 3. items of the new batches that the group claimed one by one (an accounts release before 0199, or a re-publish
   *    counted before its batch came) are taken back;
   * 4. re-publishes are counted unless a claimed batch holds their message.
   * Claims are written before the day's lock and read after it, so of a batch and a re-publish of the same message in
   * two transactions at once, the one that locks second sees the other's claim (committed when it gets the lock).
   */
  async countOnce(m: EntityManager, consumer: string, list: UsageCount[]): Promise<void> {
    const batches = new Map<string, UsageCount>();
    const counted: Accepted[] = [];
    const republished: Accepted[] = [];
    // the re-publishes' own claims, written by this transaction: step 4 decides them, step 3 must not take them back
    const republishIds = new Set<string>();
    for (const u of list) {
      if (u.ids) {
        if (!batches.has(u.id)) batches.set(u.id, u);
      } else if (u.republished) {
        republishIds.add(u.id);
        for (const a of u.accepted) republished.push(a);
      } else for (const a of u.accepted) counted.push(a);
    }
    const fresh: UsageCount[] = [];
    if (batches.size) {
      const rows: BatchClaim[] = [];
      for (const b of batches.values()) rows.push(...batchClaims(b));
      const claimed = await this.usage.claimBatches(rows, m);
      for (const b of batches.values()) if (claimed.has(b.id)) fresh.push(b);
    }
    const add = new Map<string, UsageDelta>();
    for (const b of fresh) for (const a of b.accepted) counted.push(a);
    tallyInto(add, counted, 1);
    tallyInto(add, republished, 0);
    await this.usage.addAll([...add.values()], m);

    const itemIds: string[] = [];
    for (const b of fresh) for (const id of b.ids!) itemIds.push(id);
    if (itemIds.length) {
      const alone = await this.usage.claimedAlone(consumer, itemIds, m);
      if (alone.size) {
        const back: Accepted[] = [];
        for (const b of fresh) for (let i = 0; i < b.ids!.length; i++) if (alone.has(b.ids![i]) && !republishIds.has(b.ids![i])) back.push(b.accepted[i]);
        await this.usage.addAll(tally(back, -1), m);
      }
    }
    if (republished.length) {
      const held = await this.usage.inClaimedBatches(
        republished.map((a) => ({ messageUuid: a.messageUuid, accountId: a.accountId, acceptedAt: a.acceptedAt })),
        m,
      );
      await this.usage.addAll(tally(republished.filter((a) => !held.has(a.messageUuid)), 1), m);
    }
  }

  /**
   * Deletes the accepted batches' claims older than the claims' retention: the 7 days the outbox relay keeps
   * `processed_events` (a batch redelivered later than that counts again, as a per-message event does).
   */
  async pruneBatchClaims(now = new Date()): Promise<number> {
    return this.usage.pruneBatches(new Date(now.getTime() - USAGE_CLAIMS_RETENTION_MS));
  }

  /** Counts an accepted message on the UTC day it was accepted (not the day the event arrives). */
  async recordAccepted(m: EntityManager, d: EventData<typeof MessageAcceptedV1>): Promise<void> {
    const at = new Date(d.acceptedAt);
    if (Number.isNaN(at.getTime())) throw new Error(`accepted message ${d.messageUuid} has an invalid acceptedAt "${d.acceptedAt}"`);
    await this.usage.add(d.accountId, utcDay(at), 1, d.segments, m);
  }
}
