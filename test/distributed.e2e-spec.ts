import { Kafka, logLevel } from 'kafkajs';
import { freePort, generateSigningKeys } from '@switchboard/platform';
import { createTestDatabase, kafkaTestBrokers, natsTestUrl, type TestDatabase } from '@switchboard/platform/testing';
import { buildServer, json, startProcess, type ServerProcess } from '../apps/platform/test/server-process';
import { decodeQuotedPrintable, startSmtpSink } from './support/smtp-sink';

/**
 * Distributed mode: the gateway and the auth service as separate processes, the Kafka bus (librdkafka's mock
 * cluster), NATS realtime, SMTP mail (a local sink). A user signs in through the gateway.
 */
describe('distributed mode: gateway and auth as separate processes', () => {
  let db: TestDatabase;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  let auth: ServerProcess;
  let gateway: ServerProcess;
  let base: string;
  const b64 = (s: string) => Buffer.from(s).toString('base64');

  beforeAll(async () => {
    buildServer();
    db = await createTestDatabase();
    smtp = await startSmtpSink();
    const keys = generateSigningKeys();
    const common = { NATS_URL: natsTestUrl(), KAFKA_BROKERS: kafkaTestBrokers().join(','), TRUST_PROXY: 'false' };
    const migrate = startProcess('dist/services/auth/src/migrate.js', { DATABASE_URL: db.url });
    const migrated = await migrate.exited();
    if (migrated !== 0) throw new Error(`auth migration failed: ${migrate.output()}`);

    const authPort = await freePort();
    auth = startProcess('dist/services/auth/src/main.js', {
      ...common,
      PORT: String(authPort),
      HOST: '127.0.0.1',
      DATABASE_URL: db.url,
      JWT_PRIVATE_KEY: b64(keys.privateKey),
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      MAIL_FROM: 'Switchboard <no-reply@switchboard.test>',
      CAPTCHA: 'none',
      SWITCHBOARD_ADMIN_EMAIL: 'ops@example.com',
      SWITCHBOARD_ADMIN_PASSWORD: 'distributed secret',
    });
    await auth.waitFor(/listening on/, 60000);

    const gwPort = await freePort();
    gateway = startProcess('dist/services/gateway/src/main.js', {
      ...common,
      PORT: String(gwPort),
      HOST: '127.0.0.1',
      JWT_PUBLIC_KEY: b64(keys.publicKey),
      GATEWAY_ROUTES: `auth=http://127.0.0.1:${authPort}`,
    });
    base = `http://127.0.0.1:${gwPort}`;
    for (let i = 0; i < 100; i++) {
      const ok = await fetch(`${base}/api/health`).then((r) => r.ok, () => false);
      if (ok) break;
      await new Promise((r) => setTimeout(r, 200));
    }
  }, 180000);

  afterAll(async () => {
    await gateway?.stop();
    await auth?.stop();
    await smtp?.close();
    await db?.drop();
  });

  it('signs in through the gateway with the PIN mailed over SMTP, and the sign-in travels on Kafka', async () => {
    const creds = { username: 'ops@example.com', password: 'distributed secret', gCaptchaToken: 'x' };
    const post = (path: string, body: unknown) =>
      fetch(`${base}/api${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

    const check = await post('/login_check', creds);
    expect(check.status).toBe(200);
    for (let i = 0; i < 50 && smtp.mails.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(smtp.mails[0].to).toEqual(['ops@example.com']);
    const pin = /\b(\d{6})\b/.exec(decodeQuotedPrintable(smtp.mails[0].data).split('\r\n\r\n').slice(1).join('\n'))?.[1];
    expect(pin).toMatch(/^\d{6}$/);

    const login = await post('/login/manual', { ...creds, pin });
    expect(login.status).toBe(200);
    const { token } = await json<{ token: string }>(login);
    const me = await fetch(`${base}/api/users/connected`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);
    expect((await json<{ email: string }>(me)).email).toBe('ops@example.com');

    // the auth service's outbox relay published auth.user.signed_in to Kafka
    const kafka = new Kafka({ clientId: 'dist-test', brokers: kafkaTestBrokers(), logLevel: logLevel.NOTHING });
    const consumer = kafka.consumer({ groupId: `dist-test-${Date.now()}`, sessionTimeout: 6000, heartbeatInterval: 500 });
    await consumer.connect();
    await consumer.subscribe({ topic: 'switchboard.auth', fromBeginning: true });
    const seen = await new Promise<string[]>((resolve) => {
      const types: string[] = [];
      const timer = setTimeout(() => resolve(types), 20000);
      void consumer.run({
        eachMessage: async ({ message }) => {
          const env = JSON.parse(message.value?.toString() ?? '{}') as { type: string };
          types.push(env.type);
          if (env.type === 'auth.user.signed_in') {
            clearTimeout(timer);
            resolve(types);
          }
        },
      });
    });
    await consumer.disconnect();
    expect(seen).toContain('auth.user.signed_in');
  }, 60000);

  it('refuses unauthenticated calls at the service behind the gateway', async () => {
    const res = await fetch(`${base}/api/users/connected`);
    expect(res.status).toBe(401);
    expect((await json(res)).code).toBe('0x11');
  });
});
