import { Client } from 'pg';
import { DevMailbox } from '@switchboard/platform';
import { startStandaloneService, type StandaloneService } from '@switchboard/platform/testing';
import { AUTH_ENTITIES, AUTH_MIGRATIONS, AuthBootstrapService, loadAuthConfig } from '../src';
import { startAuthService, type RunningAuthService } from '../src/bootstrap';

/** Distributed mode: the auth process on Kafka (librdkafka's mock cluster) and NATS, migrated by the Job's code first. */
describe('standalone auth service', () => {
  let sa: StandaloneService<RunningAuthService>;
  let db: StandaloneService<RunningAuthService>['db'];
  let service: RunningAuthService;
  const mailbox = new DevMailbox();

  beforeAll(async () => {
    sa = await startStandaloneService({
      schema: 'auth',
      entities: AUTH_ENTITIES,
      migrations: AUTH_MIGRATIONS,
      load: loadAuthConfig,
      start: (config) => startAuthService(config, { logger: ['error'], drivers: { mailer: mailbox } }),
      env: ({ JWT_PUBLIC_KEY: _signsItsOwn, ...base }, { keys }) => ({ ...base, JWT_PRIVATE_KEY: keys.privateKey, SMTP_URL: 'smtp://127.0.0.1:1', CAPTCHA: 'none' }),
    });
    ({ db, service } = sa);
  }, 60_000);

  afterAll(async () => {
    await sa?.close();
  });

  it('reports ready and signs a user in, publishing its events from the outbox to Kafka', async () => {
    expect((await fetch(`${service.url}/api/health`)).status).toBe(200);
    await service.app.get(AuthBootstrapService).seed({ adminEmail: 'ops@example.com', adminPassword: 'correct horse battery', demoAccountName: 'Demo' });

    const post = (path: string, body: unknown) =>
      fetch(`${service.url}/api${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const creds = { username: 'ops@example.com', password: 'correct horse battery', gCaptchaToken: 'x' };
    expect((await post('/login_check', creds)).status).toBe(200);
    const pin = /\b(\d{6})\b/.exec(mailbox.list()[0].text)![1];
    const login = await post('/login/manual', { ...creds, pin });
    expect(login.status).toBe(200);

    const c = new Client({ connectionString: db.url });
    await c.connect();
    try {
      let row: { type: string; published: boolean } | undefined;
      for (let i = 0; i < 200 && !row?.published; i++) {
        const r = await c.query<{ type: string; published: boolean }>(`SELECT type, published_at IS NOT NULL AS published FROM auth.outbox WHERE type = 'auth.user.signed_in'`);
        row = r.rows[0];
        if (!row?.published) await new Promise((res) => setTimeout(res, 50));
      }
      expect(row).toEqual({ type: 'auth.user.signed_in', published: true });
    } finally {
      await c.end();
    }
  });
});
