import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { realtimeSubject, type EventDefinition } from '@switchboard/contracts';
import { createEnvelope, EventBus, Outbox, OutboxRelay, PROCESS_ROLES, RealtimeFanout, RequestContext, type OutgoingEvent, type ProcessRoles } from '@switchboard/platform';
import { CONTACTS_CONNECTION, CONTACTS_SCHEMA } from '../contacts.options';

export type Emit = <T>(def: EventDefinition<T>, data: T, accountId: string | null) => void;

/** Publishes `contacts.outbox` on the bus, in processes that run the relay role. */
@Injectable()
export class ContactsOutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  readonly relay: OutboxRelay;

  constructor(
    @InjectDataSource(CONTACTS_CONNECTION) ds: DataSource,
    @Inject(EventBus) bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
  ) {
    this.relay = new OutboxRelay({ schema: CONTACTS_SCHEMA, dataSource: ds, bus, batchSize: 500 });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.roles.relay) await this.relay.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.relay.stop();
  }

  kick(): void {
    if (this.roles.relay) this.relay.kick();
  }
}

/** One transaction whose events go to the outbox in that same transaction; the relay is kicked after commit. */
@Injectable()
export class ContactsUnitOfWork {
  constructor(
    @InjectDataSource(CONTACTS_CONNECTION) private readonly ds: DataSource,
    private readonly relay: ContactsOutboxRelay,
  ) {}

  async run<T>(work: (m: EntityManager, emit: Emit) => Promise<T>): Promise<T> {
    const traceId = RequestContext.current()?.traceId ?? null;
    let wrote = false;
    const result = await this.ds.transaction(async (m) => {
      const pending: OutgoingEvent[] = [];
      const emit: Emit = (def, data, accountId) => {
        pending.push(createEnvelope(def, data, { accountId, source: 'contacts', traceId }));
      };
      const value = await work(m, emit);
      await Outbox.add(m, CONTACTS_SCHEMA, pending);
      wrote = pending.length > 0;
      return value;
    });
    if (wrote) this.relay.kick();
    return result;
  }

  /** Events built outside `run` (the import runner's own transaction). */
  envelope<T>(def: EventDefinition<T>, data: T, accountId: string): OutgoingEvent {
    return createEnvelope(def, data, { accountId, source: 'contacts', traceId: null });
  }

  kick(): void {
    this.relay.kick();
  }
}

/** Browser-facing progress: `rt.<account>.imports`, `rt.<account>.contact_lists`, `rt.<account>.tasks`. Best effort. */
@Injectable()
export class ContactsRealtime {
  private readonly log = new Logger('contacts');

  constructor(@Inject(RealtimeFanout) private readonly fanout: RealtimeFanout) {}

  publish(accountId: string, topic: 'imports' | 'contact_lists' | 'tasks' | 'contacts', type: string, data: Record<string, unknown>, id?: string): void {
    const subject = id ? realtimeSubject(accountId, topic, id) : realtimeSubject(accountId, topic);
    this.fanout.publish(subject, { accountId, topic, type, data }).catch((e: unknown) => this.log.warn(`realtime ${subject}: ${String(e)}`));
  }
}
