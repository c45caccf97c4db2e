import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { EventBus, PROCESS_ROLES, RealtimeFanout, ServiceOutboxRelay, UnitOfWork, type ProcessRoles } from '@switchboard/platform';
import { Clock } from '../clock';
import { LINKS_CONNECTION, LINKS_SCHEMA } from '../links.options';
import { CLICK_GROUP_OUTBOX_TYPE, expandClickGroups } from '../redirect/click-events';

/** What links' relay adds to the platform's: the click group rows' expander (docs/decisions/0084). */
export const LINKS_RELAY_OPTIONS = { expanders: { [CLICK_GROUP_OUTBOX_TYPE]: expandClickGroups } };

/**
 * Publishes `links.outbox` on the bus, in processes that run the relay role. A click group's outbox row names the group
 * only; the relay builds its click events from the group's rows after the commit (docs/decisions/0084).
 */
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
