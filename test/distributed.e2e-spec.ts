import * as path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import type { z } from 'zod';
import { SmppPeer } from '@switchboard/dispatch';
import {
  apiClient,
  createTestDatabase,
  decodeQuotedPrintable,
  documentedEnvironment,
  documentedServices,
  exampleEnvironment,
  localEnvironment,
  startDistributedMode,
  startKafkaMock,
  startNatsServer,
  startSmtpSink,
  type ApiCall,
  type DistributedMode,
  type RunningBroker,
  type TestDatabase,
} from '@switchboard/platform/testing';
import { buildServer, repoRoot } from '../apps/platform/test/server-process';

/**
 * Issue 17: "a test starts the distributed mode from the documented variables alone and signs in" (and sends). Every
 * service the README lists runs as its own process from the build, given only the variables the README's table
 * documents for it with deploy/.env.example's values (`startDistributedMode`: a service needing an undocumented
 * variable refuses to start, and the test with it), on a Kafka mock cluster, NATS, PostgreSQL and an SMTP sink of this
 * file's own. The super administrator seeded from `SWITCHBOARD_ADMIN_*` signs in through the gateway with the PIN
 * mailed over SMTP, then follows the README's "Send through your SMPP carrier" to a local SMSC: vendor, route, sender
 * approval, stream, a send through the stream API, and the delivery receipt.
 */
describe('distributed mode started from the README and deploy/.env.example alone', () => {
  let db: TestDatabase;
  let kafka: RunningBroker;
  let nats: RunningBroker;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  let smsc: SmppPeer;
  let smscPort = 0;
  let dist: DistributedMode;
  let call: ApiCall;
  let admin = '';
  const password = 'distributed secret';
  // the processes this file starts (booting all twelve costs minutes of CPU on a loaded 2-core runner); every service
  // the README lists has its documented environment checked against its config schema below
  const started = ['gateway', 'auth', 'accounts', 'contacts', 'streams', 'dispatch'];

  const until = async <T>(what: string, fn: () => Promise<T | null | undefined | false>, ms = 60_000): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      const v = await fn();
      if (v) return v;
      if (Date.now() > end) throw new Error(`not reached in ${ms} ms: ${what}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };

  beforeAll(async () => {
    buildServer();
    [db, kafka, nats, smtp] = await Promise.all([createTestDatabase(), startKafkaMock(1), startNatsServer(), startSmtpSink()]);
    smsc = new SmppPeer({ systemId: 'acme', password: 'secret', receiptDelayMs: 200 });
    smscPort = await smsc.listen();
    dist = await startDistributedMode({ root: repoRoot, databaseUrl: db.url, kafkaBrokers: kafka.url, natsUrl: nats.url, smtpUrl: `smtp://127.0.0.1:${smtp.port}`, adminPassword: password, services: started });
    call = apiClient(dist.url);
  }, 900_000);

  afterAll(async () => {
    await dist?.stop();
    await smsc?.close();
    await smtp?.close();
    await nats?.stop();
    await kafka?.stop();
    await db?.drop();
  }, 60_000);

  it('gives every service the README lists an environment of documented variables alone that its config schema accepts', () => {
    const services = documentedServices(repoRoot);
    expect(services).toEqual(expect.arrayContaining([...started, 'campaigns', 'links', 'inbox', 'webhooks', 'stats', 'integrations']));
    const ports = new Map(services.map((s, i) => [s, 40_000 + i]));
    const local = localEnvironment({ databaseUrl: 'postgres://u:p@127.0.0.1:5432/db', kafkaBrokers: '127.0.0.1:9092', natsUrl: 'nats://127.0.0.1:4222', smtpUrl: 'smtp://127.0.0.1:25', scratch: '/tmp', ports });
    const envs = documentedEnvironment(repoRoot, services, local, exampleEnvironment(repoRoot, password));
    for (const s of services) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- each service's own config module, found by name
      const schema = (require(path.join(repoRoot, 'services', s, 'src', `${s}.config`)) as Record<string, z.ZodTypeAny>)[`${s}ConfigSchema`];
      const parsed = schema.safeParse({ ...envs.get(s), PORT: String(ports.get(s)) });
      expect({ s, issues: parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`) }).toEqual({ s, issues: [] });
    }
    for (const p of dist.processes.values()) expect(p.alive()).toBe(true);
    expect([...dist.processes.keys()].sort()).toEqual([...started].sort());
  });

  it('signs the seeded super administrator in through the gateway with the PIN mailed over SMTP, and the sign-in travels on Kafka', async () => {
    const email = dist.example.get('SWITCHBOARD_ADMIN_EMAIL') ?? '';
    expect(email).toContain('@');
    const creds = { username: email, password, gCaptchaToken: 'x' };
    expect((await call('POST', '/login_check', { body: creds })).status).toBe(200);
    const mail = await until('the PIN mail', async () => smtp.mails.find((m) => m.to.includes(email)));
    const pin = /\b(\d{6})\b/.exec(decodeQuotedPrintable(mail.data).split('\r\n\r\n').slice(1).join('\n'))?.[1];
    expect(pin).toMatch(/^\d{6}$/);
    const login = await call<{ token: string }>('POST', '/login/manual', { body: { ...creds, pin } });
    expect(login.status).toBe(200);
    admin = login.body.token;
    const me = await call<{ email: string }>('GET', '/users/connected', { token: admin });
    expect(me.status).toBe(200);
    expect(me.body.email).toBe(email);

    // the auth service's outbox relay published auth.user.signed_in to Kafka
    const consumer = new Kafka({ clientId: 'dist-test', brokers: kafka.url.split(','), logLevel: logLevel.NOTHING }).consumer({ groupId: `dist-test-${Date.now()}`, sessionTimeout: 6000, heartbeatInterval: 500 });
    await consumer.connect();
    await consumer.subscribe({ topic: 'switchboard.auth', fromBeginning: true });
    const seen = await new Promise<string[]>((resolve) => {
      const types: string[] = [];
      const timer = setTimeout(() => resolve(types), 30_000);
      void consumer.run({
        eachMessage: async ({ message }) => {
          types.push((JSON.parse(message.value?.toString() ?? '{}') as { type: string }).type);
          if (types.includes('auth.user.signed_in')) {
            clearTimeout(timer);
            resolve(types);
          }
        },
      });
    });
    await consumer.disconnect();
    expect(seen).toContain('auth.user.signed_in');
  }, 120_000);

  it('sends a message through the stream API to the SMPP carrier, as the README walks through, and sees it delivered', async () => {
    expect(admin).not.toBe('');
    const vendor = await call<{ id: number }>('POST', '/service_type_manager/vendor', {
      token: admin,
      body: { name: 'Acme SMSC', service_type: 'sms', adapter: 'smpp', carrier: 'Acme Telecom', currency: 'EUR', config: { host: '127.0.0.1', port: smscPort, systemId: 'acme', password: 'secret', tps: 50 } },
    });
    expect(vendor.status).toBe(201);
    expect((await call('PUT', '/service_type_manager/countries_mapping', { token: admin, body: { iso2: 'GB', serviceType: 'sms', vendorIds: [String(vendor.body.id)] } })).status).toBe(200);
    await call('POST', '/service_type_manager/refresh', { token: admin });
    // SEED_DEMO: the accounts service created the demo account, streams learns it from its event
    const sender = await until('the sender (the demo account reached streams)', async () => {
      const r = await call<{ id: number }>('POST', '/senders', { token: admin, body: { name: 'Acme', value: 'ACME' } });
      return r.status === 201 ? r.body : null;
    });
    expect((await call('PUT', `/senders/superadmin/${sender.id}`, { token: admin, body: { approved: 1 } })).status).toBe(200);
    const stream = await call<{ id: number }>('POST', '/streams', { token: admin, body: { name: 'Order notifications', streamType: 2, sender: 'ACME' } });
    expect(stream.status).toBe(201);
    const st = (await call<{ token: string }>('GET', `/streams/token/${stream.body.id}`, { token: admin })).body.token;
    expect(st).toMatch(/^sbs_/);

    const sent = await call<{ message_uuid: string; status: string; country: string }>('POST', '/streams/messages', {
      headers: { authorization: st, 'idempotency-key': 'order-1234' },
      body: { phone: '+447400123456', message: 'Your order 1234 has shipped' },
    });
    expect({ status: sent.status, body: sent.body }).toMatchObject({ status: 202, body: { status: 'accepted', country: 'GB' } });
    const uuid = sent.body.message_uuid;

    // the SMSC got it, and its receipt made it delivered
    const final = await until(
      'the delivery receipt',
      async () => {
        const r = await call<{ status: string }>('GET', `/streams/message_status?message_uuid=${uuid}`, { token: admin });
        return r.body?.status === 'delivered' ? r.body : null;
      },
      90_000,
    );
    expect(final.status).toBe('delivered');
    expect(smsc.parts.filter((p) => p.destination.endsWith('447400123456') && p.text === 'Your order 1234 has shipped')).toHaveLength(1);
  }, 180_000);

  it('refuses unauthenticated calls at the services behind the gateway', async () => {
    const res = await call<{ code: string }>('GET', '/users/connected');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('0x11');
  });
});
