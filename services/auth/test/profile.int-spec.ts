import { startAuth, claimsOf, type AuthTestApp } from './support';

describe('the connected user: profile, preferences and account switch', () => {
  let a: AuthTestApp;
  const password = 'correct horse battery';
  let ids: { user: string; acme: string; globex: string; initech: string; closed: string; admin: string };

  beforeAll(async () => {
    a = await startAuth();
    const user = await a.seed.createUser({ email: 'agent@example.com', password, firstName: 'Ann', lastName: 'Agent' });
    const acme = await a.seed.createAccount({ name: 'Acme', shortName: 'AC', currency: 'USD' });
    const globex = await a.seed.createAccount({ name: 'Globex', shortName: 'GX' });
    const initech = await a.seed.createAccount({ name: 'Initech' }); // the agent is not a member
    const closed = await a.seed.createAccount({ name: 'Closed', status: 'disable' });
    const viewer = await a.seed.createRole({ accountId: globex.id, name: 'Viewer', permissions: ['STREAM_VIEW', 'CAMPAIGN_VIEW'] });
    const inbox = await a.seed.createRole({ accountId: globex.id, name: 'Agent', roleType: 'inbox', permissions: ['INBOX_VIEW'] });
    await a.seed.addMember({ userId: user.id, accountId: acme.id, status: 0 });
    await a.seed.addMember({ userId: user.id, accountId: globex.id, platformRoleId: viewer.id, inboxRoleId: inbox.id, status: 2 });
    await a.seed.addMember({ userId: user.id, accountId: closed.id, status: 2 });
    const admin = await a.seed.createUser({ email: 'root@example.com', password, superAdmin: true });
    ids = { user: user.id, acme: acme.id, globex: globex.id, initech: initech.id, closed: closed.id, admin: admin.id };
  });
  afterAll(async () => {
    await a?.close();
  });

  const update = (token: string, body: unknown) => a.call('PUT', '/users/connected_update', { token, body });
  const me = (token: string) => a.call('GET', '/users/connected', { token });

  it('lists the accounts of a user of several accounts and opens the session in none', async () => {
    const s = await a.signIn('agent@example.com', password);
    expect(claimsOf(s.token).acc).toBeNull();
    const profile = await me(s.token);
    expect(profile.body.customer).toBeNull();
    expect(profile.body.customers).toEqual([
      { id: Number(ids.acme), name: 'Acme', shortName: 'AC', status: 'active', active: 1 },
      { id: Number(ids.closed), name: 'Closed', shortName: 'CL', status: 'disable', active: 0 },
      { id: Number(ids.globex), name: 'Globex', shortName: 'GX', status: 'active', active: 1 },
    ]);
    expect(profile.body.userPermissions).toEqual([]);
  });

  it('switches to a member account: new tokens scoped to it with its role permissions, same session', async () => {
    const s = await a.signIn('agent@example.com', password);
    const res = await update(s.token, { customer: Number(ids.globex) });
    expect(res.status).toBe(200);
    const token = res.body.token as string;
    expect(claimsOf(token)).toMatchObject({ acc: ids.globex, sid: claimsOf(s.token).sid, perms: ['CAMPAIGN_VIEW', 'INBOX_VIEW', 'STREAM_VIEW'] });
    expect(res.body.customer).toEqual({ id: Number(ids.globex), name: 'Globex', shortName: 'GX', status: 'active', currency: 'EUR', active: 1 });
    expect(res.body.userPermissions).toEqual(['CAMPAIGN_VIEW', 'INBOX_VIEW', 'STREAM_VIEW']);

    // the refresh token that came with it keeps the account
    const next = await a.call<{ token: string }>('POST', '/token_refresh', { body: { refresh_token: res.body.refresh_token } });
    expect(next.status).toBe(200);
    expect(claimsOf(next.body.token).acc).toBe(ids.globex);
    // the refresh token from before the switch is retired
    expect((await a.call('POST', '/token_refresh', { body: { refresh_token: s.refresh_token } })).status).toBe(401);

    const events = await a.events();
    expect(events).toContainEqual(expect.objectContaining({ type: 'auth.session.account_switched', accountId: ids.globex }));
  });

  it('accepts the account as an IRI', async () => {
    const s = await a.signIn('agent@example.com', password);
    const res = await update(s.token, { customer: `/api/customers/${ids.acme}` });
    expect(res.status).toBe(200);
    expect(claimsOf(res.body.token as string)).toMatchObject({ acc: ids.acme });
    expect((res.body.customer as { currency: string }).currency).toBe('USD');
  });

  it('refuses to switch to an account the user is not a member of (404) or that does not exist', async () => {
    const s = await a.signIn('agent@example.com', password);
    const res = await update(s.token, { customer: Number(ids.initech) });
    expect(res.status).toBe(404);
    expect(res.body).not.toHaveProperty('token');
    expect((await update(s.token, { customer: 999999 })).status).toBe(404);
  });

  it('refuses a disabled account to a member with 403 ACCESS_DENIED, but lets a super admin in', async () => {
    const s = await a.signIn('agent@example.com', password);
    const res = await update(s.token, { customer: Number(ids.closed) });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('ACCESS_DENIED');

    const root = await a.signIn('root@example.com', password);
    const entered = await update(root.token, { customer: Number(ids.closed) });
    expect(entered.status).toBe(200);
    expect(claimsOf(entered.body.token as string)).toMatchObject({ acc: ids.closed, sa: true, roles: ['ROLE_USER', 'ROLE_SUPER_ADMIN'] });
    expect((claimsOf(entered.body.token as string).perms as string[]).length).toBeGreaterThan(50);
  });

  it('shows a super admin every account', async () => {
    const root = await a.signIn('root@example.com', password);
    const profile = await me(root.token);
    expect((profile.body.customers as Array<{ name: string }>).map((c) => c.name)).toEqual(['Acme', 'Closed', 'Globex', 'Initech']);
    expect(profile.body.roles).toEqual(['ROLE_USER', 'ROLE_SUPER_ADMIN']);
  });

  it('refuses a customer that is not an id with 400', async () => {
    const s = await a.signIn('agent@example.com', password);
    const res = await update(s.token, { customer: 'acme' });
    expect(res.status).toBe(400);
    expect(res.body.violations).toEqual([expect.objectContaining({ propertyPath: 'customer' })]);
  });

  it('updates names, time zone and preferences; preferences come back as a JSON string', async () => {
    const s = await a.signIn('agent@example.com', password);
    const prefs = { PAGE_SIZE: { campaigns: 50 }, PINNED_STREAM: 12, HAS_SEEN_SUCCESS_FIRST_STEPS: true, 'tbl-campaigns-7f3a': 25 };
    const res = await update(s.token, { firstName: ' Anna ', lastName: 'Agentova', timezone: 'Europe/Paris', preferences: JSON.stringify(prefs) });
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('token');
    const profile = await me(s.token);
    expect(profile.body).toMatchObject({ firstName: 'Anna', lastName: 'Agentova', timezone: 'Europe/Paris' });
    expect(JSON.parse(profile.body.preferences as string)).toEqual(prefs);

    // an object is accepted as well as its JSON string
    expect((await update(s.token, { preferences: { PINNED_CAMPAIGN: 3 } })).status).toBe(200);
    expect(JSON.parse((await me(s.token)).body.preferences as string)).toEqual({ PINNED_CAMPAIGN: 3 });
  });

  it('refuses unknown preference keys and empty values with 400 0x1, changing nothing', async () => {
    const s = await a.signIn('agent@example.com', password);
    await update(s.token, { firstName: 'Before', preferences: { PAGE_SIZE: 25 } });
    const res = await update(s.token, {
      firstName: 'After',
      preferences: JSON.stringify({ PAGE_SIZES: 10, PINNED_STREAM: '', MESSAGE_SENDER_ID: {}, SENT_ACCESS_REQUEST: null, PAGE_SIZE: 50 }),
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('0x1');
    const paths = (res.body.violations as Array<{ propertyPath: string }>).map((v) => v.propertyPath).sort();
    expect(paths).toEqual(['preferences.MESSAGE_SENDER_ID', 'preferences.PAGE_SIZES', 'preferences.PINNED_STREAM', 'preferences.SENT_ACCESS_REQUEST']);
    const profile = await me(s.token);
    expect(profile.body.firstName).toBe('Before');
    expect(JSON.parse(profile.body.preferences as string)).toEqual({ PAGE_SIZE: 25 });
  });

  it('refuses preferences that are not a JSON object, an unknown field, and a bad time zone', async () => {
    const s = await a.signIn('agent@example.com', password);
    expect((await update(s.token, { preferences: '[1,2]' })).status).toBe(400);
    expect((await update(s.token, { preferences: '{not json' })).status).toBe(400);
    expect((await update(s.token, { email: 'new@example.com' })).status).toBe(400);
    const tz = await update(s.token, { timezone: 'Mars/Olympus' });
    expect(tz.status).toBe(400);
    expect(tz.body.violations).toEqual([expect.objectContaining({ propertyPath: 'timezone' })]);
  });

  it('needs a token', async () => {
    expect((await a.call('PUT', '/users/connected_update', { body: { firstName: 'x' } })).status).toBe(401);
  });
});
