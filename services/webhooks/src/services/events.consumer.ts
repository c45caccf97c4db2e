import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { LinkClickedV1, LinkClicksRecordedV1, MessageEdrV1, MessageReceivedV1, MessageStatusChangedV1, Topics, WebhookTrigger, type EventEnvelope } from '@switchboard/contracts';
import { EventBus, IdempotentConsumer, PROCESS_ROLES, type ProcessRoles } from '@switchboard/platform';
import { triggerFor } from '../delivery/payloads';
import { WEBHOOKS_CONNECTION, WEBHOOKS_SCHEMA } from '../webhooks.options';
import { ActiveWebhooks } from './active-webhooks';
import { DeliveryService } from './delivery.service';

export const DELIVERIES_GROUP = 'webhooks.deliveries';

/**
 * Turns dispatch's message events (status change, EDR, incoming message) and the links service's clicks into queued
 * deliveries: one row per matching webhook of the event's account, inserted once per event (processed_events in the
 * same transaction).
 */
@Injectable()
export class WebhookEventsConsumer implements OnModuleInit {
  constructor(
    @InjectDataSource(WEBHOOKS_CONNECTION) private readonly ds: DataSource,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly deliveries: DeliveryService,
    private readonly active: ActiveWebhooks,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    await this.bus.subscribe({
      group: DELIVERIES_GROUP,
      topics: [Topics.Dispatch, Topics.Links],
      types: [MessageStatusChangedV1.type, MessageEdrV1.type, MessageReceivedV1.type, LinkClickedV1.type, LinkClicksRecordedV1.type],
      concurrency: 32,
      handler: (e) => this.handle(e),
    });
  }

  async handle(e: EventEnvelope): Promise<void> {
    if (e.type === LinkClicksRecordedV1.type) return this.handleClicks(e);
    const t = triggerFor(e);
    if (!t) return;
    const accountId = (e.data as { accountId: string }).accountId;
    // nothing to queue and nothing to remember: an account without a webhook for this trigger costs no transaction
    if (!(await this.active.has(String(accountId), t.trigger))) return;
    let queued = 0;
    await IdempotentConsumer.handleOnce(this.ds, WEBHOOKS_SCHEMA, DELIVERIES_GROUP, e, async (m) => {
      queued = await this.deliveries.enqueue(m, { eventId: e.id, accountId, trigger: t.trigger, streamId: t.streamId, eventType: e.type, build: t.build });
    });
    if (queued) this.deliveries.kick();
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
      await this.handle({ ...e, id: c.clickId, type: LinkClickedV1.type, version: LinkClickedV1.version, key: LinkClickedV1.key(data), data });
    }
  }
}
