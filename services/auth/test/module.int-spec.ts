import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Client } from 'pg';
import { listRoutes } from '@switchboard/platform';
import { CaptchaVerifier, TENANT_OWNER_ROLE } from '../src';
import { ALL_ROUTES } from './routes';
import { startAuth, claimsOf, type AuthTestApp } from './support';

/** Accepts only the token `human`: stands in for a real captcha provider. */
class StrictCaptcha extends CaptchaVerifier {
  readonly seen: Array<string | undefined> = [];
  async verify(token: string | undefined): Promise<boolean> {
    this.seen.push(token);
    return token === 'human';
  }
}

describe('auth module', () => {
  let a: AuthTestApp;
  const captcha = new StrictCaptcha();

  beforeAll(async () => {
    a = await startAuth({ captcha });
  });
  afterAll(async () => {
    await a?.close();
  });

  it('declares an access rule on every route', () => {
    const routes = listRoutes(a.t.app);
    expect(routes.map((r) => `${r.method} ${r.path}`).sort()).toEqual([...ALL_ROUTES].sort());
    const undeclared = routes.filter((r) => !r.rule).map((r) => `${r.method} ${r.path}`);
    expect(undeclared).toEqual([]);
  });

  it('describes its routes in OpenAPI', () => {
    const doc = SwaggerModule.createDocument(a.t.app, new DocumentBuilder().build());
    const expected = [...new Set(ALL_ROUTES.map((r) => `/api${r.split(' ')[1].replace(/:(\w+)/g, '{$1}')}`))].sort();
    expect(Object.keys(doc.paths).sort()).toEqual(expected);
    const schemas = doc.components?.schemas ?? {};
    expect(Object.keys(schemas)).toEqual(
      expect.arrayContaining(['LoginCheckDto', 'LoginManualDto', 'TokenPairDto', 'UpdateProfileDto', 'CreateRoleDto', 'CreateInviteDto', 'RegisterDto', 'CreateApiKeyDto', 'LoginAsDto']),
    );
  });

  it('seeds a super admin, a demo account and the owner membership, idempotently', async () => {
    const input = { adminEmail: 'Admin@Switchboard.local', adminPassword: 'switchboard-admin', demoAccountName: 'Demo account' };
    const first = await a.seed.seed(input);
    expect(first).toMatchObject({ created: true, adminCreated: true });
    const again = await a.seed.seed({ ...input, adminPassword: 'another password' });
    expect(again).toEqual({ ...first, created: false, adminCreated: false });

    const c = new Client({ connectionString: a.t.db.url });
    await c.connect();
    try {
      const users = await c.query(`SELECT email, super_admin FROM auth.app_user WHERE email = 'admin@switchboard.local'`);
      expect(users.rows).toEqual([{ email: 'admin@switchboard.local', super_admin: true }]);
      expect((await c.query(`SELECT count(*)::int AS n FROM auth.account WHERE name = 'Demo account'`)).rows[0].n).toBe(1);
      const owner = await c.query(`SELECT read_only, account_id, cardinality(permissions) AS n FROM auth.role WHERE name = $1`, [TENANT_OWNER_ROLE]);
      expect(owner.rows).toEqual([{ read_only: true, account_id: null, n: expect.any(Number) }]);
      expect(owner.rows[0].n).toBeGreaterThan(80);
    } finally {
      await c.end();
    }

    // the seeded admin signs in with the first password (a later seed does not change it) straight into the demo account
    const s = await a.call('POST', '/login_check', { body: { username: 'admin@switchboard.local', password: 'switchboard-admin', gCaptchaToken: 'human' } });
    expect(s.status).toBe(200);
    const login = await a.call<{ token: string }>('POST', '/login/manual', {
      body: { username: 'admin@switchboard.local', password: 'switchboard-admin', gCaptchaToken: 'human', pin: a.lastPin('admin@switchboard.local') },
    });
    expect(login.status).toBe(200);
    expect(claimsOf(login.body.token)).toMatchObject({ acc: first.demoAccountId, sa: true });

    const events = await a.events();
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'auth.user.signed_in', source: 'auth', accountId: first.demoAccountId, data: expect.objectContaining({ userId: first.adminUserId, accountId: first.demoAccountId }) }),
    );
  });

  it('checks the captcha before the password: a failed captcha is 400 and sends no PIN', async () => {
    await a.seed.createUser({ email: 'bot@example.com', password: 'correct horse battery' });
    const before = a.t.mailbox.list().length;
    const res = await a.call('POST', '/login_check', { body: { username: 'bot@example.com', password: 'correct horse battery', gCaptchaToken: 'robot' } });
    expect(res.status).toBe(400);
    expect(res.body.violations).toEqual([expect.objectContaining({ propertyPath: 'gCaptchaToken' })]);
    expect(a.t.mailbox.list().length).toBe(before);
    expect(captcha.seen).toContain('robot');
    expect((await a.call('POST', '/login_check', { body: { username: 'bot@example.com', password: 'correct horse battery' } })).status).toBe(400);
  });
});
