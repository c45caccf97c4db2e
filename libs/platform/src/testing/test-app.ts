import { Test, type TestingModuleBuilder } from '@nestjs/testing';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { DynamicModule, ForwardReference, Type } from '@nestjs/common';
import { generateSigningKeys, TokenSigner, TokenVerifier, type AccessClaims, type KeyPair } from '../auth/tokens';
import { EventBus } from '../bus/event-bus';
import { InMemoryEventBus } from '../bus/in-memory-event-bus';
import { configureHttpApp } from '../http/http-app';
import { DevMailbox, Mailer } from '../mail/mailer';
import { PlatformModule } from '../module/platform.module';
import { InMemoryRealtime } from '../realtime/in-memory-realtime';
import { RealtimeFanout } from '../realtime/realtime';
import { createTestDatabase, type TestDatabase } from './database';

export interface TestApp {
  app: NestExpressApplication;
  /** Base URL of the listening server (127.0.0.1, random port). */
  url: string;
  db: TestDatabase;
  keys: KeyPair;
  bus: EventBus;
  realtime: RealtimeFanout;
  mailbox: DevMailbox;
  /** Signs an access token as the auth service would, for tests of other services. */
  token: (claims: Partial<Omit<AccessClaims, 'typ'>> & { sub: string }) => string;
  close: () => Promise<void>;
}

export interface TestAppOptions {
  imports: Array<Type<unknown> | DynamicModule | Promise<DynamicModule> | ForwardReference>;
  /** Build the imports once the database and keys exist (most service modules need them). */
  override?: (builder: TestingModuleBuilder) => TestingModuleBuilder;
  bus?: EventBus;
  realtime?: RealtimeFanout;
  trustProxy?: string | false;
  /** As PlatformDrivers.followAccounts: false for a process without an event bus (the standalone gateway). */
  followAccounts?: boolean;
  /** Verify (and sign test tokens) with another process's keys, e.g. a gateway in front of a test auth service. */
  keys?: KeyPair;
}

/**
 * Boots service modules the way the embedded server does, against a fresh database on the run's real PostgreSQL,
 * with the in-memory bus and realtime and a dev mailbox, listening on 127.0.0.1.
 */
export async function createTestApp(
  build: (ctx: { db: TestDatabase; keys: KeyPair; mailbox: DevMailbox }) => TestAppOptions,
  /** Another app's database (a second replica of a service): this app's `close()` leaves it to its owner. */
  shared?: { db: TestDatabase; keys: KeyPair },
): Promise<TestApp> {
  const db = shared?.db ?? (await createTestDatabase());
  const generated = shared?.keys ?? generateSigningKeys();
  const mailbox = new DevMailbox();
  const opts = build({ db, keys: generated, mailbox });
  const keys = opts.keys ?? generated;
  const bus = opts.bus ?? new InMemoryEventBus();
  const realtime = opts.realtime ?? new InMemoryRealtime();
  let builder = Test.createTestingModule({
    imports: [
      PlatformModule.forRoot({ bus, realtime, mailer: mailbox as Mailer, verifier: new TokenVerifier(keys.publicKey), databaseUrl: db.url, processName: 'test', followAccounts: opts.followAccounts }),
      ...opts.imports,
    ],
  });
  if (opts.override) builder = opts.override(builder);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>({ logger: ['error', 'warn'] });
  configureHttpApp(app, { trustProxy: opts.trustProxy ?? false });
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  const signer = new TokenSigner(keys.privateKey);
  return {
    app,
    url: `http://127.0.0.1:${address.port}`,
    db,
    keys,
    bus,
    realtime,
    mailbox,
    token: (c) =>
      signer.signAccess({ email: `${c.sub}@test.local`, acc: null, perms: [], roles: [], sa: false, sid: 'test', ...c }, 900),
    close: async () => {
      await app.close();
      if (!shared) await db.drop();
    },
  };
}
