import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { EventDefinition } from '@switchboard/contracts';
import { createEnvelope, EventBus, Outbox, OutboxRelay, PROCESS_ROLES, RequestContext, type OutgoingEvent, type ProcessRoles } from '@switchboard/platform';
import { AUTH_CONNECTION } from '../auth.options';
import { Clock } from '../clock';

export const AUTH_SCHEMA = 'auth';

/** Adds an event to the unit of work: it is written to `auth.outbox` in the same transaction. */
export type Emit = <T>(def: EventDefinition<T>, data: T, accountId: string | null) => void;

/** Publishes `auth.outbox` on the bus, in processes that run the relay role. */
@Injectable()
export class AuthOutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  readonly relay: OutboxRelay;

  constructor(
    @InjectDataSource(AUTH_CONNECTION) ds: DataSource,
    @Inject(EventBus) bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
  ) {
    this.relay = new OutboxRelay({ schema: AUTH_SCHEMA, dataSource: ds, bus });
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
 * The auth service's unit of work: one database transaction, with the events it produces written to the outbox
 * in that transaction (they leave if and only if the rows they describe commit). The relay is kicked after the
 * commit so they go out at once rather than at the next poll.
 */
@Injectable()
export class AuthUnitOfWork {
  constructor(
    @InjectDataSource(AUTH_CONNECTION) private readonly ds: DataSource,
    private readonly relay: AuthOutboxRelay,
    private readonly clock: Clock,
  ) {}

  async run<T>(work: (m: EntityManager, emit: Emit) => Promise<T>): Promise<T> {
    const traceId = RequestContext.current()?.traceId ?? null;
    let wrote = false;
    const result = await this.ds.transaction(async (m) => {
      const pending: OutgoingEvent[] = [];
      const emit: Emit = (def, data, accountId) => {
        pending.push(createEnvelope(def, data, { accountId, source: 'auth', traceId, occurredAt: this.clock.now() }));
      };
      const value = await work(m, emit);
      await Outbox.add(m, AUTH_SCHEMA, pending);
      wrote = pending.length > 0;
      return value;
    });
    if (wrote) this.relay.kick();
    return result;
  }
}
