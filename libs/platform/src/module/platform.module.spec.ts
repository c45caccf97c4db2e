import { Inject, Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { EventEnvelope, RealtimeMessage } from '@switchboard/contracts';
import { generateSigningKeys, TokenVerifier } from '../auth/tokens';
import { EventBus, type SubscribeOptions } from '../bus/event-bus';
import { Mailer, type MailMessage } from '../mail/mailer';
import { RealtimeFanout, type RealtimeListener } from '../realtime/realtime';
import { DATA_DIR, DATABASE_URL, PlatformModule, PROCESS_NAME, PROCESS_ROLES, type ProcessRoles } from './platform.module';

class StubBus extends EventBus {
  stopError: Error | null = null;
  async publish(_e: EventEnvelope[]): Promise<void> {}
  async subscribe(_o: SubscribeOptions): Promise<void> {}
  async start(): Promise<void> {}
  async stop(): Promise<void> {
    if (this.stopError) throw this.stopError;
  }
}
class StubRealtime extends RealtimeFanout {
  closed = false;
  async publish(_s: string, _m: Omit<RealtimeMessage, 'id' | 'subject' | 'at'>): Promise<void> {}
  async subscribe(_p: string, _l: RealtimeListener): Promise<() => Promise<void>> {
    return async () => undefined;
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}
class StubMailer extends Mailer {
  async send(_m: MailMessage): Promise<void> {}
}

/** A service module that only sees the abstract drivers and the tokens. */
@Injectable()
class Consumer {
  constructor(
    readonly bus: EventBus,
    readonly mailer: Mailer,
    @Inject(PROCESS_ROLES) readonly roles: ProcessRoles,
    @Inject(DATABASE_URL) readonly url: string,
    @Inject(PROCESS_NAME) readonly name: string,
    @Inject(DATA_DIR) readonly dataDir: string | undefined,
  ) {}
}
@Module({ providers: [Consumer] })
class ServiceModule {}

async function compile(extra: { roles?: Partial<ProcessRoles>; dataDir?: string } = {}) {
  const bus = new StubBus();
  const realtime = new StubRealtime();
  const mailer = new StubMailer();
  const ref = await Test.createTestingModule({
    imports: [
      PlatformModule.forRoot({ bus, realtime, mailer, verifier: new TokenVerifier(generateSigningKeys().publicKey), databaseUrl: 'postgres://db/x', processName: 'auth', ...extra }),
      ServiceModule,
    ],
  }).compile();
  return { ref, bus, realtime, mailer };
}

describe('PlatformModule', () => {
  it('gives every module the drivers and settings of the process', async () => {
    const { ref, bus, mailer } = await compile({ roles: { relay: false }, dataDir: '/data' });
    const c = ref.get(Consumer);
    expect(c.bus).toBe(bus);
    expect(c.mailer).toBe(mailer);
    expect(c.roles).toEqual({ http: true, consumers: true, relay: false, schedulers: true });
    expect(c).toMatchObject({ url: 'postgres://db/x', name: 'auth', dataDir: '/data' });
    await ref.close();
  });

  it('works without a data directory (distributed mode)', async () => {
    const { ref } = await compile();
    expect(ref.get(Consumer).dataDir).toBeUndefined();
    await ref.close();
  });

  it('closes realtime even when the bus fails to stop', async () => {
    const { ref, bus, realtime } = await compile();
    await ref.init();
    bus.stopError = new Error('broker gone');
    await expect(ref.close()).rejects.toThrow('broker gone');
    expect(realtime.closed).toBe(true);
  });
});
