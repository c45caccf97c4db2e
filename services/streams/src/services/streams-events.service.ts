import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { EventDefinition } from '@switchboard/contracts';
import {
  createEnvelope,
  EventBus,
  PROCESS_ROLES,
  RequestContext,
  currentTraceparent,
  ServiceOutboxRelay,
  timeOrderedUuid,
  UnitOfWork,
  type OutgoingEvent,
  type ProcessRoles,
  type UnitOfWorkEmit,
} from '@switchboard/platform';
import { Clock } from '../clock';
import { SEND_ROWS_BOUND, SEND_ROWS_EVENT_BOUND, SEND_ROWS_UNPACK } from './accept-batches';
import { STREAMS_CONNECTION, STREAMS_SCHEMA } from '../streams.options';

/** Adds an event to the unit of work: it is written to `streams.outbox` in the same transaction. */
export type Emit = UnitOfWorkEmit;

/** Publishes `streams.outbox` on the bus, in processes that run the relay role. */
@Injectable()
export class StreamsOutboxRelay extends ServiceOutboxRelay {
  constructor(
    @InjectDataSource(STREAMS_CONNECTION) ds: DataSource,
    @Inject(EventBus) bus: EventBus,
    @Inject(PROCESS_ROLES) roles: ProcessRoles,
  ) {
    // Large batches: every accepted send writes two rows, at thousands of sends a second.
    // A send batch's row written with chargeBatches or acceptBatches on: its charges (docs/decisions/0178), its accepted
    // events (0181) or both leave as one event per account. Every streams relay reads every such row type, whatever its
    // own process's options, so a replica with an option off still publishes another's rows.
    super(STREAMS_SCHEMA, ds, bus, roles, { batchSize: 5000, unpack: SEND_ROWS_UNPACK, unpackBound: SEND_ROWS_BOUND, unpackEventBound: SEND_ROWS_EVENT_BOUND });
  }

  // before the platform stops the bus (onApplicationShutdown)
  override async onModuleDestroy(): Promise<void> {
    if (this.soon) clearTimeout(this.soon);
    await super.onModuleDestroy();
  }

  private soon?: NodeJS.Timeout;

  /**
   * A kick within `ms`: the send path writes thousands of rows a second, and a relay pass per send would publish them
   * one or two at a time, each pass a transaction of its own. Batched, dispatch sees them at most `ms` later.
   */
  kickSoon(ms = 10): void {
    if (!this.roles.relay || this.soon) return;
    this.soon = setTimeout(() => {
      this.soon = undefined;
      this.relay.kick();
    }, ms);
    this.soon.unref();
  }
}

/** One database transaction with the events it produces written to the outbox in it; the relay is kicked after commit. */
@Injectable()
export class StreamsUnitOfWork extends UnitOfWork {
  constructor(
    @InjectDataSource(STREAMS_CONNECTION) ds: DataSource,
    relay: StreamsOutboxRelay,
    private readonly clock: Clock,
  ) {
    super({ dataSource: ds, schema: STREAMS_SCHEMA, source: 'streams', relay, now: () => clock.now() });
  }

  envelope<T>(def: EventDefinition<T>, data: T, accountId: string | null): OutgoingEvent<T> {
    return createEnvelope(def, data, { accountId, source: 'streams', traceId: RequestContext.current()?.traceId ?? null, occurredAt: this.clock.now() });
  }

  /**
   * An envelope without the schema check of `createEnvelope`: for the send path only, whose data is built field by
   * field in typed code (the stream API tests parse what it emits against the schemas). Zod costs more than the rest
   * of building a send.
   */
  trustedEnvelope<T>(def: EventDefinition<T>, data: T, accountId: string | null): Omit<OutgoingEvent<T>, 'topic'> {
    return {
      id: timeOrderedUuid(), // as createEnvelope's (docs/decisions/0161)
      type: def.type,
      version: def.version,
      occurredAt: this.clock.now().toISOString(),
      source: 'streams',
      accountId,
      traceId: RequestContext.current()?.traceId ?? null,
      traceparent: currentTraceparent(),
      key: def.key(data),
      data,
    };
  }
}
