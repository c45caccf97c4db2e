import { createHash } from 'node:crypto';
import { Permission } from '@switchboard/contracts';
import { claimsOf, startAuth, type AuthTestApp } from './support';

interface Key {
  id: number;
  name: string;
  apiKey: string;
  ipAcl: string;
  permissions: string[];
  active: 0 | 1;
}

async function setup(a: AuthTestApp): Promise<{ account: string; token: string; userId: string }> {
  const user = await a.seed.createUser({ email: 'dev@example.com', password: 'correct horse battery' });
  const account = (await a.seed.createAccount({ name: 'Keys Ltd' })).id;
  await a.seed.addMember({ userId: user.id, accountId: account, status: 0 });
  return { account, userId: user.id, token: a.tokenFor(user.id, account, Object.values(Permission)) };
}

describe('API keys', () => {
  let a: AuthTestApp;
  let ctx: { account: string; token: string; userId: string };

  beforeAll(async () => {
    a = await startAuth();
    ctx = await setup(a);
  });
  afterAll(async () => {
    await a?.close();
  });

  const create = (body: Record<string, unknown>, token = ctx.token) => a.call<Key>('POST', '/api_keys', { token, body });
  const exchange = (key: string, headers: Record<string, string> = {}) =>
    a.call<{ token: string; token_type: string; expires_in: number; code?: string }>('POST', '/api_keys/token', { headers: { 'x-api-key': key, ...headers } });

  it('shows the key once and stores only its hash', async () => {
    const res = await create({ name: 'CRM sync', ipAcl: '', permissions: ['STREAM_VIEW', 'CAMPAIGN_VIEW'], active: 1 });
    expect(res.status).toBe(201);
    expect(res.body.apiKey).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    expect(res.body).toMatchObject({ name: 'CRM sync', ipAcl: '', permissions: ['STREAM_VIEW', 'CAMPAIGN_VIEW'], active: 1 });
    const plain = res.body.apiKey;
    const listed = await a.call<{ items: Key[]; total: number }>('GET', '/api_keys', { token: ctx.token });
    const shown = listed.body.items.find((k) => k.id === res.body.id)!;
    expect(shown.apiKey).toBe(`${plain.slice(0, 9)}…`);
    expect((await a.call<Key>('GET', `/api_keys/${res.body.id}`, { token: ctx.token })).body.apiKey).not.toBe(plain);
    const rows = await a.sql<Record<string, unknown>>(`SELECT * FROM auth.api_key WHERE id = $1`, [res.body.id]);
    expect(rows[0].key_hash).toBe(createHash('sha256').update(plain).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(plain);
  });

  it('is exchanged for a short-lived token carrying its account and permissions, by header or bearer', async () => {
    const { body: key } = await create({ name: 'Exchange', permissions: ['STREAM_VIEW'] });
    const res = await exchange(key.apiKey);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 300 });
    expect(claimsOf(res.body.token)).toMatchObject({ sub: `apikey:${key.id}`, acc: ctx.account, perms: ['STREAM_VIEW'], sa: false, kind: 'apiKey', roles: ['ROLE_API_KEY'] });
    const bearer = await a.call('POST', '/api_keys/token', { headers: { authorization: `Bearer ${key.apiKey}` } });
    expect(bearer.status).toBe(200);
    const [{ last_used_at }] = await a.sql<{ last_used_at: Date | null }>(`SELECT last_used_at FROM auth.api_key WHERE id = $1`, [key.id]);
    expect(last_used_at).not.toBeNull();
    // the key token is no user: it manages nothing in auth
    expect((await a.call('GET', '/users/connected', { token: res.body.token })).status).toBe(403);
  });

  it('refuses an unknown, malformed, inactive or missing key', async () => {
    const { body: key } = await create({ name: 'Off', active: 0 });
    expect((await exchange(key.apiKey)).status).toBe(401);
    expect((await exchange(`sk_${'A'.repeat(43)}`)).body.code).toBe('0x12');
    expect((await exchange('not-a-key')).status).toBe(401);
    expect((await a.call('POST', '/api_keys/token')).body.code).toBe('0x11');
    await a.call('PUT', `/api_keys/${key.id}`, { token: ctx.token, body: { active: 1 } });
    expect((await exchange(key.apiKey)).status).toBe(200);
  });

  it('honours the IP ACL: IPv4 with a mask, and X-Forwarded-For is ignored without a trusted proxy', async () => {
    const { body: inside } = await create({ name: 'Loopback only', ipAcl: '127.0.0.0/8' });
    expect(inside.ipAcl).toBe('127.0.0.0/8');
    expect((await exchange(inside.apiKey)).status).toBe(200);
    const { body: outside } = await create({ name: 'Office only', ipAcl: '10.0.0.0/8, 2001:db8::/32' });
    const refused = await exchange(outside.apiKey);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('0x13');
    // claiming to come from the office changes nothing
    expect((await exchange(outside.apiKey, { 'x-forwarded-for': '10.1.2.3' })).status).toBe(403);
    const { body: single } = await create({ name: 'Single', ipAcl: '127.0.0.1' });
    expect(single.ipAcl).toBe('127.0.0.1');
    expect((await exchange(single.apiKey)).status).toBe(200);
  });

  it('refuses a malformed IP ACL with one violation per bad entry', async () => {
    const res = await create({ name: 'Bad ACL', ipAcl: '10.0.0.0/8,10.0.0.0/33,banana' });
    expect(res.status).toBe(400);
    expect((res.body as unknown as { violations: Array<{ propertyPath: string; message: string }> }).violations).toEqual([
      expect.objectContaining({ propertyPath: 'ipAcl[1]', message: 'errors.client.ips' }),
      expect.objectContaining({ propertyPath: 'ipAcl[2]', message: 'errors.client.ips' }),
    ]);
  });

  it('cannot be given or widened to permissions the caller does not hold, nor management permissions', async () => {
    const narrow = a.tokenFor(ctx.userId, ctx.account, [Permission.ApiKeyAdd, Permission.ApiKeyEdit, Permission.StreamView]);
    expect((await create({ name: 'Wide', permissions: ['STREAM_VIEW', 'MESSAGE_EXPORT'] }, narrow)).status).toBe(403);
    const { body: key } = await create({ name: 'Narrow', permissions: ['STREAM_VIEW'] }, narrow);
    const widen = await a.call('PUT', `/api_keys/${key.id}`, { token: narrow, body: { permissions: ['STREAM_VIEW', 'MESSAGE_EXPORT'] } });
    expect(widen.status).toBe(403);
    expect((await a.call<Key>('GET', `/api_keys/${key.id}`, { token: ctx.token })).body.permissions).toEqual(['STREAM_VIEW']);
    const mgmt = await create({ name: 'Manager', permissions: ['USER_ROLE_EDIT'] });
    expect(mgmt.status).toBe(400);
    expect((await create({ name: 'Unknown', permissions: ['FLY'] })).status).toBe(400);
  });

  it('regenerates: a new key shown once, the old one stops working', async () => {
    const { body: key } = await create({ name: 'Rotate' });
    const res = await a.call<Key>('POST', `/api_keys/${key.id}/regenerate`, { token: ctx.token });
    expect(res.status).toBe(200);
    expect(res.body.apiKey).not.toBe(key.apiKey);
    expect((await exchange(key.apiKey)).status).toBe(401);
    expect((await exchange(res.body.apiKey)).status).toBe(200);
    expect((await a.call('DELETE', `/api_keys/${key.id}`, { token: ctx.token })).status).toBe(204);
    expect((await exchange(res.body.apiKey)).status).toBe(401);
  });

  it('stops working when the account turns API keys off or is disabled', async () => {
    const { body: key } = await create({ name: 'Switch' });
    await a.sql(`UPDATE auth.account SET custom_settings = '{"allow_api_keys": false}' WHERE id = $1`, [ctx.account]);
    try {
      expect((await exchange(key.apiKey)).status).toBe(403);
      expect((await create({ name: 'Refused' })).status).toBe(403);
    } finally {
      await a.sql(`UPDATE auth.account SET custom_settings = '{}' WHERE id = $1`, [ctx.account]);
    }
    await a.seed.setAccountStatus(ctx.account, 'disable');
    try {
      expect((await exchange(key.apiKey)).body.code).toBe('ACCESS_DENIED');
    } finally {
      await a.seed.setAccountStatus(ctx.account, 'active');
    }
  });
});

describe('API keys behind a trusted proxy', () => {
  let a: AuthTestApp;
  let ctx: { account: string; token: string; userId: string };

  beforeAll(async () => {
    a = await startAuth({}, { trustProxy: 'loopback' });
    ctx = await setup(a);
  });
  afterAll(async () => {
    await a?.close();
  });

  const keyWith = async (ipAcl: string) => {
    const res = await a.call<Key>('POST', '/api_keys', { token: ctx.token, body: { name: 'Proxied', ipAcl } });
    expect(res.status).toBe(201);
    return res.body.apiKey;
  };
  const exchangeFrom = (key: string, forwardedFor: string) => a.call('POST', '/api_keys/token', { headers: { 'x-api-key': key, 'x-forwarded-for': forwardedFor } });

  it('takes the client address from X-Forwarded-For set by the trusted proxy: IPv4 masks and IPv6', async () => {
    const office = await keyWith('10.0.0.0/8,2001:db8::/32');
    expect((await exchangeFrom(office, '10.20.30.40')).status).toBe(200);
    expect((await exchangeFrom(office, '11.0.0.1')).status).toBe(403);
    expect((await exchangeFrom(office, '2001:db8:1::5')).status).toBe(200);
    expect((await exchangeFrom(office, '2001:db9::5')).status).toBe(403);
    const single = await keyWith('2001:db8::7');
    expect((await exchangeFrom(single, '2001:db8::7')).status).toBe(200);
    expect((await exchangeFrom(single, '2001:db8::8')).status).toBe(403);
  });

  it('trusts only the proxy: a hop the client added before it is not the client address', async () => {
    const office = await keyWith('10.0.0.0/8');
    // the client claims 10.0.0.1; the proxy (loopback) appends the real client 203.0.113.9
    expect((await exchangeFrom(office, '10.0.0.1, 203.0.113.9')).status).toBe(403);
  });
});
