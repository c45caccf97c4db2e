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
  /** Lookups under way: the events of one chunk ask for the same account at once, and share one query. */
  private readonly loading = new Map<string, Promise<Set<string>>>();

  constructor(@InjectDataSource(WEBHOOKS_CONNECTION) private readonly ds: DataSource) {}

  async has(accountId: string, trigger: string): Promise<boolean> {
    const now = performance.now();
    const entry = this.byAccount.get(accountId);
    if (entry && entry.until > now) return entry.triggers.has(trigger);
    let loading = this.loading.get(accountId);
    if (!loading) {
      const mine: Promise<Set<string>> = this.load(accountId, now).finally(() => {
        if (this.loading.get(accountId) === mine) this.loading.delete(accountId);
      });
      this.loading.set(accountId, (loading = mine));
    }
    return (await loading).has(trigger);
  }

  /** True when the remembered answer (within its TTL) says the account has no active webhook for the trigger; no lookup. */
  knownToLack(accountId: string, trigger: string): boolean {
    const entry = this.byAccount.get(accountId);
    return entry !== undefined && entry.until > performance.now() && !entry.triggers.has(trigger);
  }

  private async load(accountId: string, now: number): Promise<Set<string>> {
    const generation = this.generation;
    const rows = await this.ds.query<Array<{ trigger: string }>>(`SELECT DISTINCT trigger FROM webhooks.webhook WHERE account_id = $1 AND active`, [accountId]);
    const triggers = new Set(rows.map((r) => r.trigger));
    // a change made here meanwhile (forget) may not be in this answer: use it once, do not remember it
    if (generation !== this.generation) return triggers;
    if (this.byAccount.size > 100_000) this.byAccount.clear();
    this.byAccount.set(accountId, { until: now + ACTIVE_WEBHOOKS_TTL_MS, triggers });
    return triggers;
  }

  private generation = 0;

  /** A webhook of this account was created, changed or deleted here. */
  forget(accountId: string): void {
    this.generation++;
    this.byAccount.delete(accountId);
    this.loading.delete(accountId);
  }
}
