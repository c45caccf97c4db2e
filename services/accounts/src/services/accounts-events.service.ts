import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { realtimeSubject, type EventDefinition } from '@switchboard/contracts';
import { createEnvelope, EventBus, Outbox, OutboxRelay, PROCESS_ROLES, RealtimeFanout, RequestContext, type OutgoingEvent, type ProcessRoles } from '@switchboard/platform';
import { ACCOUNTS_CONNECTION, ACCOUNTS_SCHEMA } from '../accounts.options';

/** Adds an event to the unit of work: it is written to `accounts.outbox` in the same transaction. */
export type Emit = <T>(def: EventDefinition<T>, data: T, accountId: string | null) => void;

/** A browser notification on `rt.<accountId>.accounts`, sent once the transaction committed. */
export interface LiveUpdate {
  accountId: string;
  type: string;
  data: unknown;
}
export type Notify = (update: LiveUpdate) => void;

/** Publishes `accounts.outbox` on the bus, in processes that run the relay role. */
@Injectable()
export class AccountsOutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  readonly relay: OutboxRelay;

  constructor(
    @InjectDataSource(ACCOUNTS_CONNECTION) ds: DataSource,
    @Inject(EventBus) bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
  ) {
    this.relay = new OutboxRelay({ schema: ACCOUNTS_SCHEMA, dataSource: ds, bus });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.roles.relay) await this.relay.start();
  }

  // before the platform stops the bus (onApplicationShutdown)
  async onModuleDestroy(): Promise<void> {
    await this.relay.stop();
  }

  kick(): void {
    if (this.roles.relay) this.relay.kick();
  }
}

/**
 * One database transaction with the events it produces written to the outbox inside it, and the realtime
 * notifications it produces sent after it commits (never for a rolled-back change).
 */
@Injectable()
export class AccountsUnitOfWork {
  private readonly logger = new Logger('accounts');

  constructor(
    @InjectDataSource(ACCOUNTS_CONNECTION) private readonly ds: DataSource,
    private readonly relay: AccountsOutboxRelay,
    @Inject(RealtimeFanout) private readonly realtime: RealtimeFanout,
  ) {}

  async run<T>(work: (m: EntityManager, emit: Emit, notify: Notify) => Promise<T>): Promise<T> {
    const traceId = RequestContext.current()?.traceId ?? null;
    const live: LiveUpdate[] = [];
    let wrote = false;
    const result = await this.ds.transaction(async (m) => {
      const pending: OutgoingEvent[] = [];
      const emit: Emit = (def, data, accountId) => pending.push(createEnvelope(def, data, { accountId, source: 'accounts', traceId }));
      const value = await work(m, emit, (u) => live.push(u));
      await Outbox.add(m, ACCOUNTS_SCHEMA, pending);
      wrote = pending.length > 0;
      return value;
    });
    if (wrote) this.relay.kick();
    await this.publish(live);
    return result;
  }

  /** Realtime is a courtesy to open browsers: a failure is logged, never turned into a failed request. */
  async publish(updates: LiveUpdate[]): Promise<void> {
    for (const u of updates) {
      try {
        await this.realtime.publish(realtimeSubject(u.accountId, 'accounts'), { accountId: u.accountId, topic: 'accounts', type: u.type, data: u.data });
      } catch (e) {
        this.logger.warn(`realtime publish for account ${u.accountId} failed: ${(e as Error).message}`);
      }
    }
  }
}
