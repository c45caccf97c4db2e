import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { WEBHOOKS_CONNECTION } from '../webhooks.options';

/** How long an account's answer is reused; a webhook created through another replica starts receiving within this. */
export const ACTIVE_WEBHOOKS_TTL_MS = 2000;

/**
 * Which triggers an account has active webhooks for, remembered for ACTIVE_WEBHOOKS_TTL_MS. Most accounts have no
 * webhook, and every message makes three or four events: without this, each event cost a transaction (the
 * processed-events row and the webhook lookup) that queued nothing. Changes made through this process are seen at
 * once (forget); changes through another replica after at most the TTL. Real time, not the service's Clock: a test's
 * frozen clock must not freeze the cache.
 */
@Injectable()
export class ActiveWebhooks {
  private readonly byAccount = new Map<string, { until: number; triggers: Set<string> }>();

  constructor(@InjectDataSource(WEBHOOKS_CONNECTION) private readonly ds: DataSource) {}

  async has(accountId: string, trigger: string): Promise<boolean> {
    const now = performance.now();
    let entry = this.byAccount.get(accountId);
    if (!entry || entry.until <= now) {
      const rows = await this.ds.query<Array<{ trigger: string }>>(`SELECT DISTINCT trigger FROM webhooks.webhook WHERE account_id = $1 AND active`, [accountId]);
      entry = { until: now + ACTIVE_WEBHOOKS_TTL_MS, triggers: new Set(rows.map((r) => r.trigger)) };
      if (this.byAccount.size > 100_000) this.byAccount.clear();
      this.byAccount.set(accountId, entry);
    }
    return entry.triggers.has(trigger);
  }

  /** A webhook of this account was created, changed or deleted here. */
  forget(accountId: string): void {
    this.byAccount.delete(accountId);
  }
}
