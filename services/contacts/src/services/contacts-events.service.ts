import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { realtimeSubject, type EventDefinition } from '@switchboard/contracts';
import {
  createEnvelope,
  EventBus,
  PROCESS_ROLES,
  RealtimeFanout,
  ServiceOutboxRelay,
  UnitOfWork,
  type OutgoingEvent,
  type ProcessRoles,
  type UnitOfWorkEmit,
} from '@switchboard/platform';
import { CONTACTS_CONNECTION, CONTACTS_SCHEMA } from '../contacts.options';

export type Emit = UnitOfWorkEmit;

/** Publishes `contacts.outbox` on the bus, in processes that run the relay role. */
@Injectable()
export class ContactsOutboxRelay extends ServiceOutboxRelay {
  constructor(
    @InjectDataSource(CONTACTS_CONNECTION) ds: DataSource,
    @Inject(EventBus) bus: EventBus,
    @Inject(PROCESS_ROLES) roles: ProcessRoles,
  ) {
    // 20 events a pass: an audience batch (docs/decisions/0032) holds 2,000 recipients, so a pass holds at most
    // 40,000 of them, whatever the audience's size (memory stays bounded in embedded mode, where a publish waits for
    // the consumers)
    super(CONTACTS_SCHEMA, ds, bus, roles, { batchSize: 20 });
  }
}

/** One transaction whose events go to the outbox in that same transaction; the relay is kicked after commit. */
@Injectable()
export class ContactsUnitOfWork extends UnitOfWork {
  constructor(
    @InjectDataSource(CONTACTS_CONNECTION) ds: DataSource,
    private readonly relay: ContactsOutboxRelay,
  ) {
    super({ dataSource: ds, schema: CONTACTS_SCHEMA, source: 'contacts', relay });
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
