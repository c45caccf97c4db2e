import { realtimeSubject, type RealtimeMessage } from '@switchboard/contracts';
import { ProviderSecrets } from '@switchboard/platform';
import { phone, startStreams, TG_TOKEN, WA_BUSINESS, WA_PHONE_ID, WA_TOKEN, type Json, type StreamsTestApp } from './support';

/** The console side of streams: CRUD per type, statuses, tokens, snippets, diagnostics, demo, providers, senders, keywords, events. */
describe('streams console', () => {
  let a: StreamsTestApp;
  const ACC = '41';
  let token: string;

  beforeAll(async () => {
    a = await startStreams();
    await a.account(ACC, { balance: 10_000_000, prices: { US: 20_000 } });
    token = a.member(ACC);
  });
  afterAll(async () => {
    await a?.close();
  });

  describe('streams', () => {
    it('creates each type with its defaults and lists them as { items, total }', async () => {
      const types = [1, 2, 3, 4, 5, 7, 8];
      for (const streamType of types) {
        const res = await a.call('POST', '/streams', { token, body: { name: `type ${streamType}`, streamType } });
        expect(res.status).toBe(201);
        expect(res.body).toMatchObject({ streamType, enableSending: true, isDefault: false, streamUid: expect.stringMatching(/^[0-9a-f-]{36}$/), params: expect.objectContaining({ check_ip_acl: 1 }) });
        // provider streams start as drafts until their settings are there (spec 4)
        expect(res.body.status).toBe([5, 7, 8].includes(streamType) ? 2 : 0);
        expect(JSON.stringify(res.body)).not.toMatch(/sbs_/);
      }
      const list = await a.call('GET', '/streams?itemsPerPage=100&order[id]=asc', { token });
      expect(list.body.total).toBeGreaterThanOrEqual(7);
      expect(list.body.items.map((s: Json) => s.streamType).slice(0, 7)).toEqual(types);
      const filtered = await a.call('GET', '/streams?streamType=3', { token });
      expect(filtered.body.items.every((s: Json) => s.streamType === 3)).toBe(true);
      expect((await a.call('GET', '/streams?order[secret]=asc', { token })).status).toBe(400);
    });

    it('refuses bad input with 0x1 and changes nothing', async () => {
      const before = (await a.call('GET', '/streams', { token })).body.total;
      for (const body of [
        { name: '', streamType: 1 },
        { name: 'x', streamType: 6 },
        { name: 'x', streamType: 1, ipAcl: ['300.1.1.1'] },
        { name: 'x', streamType: 1, sender: 'A' },
        { name: 'x', streamType: 1, params: { unknown: 1 } },
        { name: 'x', streamType: 1, status: -10 },
        { name: 'x', streamType: 1, extra: true },
      ]) {
        const res = await a.call('POST', '/streams', { token, body });
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('0x1');
      }
      expect((await a.call('GET', '/streams', { token })).body.total).toBe(before);
    });

    it('refuses a channel the account may not use', async () => {
      await a.account('42', { customSettings: {} });
      const res = await a.call('POST', '/streams', { token: a.member('42'), body: { name: 'wa', streamType: 5 } });
      expect(res.status).toBe(400);
      expect(res.body.violations[0].propertyPath).toBe('streamType');
    });

    it('sets a WhatsApp stream ready once its token is supplied, masks the token, and gives the provider settings to dispatch only', async () => {
      const created = await a.call('POST', '/streams', { token, body: { name: 'wa', streamType: 5, params: { business_id: WA_BUSINESS, phone_number: WA_PHONE_ID } } });
      expect(created.body.status).toBe(2);
      await a.call('PUT', `/streams/${created.body.id}`, { token, body: { status: -1 } });
      const updated = await a.call('PUT', `/streams/${created.body.id}`, { token, body: { params: { auth_token: WA_TOKEN } } });
      expect(updated.body.status).toBe(0);
      expect(updated.body.params.auth_token).toBe('EAAG…oken');
      const mine = (type: string) => a.events().then((all) => all.filter((e) => e.type === type && (e.data as Json).streamId === String(created.body.id)).map((e) => e.data as Json));
      // the snapshot other services read carries no secrets
      expect(JSON.stringify(await mine('streams.stream.updated'))).not.toContain(WA_TOKEN);
      const channel = await mine('streams.stream.channel_configured');
      // created (draft), disabled, token supplied: one event per change of what dispatch keeps
      expect(channel.map((c) => c.enabled)).toEqual([true, false, true]);
      expect(channel.at(-1)).toMatchObject({
        streamUid: created.body.streamUid,
        streamType: 5,
        channel: 'whatsapp',
        sender: WA_PHONE_ID,
        credentials: { businessId: WA_BUSINESS },
      });
      // the secrets travel sealed for the stream (docs/decisions/0021); the key defaults to one derived from the secret
      const box = new ProviderSecrets('provider-secrets:test-secret-of-the-streams-module');
      expect(box.open(created.body.streamUid, String(channel.at(-1)!.sealedCredentials))).toEqual({ accessToken: WA_TOKEN, verifyToken: expect.any(String) });
      // a rename changes nothing dispatch keeps: no event
      await a.call('PUT', `/streams/${created.body.id}`, { token, body: { name: 'wa renamed' } });
      expect(await mine('streams.stream.channel_configured')).toHaveLength(3);
      // clearing the token makes it a draft again
      const cleared = await a.call('PUT', `/streams/${created.body.id}`, { token, body: { params: { auth_token: null } } });
      expect(cleared.body.status).toBe(2);
      const afterClear = (await mine('streams.stream.channel_configured')).at(-1)!;
      expect(box.open(created.body.streamUid, String(afterClear.sealedCredentials)).accessToken).toBeUndefined();
      await a.call('DELETE', `/streams/${created.body.id}`, { token });
      expect((await mine('streams.stream.channel_configured')).at(-1)).toMatchObject({ enabled: false });
    });

    it('emits no channel event for SMS streams other than two-way, and the two-way number for two-way ones', async () => {
      const sms = await a.stream(ACC, { streamType: 2 });
      const twoWay = await a.stream(ACC, { streamType: 4, sender: '+14155550100' });
      const channel = (await a.events()).filter((e) => e.type === 'streams.stream.channel_configured').map((e) => e.data as Json);
      expect(channel.some((c) => c.streamId === String(sms.id))).toBe(false);
      expect(channel.find((c) => c.streamId === String(twoWay.id))).toMatchObject({ channel: 'sms', streamType: 4, sender: '+14155550100', credentials: {}, enabled: true });
    });

    it('keeps a Telegram private stream a draft when the login code is supplied, and hands the code to dispatch', async () => {
      const created = await a.call('POST', '/streams', { token, body: { name: 'tp', streamType: 8, params: { phone_number: '+14155552671' } } });
      expect(created.body.status).toBe(2);
      const submitted = await a.call('PUT', `/streams/${created.body.id}`, { token, body: { params: { otp_code: '12345', password: 'pw' } } });
      // ready only once dispatch reports the login completed (test/../dispatch streams-integration test)
      expect(submitted.body.status).toBe(2);
      expect(submitted.body.params).toMatchObject({ otp_code: '****', password: '****' });
      const events = (await a.events()).map((e) => e.data as Json).filter((d) => d.streamId === String(created.body.id));
      const login = events.find((e) => 'sealed' in e)!;
      expect(login).toMatchObject({ accountId: ACC, streamId: String(created.body.id), streamUid: created.body.streamUid, code: '', password: null });
      expect(new ProviderSecrets('provider-secrets:test-secret-of-the-streams-module').open(created.body.streamUid, String(login.sealed))).toEqual({ code: '12345', password: 'pw' });
      expect(events).toContainEqual(expect.objectContaining({ channel: 'telegram_private', credentials: { phone: '+14155552671' } }));
      // the console may echo the read-only login fields back
      expect((await a.call('PUT', `/streams/${created.body.id}`, { token, body: { params: { auth_status: 'authorised', auth_error: null } } })).body.status).toBe(2);
    });

    it('keeps one default stream per type', async () => {
      const one = await a.stream(ACC, { streamType: 4, isDefault: true });
      const two = await a.stream(ACC, { streamType: 4, isDefault: true });
      expect((await a.call('GET', `/streams/${one.id}`, { token })).body.isDefault).toBe(false);
      expect((await a.call('GET', `/streams/${two.id}`, { token })).body.isDefault).toBe(true);
    });

    it('shows the token, resets it (the old one stops working) and publishes stream changes to rt.<account>.streams', async () => {
      const seen: RealtimeMessage[] = [];
      const off = await a.t.realtime.subscribe(realtimeSubject(ACC, 'streams'), (m) => seen.push(m));
      const s = await a.stream(ACC);
      expect(s.token).toMatch(/^sbs_[A-Za-z0-9_-]{32}$/);
      expect((await a.call('GET', `/streams/token/${s.id}`, { token })).body.token).toBe(s.token);
      const reset = await a.call('POST', '/streams/reset_token', { token, body: { id: s.id } });
      expect(reset.status).toBe(200);
      expect(reset.body.token).not.toBe(s.token);
      expect((await a.send(s.token, { phone: phone(), message: 'old token' })).body.code).toBe('0x12');
      expect((await a.send(reset.body.token, { phone: phone(), message: 'new token' })).status).toBe(202);
      await new Promise((r) => setTimeout(r, 20));
      expect(seen.map((m) => m.type)).toEqual(expect.arrayContaining(['stream.created', 'stream.token_reset']));
      await off();
    });

    it('answers 404 for a missing stream', async () => {
      expect((await a.call('GET', '/streams/999999', { token })).status).toBe(404);
      expect((await a.call('GET', '/streams/abc', { token })).status).toBe(404);
    });

    it('gives code snippets in curl, Node, Python and PHP with the real token and URL', async () => {
      const s = await a.stream(ACC);
      const res = await a.call('GET', `/stream/code_snippet?streamId=${s.id}`, { token });
      expect(res.status).toBe(200);
      for (const lang of ['curl', 'node', 'python', 'php']) {
        expect(res.body[lang]).toContain(s.token);
        expect(res.body[lang]).toContain('https://api.example.test/api/streams/messages');
      }
      const otp = await a.stream(ACC, { streamType: 3 });
      const snippets = await a.call('GET', `/stream/code_snippet?streamId=${otp.id}`, { token });
      expect(snippets.body.curl).toContain('/api/streams/otp/request');
      expect(snippets.body.verifyCurl).toContain('/api/streams/otp/verify');
    });

    it('diagnoses why a stream cannot send', async () => {
      const s = await a.stream(ACC);
      const good = await a.call('GET', `/stream/diagnostics?streamId=${s.id}`, { token });
      expect(good.body.ok).toBe(true);
      await a.call('PUT', `/streams/${s.id}`, { token, body: { enableSending: false } });
      const bad = await a.call('GET', `/stream/diagnostics?streamId=${s.id}`, { token });
      expect(bad.body.ok).toBe(false);
      expect(bad.body.checks).toContainEqual(expect.objectContaining({ key: 'sending_enabled', ok: false }));
    });

    it('sends a demo through the same pipeline with the demo result codes', async () => {
      const s = await a.stream(ACC);
      const ok = await a.call('POST', '/streams/demo', { token, body: { streamId: s.id, phone: phone(), message: 'demo', sender: 'Acme' } });
      expect(ok.body).toMatchObject({ code: 'OK', result: 'success', response: { success: true, message_uuid: expect.any(String) } });
      const [row] = await a.sql(`SELECT demo FROM streams.message WHERE uuid = $1`, [ok.body.response.message_uuid]);
      expect(row.demo).toBe(true);
      expect((await a.call('POST', '/streams/demo', { token, body: { streamId: s.id, message: 'demo' } })).body).toMatchObject({ code: 'REQUEST_VALIDATION_ERROR', result: 'phone_not_entered' });
      expect((await a.call('POST', '/streams/demo', { token, body: { streamId: s.id, phone: '123', message: 'demo' } })).body).toMatchObject({ code: 'REQUEST_VALIDATION_ERROR', result: 'phone_invalid' });
      expect((await a.call('POST', '/streams/demo', { token, body: { streamId: s.id, phone: phone() } })).body.result).toBe('message_empty');
      expect((await a.call('POST', '/streams/demo', { token, body: { streamId: s.id, phone: phone(), message: 'x', sender: 'X' } })).body.result).toBe('sender_not_exist');
      expect((await a.call('POST', '/streams/demo', { token, body: { streamId: s.id, phone: '+4915112345678', message: 'x' } })).body).toMatchObject({ code: 'SENT_FAILED', result: 'failed' });
    });

    // the figures per time slice (POST /streams/subscribe) are the stats service's: services/stats/test/streams-statistics.int-spec.ts
    it('pages the stream messages with their status (message_status)', async () => {
      const s = await a.stream(ACC);
      await a.send(s.token, { phone: phone(), message: 'counted' });
      const page = await a.call('GET', `/streams/message_status?streamId=${s.id}`, { token });
      expect(page.body).toMatchObject({ total: 1, items: [expect.objectContaining({ status: 'accepted', stream_id: s.id, text: 'counted' })] });
    });

    it('replies through the default two-way stream with the message send codes', async () => {
      await a.stream(ACC, { streamType: 4, isDefault: true, sender: '14155550000' });
      expect((await a.call('POST', '/message_responses/send', { token, body: { phone: phone(), message: 'hi' } })).body).toMatchObject({ code: 1, message_uuid: expect.any(String) });
      expect((await a.call('POST', '/message_responses/send', { token, body: { phone: phone() } })).body.code).toBe(2);
      expect((await a.call('POST', '/message_responses/send', { token, body: { message: 'hi' } })).body.code).toBe(3);
      expect((await a.call('POST', '/message_responses/send', { token, body: { phone: '12', message: 'hi' } })).body.code).toBe(4);
      await a.account('43', { balance: 1_000_000, prices: { US: 1 } });
      expect((await a.call('POST', '/message_responses/send', { token: a.member('43'), body: { phone: phone(), message: 'hi' } })).body.code).toBe(5);
      const sms = await a.stream(ACC);
      expect((await a.call('POST', '/message_responses/send', { token, body: { phone: phone(), message: 'hi', streamId: sms.id } })).body.code).toBe(5);
    });

    it('returns the provider callback for a stream (webhooks/{id})', async () => {
      const s = await a.stream(ACC);
      const res = await a.call('GET', `/streams/webhooks/${s.id}`, { token });
      // SMS has no webhook (inbound comes over SMPP); WhatsApp's is dispatch's route keyed by the stream
      expect(res.body).toMatchObject({ streamUid: s.streamUid, channel: 'sms', callbackUrl: null, verifyToken: null });
      const wa = await a.stream(ACC, { streamType: 5, sender: undefined });
      const hook = await a.call('GET', `/streams/webhooks/${wa.id}`, { token });
      expect(hook.body).toMatchObject({ channel: 'whatsapp', callbackUrl: `https://api.example.test/api/dispatch/webhooks/whatsapp/${wa.streamUid}`, verifyToken: expect.stringMatching(/^.{32}$/) });
    });

    it('maps inbox roles to two-way and WhatsApp streams', async () => {
      const s = await a.stream(ACC, { streamType: 4 });
      expect((await a.call('POST', '/streams/inbox/assign_permissions_mapping', { token, body: { streamId: s.id, roleIds: [7, 8] } })).body).toEqual({ streamId: s.id, roleIds: [7, 8] });
      const map = await a.call('GET', '/streams/inbox/assign_permissions_mapping', { token });
      expect(map.body.items).toContainEqual(expect.objectContaining({ streamId: s.id, roleIds: [7, 8] }));
      const inbox = await a.call('GET', '/streams/dropdown/inbox', { token: a.member(ACC, ['INBOX_VIEW']) });
      expect(inbox.body.items.every((i: Json) => [4, 5].includes(i.streamType))).toBe(true);
    });
  });

  describe('providers (local WhatsApp Cloud API and Telegram Bot API)', () => {
    it('previews a WhatsApp token: phone numbers, E-0159 for a bad token, E-0158 for a bad business id', async () => {
      const ok = await a.call('POST', '/streams/preview-whatsapp-token', { token, body: { auth_token: WA_TOKEN, business_id: WA_BUSINESS } });
      expect(ok.body).toEqual({ business: { id: WA_BUSINESS, name: 'Acme WhatsApp' }, phone_numbers: [{ id: WA_PHONE_ID, display_phone_number: '+1 415-555-2671', verified_name: 'Acme' }] });
      expect(a.providers.requests.some((r) => r.url.startsWith(`/v21.0/${WA_BUSINESS}?fields=`) && r.auth === `Bearer ${WA_TOKEN}`)).toBe(true);
      const badToken = await a.call('POST', '/streams/preview-whatsapp-token', { token, body: { auth_token: 'nope', business_id: WA_BUSINESS } });
      expect(badToken).toMatchObject({ status: 400, body: { code: 'E-0159' } });
      const badBusiness = await a.call('POST', '/streams/preview-whatsapp-token', { token, body: { auth_token: WA_TOKEN, business_id: '99999999' } });
      expect(badBusiness).toMatchObject({ status: 400, body: { code: 'E-0158' } });
    });

    it('previews a Telegram bot token with getMe, E-0160 for a bad one', async () => {
      expect((await a.call('POST', '/streams/preview-telegram-token', { token, body: { auth_token: TG_TOKEN } })).body).toEqual({ id: 123456, username: 'test_bot', first_name: 'Test Bot', is_bot: true });
      expect(await a.call('POST', '/streams/preview-telegram-token', { token, body: { auth_token: '123456:wrongwrongwrongwrongwrong' } })).toMatchObject({ status: 400, body: { code: 'E-0160' } });
      expect((await a.call('POST', '/streams/preview-telegram-token', { token, body: { auth_token: 'garbage' } })).body.code).toBe('E-0160');
    });

    it('lists external senders and templates and proxies WhatsApp templates and flows for a stream', async () => {
      const wa = await a.stream(ACC, { streamType: 5, sender: null, params: { auth_token: WA_TOKEN, business_id: WA_BUSINESS, phone_number: WA_PHONE_ID } });
      expect((await a.call('GET', `/streams/external-senders/${wa.id}`, { token })).body).toEqual([{ id: WA_PHONE_ID, display_phone_number: '+1 415-555-2671', verified_name: 'Acme' }]);
      expect((await a.call('GET', `/streams/external-templates/${wa.id}`, { token })).body.items[0]).toMatchObject({ name: 'order_update' });
      expect((await a.call('GET', `/tech_provider/whatsapp/templates/${wa.id}`, { token })).body.total).toBe(1);
      const created = await a.call('POST', `/tech_provider/whatsapp/templates/${wa.id}`, { token, body: { name: 'promo_1', language: 'en_US', category: 'MARKETING', components: [{ type: 'BODY', text: 'Hi {{1}}' }] } });
      expect(created.body).toEqual({ id: '9999', status: 'PENDING', category: 'MARKETING' });
      expect((await a.call('POST', `/tech_provider/whatsapp/templates/${wa.id}`, { token, body: { name: 'Bad Name' } })).status).toBe(400);
      expect((await a.call('DELETE', `/tech_provider/whatsapp/templates/${wa.id}?name=promo_1`, { token })).body).toEqual({ success: true });
      expect((await a.call('GET', `/tech_provider/whatsapp/flows/${wa.id}`, { token })).body.items[0]).toMatchObject({ id: '777', name: 'signup' });
      const tg = await a.stream(ACC, { streamType: 7, sender: null, params: { auth_token: TG_TOKEN } });
      expect((await a.call('GET', `/streams/external-senders/${tg.id}`, { token })).body).toEqual([{ id: '123456', display_phone_number: '@test_bot', verified_name: 'Test Bot' }]);
      const sms = await a.stream(ACC);
      expect((await a.call('GET', `/tech_provider/whatsapp/flows/${sms.id}`, { token })).body.code).toBe('0x17');
      const draft = await a.stream(ACC, { streamType: 5, sender: null });
      expect((await a.call('GET', `/tech_provider/whatsapp/templates/${draft.id}`, { token })).body.code).toBe('0x23');
    });
  });

  describe('senders', () => {
    it('applies the sender ID rules: alphanumeric 3 to 11, numeric up to 15 digits', async () => {
      for (const [value, ok] of [['Acme', true], ['ABC', true], ['AB', false], ['Elevenchars', true], ['Twelve chars', false], ['123456789012345', true], ['1234567890123456', false], ['+4915112345678', true], ['Acme<script>', false]] as const) {
        const res = await a.call('POST', '/senders', { token, body: { name: `sender ${value}`, value } });
        expect([value, res.status]).toEqual([value, ok ? 201 : 400]);
      }
    });

    it('creates senders pending, refuses a duplicate ID with senderExists, lists and drops them down', async () => {
      const created = await a.call('POST', '/senders', { token, body: { name: 'Brand', value: 'BrandCo', type: 'inbound-outbound', country: 'us' } });
      expect(created.body).toMatchObject({ value: 'BrandCo', approved: 0, declinedReason: null, type: 'inbound-outbound', country: 'US' });
      const dup = await a.call('POST', '/senders', { token, body: { name: 'Again', value: 'brandco' } });
      expect(dup).toMatchObject({ status: 409, body: { violations: [expect.objectContaining({ propertyPath: 'value', code: 'senderExists' })] } });
      expect((await a.call('GET', '/senders?approved=0&itemsPerPage=500', { token })).body.items.some((s: Json) => s.value === 'BrandCo')).toBe(true);
      expect((await a.call('GET', '/senders/dropdown', { token })).body.items.some((s: Json) => s.value === 'BrandCo')).toBe(true);
    });

    it('lets super admins approve or decline with one of six reasons, and resets approval when the ID changes', async () => {
      const s = await a.call('POST', '/senders', { token, body: { name: 'ToApprove', value: 'Approve1' } });
      const sa = a.superAdmin();
      expect((await a.call('GET', '/senders/superadmin?approved=0', { token: sa })).body.items.some((x: Json) => x.id === s.body.id && x.accountId === Number(ACC))).toBe(true);
      expect((await a.call('PUT', `/senders/superadmin/${s.body.id}`, { token: sa, body: { approved: 2 } })).status).toBe(400);
      expect((await a.call('PUT', `/senders/superadmin/${s.body.id}`, { token: sa, body: { approved: 2, declinedReason: 'because' } })).status).toBe(400);
      const declined = await a.call('PUT', `/senders/superadmin/${s.body.id}`, { token: sa, body: { approved: 2, declinedReason: 'generic_name' } });
      expect(declined.body).toMatchObject({ approved: 2, declinedReason: 'generic_name' });
      const approved = await a.call('PUT', `/senders/superadmin/${s.body.id}`, { token: sa, body: { approved: 1 } });
      expect(approved.body).toMatchObject({ approved: 1, declinedReason: null });
      expect((await a.call('PUT', `/senders/superadmin/${s.body.id}`, { token, body: { approved: 1 } })).status).toBe(403);
      const renamed = await a.call('PUT', `/senders/${s.body.id}`, { token, body: { value: 'Approve2' } });
      expect(renamed.body.approved).toBe(0);
      const events = await a.events();
      expect(events.filter((e) => e.type === 'streams.sender.changed' && (e.data as Json).senderId === String(s.body.id)).map((e) => (e.data as Json).approved)).toEqual([0, 2, 1, 0]);
      expect((await a.call('DELETE', `/senders/${s.body.id}`, { token })).status).toBe(204);
      expect((await a.call('GET', `/senders/${s.body.id}`, { token })).status).toBe(404);
    });
  });

  describe('malicious keywords', () => {
    it('is a super-admin list with CRUD, unique words and change events', async () => {
      const sa = a.superAdmin();
      const made = await a.call('POST', '/malicious_keywords/global', { token: sa, body: { word: 'casino', type: 2 } });
      expect(made.body).toMatchObject({ word: 'casino', type: 2 });
      expect((await a.call('POST', '/malicious_keywords/global', { token: sa, body: { word: 'CASINO' } })).status).toBe(409);
      expect((await a.call('PUT', `/malicious_keywords/global/${made.body.id}`, { token: sa, body: { word: 'casinos', type: 1 } })).body).toMatchObject({ word: 'casinos', type: 1 });
      expect((await a.call('GET', '/malicious_keywords/global', { token: sa })).body.items.map((k: Json) => k.word)).toContain('casinos');
      expect((await a.call('GET', `/malicious_keywords/global/${made.body.id}`, { token: sa })).body).toMatchObject({ word: 'casinos', type: 1 });
      expect((await a.call('GET', '/malicious_keywords/global/999999', { token: sa })).status).toBe(404);
      expect((await a.call('GET', '/malicious_keywords/global', { token })).status).toBe(403);
      expect((await a.call('DELETE', `/malicious_keywords/global/${made.body.id}`, { token: sa })).status).toBe(204);
      const events = (await a.events()).filter((e) => e.type === 'streams.malicious_keywords.changed');
      expect((events.at(-1)?.data as Json).keywords.some((k: Json) => k.word === 'casinos')).toBe(false);
    });
  });

  describe('stream events', () => {
    it('creates, lists by stream, edits and deletes events, with unique keys per stream', async () => {
      const s = await a.stream(ACC, { streamType: 5, sender: null });
      const made = await a.call('POST', '/stream_events', { token, body: { name: 'Order shipped', text: 'Your order {{1}} shipped', eventKey: 'order_shipped', stream: `/api/streams/${s.id}` } });
      expect(made.status).toBe(201);
      expect(made.body).toMatchObject({ name: 'Order shipped', eventKey: 'order_shipped', active: true, stream: `/api/streams/${s.id}`, streamId: s.id });
      expect((await a.call('POST', '/stream_events', { token, body: { name: 'again', eventKey: 'order_shipped', stream: s.id } })).status).toBe(409);
      expect((await a.call('POST', '/stream_events', { token, body: { name: 'bad', eventKey: 'bad key', stream: s.id } })).status).toBe(400);
      expect((await a.call('GET', `/stream_events?streamId=${s.id}&itemsPerPage=500`, { token })).body).toMatchObject({ total: 1, items: [expect.objectContaining({ id: made.body.id })] });
      expect((await a.call('PUT', `/stream_events/${made.body.id}`, { token, body: { active: 0, text: 'changed' } })).body).toMatchObject({ active: false, text: 'changed' });
      expect((await a.call('DELETE', `/stream_events/${made.body.id}`, { token })).status).toBe(204);
      expect((await a.call('GET', `/stream_events/${made.body.id}`, { token })).status).toBe(404);
    });
  });
});
