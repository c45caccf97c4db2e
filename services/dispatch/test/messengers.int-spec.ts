import { createHmac } from 'node:crypto';
import { MessageReceivedV1 } from '@switchboard/contracts';
import { telegramWebhookSecret } from '../src';
import { TelegramPeer } from '../src/testing/telegram-peer';
import { WhatsAppPeer } from '../src/testing/whatsapp-peer';
import { sealFor, startDispatch, type DispatchTestApp } from './support';

const BOT = '123456:ABC-bot-token';

describe('WhatsApp Cloud API and Telegram Bot API against local peers', () => {
  let wa: WhatsAppPeer;
  let tg: TelegramPeer;
  let d: DispatchTestApp;
  let waVendor: string;

  beforeAll(async () => {
    wa = new WhatsAppPeer('app-secret', new Set(['system-token', 'stream-token']));
    tg = new TelegramPeer(new Set([BOT]));
    const [waUrl, tgUrl] = [await wa.listen(), await tg.listen()];
    d = await startDispatch({
      publicUrl: 'https://sms.example.test',
      telegram: { webhookSecretKey: 'tg-key' },
      seedVendors: [
        { name: 'WhatsApp Cloud', serviceType: 'whatsapp', adapter: 'whatsapp', config: { baseUrl: waUrl, apiVersion: 'v21.0', accessToken: 'system-token', appSecret: 'app-secret', verifyToken: 'verify-me', retryAfterMs: 20 } },
        { name: 'Telegram Bot API', serviceType: 'telegram', adapter: 'telegram_bot', config: { baseUrl: tgUrl } },
      ],
    });
    [{ id: waVendor }] = await d.sql<{ id: string }>(`SELECT id::text FROM dispatch.vendor WHERE adapter = 'whatsapp'`);
    await d.configureStream({ streamId: '30', channel: 'whatsapp', streamType: 5, sender: 'PNID-1' });
    await d.configureStream({ streamId: '40', channel: 'telegram', streamType: 7, sender: 'acme_bot', sealedCredentials: sealFor('stream-40', { botToken: BOT }) });
  });

  afterAll(async () => {
    await d.close();
    await wa.close();
    await tg.close();
  });

  const hook = () => `${d.t.url}/api/dispatch/webhooks/whatsapp/${waVendor}`;
  const changes = (uuid: string) =>
    d.statusChanges().filter((e) => (e.data as { messageUuid: string }).messageUuid === uuid).map((e) => e.data as { status: string; outgoingStatus: string });

  it('sends a WhatsApp text to /{version}/{phone-number-id}/messages with the bearer token', async () => {
    const uuid = await d.accept({ channel: 'whatsapp', streamId: '30', streamUid: 'stream-30', streamType: 5, sender: 'PNID-1', text: 'Hello on WhatsApp', encoding: null });
    const row = await d.untilStatus(uuid, 'sent');
    expect(wa.sends.at(-1)).toMatchObject({ version: 'v21.0', phoneNumberId: 'PNID-1', token: 'system-token', body: { messaging_product: 'whatsapp', to: '4915112345678', type: 'text', text: { body: 'Hello on WhatsApp' } } });
    expect((row.provider_ids as string[])[0]).toMatch(/^wamid\./);
  });

  it('sends template and media messages as the Cloud API shapes them', async () => {
    const template = { name: 'order_update', language: { code: 'en' }, components: [{ type: 'body', parameters: [{ type: 'text', text: '42' }] }] };
    const t = await d.accept({ channel: 'whatsapp', streamId: '30', sender: 'PNID-1', text: '', encoding: null, payload: { template } });
    await d.untilStatus(t, 'sent');
    expect(wa.sends.at(-1)!.body).toMatchObject({ type: 'template', template });
    const m = await d.accept({ channel: 'whatsapp', streamId: '30', sender: 'PNID-1', text: 'a caption', encoding: null, payload: { media: { type: 'image', link: 'https://example.test/a.png' } } });
    await d.untilStatus(m, 'sent');
    expect(wa.sends.at(-1)!.body).toMatchObject({ type: 'image', image: { link: 'https://example.test/a.png', caption: 'a caption' } });
  });

  it('retries a rate-limited WhatsApp send', async () => {
    wa.rateLimitNext = 1;
    const uuid = await d.accept({ channel: 'whatsapp', streamId: '30', sender: 'PNID-1', text: 'after a 429', encoding: null });
    const row = await d.untilStatus(uuid, 'sent');
    expect(row.attempts).toBe(2);
  });

  it('answers the webhook verification handshake only with the verify token', async () => {
    const ok = await fetch(`${hook()}?hub.mode=subscribe&hub.verify_token=verify-me&hub.challenge=1158201444`);
    expect([ok.status, await ok.text()]).toEqual([200, '1158201444']);
    const bad = await fetch(`${hook()}?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1`);
    expect(bad.status).toBe(403);
  });

  it('applies statuses arriving in any order: read before delivered leaves the message delivered and read; failed afterwards changes nothing', async () => {
    const uuid = await d.accept({ channel: 'whatsapp', streamId: '30', sender: 'PNID-1', text: 'status order', encoding: null });
    const row = await d.untilStatus(uuid, 'sent');
    const id = (row.provider_ids as string[])[0];
    expect(await wa.deliver(hook(), WhatsAppPeer.notification('PNID-1', { statuses: [WhatsAppPeer.status(id, 'read')] }))).toBe(200);
    expect(await wa.deliver(hook(), WhatsAppPeer.notification('PNID-1', { statuses: [WhatsAppPeer.status(id, 'delivered'), WhatsAppPeer.status(id, 'sent')] }))).toBe(200);
    expect(await wa.deliver(hook(), WhatsAppPeer.notification('PNID-1', { statuses: [WhatsAppPeer.status(id, 'failed', undefined, { errors: [{ code: 131026, title: 'Message undeliverable' }] })] }))).toBe(200);
    const final = await d.untilStatus(uuid, 'delivered');
    expect(final.outgoing_status).toBe('read');
    await d.flushOutbox();
    expect(changes(uuid).map((c) => [c.status, c.outgoingStatus])).toEqual([
      ['sent', 'sent'],
      ['delivered', 'read'],
    ]);
  });

  it('marks a failed WhatsApp message undelivered with the error, and a status for an unknown id waits', async () => {
    const uuid = await d.accept({ channel: 'whatsapp', streamId: '30', sender: 'PNID-1', text: 'will fail', encoding: null });
    const row = await d.untilStatus(uuid, 'sent');
    const id = (row.provider_ids as string[])[0];
    await wa.deliver(hook(), WhatsAppPeer.notification('PNID-1', { statuses: [WhatsAppPeer.status(id, 'failed', undefined, { errors: [{ code: 131026, title: 'Message undeliverable' }] })] }));
    expect((await d.untilStatus(uuid, 'undelivered')).error).toBe('131026 Message undeliverable');
    await wa.deliver(hook(), WhatsAppPeer.notification('PNID-1', { statuses: [WhatsAppPeer.status('wamid.unknown', 'delivered')] }));
    expect(await d.sql(`SELECT outcome FROM dispatch.pending_receipt WHERE provider_message_id = 'wamid.unknown'`)).toEqual([{ outcome: 'delivered' }]);
  });

  it('refuses a webhook whose X-Hub-Signature-256 does not match, changing nothing', async () => {
    const before = await d.sql(`SELECT count(*)::int AS n FROM dispatch.inbound_message`);
    const payload = WhatsAppPeer.notification('PNID-1', { messages: [{ from: '4917000000', id: 'wamid.in-forged', timestamp: '1700000000', type: 'text', text: { body: 'forged' } }] });
    expect(await wa.deliver(hook(), payload, 'wrong-secret')).toBe(401);
    expect(await d.sql(`SELECT count(*)::int AS n FROM dispatch.inbound_message`)).toEqual(before);
  });

  it('stores an incoming WhatsApp message once, however often it is delivered', async () => {
    const payload = WhatsAppPeer.notification('PNID-1', {
      contacts: [{ wa_id: '4917000001', profile: { name: 'Ada' } }],
      messages: [{ from: '4917000001', id: 'wamid.in-1', timestamp: '1700000000', type: 'text', text: { body: 'Hi there' } }],
    });
    expect(await wa.deliver(hook(), payload)).toBe(200);
    expect(await wa.deliver(hook(), payload)).toBe(200);
    const rows = await d.sql(`SELECT stream_id::text, contact_phone, contact_name, body FROM dispatch.inbound_message WHERE provider_message_id = 'wamid.in-1'`);
    expect(rows).toEqual([{ stream_id: '30', contact_phone: '+4917000001', contact_name: 'Ada', body: 'Hi there' }]);
    await d.flushOutbox();
    expect(d.events(MessageReceivedV1.type).filter((e) => (e.data as { body: string }).body === 'Hi there')).toHaveLength(1);
  });

  it('registers the Telegram webhook with a secret token when the stream is configured', () => {
    expect(tg.webhooks.get(BOT)).toEqual({ url: 'https://sms.example.test/api/dispatch/webhooks/telegram/stream-40', secret_token: telegramWebhookSecret('tg-key', 'stream-40') });
  });

  it('sends through sendMessage, waits out a 429 retry_after, and counts the accepted message as delivered', async () => {
    tg.floodNext = 1;
    tg.retryAfter = 1;
    const uuid = await d.accept({ channel: 'telegram', streamId: '40', streamUid: 'stream-40', streamType: 7, sender: 'acme_bot', destination: '555000', iso2: null, text: 'Hello bot user', encoding: null });
    const row = await d.untilStatus(uuid, 'delivered');
    expect(row.attempts).toBe(2);
    expect(tg.messages.at(-1)).toEqual({ token: BOT, chat_id: '555000', text: 'Hello bot user' });
  });

  it('takes updates only with the secret token', async () => {
    const update = { update_id: 9001, message: { message_id: 77, date: 1700000000, text: 'hello bot', chat: { id: 555000, type: 'private' }, from: { id: 555000, first_name: 'Grace', last_name: 'H' } } };
    expect(await tg.update(BOT, update, { baseUrl: d.t.url, secret: 'wrong' })).toBe(401);
    expect(await tg.update(BOT, update, { baseUrl: d.t.url })).toBe(200);
    const rows = await d.sql(`SELECT account_id::text, stream_uid, account_phone, contact_phone, contact_name, body FROM dispatch.inbound_message WHERE channel = 'telegram'`);
    expect(rows).toEqual([{ account_id: '1', stream_uid: 'stream-40', account_phone: 'acme_bot', contact_phone: '555000', contact_name: 'Grace H', body: 'hello bot' }]);
  });

  it('takes STOP and START from a Telegram chat: the bot sends it nothing in between', async () => {
    const update = (id: number, text: string) => ({ update_id: 9100 + id, message: { message_id: 100 + id, date: 1700000000, text, chat: { id: 555111, type: 'private' }, from: { id: 555111, first_name: 'Lin' } } });
    expect(await tg.update(BOT, update(1, 'stop sending me offers'), { baseUrl: d.t.url })).toBe(200);
    expect(await d.sql(`SELECT 1 FROM dispatch.opt_out WHERE phone = '555111'`)).toEqual([]);
    // the bot command form counts as the keyword
    expect(await tg.update(BOT, update(2, '/stop'), { baseUrl: d.t.url })).toBe(200);
    expect(await d.sql(`SELECT sender, keyword FROM dispatch.opt_out WHERE phone = '555111'`)).toEqual([{ sender: 'acme_bot', keyword: 'STOP' }]);
    const sends = tg.messages.length;
    const blocked = await d.accept({ channel: 'telegram', streamId: '40', streamUid: 'stream-40', streamType: 7, sender: 'acme_bot', destination: '555111', iso2: null, text: 'after a Telegram STOP', encoding: null });
    expect(await d.untilStatus(blocked, 'rejected')).toMatchObject({ error: 'the recipient opted out' });
    expect(tg.messages.length).toBe(sends);
    expect(await tg.update(BOT, update(3, 'Start'), { baseUrl: d.t.url })).toBe(200);
    const again = await d.accept({ channel: 'telegram', streamId: '40', streamUid: 'stream-40', streamType: 7, sender: 'acme_bot', destination: '555111', iso2: null, text: 'after a Telegram START', encoding: null });
    await d.untilStatus(again, 'delivered');
    expect(tg.messages.at(-1)).toMatchObject({ chat_id: '555111', text: 'after a Telegram START' });
  });

  it('answers WhatsApp and Telegram notifications in front of the router, as the Nest routes answer them, with their metric', async () => {
    // a probe right behind the first middleware: a notification answered in front of the router never reaches it
    const express = d.t.app.getHttpAdapter().getInstance() as { use: (fn: (req: { method: string; url: string }, res: unknown, next: () => void) => void) => void; router: { stack: unknown[] } };
    const reached: string[] = [];
    express.use((req, _res, next) => {
      if (req.method === 'POST' && req.url.startsWith('/api/dispatch/webhooks/')) reached.push(req.url);
      next();
    });
    express.router.stack.splice(1, 0, express.router.stack.pop());
    const counted = async (route: string, status: number): Promise<number> => {
      const text = await (await fetch(`${d.t.url}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith(`switchboard_http_requests_total{method="POST",route="${route}",status="${status}"}`));
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const before = [await counted('/api/dispatch/webhooks/whatsapp/:key', 401), await counted('/api/dispatch/webhooks/telegram/:streamUid', 200)];
    try {
      const post = async (path: string, payload: Record<string, unknown>, headers: Record<string, string>) => {
        const res = await fetch(`${d.t.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(payload) });
        return { status: res.status, type: res.headers.get('content-type'), length: res.headers.get('content-length'), id: /^[\w-]{8,64}$/.test(res.headers.get('x-request-id') ?? ''), body: await res.text() };
      };
      const signed = (payload: Record<string, unknown>, secret = 'app-secret') => ({ 'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(JSON.stringify(payload)).digest('hex')}` });
      const message = (id: string) => WhatsAppPeer.notification('PNID-1', { messages: [{ from: '4917000002', id, timestamp: '1700000000', type: 'text', text: { body: `early ${id}` } }] });
      const tgUpdate = { update_id: 9301, message: { message_id: 301, date: 1700000000, text: 'early hello', chat: { id: 555301, type: 'private' }, from: { id: 555301, first_name: 'Kim' } } };
      const tgSecret = { 'x-telegram-bot-api-secret-token': telegramWebhookSecret('tg-key', 'stream-40') };
      // each case twice: by the path as providers post it (in front of the router) and by a spelling only Nest's route takes
      const cases: Array<[string, string, Record<string, unknown>, Record<string, string>]> = [
        ['whatsapp/', waVendor, message('wamid.early-1'), signed(message('wamid.early-1'))],
        ['whatsapp/', waVendor, message('wamid.early-2'), signed(message('wamid.early-2'), 'wrong-secret')],
        ['whatsapp/', 'no-such-stream', message('wamid.early-3'), signed(message('wamid.early-3'))],
        ['whatsapp/', waVendor, { object: 'whatsapp_business_account' }, signed({ object: 'whatsapp_business_account' })],
        ['telegram/', 'stream-40', tgUpdate, tgSecret],
        ['telegram/', 'stream-40', tgUpdate, { 'x-telegram-bot-api-secret-token': 'wrong' }],
      ];
      const early = [];
      for (const [kind, key, payload, headers] of cases) early.push(await post(`/api/dispatch/webhooks/${kind}${key}`, payload, headers));
      expect(reached).toEqual([]);
      const routed = [];
      for (const [kind, key, payload, headers] of cases) routed.push(await post(`/api/dispatch/webhooks/${kind.toUpperCase()}${key}`, payload, headers));
      expect(reached).toHaveLength(cases.length);
      expect(early).toEqual(routed);
      expect(early.map((a) => [a.status, a.body])).toEqual([
        [200, '{"ok":true}'],
        [401, expect.stringContaining('"status":401')],
        [404, expect.stringContaining('"status":404')],
        [400, expect.stringContaining('"status":400')],
        [200, '{"ok":true}'],
        [401, expect.stringContaining('"status":401')],
      ]);
      // stored once (the provider's retry, by either path, is the same message), with the number's claim of account 1
      expect(await d.sql(`SELECT account_id::text, stream_id::text, body FROM dispatch.inbound_message WHERE provider_message_id = 'wamid.early-1'`)).toEqual([{ account_id: '1', stream_id: '30', body: 'early wamid.early-1' }]);
      expect(await d.sql(`SELECT count(*)::int AS n FROM dispatch.inbound_message WHERE provider_message_id IN ('wamid.early-2', 'wamid.early-3')`)).toEqual([{ n: 0 }]);
      // each path's answer counted under the route's template: one by the early route, one by Nest's
      expect([(await counted('/api/dispatch/webhooks/whatsapp/:key', 401)) - before[0], (await counted('/api/dispatch/webhooks/telegram/:streamUid', 200)) - before[1]]).toEqual([2, 2]);
    } finally {
      express.router.stack.splice(1, 1);
    }
  });

  it('refuses a WhatsApp notification over 1 MB in front of the router, before reading the rest', async () => {
    const payload = WhatsAppPeer.notification('PNID-1', { messages: [{ from: '4917000003', id: 'wamid.big', timestamp: '1700000000', type: 'text', text: { body: 'x'.repeat(1024 * 1024 + 10) } }] });
    const res = await fetch(hook(), { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': 'sha256=0' }, body: JSON.stringify(payload) }).catch((e: Error) => e);
    if (!(res instanceof Error)) expect(res.status).toBe(413);
    expect(await d.sql(`SELECT count(*)::int AS n FROM dispatch.inbound_message WHERE provider_message_id = 'wamid.big'`)).toEqual([{ n: 0 }]);
  });
});
