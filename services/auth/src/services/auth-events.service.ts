import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { EventBus, PROCESS_ROLES, ServiceOutboxRelay, UnitOfWork, type ProcessRoles, type UnitOfWorkEmit } from '@switchboard/platform';
import { AUTH_CONNECTION } from '../auth.options';
import { Clock } from '../clock';

export const AUTH_SCHEMA = 'auth';

/** Adds an event to the unit of work: it is written to `auth.outbox` in the same transaction. */
export type Emit = UnitOfWorkEmit;

/** Publishes `auth.outbox` on the bus, in processes that run the relay role. */
@Injectable()
export class AuthOutboxRelay extends ServiceOutboxRelay {
  constructor(
    @InjectDataSource(AUTH_CONNECTION) ds: DataSource,
    @Inject(EventBus) bus: EventBus,
    @Inject(PROCESS_ROLES) roles: ProcessRoles,
  ) {
    super(AUTH_SCHEMA, ds, bus, roles);
  }
}

/**
 * The auth service's unit of work: one database transaction, with the events it produces written to the outbox
 * in that transaction (they leave if and only if the rows they describe commit). The relay is kicked after the
 * commit so they go out at once rather than at the next poll.
 */
@Injectable()
export class AuthUnitOfWork extends UnitOfWork {
  constructor(@InjectDataSource(AUTH_CONNECTION) ds: DataSource, relay: AuthOutboxRelay, clock: Clock) {
    super({ dataSource: ds, schema: AUTH_SCHEMA, source: 'auth', relay, now: () => clock.now() });
  }
}
