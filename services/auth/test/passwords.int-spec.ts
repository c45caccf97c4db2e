import { SessionRevokedV1 } from '@switchboard/contracts';
import { claimsOf, startAuth, type AuthTestApp } from './support';

const RESET_LINK = /\/reset-password\/([^/\s]+)\/([A-Za-z0-9_-]+)/;

describe('passwords: forgot, reset by emailed link, change while signed in', () => {
  let a: AuthTestApp;
  let userId: string;
  let account: string;
  const email = 'forgetful@example.com';
  let password = 'correct horse battery';

  beforeAll(async () => {
    a = await startAuth({ appUrl: 'https://console.example.com' });
    const user = await a.seed.createUser({ email, password });
    const acc = await a.seed.createAccount({ name: 'Memory Ltd' });
    await a.seed.addMember({ userId: user.id, accountId: acc.id, status: 0 });
    userId = user.id;
    account = acc.id;
  });
  afterAll(async () => {
    await a?.close();
  });

  const post = (path: string, body: unknown, token?: string) => a.call(`POST`, `/users/reset_password/${path}`, { body, token });
  const resetLink = () => {
    const m = RESET_LINK.exec(a.mailTo(email).text);
    if (!m) throw new Error('no reset link');
    return { email: decodeURIComponent(m[1]), token: m[2] };
  };
  const mails = () => a.t.mailbox.list().length;

  it('answers the same for an unknown address and sends nothing', async () => {
    const before = mails();
    const unknown = await post('send_email', { email: 'nobody@example.com' });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual({ status: 1 });
    expect(mails()).toBe(before);
    expect((await post('send_email', { email: 'not-an-email' })).status).toBe(400);
  });

  it('resets through the emailed link once, ending every session of the user', async () => {
    const s1 = await a.signIn(email, password);
    const s2 = await a.signIn(email, password);
    const sent = await post('send_email', { email: 'Forgetful@Example.com' });
    expect(sent.body).toEqual({ status: 1 });
    const link = resetLink();
    expect(a.mailTo(email).text).toContain(`https://console.example.com/reset-password/${encodeURIComponent(email)}/`);
    const [row] = await a.sql<{ token_hash: string }>(`SELECT token_hash FROM auth.password_reset WHERE user_id = $1`, [userId]);
    expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.token_hash).not.toBe(link.token);

    expect((await post('check_token', link)).body).toEqual({ status: 1 });
    expect((await post('update_password', { ...link, password: 'short' })).status).toBe(400);
    const updated = await post('update_password', { ...link, password: 'a brand new secret' });
    expect(updated.status).toBe(200);
    password = 'a brand new secret';

    // single use
    expect((await post('check_token', link)).status).toBe(404);
    expect((await post('update_password', { ...link, password: 'yet another secret' })).status).toBe(404);
    // every refresh token of the user is revoked
    for (const s of [s1, s2]) expect((await a.call('POST', '/token_refresh', { body: { refresh_token: s.refresh_token } })).status).toBe(401);
    const revoked = (await a.events()).filter((e) => e.type === SessionRevokedV1.type && (e.data as { reason: string }).reason === 'password_changed');
    expect(revoked.map((e) => (e.data as { familyId: string }).familyId).sort()).toEqual([claimsOf(s1.token).sid, claimsOf(s2.token).sid].sort());
    // the old password is gone, the new one works
    await expect(a.signIn(email, 'correct horse battery')).rejects.toThrow(/401/);
    expect(claimsOf((await a.signIn(email, password)).token).acc).toBe(account);
  });

  it('refuses a wrong token and another address with one answer, and an expired link', async () => {
    a.clock.advance(61_000);
    await post('send_email', { email });
    const link = resetLink();
    const wrongToken = await post('check_token', { email, token: 'x'.repeat(43) });
    const otherAddress = await post('check_token', { email: 'nobody@example.com', token: link.token });
    expect([wrongToken.status, otherAddress.status]).toEqual([404, 404]);
    expect(wrongToken.body.message).toBe(otherAddress.body.message);
    a.clock.advance(3601_000);
    expect((await post('check_token', link)).status).toBe(404);
    expect((await post('update_password', { ...link, password: 'too late for this' })).status).toBe(404);
  });

  it('sends at most one link a minute, with the same answer', async () => {
    a.clock.advance(120_000);
    const before = mails();
    await post('send_email', { email });
    const again = await post('send_email', { email });
    expect(again.body).toEqual({ status: 1 });
    expect(mails()).toBe(before + 1);
  });

  it('changes the password while signed in: the current one is checked, all sessions end, a fresh pair comes back', async () => {
    const s1 = await a.signIn(email, password);
    const other = await a.signIn(email, password);
    const wrong = await post('logged_in_update_password', { oldPassword: 'not it', password: 'changed it again' }, s1.token);
    expect(wrong.status).toBe(400);
    expect(wrong.body.violations).toEqual([expect.objectContaining({ propertyPath: 'oldPassword' })]);
    expect((await post('logged_in_update_password', { oldPassword: password, password }, s1.token)).status).toBe(400);
    const ok = await a.call<{ status: number; token: string; refresh_token: string }>('POST', '/users/reset_password/logged_in_update_password', {
      token: s1.token,
      body: { oldPassword: password, password: 'changed it again' },
    });
    expect(ok.status).toBe(200);
    expect(claimsOf(ok.body.token)).toMatchObject({ sub: userId, acc: account });
    password = 'changed it again';
    for (const s of [s1, other]) expect((await a.call('POST', '/token_refresh', { body: { refresh_token: s.refresh_token } })).status).toBe(401);
    expect((await a.call('POST', '/token_refresh', { body: { refresh_token: ok.body.refresh_token } })).status).toBe(200);
    const [audit] = await a.sql(`SELECT actor_id::text, action FROM auth.audit_log WHERE action = 'password_changed'`);
    expect(audit).toEqual({ actor_id: userId, action: 'password_changed' });
  });

  it('refuses a password change during login-as and from a token without a session', async () => {
    const admin = await a.seed.createUser({ email: 'root@example.com', password, superAdmin: true });
    const asUser = a.tokenFor(userId, account, [], { imp: admin.id });
    expect((await post('logged_in_update_password', { oldPassword: password, password: 'hijacked password' }, asUser)).status).toBe(403);
    expect((await post('logged_in_update_password', { oldPassword: password, password: 'hijacked password' })).status).toBe(401);
    const live = (await a.call<{ token: string }>('GET', '/users/async', { token: a.tokenFor(userId, account) })).body.token;
    expect((await post('logged_in_update_password', { oldPassword: password, password: 'hijacked password' }, live)).status).toBe(403);
  });
});
