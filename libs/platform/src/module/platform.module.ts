import { Global, Module, type DynamicModule, type OnApplicationBootstrap, type OnApplicationShutdown, Inject } from '@nestjs/common';
import { APP_GUARD, DiscoveryModule } from '@nestjs/core';
import { TokenVerifier } from '../auth/tokens';
import { EventBus } from '../bus/event-bus';
import { AccessGuard } from '../http/access.guard';
import { Mailer } from '../mail/mailer';
import { RealtimeFanout } from '../realtime/realtime';

/** What a process runs, like immich's workers setting: HTTP routes, event consumers, outbox relays, schedulers. */
export interface ProcessRoles {
  http: boolean;
  consumers: boolean;
  relay: boolean;
  schedulers: boolean;
}

export const PROCESS_ROLES = Symbol('PROCESS_ROLES');
export const DATABASE_URL = Symbol('DATABASE_URL');
/** Where embedded mode keeps its state (keys, database); undefined in distributed mode. */
export const DATA_DIR = Symbol('DATA_DIR');

export interface PlatformDrivers {
  bus: EventBus;
  realtime: RealtimeFanout;
  mailer: Mailer;
  verifier: TokenVerifier;
  databaseUrl: string;
  roles?: Partial<ProcessRoles>;
  dataDir?: string;
  /** The embedded server and each standalone service name themselves for event sources and logs. */
  processName: string;
}

export const PROCESS_NAME = Symbol('PROCESS_NAME');

class BusLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(RealtimeFanout) private readonly realtime: RealtimeFanout,
  ) {}
  // Consumers subscribe during module init; the bus starts delivering once every module is ready.
  async onApplicationBootstrap(): Promise<void> {
    await this.bus.start();
  }
  async onApplicationShutdown(): Promise<void> {
    // Realtime is closed even when the bus fails to stop cleanly.
    try {
      await this.bus.stop();
    } finally {
      await this.realtime.close();
    }
  }
}

/**
 * The drivers every service module uses, chosen by the process that boots them (embedded: in-memory bus and
 * realtime, dev mailbox; distributed: Kafka, NATS, SMTP). Service code only sees the abstract classes.
 */
@Global()
@Module({})
export class PlatformModule {
  static forRoot(d: PlatformDrivers): DynamicModule {
    const roles: ProcessRoles = { http: true, consumers: true, relay: true, schedulers: true, ...d.roles };
    return {
      module: PlatformModule,
      imports: [DiscoveryModule],
      providers: [
        { provide: EventBus, useValue: d.bus },
        { provide: RealtimeFanout, useValue: d.realtime },
        { provide: Mailer, useValue: d.mailer },
        { provide: TokenVerifier, useValue: d.verifier },
        { provide: DATABASE_URL, useValue: d.databaseUrl },
        { provide: PROCESS_ROLES, useValue: roles },
        { provide: PROCESS_NAME, useValue: d.processName },
        { provide: DATA_DIR, useValue: d.dataDir },
        { provide: APP_GUARD, useClass: AccessGuard },
        BusLifecycle,
      ],
      exports: [EventBus, RealtimeFanout, Mailer, TokenVerifier, DATABASE_URL, PROCESS_ROLES, PROCESS_NAME, DATA_DIR, DiscoveryModule],
    };
  }
}
