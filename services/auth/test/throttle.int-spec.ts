import { startAuth, otherPin, type AuthTestApp } from './support';

describe('throttling of failed sign-ins (10 per email, 30 per IP, 15 min)', () => {
  let a: AuthTestApp;
  const password = 'correct horse battery';
  const body = (email: string, pw = password) => ({ username: email, password: pw, gCaptchaToken: 'x' });

  beforeAll(async () => {
    a = await startAuth({ throttle: { perEmail: { limit: 10, windowSeconds: 900 }, perIp: { limit: 30, windowSeconds: 900 } } });
  });
  afterAll(async () => {
    await a?.close();
  });

  it('refuses an email with 429 after 10 failures, even with the right password, until the window passes', async () => {
    await a.seed.createUser({ email: 'victim@example.com', password });
    for (let i = 0; i < 10; i++) {
      expect((await a.call('POST', '/login_check', { body: body('victim@example.com', `guess ${i}`) })).status).toBe(401);
    }
    const blocked = await a.call('POST', '/login_check', { body: body('victim@example.com') });
    expect(blocked.status).toBe(429);
    expect(blocked.body).toMatchObject({ code: 'TOO_MANY_REQUESTS', status: 429 });
    expect(blocked.body.retryAfter).toBeGreaterThan(0);
    expect(blocked.body.retryAfter).toBeLessThanOrEqual(900);
    // login/manual is guarded by the same counter
    expect((await a.call('POST', '/login/manual', { body: { ...body('victim@example.com'), pin: '000000' } })).status).toBe(429);

    a.clock.advance(900 * 1000);
    expect((await a.call('POST', '/login_check', { body: body('victim@example.com') })).status).toBe(200);
  });

  it('counts wrong PINs as failures too', async () => {
    await a.seed.createUser({ email: 'pins@example.com', password });
    for (let round = 0; round < 2; round++) {
      a.clock.advance(30_000);
      expect((await a.call('POST', '/login_check', { body: body('pins@example.com') })).status).toBe(200);
      const pin = a.lastPin('pins@example.com');
      for (let i = 0; i < 5; i++) await a.call('POST', '/login/manual', { body: { ...body('pins@example.com'), pin: otherPin(pin) } });
    }
    a.clock.advance(30_000);
    expect((await a.call('POST', '/login_check', { body: body('pins@example.com') })).status).toBe(429);
    a.clock.advance(900 * 1000);
  });

  it('forgives an email its failures once it signs in', async () => {
    await a.seed.createUser({ email: 'forgiven@example.com', password });
    for (let i = 0; i < 9; i++) await a.call('POST', '/login_check', { body: body('forgiven@example.com', 'nope') });
    await a.signIn('forgiven@example.com', password);
    for (let i = 0; i < 9; i++) expect((await a.call('POST', '/login_check', { body: body('forgiven@example.com', 'nope') })).status).toBe(401);
    a.clock.advance(900 * 1000);
  });

  it('refuses a client IP after 30 failures across emails; X-Forwarded-For does not make new clients', async () => {
    for (let i = 0; i < 30; i++) {
      const res = await a.call('POST', '/login_check', { body: body(`spray${i}@example.com`, 'Winter2026!'), headers: { 'x-forwarded-for': `203.0.113.${i + 1}` } });
      expect(res.status).toBe(401);
    }
    await a.seed.createUser({ email: 'bystander@example.com', password });
    const res = await a.call('POST', '/login_check', { body: body('bystander@example.com'), headers: { 'x-forwarded-for': '198.51.100.7' } });
    expect(res.status).toBe(429);
    expect(res.body.code).toBe('TOO_MANY_REQUESTS');

    a.clock.advance(900 * 1000);
    expect((await a.call('POST', '/login_check', { body: body('bystander@example.com') })).status).toBe(200);
  });

  it('counts concurrent attempts in one step with the check: 25 guesses at once against a limit of 10 get exactly 10 judged', async () => {
    await a.seed.createUser({ email: 'raced@example.com', password });
    const answers = await Promise.all(Array.from({ length: 25 }, (_, i) => a.call('POST', '/login_check', { body: body('raced@example.com', `parallel guess ${i}`) })));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    expect(await a.sql(`SELECT count(*)::int AS n FROM auth.login_failure WHERE scope = 'email' AND subject = 'raced@example.com'`)).toEqual([{ n: 10 }]);
    // the right password is refused too, until the window passes
    expect((await a.call('POST', '/login_check', { body: body('raced@example.com') })).status).toBe(429);
    a.clock.advance(900 * 1000);
    expect((await a.call('POST', '/login_check', { body: body('raced@example.com') })).status).toBe(200);
  });
});
