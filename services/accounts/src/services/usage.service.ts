import { Injectable } from '@nestjs/common';
import type { MessageAcceptedV1, EventData } from '@switchboard/contracts';
import type { Principal } from '@switchboard/platform';
import type { EntityManager } from 'typeorm';
import { UsageRepository } from '../repositories';
import { readCustomSettings } from '../rules/settings';
import { AccountGate } from './account-gate.service';

export interface DailyUsageDto {
  /** customSettings.streams_max_messages_per_day; null = no limit. */
  dailyLimit: number | null;
  dailyUsage: number;
}

/** The UTC day of an instant: daily limits and usage count per UTC day (docs/decisions/0010-accounts.md). */
export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

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

  /** recordAccepted for a batch: one upsert per account and day. */
  async recordAcceptedMany(m: EntityManager, list: Array<EventData<typeof MessageAcceptedV1>>): Promise<void> {
    const totals = new Map<string, { accountId: string; day: string; messages: number; segments: number }>();
    for (const d of list) {
      const at = new Date(d.acceptedAt);
      if (Number.isNaN(at.getTime())) throw new Error(`accepted message ${d.messageUuid} has an invalid acceptedAt "${d.acceptedAt}"`);
      const day = utcDay(at);
      const key = `${d.accountId}|${day}`;
      const t = totals.get(key) ?? { accountId: d.accountId, day, messages: 0, segments: 0 };
      t.messages += 1;
      t.segments += d.segments;
      totals.set(key, t);
    }
    for (const t of totals.values()) await this.usage.add(t.accountId, t.day, t.messages, t.segments, m);
  }

  /** Counts an accepted message on the UTC day it was accepted (not the day the event arrives). */
  async recordAccepted(m: EntityManager, d: EventData<typeof MessageAcceptedV1>): Promise<void> {
    const at = new Date(d.acceptedAt);
    if (Number.isNaN(at.getTime())) throw new Error(`accepted message ${d.messageUuid} has an invalid acceptedAt "${d.acceptedAt}"`);
    await this.usage.add(d.accountId, utcDay(at), 1, d.segments, m);
  }
}
