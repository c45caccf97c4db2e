import { createHmac } from 'node:crypto';
import * as jwt from 'jsonwebtoken';
import { generateSigningKeys, TokenSigner } from '@switchboard/platform';
import { startAuth, claimsOf, type AuthTestApp } from './support';

describe('access and refresh tokens', () => {
  let a: AuthTestApp;
  const password = 'correct horse battery';
  let accountId: string;
  let userId: string;

  beforeAll(async () => {
    a = await startAuth();
    const user = await a.seed.createUser({ email: 'tok@example.com', password });
    const account = await a.seed.createAccount({ name: 'Tokens Ltd' });
    await a.seed.addMember({ userId: user.id, accountId: account.id, status: 0 });
    userId = user.id;
    accountId = account.id;
  });
  afterAll(async () => {
    await a?.close();
  });

  const refresh = (token: string) => a.call<{ token: string; refresh_token: string; code?: string; message?: string }>('POST', '/token_refresh', { body: { refresh_token: token } });
  const me = (token: string) => a.call('GET', '/users/connected', { token });

  it('rotates a refresh token: a new pair in the same session and account', async () => {
    const first = await a.signIn('tok@example.com', password);
    const next = await refresh(first.refresh_token);
    expect(next.status).toBe(200);
    expect(next.body.refresh_token).not.toBe(first.refresh_token);
    expect(claimsOf(next.body.token)).toMatchObject({ sid: claimsOf(first.token).sid, acc: accountId, sub: userId });
    expect((await me(next.body.token)).status).toBe(200);
    // and again with the new one
    expect((await refresh(next.body.refresh_token)).status).toBe(200);
  });

  it('treats a used refresh token as theft: 401, and the whole family is revoked', async () => {
    const first = await a.signIn('tok@example.com', password);
    const second = await refresh(first.refresh_token);
    expect(second.status).toBe(200);

    const replay = await refresh(first.refresh_token);
    expect(replay.status).toBe(401);
    expect(replay.body.code).toBe('0x12');
    // the newest token of the family stops working too
    const newest = await refresh(second.body.refresh_token);
    expect(newest.status).toBe(401);

    const sid = claimsOf(first.token).sid;
    expect(await a.events()).toContainEqual(
      expect.objectContaining({ type: 'auth.session.revoked', key: sid, data: { familyId: sid, userId, reason: 'refresh_token_reuse' } }),
    );
  });

  it('keeps other sessions of the same user alive when one family is revoked', async () => {
    const s1 = await a.signIn('tok@example.com', password);
    a.clock.advance(30_000);
    const s2 = await a.signIn('tok@example.com', password);
    await refresh(s1.refresh_token);
    await refresh(s1.refresh_token); // reuse: ends s1's family
    expect((await refresh(s2.refresh_token)).status).toBe(200);
    a.clock.advance(30_000);
  });

  it('refuses an expired refresh token', async () => {
    const s = await a.signIn('tok@example.com', password);
    a.clock.advance(30 * 24 * 3600 * 1000 + 1000);
    const res = await refresh(s.refresh_token);
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/expired/);
  });

  it('refuses an unknown refresh token and an access token used as a refresh token', async () => {
    expect((await refresh('not-a-token')).status).toBe(401);
    const s = await a.signIn('tok@example.com', password);
    expect((await refresh(s.token)).status).toBe(401);
    a.clock.advance(30_000);
  });

  describe('forged or stale access tokens are refused on /users/connected', () => {
    const claims = () => ({ sub: userId, email: 'tok@example.com', acc: accountId, perms: ['TENANT_OWNER'], roles: ['ROLE_USER', 'ROLE_SUPER_ADMIN'], sa: true, sid: '00000000-0000-4000-8000-000000000000', imp: null, typ: 'access', iss: 'switchboard' });
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

    it('alg none', async () => {
      const now = Math.floor(Date.now() / 1000);
      const token = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...claims(), iat: now, exp: now + 600 })}.`;
      const res = await me(token);
      expect(res.status).toBe(401);
    });

    it('signed with another key', async () => {
      const other = new TokenSigner(generateSigningKeys().privateKey);
      const { typ: _typ, iss: _iss, ...c } = claims();
      expect((await me(other.signAccess(c, 600))).status).toBe(401);
    });

    it('HS256 signed with the public key as the secret', async () => {
      const now = Math.floor(Date.now() / 1000);
      const head = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ ...claims(), iat: now, exp: now + 600 })}`;
      const sig = createHmac('sha256', a.t.keys.publicKey).update(head).digest('base64url');
      expect((await me(`${head}.${sig}`)).status).toBe(401);
    });

    it('expired', async () => {
      const now = Math.floor(Date.now() / 1000);
      const token = jwt.sign({ ...claims(), iat: now - 3600, exp: now - 60 }, a.t.keys.privateKey, { algorithm: 'ES256' });
      const res = await me(token);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('0x14');
    });

    it('while a genuine token of the same claims passes', async () => {
      const now = Math.floor(Date.now() / 1000);
      const token = jwt.sign({ ...claims(), iat: now, exp: now + 600 }, a.t.keys.privateKey, { algorithm: 'ES256' });
      expect((await me(token)).status).toBe(200);
    });
  });
});
