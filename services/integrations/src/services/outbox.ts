import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { INTEGRATIONS_REALTIME_TOPIC } from '@switchboard/contracts';
import { EventBus, PROCESS_ROLES, RealtimeFanout, ServiceOutboxRelay, UnitOfWork, type ProcessRoles } from '@switchboard/platform';
import { Clock } from '../clock';
import { INTEGRATIONS_CONNECTION, INTEGRATIONS_SCHEMA } from '../integrations.options';

/** Publishes `integrations.outbox` on the bus, in processes that run the relay role. */
@Injectable()
export class IntegrationsOutboxRelay extends ServiceOutboxRelay {
  constructor(@InjectDataSource(INTEGRATIONS_CONNECTION) ds: DataSource, @Inject(EventBus) bus: EventBus, @Inject(PROCESS_ROLES) roles: ProcessRoles) {
    super(INTEGRATIONS_SCHEMA, ds, bus, roles, { batchSize: 200 });
  }
}

/** One transaction whose events go to `integrations.outbox` in that same transaction; live frames on `rt.<account>.integrations`. */
@Injectable()
export class IntegrationsUnitOfWork extends UnitOfWork {
  constructor(@InjectDataSource(INTEGRATIONS_CONNECTION) ds: DataSource, relay: IntegrationsOutboxRelay, clock: Clock, @Inject(RealtimeFanout) fanout: RealtimeFanout) {
    super({ dataSource: ds, schema: INTEGRATIONS_SCHEMA, source: 'integrations', relay, now: () => clock.now(), realtime: { fanout, topic: INTEGRATIONS_REALTIME_TOPIC } });
  }
}
