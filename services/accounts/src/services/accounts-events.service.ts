import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import {
  EventBus,
  PROCESS_ROLES,
  RealtimeFanout,
  ServiceOutboxRelay,
  UnitOfWork,
  type LiveUpdate as PlatformLiveUpdate,
  type ProcessRoles,
  type UnitOfWorkEmit,
  type UnitOfWorkNotify,
} from '@switchboard/platform';
import { ACCOUNTS_CONNECTION, ACCOUNTS_SCHEMA } from '../accounts.options';

/** Adds an event to the unit of work: it is written to `accounts.outbox` in the same transaction. */
export type Emit = UnitOfWorkEmit;

/** A browser notification on `rt.<accountId>.accounts`, sent once the transaction committed. */
export type LiveUpdate = PlatformLiveUpdate;
export type Notify = UnitOfWorkNotify;

/** Publishes `accounts.outbox` on the bus, in processes that run the relay role. */
@Injectable()
export class AccountsOutboxRelay extends ServiceOutboxRelay {
  constructor(
    @InjectDataSource(ACCOUNTS_CONNECTION) ds: DataSource,
    @Inject(EventBus) bus: EventBus,
    @Inject(PROCESS_ROLES) roles: ProcessRoles,
  ) {
    super(ACCOUNTS_SCHEMA, ds, bus, roles);
  }
}

/**
 * One database transaction with the events it produces written to the outbox inside it, and the realtime
 * notifications it produces sent after it commits (never for a rolled-back change).
 */
@Injectable()
export class AccountsUnitOfWork extends UnitOfWork {
  constructor(
    @InjectDataSource(ACCOUNTS_CONNECTION) ds: DataSource,
    relay: AccountsOutboxRelay,
    @Inject(RealtimeFanout) realtime: RealtimeFanout,
  ) {
    super({ dataSource: ds, schema: ACCOUNTS_SCHEMA, source: 'accounts', relay, realtime: { fanout: realtime, topic: 'accounts' } });
  }
}
