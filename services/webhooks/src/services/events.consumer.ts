import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { LinkClickedV1, LinkClicksRecordedV1, MessageEdrV1, MessageReceivedV1, MessageStatusChangedV1, MessageStatusesChangedV1, Topics, WebhookTrigger, type EventEnvelope } from '@switchboard/contracts';
import { BatchedIdempotentConsumer, eachAtOnce, EventBus, PROCESS_ROLES, withStatusBatches, type ProcessRoles } from '@switchboard/platform';
import { triggerFor, triggerOfType } from '../delivery/payloads';
import { WEBHOOKS_CONNECTION, WEBHOOKS_SCHEMA } from '../webhooks.options';
import { ActiveWebhooks } from './active-webhooks';
import { DeliveryService, type QueuedEvent } from './delivery.service';

export const DELIVERIES_GROUP = 'webhooks.deliveries';

/** Events handled at once per partition (lane): the calls of a chunk share one transaction (group commit). */
export const DELIVERIES_CONCURRENCY = 500;

/**
 * Turns dispatch's message events (status change, EDR, incoming message) and the links service's clicks into queued
 * deliveries: one row per matching webhook of the event's account, inserted once per event (processed_events in the
 * same transaction). The events of a delivered chunk are queued together (BatchedIdempotentConsumer: one transaction,
 * one processed_events INSERT, one webhook lookup and one delivery INSERT for all of them), not a transaction each.
 */
@Injectable()
export class WebhookEventsConsumer implements OnModuleInit {
  private readonly batched: BatchedIdempotentConsumer<QueuedEvent>;

  constructor(
    @InjectDataSource(WEBHOOKS_CONNECTION) ds: DataSource,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly deliveries: DeliveryService,
    private readonly active: ActiveWebhooks,
  ) {
    this.batched = new BatchedIdempotentConsumer<QueuedEvent>({
      dataSource: ds,
      schema: WEBHOOKS_SCHEMA,
      consumer: DELIVERIES_GROUP,
      maxBatch: DELIVERIES_CONCURRENCY,
      apply: async (m, items) => {
        const queued = await this.deliveries.enqueueMany(m, items.map((i) => i.data));
        if (queued) return () => this.deliveries.kick();
      },
    });
  }

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    await this.bus.subscribe({
      group: DELIVERIES_GROUP,
      topics: [Topics.Dispatch, Topics.Links],
      types: [MessageStatusChangedV1.type, MessageStatusesChangedV1.type, MessageEdrV1.type, MessageReceivedV1.type, LinkClickedV1.type, LinkClicksRecordedV1.type],
      concurrency: DELIVERIES_CONCURRENCY,
      // a delivered chunk in one call; an event of an account known to have no webhook for its trigger is dropped
      // there, without a promise, a parse or the bus's delivery each (docs/decisions/0160). Dispatch's batches of
      // statuses as their per-message events: each under its own id (the webhook id) and account (0173).
      ...withStatusBatches(
        (e) => this.handle(e),
        eachAtOnce((e) => (this.surelyUnwanted(e) ? undefined : this.handle(e))),
        // a batch's statuses of accounts known to have no status webhook become no envelope at all
        (data) => {
          const accountId = (data as { accountId?: unknown } | null)?.accountId;
          return !(typeof accountId === 'string' && this.active.knownToLack(accountId, WebhookTrigger.MessageStatusChange));
        },
      ),
    });
  }

  /** An event whose account has, as remembered now, no active webhook for its trigger (nothing to look up, parse or queue). */
  private surelyUnwanted(e: EventEnvelope): boolean {
    if (e.type === LinkClicksRecordedV1.type) return false; // a batch of clicks: handleClicks decides
    const trigger = triggerOfType(e.type);
    if (!trigger) return true;
    const accountId = (e.data as { accountId?: unknown } | null)?.accountId;
    return (typeof accountId === 'string' || typeof accountId === 'number') && this.active.knownToLack(String(accountId), trigger);
  }

  async handle(e: EventEnvelope): Promise<void> {
    if (e.type === LinkClicksRecordedV1.type) return this.handleClicks(e);
    // nothing to parse, queue or remember: an account without a webhook for this trigger costs no transaction, and no
    // parse of the event either (its type says the trigger; docs/decisions/0160)
    const trigger = triggerOfType(e.type);
    if (!trigger) return;
    const accountId = (e.data as { accountId?: unknown } | null)?.accountId;
    if (typeof accountId !== 'string' && typeof accountId !== 'number') return;
    if (!(await this.active.has(String(accountId), trigger))) return;
    const t = triggerFor(e);
    if (!t) return;
    await this.batched.handle(e, { eventId: e.id, accountId: String(accountId), trigger: t.trigger, streamId: t.streamId, eventType: e.type, build: t.build });
  }

  /**
   * The links service announces clicks in batches (`links.clicks.recorded`): each click is a short-URL-clicks event
   * of its own, under its click id, so a redelivered batch queues nothing twice and a webhook's `webhook-id` is the click's.
   */
  private async handleClicks(e: EventEnvelope): Promise<void> {
    const parsed = LinkClicksRecordedV1.schema.safeParse(e.data);
    if (!parsed.success) return;
    const { accountId, clicks } = parsed.data;
    if (!(await this.active.has(String(accountId), WebhookTrigger.ShortUrlClicks))) return;
    // the clicks join one batch (one transaction), each under its own click id
    const queued: Array<Promise<void>> = [];
    for (const c of clicks) {
      const data = {
        clickId: c.clickId,
        accountId,
        linkId: c.linkId,
        shortUrl: c.shortUrl,
        originalUrl: c.originalUrl,
        offerId: c.offerId,
        campaignId: c.campaignId,
        streamId: c.streamId,
        messageUuid: c.messageUuid,
        destination: c.destination,
        ip: c.ip,
        userAgent: c.userAgent,
        clickedAt: c.clickedAt,
      };
      queued.push(this.handle({ ...e, id: c.clickId, type: LinkClickedV1.type, version: LinkClickedV1.version, key: LinkClickedV1.key(data), data }));
    }
    await Promise.all(queued);
  }
}
