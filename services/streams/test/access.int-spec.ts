import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { ALL_PERMISSIONS } from '@switchboard/contracts';
import { listRoutes } from '@switchboard/platform';
import { phone, startStreams, WA_BUSINESS, WA_PHONE_ID, WA_TOKEN, type Json, type StreamsTestApp } from './support';

/** Every route declares its access; each gated route needs its permission; account B reaches nothing of account A. */
describe('streams access', () => {
  let a: StreamsTestApp;
  const A = '51';
  const B = '52';
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    a = await startStreams();
    await a.account(A, { balance: 10_000_000, prices: { US: 1_000 } });
    await a.account(B, { balance: 10_000_000, prices: { US: 1_000 } });
    const s = await a.stream(A, { streamType: 5, sender: null, params: { auth_token: WA_TOKEN, business_id: WA_BUSINESS, phone_number: WA_PHONE_ID } });
    const sms = await a.stream(A, { streamType: 4 });
    const token = a.member(A);
    const sender = await a.call('POST', '/senders', { token, body: { name: 'A sender', value: 'ASender' } });
    const event = await a.call('POST', '/stream_events', { token, body: { name: 'e', eventKey: 'k1', stream: s.id } });
    const keyword = await a.call('POST', '/malicious_keywords/global', { token: a.superAdmin(), body: { word: 'spamword' } });
    const sent = await a.send(sms.token, { phone: phone(), message: 'from A' });
    Object.assign(ids, { stream: String(s.id), sms: String(sms.id), sender: String(sender.body.id), event: String(event.body.id), keyword: String(keyword.body.id), message: sent.body.message_uuid as string });
  });
  afterAll(async () => {
    await a?.close();
  });

  /** Concrete calls for every route, with account A's ids. */
  const calls = (): Array<{ route: string; method: string; path: string; body?: unknown }> => [
    { route: 'GET /streams', method: 'GET', path: '/streams' },
    { route: 'GET /streams/dropdown', method: 'GET', path: '/streams/dropdown' },
    { route: 'GET /streams/dropdown/inbox', method: 'GET', path: '/streams/dropdown/inbox' },
    { route: 'GET /streams/message_status', method: 'GET', path: `/streams/message_status?message_uuid=${ids.message}` },
    { route: 'GET /streams/token/:id', method: 'GET', path: `/streams/token/${ids.sms}` },
    { route: 'POST /streams/reset_token', method: 'POST', path: '/streams/reset_token', body: { id: ids.sms } },
    { route: 'POST /streams/demo', method: 'POST', path: '/streams/demo', body: { streamId: ids.sms, phone: phone(1), message: 'demo' } },
    { route: 'GET /streams/webhooks/:id', method: 'GET', path: `/streams/webhooks/${ids.stream}` },
    { route: 'POST /streams/preview-whatsapp-token', method: 'POST', path: '/streams/preview-whatsapp-token', body: { auth_token: WA_TOKEN, business_id: WA_BUSINESS } },
    { route: 'POST /streams/preview-telegram-token', method: 'POST', path: '/streams/preview-telegram-token', body: { auth_token: '1:x' } },
    { route: 'GET /streams/external-senders/:id', method: 'GET', path: `/streams/external-senders/${ids.stream}` },
    { route: 'GET /streams/external-templates/:id', method: 'GET', path: `/streams/external-templates/${ids.stream}` },
    { route: 'GET /streams/inbox/assign_permissions_mapping', method: 'GET', path: '/streams/inbox/assign_permissions_mapping' },
    { route: 'POST /streams/inbox/assign_permissions_mapping', method: 'POST', path: '/streams/inbox/assign_permissions_mapping', body: { streamId: ids.sms, roleIds: [1] } },
    { route: 'GET /streams/:id', method: 'GET', path: `/streams/${ids.stream}` },
    { route: 'POST /streams', method: 'POST', path: '/streams', body: { name: 'new', streamType: 1 } },
    { route: 'PUT /streams/:id', method: 'PUT', path: `/streams/${ids.stream}`, body: { name: 'renamed' } },
    { route: 'DELETE /streams/:id', method: 'DELETE', path: `/streams/${ids.stream}` },
    { route: 'GET /stream/code_snippet', method: 'GET', path: `/stream/code_snippet?streamId=${ids.sms}` },
    { route: 'GET /stream/diagnostics', method: 'GET', path: `/stream/diagnostics?streamId=${ids.sms}` },
    { route: 'GET /tech_provider/whatsapp/templates/:stream', method: 'GET', path: `/tech_provider/whatsapp/templates/${ids.stream}` },
    { route: 'POST /tech_provider/whatsapp/templates/:stream', method: 'POST', path: `/tech_provider/whatsapp/templates/${ids.stream}`, body: { name: 't_1', language: 'en', category: 'UTILITY', components: [{ type: 'BODY', text: 'x' }] } },
    { route: 'DELETE /tech_provider/whatsapp/templates/:stream', method: 'DELETE', path: `/tech_provider/whatsapp/templates/${ids.stream}?name=t_1` },
    { route: 'GET /tech_provider/whatsapp/flows/:stream', method: 'GET', path: `/tech_provider/whatsapp/flows/${ids.stream}` },
    { route: 'POST /message_responses/send', method: 'POST', path: '/message_responses/send', body: { streamId: ids.sms, phone: phone(2), message: 'reply' } },
    { route: 'GET /senders', method: 'GET', path: '/senders' },
    { route: 'GET /senders/dropdown', method: 'GET', path: '/senders/dropdown' },
    { route: 'GET /senders/superadmin', method: 'GET', path: '/senders/superadmin' },
    { route: 'PUT /senders/superadmin/:id', method: 'PUT', path: `/senders/superadmin/${ids.sender}`, body: { approved: 1 } },
    { route: 'GET /senders/:id', method: 'GET', path: `/senders/${ids.sender}` },
    { route: 'POST /senders', method: 'POST', path: '/senders', body: { name: 'n', value: 'NewSender' } },
    { route: 'PUT /senders/:id', method: 'PUT', path: `/senders/${ids.sender}`, body: { name: 'renamed' } },
    { route: 'DELETE /senders/:id', method: 'DELETE', path: `/senders/${ids.sender}` },
    { route: 'GET /malicious_keywords/global', method: 'GET', path: '/malicious_keywords/global' },
    { route: 'POST /malicious_keywords/global', method: 'POST', path: '/malicious_keywords/global', body: { word: 'other' } },
    { route: 'GET /malicious_keywords/global/:id', method: 'GET', path: `/malicious_keywords/global/${ids.keyword}` },
    { route: 'PUT /malicious_keywords/global/:id', method: 'PUT', path: `/malicious_keywords/global/${ids.keyword}`, body: { word: 'spamword2' } },
    { route: 'DELETE /malicious_keywords/global/:id', method: 'DELETE', path: `/malicious_keywords/global/${ids.keyword}` },
    { route: 'GET /stream_events', method: 'GET', path: `/stream_events?streamId=${ids.stream}` },
    { route: 'GET /stream_events/:id', method: 'GET', path: `/stream_events/${ids.event}` },
    { route: 'POST /stream_events', method: 'POST', path: '/stream_events', body: { name: 'e2', eventKey: 'k2', stream: ids.stream } },
    { route: 'PUT /stream_events/:id', method: 'PUT', path: `/stream_events/${ids.event}`, body: { name: 'renamed' } },
    { route: 'DELETE /stream_events/:id', method: 'DELETE', path: `/stream_events/${ids.event}` },
  ];

  const PUBLIC = ['POST /streams/messages', 'POST /streams/otp/request', 'POST /streams/otp/verify'];

  it('declares an access rule on every route, and the calls below cover every route', () => {
    const routes = listRoutes(a.t.app);
    for (const r of routes) expect([`${r.method} ${r.path}`, r.rule]).toEqual([`${r.method} ${r.path}`, expect.anything()]);
    const declared = routes.map((r) => `${r.method} ${r.path}`).sort();
    expect(declared).toEqual([...calls().map((c) => c.route), ...PUBLIC].sort());
    for (const r of routes) if (PUBLIC.includes(`${r.method} ${r.path}`)) expect(r.rule).toEqual({ kind: 'public' });
  });

  it('describes its routes in OpenAPI', () => {
    const doc = SwaggerModule.createDocument(a.t.app, new DocumentBuilder().build());
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/streams/messages', '/api/streams/otp/request', '/api/senders/superadmin/{id}', '/api/stream/code_snippet']));
  });

  it('refuses every console route without a token (0x11) and with a bad one (0x14)', async () => {
    for (const c of calls()) {
      const none = await a.call(c.method, c.path, { body: c.body });
      expect([c.route, none.status, none.body.code]).toEqual([c.route, 401, '0x11']);
      const bad = await a.call(c.method, c.path, { body: c.body, token: 'not-a-jwt' });
      expect([c.route, bad.status, bad.body.code]).toEqual([c.route, 401, '0x14']);
    }
  });

  it('gives account B nothing of account A: every route with A\'s ids answers 404 or shows none of A\'s data, and changes nothing', async () => {
    const snapshot = async () =>
      JSON.stringify([
        await a.sql(`SELECT id, name, status, token_hash, deleted_at, is_default, inbox_role_ids FROM streams.stream WHERE account_id = $1 ORDER BY id`, [A]),
        await a.sql(`SELECT id, name, value, approved FROM streams.sender WHERE account_id = $1 ORDER BY id`, [A]),
        await a.sql(`SELECT id, name, active FROM streams.stream_event WHERE account_id = $1 ORDER BY id`, [A]),
        await a.sql(`SELECT count(*) FROM streams.message WHERE account_id = $1`, [A]),
        await a.balance(A),
      ]);
    const before = await snapshot();
    const token = a.member(B);
    const leaks: string[] = [];
    for (const c of calls()) {
      const res = await a.call(c.method, c.path, { body: c.body, token });
      const text = JSON.stringify(res.body ?? '');
      const aData = [ids.message, 'A sender', 'ASender', `"streamId":${ids.sms}`, `"id":${ids.stream},`].some((needle) => text.includes(needle));
      if (res.status === 404 || res.status === 403) continue;
      // routes without A's ids (lists, creates, global or super-admin routes) answer B's own data
      if (aData) leaks.push(`${c.route} -> ${res.status} ${text.slice(0, 200)}`);
    }
    expect(leaks).toEqual([]);
    expect(await snapshot()).toBe(before);
  });

  it('answers 404, not 403, for A\'s ids to a member of B with every permission', async () => {
    const token = a.member(B);
    for (const path of [`/streams/${ids.stream}`, `/streams/token/${ids.sms}`, `/senders/${ids.sender}`, `/stream_events/${ids.event}`, `/streams/message_status?message_uuid=${ids.message}`, `/stream/code_snippet?streamId=${ids.sms}`]) {
      expect([path, (await a.call('GET', path, { token })).status]).toEqual([path, 404]);
    }
  });

  it('needs an account selected for permission routes', async () => {
    const noAccount = a.t.token({ sub: 'x', acc: null, perms: [...ALL_PERMISSIONS] });
    expect((await a.call('GET', '/streams', { token: noAccount })).status).toBe(403);
  });

  it('lets a super admin approve a sender of any account', async () => {
    const res = await a.call('PUT', `/senders/superadmin/${ids.sender}`, { token: a.superAdmin(B), body: { approved: 1 } });
    expect(res.body).toMatchObject({ id: Number(ids.sender), accountId: Number(A), approved: 1 });
    expect((await a.call('GET', `/senders/${ids.sender}`, { token: a.member(A) })).body.approved).toBe(1);
  });

  it('keeps lists per account', async () => {
    const list = await a.call('GET', '/streams', { token: a.member(B) });
    expect(list.body.items.every((s: Json) => s.id !== Number(ids.stream))).toBe(true);
  });
  // Last: with only its permission each call goes through, so this deletes A's stream, sender and event.
  it('refuses each gated route without its permission and lets it through with only that permission', async () => {
    const rules = new Map(listRoutes(a.t.app).map((r) => [`${r.method} ${r.path}`, r.rule]));
    for (const c of calls()) {
      const rule = rules.get(c.route);
      if (rule?.kind === 'superAdmin') {
        const refused = await a.call(c.method, c.path, { body: c.body, token: a.member(A) });
        expect([c.route, refused.status]).toEqual([c.route, 403]);
        continue;
      }
      if (rule?.kind !== 'permissions') throw new Error(`${c.route}: unexpected rule ${JSON.stringify(rule)}`);
      const without = ALL_PERMISSIONS.filter((p) => !rule.permissions.includes(p));
      const refused = await a.call(c.method, c.path, { body: c.body, token: a.member(A, without, 'no-perm') });
      expect([c.route, refused.status, refused.body.code]).toEqual([c.route, 403, 'NO_PERMISSIONS']);
      const allowed = await a.call(c.method, c.path, { body: c.body, token: a.member(A, rule.permissions, 'only-perm') });
      expect([c.route, [401, 403].includes(allowed.status)]).toEqual([c.route, false]);
    }
  });
});
