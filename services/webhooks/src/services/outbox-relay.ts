import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { EventBus, PROCESS_ROLES, ServiceOutboxRelay, type ProcessRoles } from '@switchboard/platform';
import { WEBHOOKS_CONNECTION, WEBHOOKS_SCHEMA } from '../webhooks.options';

/** Publishes `webhooks.outbox` (`webhooks.webhook.disabled`) on the bus, in processes that run the relay role. */
@Injectable()
export class WebhooksOutboxRelay extends ServiceOutboxRelay {
  constructor(
    @InjectDataSource(WEBHOOKS_CONNECTION) ds: DataSource,
    @Inject(EventBus) bus: EventBus,
    @Inject(PROCESS_ROLES) roles: ProcessRoles,
  ) {
    super(WEBHOOKS_SCHEMA, ds, bus, roles, { batchSize: 100 });
  }
}
