import { Logger, type LoggerService, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { realtimeSubject, type EventDefinition } from '@switchboard/contracts';
import type { DataSource, EntityManager } from 'typeorm';
import { createEnvelope, type EventBus, type OutgoingEvent } from '../bus/event-bus';
import { RequestContext } from '../context/request-context';
import type { ProcessRoles } from '../module/platform.module';
import type { RealtimeFanout } from '../realtime/realtime';
import { Outbox } from './outbox';
import { OutboxRelay, type OutboxRelayOptions } from './outbox-relay';

/** Adds an event to the unit of work: it is written to the service's outbox in the same transaction. */
export type UnitOfWorkEmit = <T>(def: EventDefinition<T>, data: T, accountId: string | null) => void;

/** A browser notification on `rt.<accountId>.<topic>`, sent once the transaction committed. */
export interface LiveUpdate {
  accountId: string;
  type: string;
  data: unknown;
}
export type UnitOfWorkNotify = (update: LiveUpdate) => void;

/**
 * Publishes a service schema's outbox on the bus, in processes that run the relay role. Plain class: each service
 * subclasses it with an explicit, decorated constructor that calls `super` (STYLE: no base class that injects).
 */
export class ServiceOutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly outboxRelay: OutboxRelay;

  constructor(
    schema: string,
    dataSource: DataSource,
    bus: EventBus,
    protected readonly roles: ProcessRoles,
    options: Omit<OutboxRelayOptions, 'schema' | 'dataSource' | 'bus'> = {},
  ) {
    this.outboxRelay = new OutboxRelay({ ...options, schema, dataSource, bus });
  }

  get relay(): OutboxRelay {
    return this.outboxRelay;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.roles.relay) await this.outboxRelay.start();
  }

  // before the platform stops the bus (onApplicationShutdown)
  async onModuleDestroy(): Promise<void> {
    await this.outboxRelay.stop();
  }

  kick(): void {
    if (this.roles.relay) this.outboxRelay.kick();
  }
}

export interface UnitOfWorkOptions {
  dataSource: DataSource;
  /** The schema whose `outbox` table the events go to. */
  schema: string;
  /** The envelopes' `source`: the service name. */
  source: string;
  /** Kicked after a commit that wrote events, so they leave at once rather than at the next poll. */
  relay: Pick<ServiceOutboxRelay, 'kick'>;
  /** Where `notify` publishes, on `rt.<accountId>.<topic>`; without it, `notify` throws (rolling back the work). */
  realtime?: { fanout: RealtimeFanout; topic: string };
  /** The envelopes' `occurredAt`; the current time when absent. */
  now?: () => Date;
  logger?: Pick<LoggerService, 'warn'>;
  /**
   * A unit whose events come to this many characters of JSON or more writes them as ONE packed outbox row
   * (Outbox.addPacked: plain text stored uncompressed out of line) instead of a jsonb row each: PostgreSQL then neither
   * parses the document on insert nor rebuilds its text for the relay, about 7 µs of its CPU per 215 bytes of a
   * campaign's send-batch request (docs/decisions/0202). The relay publishes the same events in the same order. The
   * schema's outbox needs the `packed` column (addPackedOutboxColumn). Absent: every event a jsonb row.
   */
  packOver?: number;
}

/**
 * One database transaction with the events it produces written to the outbox inside it (they leave if and only if
 * the rows they describe commit), and the realtime notifications it produces sent after it commits (never for a
 * rolled-back change). Plain class: services subclass it with an explicit, decorated constructor.
 */
export class UnitOfWork {
  private readonly logger: Pick<LoggerService, 'warn'>;

  constructor(protected readonly unitOptions: UnitOfWorkOptions) {
    this.logger = unitOptions.logger ?? new Logger(unitOptions.source);
  }

  async run<T>(work: (m: EntityManager, emit: UnitOfWorkEmit, notify: UnitOfWorkNotify) => Promise<T>): Promise<T> {
    const { dataSource, schema, source, now } = this.unitOptions;
    const traceId = RequestContext.current()?.traceId ?? null;
    const live: LiveUpdate[] = [];
    const notify: UnitOfWorkNotify = (u) => {
      if (!this.unitOptions.realtime) throw new Error(`${source}: notify without a realtime fan-out`);
      live.push(u);
    };
    let wrote = false;
    const result = await dataSource.transaction(async (m) => {
      const pending: OutgoingEvent[] = [];
      const emit: UnitOfWorkEmit = (def, data, accountId) => {
        pending.push(createEnvelope(def, data, { accountId, source, traceId, occurredAt: now?.() }));
      };
      const value = await work(m, emit, notify);
      const packOver = this.unitOptions.packOver;
      const json = packOver !== undefined && pending.length > 0 ? JSON.stringify(pending) : null;
      if (json !== null && json.length >= packOver!) await Outbox.addPacked(m, schema, pending, json);
      else await Outbox.add(m, schema, pending);
      wrote = pending.length > 0;
      return value;
    });
    if (wrote) this.unitOptions.relay.kick();
    await this.publish(live);
    return result;
  }

  /** Realtime is a courtesy to open browsers: a failure is logged, never turned into a failed request. */
  async publish(updates: LiveUpdate[]): Promise<void> {
    const realtime = this.unitOptions.realtime;
    if (!realtime || updates.length === 0) return;
    for (const u of updates) {
      try {
        await realtime.fanout.publish(realtimeSubject(u.accountId, realtime.topic), { accountId: u.accountId, topic: realtime.topic, type: u.type, data: u.data });
      } catch (e) {
        this.logger.warn(`realtime publish for account ${u.accountId} failed: ${(e as Error).message}`);
      }
    }
  }
}
