import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { EventBus, PROCESS_ROLES, ServiceOutboxRelay, UnitOfWork, type ProcessRoles } from '@switchboard/platform';
import { Clock } from '../clock';
import { INBOX_CONNECTION, INBOX_SCHEMA } from '../inbox.options';

/** Publishes `inbox.outbox` on the bus, in processes that run the relay role. */
@Injectable()
export class InboxOutboxRelay extends ServiceOutboxRelay {
  constructor(@InjectDataSource(INBOX_CONNECTION) ds: DataSource, @Inject(EventBus) bus: EventBus, @Inject(PROCESS_ROLES) roles: ProcessRoles) {
    super(INBOX_SCHEMA, ds, bus, roles);
  }
}

/** One transaction whose events (send batches, space access, closed conversations) go to `inbox.outbox` in that same transaction. */
@Injectable()
export class InboxUnitOfWork extends UnitOfWork {
  constructor(@InjectDataSource(INBOX_CONNECTION) ds: DataSource, relay: InboxOutboxRelay, clock: Clock) {
    super({ dataSource: ds, schema: INBOX_SCHEMA, source: 'inbox', relay, now: () => clock.now() });
  }
}
