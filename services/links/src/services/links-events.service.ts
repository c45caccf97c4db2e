import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { EventBus, PROCESS_ROLES, RealtimeFanout, ServiceOutboxRelay, UnitOfWork, type ProcessRoles } from '@switchboard/platform';
import { Clock } from '../clock';
import { LINKS_RELAY_OPTIONS } from '../redirect/click-events';
import { LINKS_CONNECTION, LINKS_SCHEMA } from '../links.options';

/** Publishes `links.outbox` on the bus, in processes that run the relay role. */
@Injectable()
export class LinksOutboxRelay extends ServiceOutboxRelay {
  constructor(@InjectDataSource(LINKS_CONNECTION) ds: DataSource, @Inject(EventBus) bus: EventBus, @Inject(PROCESS_ROLES) roles: ProcessRoles) {
    super(LINKS_SCHEMA, ds, bus, roles, LINKS_RELAY_OPTIONS);
  }
}

/**
 * The links service's unit of work: one transaction with the events it produces written to `links.outbox` (they
 * leave if and only if the rows they describe commit), and live updates to open consoles after the commit.
 */
@Injectable()
export class LinksUnitOfWork extends UnitOfWork {
  constructor(@InjectDataSource(LINKS_CONNECTION) ds: DataSource, relay: LinksOutboxRelay, clock: Clock, @Inject(RealtimeFanout) fanout: RealtimeFanout) {
    super({ dataSource: ds, schema: LINKS_SCHEMA, source: 'links', relay, now: () => clock.now(), realtime: { fanout, topic: 'domains' } });
  }
}
