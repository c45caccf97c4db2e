import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { CampaignStatus, CampaignStatusChangedV1, CampaignStatusesRequestedV1, Topics, type EventEnvelope } from '@switchboard/contracts';
import { EventBus, PROCESS_ROLES, type ProcessRoles } from '@switchboard/platform';
import { DISPATCH_CONNECTION } from '../dispatch.options';
import { MessageRepository } from '../repositories/message.repository';
import { addToOutbox, DispatchOutboxRelay, lifecycleEvents } from './events.service';
import { ReconcileResponder } from './reconcile.service';

export const CAMPAIGN_HOLDS_GROUP = 'dispatch.campaign-holds';
/** How often a replica reads the held campaigns (the one that handled the event knows at once). */
export const HOLDS_REFRESH_MS = 250;
/** An aborted campaign's held messages are dropped this many to a transaction. */
const DROP_BATCH = 2000;

/** Statuses in which a campaign's messages must not go out. */
const HOLDING: ReadonlySet<number> = new Set([CampaignStatus.Paused, CampaignStatus.Aborted]);

/**
 * Paused campaigns hold their messages in dispatch (docs/decisions/0051-campaign-send-speed-and-pause.md). Streams
 * accepts and charges a campaign's batches as they come, so at full speed a second of traffic or more sits in
 * dispatch's queue and memory when the pause is answered; this stops it there.
 *
 * - `campaigns.campaign.status_changed` (group `dispatch.campaign-holds`): to paused or aborted holds the campaign,
 *   to any other status releases it. The hold row and the move of the campaign's queued messages to `held` (or back
 *   to `queued`, due now, on release) are one transaction, applied only if newer than the hold's last change.
 * - New messages of a held campaign are stored `held` by the ingest statement itself; held rows are never claimed.
 * - Messages already claimed in memory are checked just before they are handed to an adapter: a held campaign's go
 *   back to `held` (see Dispatcher). What an adapter already has (its window and the queue behind it) goes out.
 * - Each replica knows the held campaigns from this table, read every HOLDS_REFRESH_MS; the replica handling the
 *   event marks the hold in memory before its transaction, so once the hold is visible in the table that replica sends
 *   nothing more of the campaign. Messages given back while a release raced them are put back in the queue by the
 *   same refresh (a held row of a released campaign).
 * - Aborted (docs/decisions/0066): the campaign is held as for a pause, and its held messages are then dropped with a
 *   final status (`sent_failed`, "campaign aborted", refunded: they never reached a provider), their status events in
 *   the same transactions, so the campaign counts them and finishes its tail. Any replica's refresh drops what is
 *   still held of an aborted campaign (messages given back after the abort, new ones stored held, a crash midway).
 * Tenancy: a hold is per campaign AND account (its key), and every statement matches both: an event naming another
 * account's campaign id holds nothing of that campaign.
 */
@Injectable()
export class CampaignHolds implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger('CampaignHolds');
  /** Held campaigns: `account:campaign`. */
  private held = new Set<string>();
  /**
   * Holds this process set in memory before their transaction, so that a refresh whose read began before the hold was
   * committed does not undo them: key → the first refresh (by `refreshes`) whose read certainly began after the
   * transaction ended (Infinity while it runs). Deleting the key when the transaction ended was not enough: a refresh
   * that read the table just before the commit and finished just after it dropped the hold until the next refresh,
   * and a paused campaign's queue went out for up to HOLDS_REFRESH_MS.
   */
  private readonly pending = new Map<string, number>();
  /** Refreshes started (each read of the table is numbered by it). */
  private refreshes = 0;
  private timer?: NodeJS.Timeout;
  private refreshing?: Promise<void>;
  private released: Array<() => void> = [];

  constructor(
    @InjectDataSource(DISPATCH_CONNECTION) private readonly ds: DataSource,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly repo: MessageRepository,
    private readonly relay: DispatchOutboxRelay,
    private readonly reconcile: ReconcileResponder,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    // the same group (it already reads the campaigns topic) answers campaigns' questions about statuses (0093)
    await this.bus.subscribe({
      group: CAMPAIGN_HOLDS_GROUP,
      topics: [Topics.Campaigns],
      types: [CampaignStatusChangedV1.type, CampaignStatusesRequestedV1.type],
      concurrency: 16,
      handler: (e) => (e.type === CampaignStatusesRequestedV1.type ? this.reconcile.answerStatuses(e) : this.onStatus(e)),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => {
      if (this.refreshing) return;
      this.refreshing = this.refresh()
        .catch((e: unknown) => this.log.warn(`reading campaign holds failed: ${String(e)}`))
        .finally(() => (this.refreshing = undefined));
    }, HOLDS_REFRESH_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Whether a message of this account's campaign must wait (null: no campaign's). */
  isHeld(campaignId: string | null | undefined, accountId: string): boolean {
    return !!campaignId && this.held.size > 0 && this.held.has(`${accountId}:${campaignId}`);
  }

  /** Called when a hold is released here, so the dispatcher claims the campaign's messages at once. */
  onRelease(fn: () => void): void {
    this.released.push(fn);
  }

  async refresh(): Promise<void> {
    const refresh = ++this.refreshes;
    const rows = await this.ds.query<Array<{ id: string }>>(`SELECT account_id::text || ':' || campaign_id::text AS id FROM dispatch.campaign_hold WHERE held`);
    const next = new Set(rows.map((r) => r.id));
    for (const [id, from] of this.pending) {
      // a read that began before the hold's transaction ended may not see it: keep the hold set in memory
      if (refresh < from) next.add(id);
      else this.pending.delete(id);
    }
    this.held = next;
    // a message given back as held while its campaign was being released: into the queue again
    const [, back] = await this.ds.query<[unknown[], number]>(
      `UPDATE dispatch.message m SET send_state = 'queued', queue_state = 'queued', next_attempt_at = now(), updated_at = now()
         FROM dispatch.campaign_hold h
        WHERE m.queue_state = 'held' AND h.campaign_id = m.campaign_id AND h.account_id = m.account_id AND NOT h.held`,
    );
    if (Number(back) > 0) for (const fn of this.released) fn();
    await this.dropAborted();
  }

  /** Drops what is held of aborted campaigns (final status, events in the same transaction). Replicas skip each other's rows. */
  async dropAborted(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.ds.transaction(async (m) => {
        const rows = await this.repo.dropAborted(m, DROP_BATCH);
        if (rows.length) await addToOutbox(m, lifecycleEvents(rows, { final: true, refundReason: () => 'campaign_aborted' }), this.relay.statusBatches, this.relay.compactRows);
        return rows.length;
      });
      total += n;
      if (n < DROP_BATCH) break;
    }
    if (total) this.relay.kick();
    return total;
  }

  async onStatus(e: EventEnvelope): Promise<void> {
    if (e.type !== CampaignStatusChangedV1.type || e.version !== 1) return;
    const d = CampaignStatusChangedV1.schema.parse(e.data);
    if (e.accountId !== null && e.accountId !== d.accountId) throw new Error(`campaign status ${e.id}: envelope account ${e.accountId} is not the campaign's ${d.accountId}`);
    const hold = HOLDING.has(d.to);
    const aborted = d.to === CampaignStatus.Aborted;
    const key = `${d.accountId}:${d.campaignId}`;
    if (hold) {
      this.pending.set(key, Infinity);
      this.held.add(key);
    }
    try {
      const applied = await this.ds.transaction(async (m) => {
        const [row] = await m.query<Array<{ held: boolean }>>(
          `INSERT INTO dispatch.campaign_hold AS h (campaign_id, account_id, held, aborted, changed_at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (campaign_id, account_id) DO UPDATE SET held = EXCLUDED.held, aborted = EXCLUDED.aborted, changed_at = EXCLUDED.changed_at
             WHERE h.changed_at <= EXCLUDED.changed_at
           RETURNING held`,
          [d.campaignId, d.accountId, hold, aborted, new Date(d.changedAt)],
        );
        if (!row) return null; // an older change
        if (hold) {
          await m.query(`UPDATE dispatch.message SET send_state = 'held', queue_state = 'held', updated_at = now() WHERE campaign_id = $1 AND account_id = $2 AND queue_state = 'queued'`, [d.campaignId, d.accountId]);
        } else {
          await m.query(`UPDATE dispatch.message SET send_state = 'queued', queue_state = 'queued', next_attempt_at = now(), updated_at = now() WHERE campaign_id = $1 AND account_id = $2 AND queue_state = 'held'`, [
            d.campaignId,
            d.accountId,
          ]);
        }
        return row.held;
      });
      if (applied === false) {
        this.pending.delete(key);
        this.held.delete(key);
        for (const fn of this.released) fn();
      }
      if (applied === true && aborted) await this.dropAborted();
    } finally {
      if (hold) {
        // what the table says wins from the next refresh that starts now (an older event, a failed transaction):
        // one already reading keeps the hold set in memory
        this.pending.set(key, this.refreshes + 1);
      }
    }
  }
}
