import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { EventBus, PROCESS_ROLES, RealtimeFanout, ServiceOutboxRelay, UnitOfWork, type ProcessRoles, type UnitOfWorkEmit } from '@switchboard/platform';
import { Clock } from '../clock';
import { CAMPAIGNS_CONNECTION, CAMPAIGNS_SCHEMA } from '../campaigns.options';

/** Adds an event to the unit of work: it is written to `campaigns.outbox` in the same transaction. */
export type Emit = UnitOfWorkEmit;

/** The realtime topic of campaign updates (`/realtime?topic=campaigns`): subjects `rt.<accountId>.campaigns`. */
export const CAMPAIGNS_REALTIME_TOPIC = 'campaigns';

/** Units whose events reach this many characters of JSON are written as one packed outbox row (UnitOfWorkOptions.packOver). */
export const CAMPAIGNS_PACK_OVER = 16_384;

/** Publishes `campaigns.outbox` on the bus, in processes that run the relay role. */
@Injectable()
export class CampaignsOutboxRelay extends ServiceOutboxRelay {
  constructor(
    @InjectDataSource(CAMPAIGNS_CONNECTION) ds: DataSource,
    @Inject(EventBus) bus: EventBus,
    @Inject(PROCESS_ROLES) roles: ProcessRoles,
  ) {
    // send batches are large (campaigns.send_batch.requested): big relay batches
    super(CAMPAIGNS_SCHEMA, ds, bus, roles, { batchSize: 2000 });
  }
}

/**
 * One database transaction with the events it produces written to the outbox in it (the relay is kicked after
 * commit) and the live updates it produces sent on `rt.<accountId>.campaigns` once it committed.
 */
@Injectable()
export class CampaignsUnitOfWork extends UnitOfWork {
  constructor(
    @InjectDataSource(CAMPAIGNS_CONNECTION) ds: DataSource,
    relay: CampaignsOutboxRelay,
    @Inject(RealtimeFanout) realtime: RealtimeFanout,
    clock: Clock,
  ) {
    // a send-batch request (hundreds of kB) goes out as a packed row, not a jsonb one (docs/decisions/0202)
    super({ dataSource: ds, schema: CAMPAIGNS_SCHEMA, source: 'campaigns', relay, realtime: { fanout: realtime, topic: CAMPAIGNS_REALTIME_TOPIC }, now: () => clock.now(), packOver: CAMPAIGNS_PACK_OVER });
  }
}
