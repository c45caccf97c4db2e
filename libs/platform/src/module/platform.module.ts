import { Global, Module, type DynamicModule, type OnApplicationBootstrap, type OnApplicationShutdown, type OnModuleInit, Inject } from '@nestjs/common';
import { APP_GUARD, DiscoveryModule } from '@nestjs/core';
import { followRealtimeRevocations, registerRevocationConsumer, RevocationList } from '../auth/revocations';
import { TokenVerifier } from '../auth/tokens';
import { EventBus } from '../bus/event-bus';
import { AccessGuard } from '../http/access.guard';
import { RedactingLogger } from '../http/redact';
import { Mailer } from '../mail/mailer';
import { RealtimeFanout } from '../realtime/realtime';
import { AccountDirectory, InMemoryAccountDirectory, registerAccountDirectoryConsumer } from '../tenancy/account-directory';
import { hostname } from 'node:os';
import { Pool } from 'pg';
import { DeadLetterReplayer } from '../deadletter/replayer';
import { DeadLetterStore, poolClient } from '../deadletter/store';

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
  /**
   * Follow account statuses from `accounts.customer.*` events so the guard closes disabled accounts (default true).
   * Off for processes without an event bus (the standalone gateway: the services behind it enforce it).
   */
  followAccounts?: boolean;
}

export const PROCESS_NAME = Symbol('PROCESS_NAME');
const FOLLOW_ACCOUNTS = Symbol('FOLLOW_ACCOUNTS');
const DEAD_LETTER_POOL = Symbol('DEAD_LETTER_POOL');

/** A small pool of its own for the dead-letter store: it must work while the services' pools are busy or broken. */
class DeadLetterPool {
  readonly pool: Pool | null;
  constructor(url: string) {
    this.pool = url ? new Pool({ connectionString: url, max: 2, idleTimeoutMillis: 10_000, connectionTimeoutMillis: 5000 }) : null;
    // An idle client losing its server (a restart) must not crash the process.
    this.pool?.on('error', () => undefined);
    this.pool?.on('connect', (client) => client.on('error', () => undefined));
  }
}

class BusLifecycle implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(RealtimeFanout) private readonly realtime: RealtimeFanout,
    @Inject(AccountDirectory) private readonly accounts: InMemoryAccountDirectory,
    @Inject(PROCESS_NAME) private readonly processName: string,
    @Inject(FOLLOW_ACCOUNTS) private readonly followAccounts: boolean,
    @Inject(DEAD_LETTER_POOL) private readonly deadLetterPool: DeadLetterPool,
    @Inject(DeadLetterStore) private readonly deadLetters: DeadLetterStore,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    @Inject(RevocationList) private readonly revocations: RevocationList,
  ) {}

  private replayer?: DeadLetterReplayer;
  private stopRealtimeRevocations?: () => Promise<void>;

  // Every process keeps its own directory and so needs every customer event: one group per process (the host name
  // is the pod name in k8s), subscribed before the bus starts.
  async onModuleInit(): Promise<void> {
    // Given-up events go to their service's dead_letter table (groups are named `<service>.<purpose>`).
    if (this.deadLetterPool.pool) this.bus.useDeadLetters(this.deadLetters);
    if (!this.followAccounts) {
      // No event bus (the standalone gateway): revocations come from auth's mirror on the realtime fan-out.
      this.stopRealtimeRevocations = await followRealtimeRevocations(this.realtime, this.revocations);
      return;
    }
    // The deny list of the access guard: every process needs every revocation (a group per process and boot).
    await registerRevocationConsumer(this.bus, this.revocations, this.processName);
    await registerAccountDirectoryConsumer(this.bus, this.accounts, `${this.processName}.account-directory.${hostname()}`);
  }
  // Consumers subscribe during module init; the bus starts delivering once every module is ready.
  async onApplicationBootstrap(): Promise<void> {
    await this.bus.start();
    if (this.deadLetterPool.pool && this.roles.consumers && this.bus.subscribedGroups().length > 0) {
      this.replayer = new DeadLetterReplayer({ store: this.deadLetters, bus: this.bus, publish: this.roles.relay });
      this.replayer.start();
    }
  }
  async onApplicationShutdown(): Promise<void> {
    // Realtime is closed even when the bus fails to stop cleanly.
    try {
      await this.replayer?.stop();
      await this.stopRealtimeRevocations?.().catch(() => undefined);
      await this.bus.stop();
    } finally {
      await this.realtime.close();
      await this.deadLetterPool.pool?.end().catch(() => undefined);
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
    // before the application is created, so even its boot lines (a database URL in a connection error) are redacted
    RedactingLogger.install();
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
        { provide: AccountDirectory, useValue: new InMemoryAccountDirectory() },
        { provide: RevocationList, useValue: new RevocationList() },
        { provide: FOLLOW_ACCOUNTS, useValue: d.followAccounts ?? true },
        { provide: DEAD_LETTER_POOL, useValue: new DeadLetterPool(d.databaseUrl) },
        {
          provide: DeadLetterStore,
          inject: [DEAD_LETTER_POOL],
          useFactory: (p: DeadLetterPool) =>
            new DeadLetterStore(p.pool ? poolClient(p.pool) : { query: () => Promise.reject(new Error('no database configured for dead letters')) }),
        },
        { provide: APP_GUARD, useClass: AccessGuard },
        BusLifecycle,
      ],
      exports: [EventBus, RealtimeFanout, Mailer, TokenVerifier, DATABASE_URL, DeadLetterStore, PROCESS_ROLES, PROCESS_NAME, DATA_DIR, AccountDirectory, RevocationList, DiscoveryModule],
    };
  }
}
