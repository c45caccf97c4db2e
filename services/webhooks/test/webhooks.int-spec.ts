import { createHmac, randomUUID } from 'node:crypto';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { ALL_PERMISSIONS, LinkClicksRecordedV1, MessageEdrV1, MessageReceivedV1, MessageStatusChangedV1, MessageStatusesChangedV1, Permission, type EventData } from '@switchboard/contracts';
import { createEnvelope, InMemoryEventBus, listRoutes } from '@switchboard/platform';
import { Receiver, startWebhooks, type Json, type Received, type WebhooksTestApp } from './support';

const A = '71';
const B = '72';

/** An independent Standard Webhooks check: recompute HMAC-SHA256 over `${id}.${timestamp}.${body}` with the secret's key. */
function verifies(secret: string, r: Received): boolean {
  const id = String(r.headers['webhook-id']);
  const ts = String(r.headers['webhook-timestamp']);
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${ts}.${r.body}`).digest('base64');
  return String(r.headers['webhook-signature']).split(' ').includes(`v1,${expected}`);
}

const status = (over: Partial<EventData<typeof MessageStatusChangedV1>> = {}): EventData<typeof MessageStatusChangedV1> => ({
  messageUuid: randomUUID(),
  accountId: A,
  streamId: '5',
  streamUid: '11111111-1111-4111-8111-111111111111',
  campaignId: null,
  sender: 'Acme',
  destination: '+14155552671',
  status: 'delivered',
  outgoingStatus: null,
  error: null,
  vendorId: '1',
  providerMessageId: 'p1',
  sentAt: '2026-03-02T10:00:00.000Z',
  deliveredAt: '2026-03-02T10:00:02.000Z',
  mcc: '310',
  mnc: '260',
  occurredAt: '2026-03-02T10:00:02.000Z',
  ...over,
});

describe('webhooks', () => {
  let a: WebhooksTestApp;
  let rx: Receiver;

  beforeAll(async () => {
    a = await startWebhooks();
    rx = await new Receiver().start();
  });
  afterAll(async () => {
    await rx?.stop();
    await a?.close();
  });
  beforeEach(() => {
    rx.requests.length = 0;
    rx.answer = () => ({ status: 200, body: '{"ok":true}', headers: { 'content-type': 'application/json' } });
  });

  const create = async (acc: string, body: Json) => {
    const res = await a.call('POST', '/webhooks', { token: a.member(acc), body: { name: 'hook', url: `${rx.url}/hook`, trigger: 'message_status_change', ...body } });
    expect([res.status, res.body]).toEqual([201, expect.objectContaining({ id: expect.any(Number) })]);
    return res.body as Json & { id: number; secret: string };
  };
  const deactivateAll = () => a.sql(`UPDATE webhooks.webhook SET active = false`);

  describe('CRUD and validation', () => {
    it('creates a webhook with defaults, answers its secret once, and updates only the fields sent', async () => {
      const hook = await create(A, { headers: { 'X-Api-Key': 'k1' }, filter: { stream_id: [5, '6'] }, params: { include_contact_details: true } });
      expect(hook).toMatchObject({
        name: 'hook',
        httpMethod: 'POST',
        active: true,
        trigger: 'message_status_change',
        headers: { 'x-api-key': 'k1' },
        filter: { stream_id: [5, 6] },
        params: { send_bulk: false, include_message_text: true, include_contact_details: true, include_lead_id: false },
      });
      expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
      const shown = await a.call('GET', `/webhooks/${hook.id}`, { token: a.member(A) });
      expect(shown.body.secret).toBeUndefined();
      expect(JSON.stringify(await a.sql(`SELECT * FROM webhooks.webhook WHERE id = $1`, [hook.id]))).not.toContain(hook.secret.slice(6));

      const upd = await a.call('PUT', `/webhooks/${hook.id}`, { token: a.member(A), body: { name: 'renamed', params: { send_bulk: true } } });
      expect(upd.status).toBe(200);
      expect(upd.body).toMatchObject({ name: 'renamed', url: `${rx.url}/hook`, headers: { 'x-api-key': 'k1' }, filter: { stream_id: [5, 6] }, params: { send_bulk: true, include_contact_details: true } });
      const list = await a.call('GET', '/webhooks', { token: a.member(A) });
      expect(list.body.items.map((w: Json) => w.id)).toContain(hook.id);
      await deactivateAll();
    });

    it('deletes a webhook with its queue and its request log, and an attempt answered after the delete records nothing', async () => {
      const hook = await create(A, {});
      await a.publish(MessageStatusChangedV1, status());
      await a.deliveries.runOnce();
      expect(await a.sql(`SELECT count(*)::int AS n FROM webhooks.request_log WHERE webhook_id = $1`, [hook.id])).toEqual([{ n: 1 }]);
      // the next delivery is answered only after the webhook was deleted (the answer waits for the delete)
      let deleted!: Promise<{ status: number }>;
      rx.answer = () => (deleted = a.call('DELETE', `/webhooks/${hook.id}`, { token: a.member(A) })).then(() => ({ status: 200 }));
      await a.publish(MessageStatusChangedV1, status());
      await a.deliveries.runOnce();
      expect((await deleted).status).toBe(204);
      expect(rx.requests).toHaveLength(2);
      expect(await a.sql(`SELECT count(*)::int AS n FROM webhooks.request_log WHERE webhook_id = $1`, [hook.id])).toEqual([{ n: 0 }]);
      expect(await a.sql(`SELECT count(*)::int AS n FROM webhooks.delivery WHERE webhook_id = $1`, [hook.id])).toEqual([{ n: 0 }]);
      expect((await a.call('GET', `/webhook_requests/log?webhook=${hook.id}`, { token: a.member(A) })).body.total).toBe(0);
    });

    it('refuses bad input with 0x1 and a violation per field, and stores nothing', async () => {
      const before = await a.sql(`SELECT count(*)::int AS n FROM webhooks.webhook`);
      const cases: Array<[Json, string]> = [
        [{ name: undefined }, 'name'],
        [{ name: '   ' }, 'name'],
        [{ url: 'ftp://example.com/x' }, 'url'],
        [{ url: 'not a url' }, 'url'],
        [{ url: 'http://user:pw@example.com/' }, 'url'],
        [{ url: 'http://10.1.2.3/hook' }, 'url'],
        [{ url: 'http://169.254.169.254/latest/meta-data' }, 'url'],
        [{ url: 'http://[::ffff:10.0.0.1]/x' }, 'url'],
        [{ trigger: 'everything' }, 'trigger'],
        [{ httpMethod: 'DELETE' }, 'httpMethod'],
        [{ headers: { 'webhook-signature': 'forged' } }, 'headers.webhook-signature'],
        [{ headers: { Host: 'evil' } }, 'headers.Host'],
        [{ headers: { 'x-a': 'line\nbreak' } }, 'headers.x-a'],
        [{ filter: { stream_id: ['abc'] } }, 'filter.stream_id'],
        [{ params: { include_everything: true } }, 'params.include_everything'],
        [{ active: 'maybe' }, 'active'],
      ];
      for (const [over, field] of cases) {
        const body = { name: 'x', url: `${rx.url}/x`, trigger: 'edr_info', ...over };
        const res = await a.call('POST', '/webhooks', { token: a.member(A), body });
        expect([field, res.status, res.body.code, res.body.violations?.map((v: Json) => v.propertyPath)]).toEqual([field, 400, '0x1', expect.arrayContaining([field])]);
      }
      expect(await a.sql(`SELECT count(*)::int AS n FROM webhooks.webhook`)).toEqual(before);
    });

    it('answers code snippets that verify the signature in Node, Python, PHP and curl', async () => {
      const res = await a.call('GET', '/webhooks/code_snippets', { token: a.member(A, [Permission.WebhookView]) });
      expect(Object.keys(res.body).sort()).toEqual(['curl', 'node', 'php', 'python']);
      for (const s of Object.values(res.body) as string[]) expect(s).toMatch(/webhook-signature|HTTP_WEBHOOK_SIGNATURE/i);
    });
  });

  describe('access', () => {
    const routes = (id: number) => [
      { route: 'GET /webhooks', method: 'GET', path: '/webhooks', perm: Permission.WebhookView },
      { route: 'GET /webhooks/code_snippets', method: 'GET', path: '/webhooks/code_snippets', perm: Permission.WebhookView },
      { route: 'GET /webhooks/:id', method: 'GET', path: `/webhooks/${id}`, perm: Permission.WebhookView },
      { route: 'POST /webhooks', method: 'POST', path: '/webhooks', perm: Permission.WebhookAddEdit, body: { name: 'n', url: 'https://example.com/h', trigger: 'edr_info' } },
      { route: 'PUT /webhooks/:id', method: 'PUT', path: `/webhooks/${id}`, perm: Permission.WebhookAddEdit, body: { name: 'stolen' } },
      { route: 'POST /webhooks/test/:id', method: 'POST', path: `/webhooks/test/${id}`, perm: Permission.WebhookAddEdit },
      { route: 'POST /webhooks/:id/rotate_secret', method: 'POST', path: `/webhooks/${id}/rotate_secret`, perm: Permission.WebhookAddEdit },
      { route: 'DELETE /webhooks/:id', method: 'DELETE', path: `/webhooks/${id}`, perm: Permission.WebhookRemove },
      { route: 'GET /webhook_requests/log', method: 'GET', path: '/webhook_requests/log', perm: Permission.WebhookRequestView },
    ];

    it('declares a permission on every route, covered by the matrix below, and describes them in OpenAPI', () => {
      const declared = listRoutes(a.t.app).map((r) => `${r.method} ${r.path}`).sort();
      expect(declared).toEqual(routes(1).map((r) => r.route).sort());
      const doc = SwaggerModule.createDocument(a.t.app, new DocumentBuilder().build());
      expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/webhooks', '/api/webhooks/test/{id}', '/api/webhook_requests/log']));
    });

    it('needs a token, and exactly the route\'s permission', async () => {
      const hook = await create(A, {});
      for (const r of routes(hook.id)) {
        expect([r.route, (await a.call(r.method, r.path, { body: r.body })).status]).toEqual([r.route, 401]);
        const others = ALL_PERMISSIONS.filter((p) => p !== r.perm);
        const denied = await a.call(r.method, r.path, { body: r.body, token: a.member(A, others) });
        expect([r.route, denied.status, denied.body.code]).toEqual([r.route, 403, 'NO_PERMISSIONS']);
      }
      // only the route's permission is enough (DELETE last: it removes the webhook)
      for (const r of routes(hook.id)) {
        const ok = await a.call(r.method, r.path, { body: r.body, token: a.member(A, [r.perm]) });
        expect([r.route, ok.status < 300]).toEqual([r.route, true]);
      }
      await deactivateAll();
    });

    it('gives account B nothing of account A: 404 on A\'s ids, none of A\'s webhooks or log rows, nothing changed', async () => {
      const hook = await create(A, { name: 'A-secret-hook' });
      await a.call('POST', `/webhooks/test/${hook.id}`, { token: a.member(A) });
      const snapshot = async () => JSON.stringify([await a.sql(`SELECT * FROM webhooks.webhook WHERE account_id = $1 ORDER BY id`, [A]), await a.sql(`SELECT count(*) FROM webhooks.request_log WHERE account_id = $1`, [A])]);
      const before = await snapshot();
      const tokenB = a.member(B);
      for (const r of routes(hook.id)) {
        const res = await a.call(r.method, r.path, { body: r.body, token: tokenB });
        const text = JSON.stringify(res.body ?? '');
        if (r.path.includes(String(hook.id))) expect([r.route, res.status]).toEqual([r.route, 404]);
        expect([r.route, text.includes('A-secret-hook') || text.includes(`/api/webhooks/${hook.id}"`)]).toEqual([r.route, false]);
      }
      expect(await snapshot()).toBe(before);
      await deactivateAll();
    });
  });

  describe('delivery', () => {
    it('delivers a status change signed (Standard Webhooks), with the spec\'s fields, to the matching webhooks of the event\'s account only', async () => {
      const hook = await create(A, { headers: { authorization: 'Bearer customer-token' } });
      const filtered = await create(A, { filter: { stream_id: [999] } });
      const other = await create(B, {});
      const data = status();
      const e = await a.publish(MessageStatusChangedV1, data);
      await a.deliveries.runOnce();
      expect(rx.requests).toHaveLength(1);
      const r = rx.requests[0];
      expect(r.method).toBe('POST');
      expect(r.headers['webhook-id']).toBe(e.id);
      expect(r.headers.authorization).toBe('Bearer customer-token');
      expect(r.headers['content-type']).toBe('application/json');
      expect(Number(r.headers['webhook-timestamp'])).toBe(Date.parse('2026-03-02T10:00:00Z') / 1000);
      expect(verifies(hook.secret, r)).toBe(true);
      expect(verifies(other.secret, r)).toBe(false);
      expect(JSON.parse(r.body)).toEqual({
        type: 'message_status_change',
        portal_id: 71,
        stream_uuid: data.streamUid,
        message_uuid: data.messageUuid,
        sender: 'Acme',
        destination: '+14155552671',
        sent_at: data.sentAt,
        delivered_at: data.deliveredAt,
        status: 'delivered',
        mcc: '310',
        mnc: '260',
      });
      const log = await a.call('GET', `/webhook_requests/log?webhook=${hook.id}`, { token: a.member(A) });
      expect(log.body.items).toEqual([expect.objectContaining({ webhook: `/api/webhooks/${hook.id}`, status: 'success', attempt: 1, eventId: e.id, response: expect.objectContaining({ status: 200, body: '{"ok":true}' }) })]);
      expect(log.body.items[0].request).toMatchObject({ uri: `${rx.url}/hook`, method: 'POST', body: r.body });
      expect((await a.call('GET', `/webhook_requests/log?webhook=${filtered.id}`, { token: a.member(A) })).body.total).toBe(0);
      expect((await a.call('GET', `/webhook_requests/log?webhook=${other.id}`, { token: a.member(B) })).body.total).toBe(0);
      await deactivateAll();
    });

    it('keeps each payload once: the request log references the delivery\'s payload, and answers POST and GET requests exactly as they were sent', async () => {
      const post = await create(A, { url: `${rx.url}/post` });
      const get = await create(A, { url: `${rx.url}/get?k=1`, httpMethod: 'GET' });
      const e = await a.publish(MessageStatusChangedV1, status());
      await a.deliveries.runOnce();
      const sent = (path: string) => rx.requests.find((r) => r.url.startsWith(path))!;
      // the log rows carry no copy of the payload (the delivery row holds it)
      const rows = await a.sql<{ copied: boolean; uri: string }>(`SELECT request ? 'body' AS copied, request->>'uri' AS uri FROM webhooks.request_log WHERE webhook_id = ANY ($1::bigint[]) ORDER BY webhook_id`, [[post.id, get.id]]);
      expect(rows).toEqual([{ copied: false, uri: `${rx.url}/post` }, { copied: false, uri: `${rx.url}/get?k=1` }]);
      expect(await a.sql(`SELECT count(*)::int AS n FROM webhooks.request_log WHERE request::text LIKE '%' || $1 || '%'`, [e.data.messageUuid])).toEqual([{ n: 0 }]);
      const item = async (id: number) => (await a.call('GET', `/webhook_requests/log?webhook=${id}`, { token: a.member(A) })).body.items[0].request as Json;
      expect(await item(post.id)).toEqual({ uri: `${rx.url}/post`, method: 'POST', headers: expect.objectContaining({ 'webhook-id': e.id }), body: sent('/post').body });
      expect(await item(get.id)).toEqual({ uri: `${rx.url}${sent('/get').url}`, method: 'GET', headers: expect.objectContaining({ 'webhook-id': e.id }), body: '' });
      expect(new URL(`${rx.url}${sent('/get').url}`).searchParams.get('payload')).toBe(sent('/post').body);
      await deactivateAll();
    });

    it('spends nothing on an account without a webhook for the trigger, and a webhook created then gets the next event', async () => {
      const C = '73';
      const before = await a.publish(MessageStatusChangedV1, { ...status(), accountId: C });
      expect(await a.sql(`SELECT 1 FROM webhooks.processed_events WHERE event_id = $1`, [before.id])).toEqual([]);
      await create(C, {});
      const after = await a.publish(MessageStatusChangedV1, { ...status(), accountId: C });
      await a.deliveries.runOnce();
      expect(rx.requests.map((r) => r.headers['webhook-id'])).toEqual([after.id]);
      await deactivateAll();
    });

    it("takes dispatch's batch of statuses (0173): each item goes to its own account's webhooks under its own id, once however often the batch comes, and the per-message form still does", async () => {
      const hook = await create(A, {});
      const [inA, inB, alsoA] = [status(), status({ accountId: B }), status({ status: 'undelivered' })];
      const ids = [randomUUID(), randomUUID(), randomUUID()];
      // a batch mixing accounts names none on its envelope; B has no webhook
      const batch = { items: [{ id: ids[0], data: inA }, { id: ids[1], data: inB }, { id: ids[2], data: alsoA }] };
      const batchId = randomUUID();
      await a.publish(MessageStatusesChangedV1, batch, batchId);
      await a.publish(MessageStatusesChangedV1, batch, batchId);
      const single = await a.publish(MessageStatusChangedV1, status());
      await a.deliveries.runOnce();
      expect(rx.requests.map((r) => r.headers['webhook-id']).sort()).toEqual([ids[0], ids[2], single.id].sort());
      expect(rx.requests.every((r) => verifies(hook.secret, r) && (JSON.parse(r.body) as { portal_id: number }).portal_id === Number(A))).toBe(true);
      expect(rx.requests.map((r) => (JSON.parse(r.body) as { message_uuid: string }).message_uuid)).not.toContain(inB.messageUuid);
      await deactivateAll();
    });

    it('queues one delivery per event however often the event arrives', async () => {
      await create(A, {});
      const id = randomUUID();
      const data = status();
      await a.publish(MessageStatusChangedV1, data, id);
      await a.publish(MessageStatusChangedV1, data, id);
      await a.deliveries.runOnce();
      expect(rx.requests.map((r) => r.headers['webhook-id'])).toEqual([id]);
      await deactivateAll();
    });

    it('queues the events of one delivered chunk in one transaction, each event under its own id, and skips the ones seen before', async () => {
      await create(A, {});
      await create(A, {});
      const seen = randomUUID();
      await a.publish(MessageStatusChangedV1, status(), seen);
      const events = Array.from({ length: 40 }, () => createEnvelope(MessageStatusChangedV1, status(), { accountId: A, source: 'dispatch' }));
      await a.t.bus.publish([...events, createEnvelope(MessageStatusChangedV1, status(), { accountId: A, source: 'dispatch', id: seen })]);
      if (a.t.bus instanceof InMemoryEventBus) await a.t.bus.drain();
      const rows = await a.sql<{ event_id: string; tx: string }>(`SELECT event_id::text, xmin::text AS tx FROM webhooks.delivery WHERE event_id = ANY ($1::uuid[])`, [events.map((e) => e.id)]);
      // two webhooks: two deliveries per event, all written by one transaction (one xmin), not a transaction per event
      expect(rows).toHaveLength(80);
      expect(new Set(rows.map((r) => r.tx)).size).toBe(1);
      expect(await a.sql(`SELECT count(*)::int AS n FROM webhooks.delivery WHERE event_id = $1`, [seen])).toEqual([{ n: 2 }]);
      await a.deliveries.runOnce();
      expect(rx.requests).toHaveLength(82);
      await deactivateAll();
    });

    it('delivers each click of the links service\'s click batches as a short-URL click, once per click however often the batch arrives', async () => {
      await create(A, { trigger: 'short_url_clicks', params: { include_contact_details: true } });
      const click = (n: number) => ({
        clickId: randomUUID(),
        linkId: `3/abcdef${n}`,
        shortUrl: `https://go.shop.test/abcdef${n}`,
        originalUrl: 'https://shop.test/p?x=1',
        domainId: '3',
        offerId: null,
        campaignId: '42',
        variantId: '1',
        streamId: '5',
        contactId: '9',
        messageUuid: randomUUID(),
        destination: '+14155552671',
        first: true,
        uaClass: 'mobile' as const,
        ip: '203.0.113.9',
        userAgent: 'Mozilla/5.0 (iPhone)',
        clickedAt: '2026-03-02T10:00:00.000Z',
      });
      const clicks = [click(1), click(2)];
      const id = randomUUID();
      await a.publish(LinkClicksRecordedV1, { accountId: A, clicks }, id);
      await a.publish(LinkClicksRecordedV1, { accountId: A, clicks }, id);
      await a.publish(LinkClicksRecordedV1, { accountId: B, clicks: [click(3)] });
      await a.deliveries.runOnce();
      const bodies = rx.requests.map((r) => JSON.parse(r.body) as Json).filter((b) => b.type === 'short_url_click');
      expect(bodies.map((b) => b.click_id).sort()).toEqual(clicks.map((c) => c.clickId).sort());
      expect(bodies.find((b) => b.click_id === clicks[0].clickId)).toMatchObject({ portal_id: Number(A), short_url: clicks[0].shortUrl, original_url: 'https://shop.test/p?x=1', campaign_id: 42, destination: '+14155552671', ip: '203.0.113.9', user_agent: 'Mozilla/5.0 (iPhone)' });
      expect(rx.requests.map((r) => r.headers['webhook-id']).sort()).toEqual(clicks.map((c) => c.clickId).sort());
      await deactivateAll();
    });

    it('builds the EDR and incoming-message payloads with the spec\'s fields and the include_* params', async () => {
      await create(A, { trigger: 'edr_info' });
      await create(A, { trigger: 'incoming_message', params: { include_message_text: false } });
      const uuid = randomUUID();
      await a.publish(MessageEdrV1, { messageUuid: uuid, accountId: A, streamId: '5', streamUid: 's-uid', campaignId: null, sender: 'Acme', destination: '+14155552671', status: 'delivered', sentAt: null, deliveredAt: null, mcc: null, mnc: null, network: 'T-Mobile', messageLength: 12, messagePartsCount: 1, utf8: false, costMicros: 50_000, rateMicros: 50_000, currency: 'EUR' });
      await a.publish(MessageReceivedV1, { messageUuid: uuid, accountId: A, streamId: '5', streamUid: 's-uid', streamType: 4, channel: 'sms', accountPhone: '+14155550100', contactPhone: '+14155552671', contactName: 'Ann', messageType: 'text', body: 'hi there', media: null, receivedAt: '2026-03-02T10:00:00.000Z' });
      await a.deliveries.runOnce();
      const bodies = rx.requests.map((r) => JSON.parse(r.body) as Json);
      expect(bodies.find((b) => b.type === 'edr_info')).toMatchObject({ network: 'T-Mobile', message_length: 12, message_parts_count: 1, utf8: false, cost: 0.05, rate: 0.05, currency: 'EUR', message_uuid: uuid, status: 'delivered' });
      const inbound = bodies.find((b) => b.type === 'incoming_message');
      expect(inbound).toMatchObject({ account_phone: '+14155550100', contact_phone: '+14155552671', message_uuid: uuid, received_at: '2026-03-02T10:00:00.000Z', message_type: 'text', conversation_uuid: null, conversation_metadata: null, content: {} });
      expect(JSON.stringify(inbound)).not.toContain('hi there');
      await deactivateAll();
    });

    it('retries on the schedule 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (frozen clock), keeping the event id, then gives up', async () => {
      const hook = await create(A, {});
      rx.answer = () => ({ status: 503 });
      const e = await a.publish(MessageStatusChangedV1, status());
      const schedule = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
      await a.deliveries.runOnce();
      expect(rx.requests).toHaveLength(1);
      for (const [i, delay] of schedule.entries()) {
        a.clock.advance(delay - 1);
        await a.deliveries.runOnce();
        expect([i, rx.requests.length]).toEqual([i, i + 1]);
        a.clock.advance(1);
        await a.deliveries.runOnce();
        expect([i, rx.requests.length]).toEqual([i, i + 2]);
      }
      a.clock.advance(100 * 3_600_000);
      await a.deliveries.runOnce();
      expect(rx.requests).toHaveLength(8);
      expect(new Set(rx.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([e.id]));
      expect(await a.sql(`SELECT state, attempts FROM webhooks.delivery WHERE webhook_id = $1`, [hook.id])).toEqual([{ state: 'failed', attempts: 8 }]);
      const log = await a.call('GET', `/webhook_requests/log?webhook=${hook.id}&order[id]=asc`, { token: a.member(A) });
      expect(log.body.items.map((l: Json) => [l.attempt, l.status, l.response.status])).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((n) => [n, 'failed', 503]));
      await deactivateAll();
    });

    it('spreads retries with jitter within +-10 % of the schedule', async () => {
      const jittered = await startWebhooks({ random: () => 0.999 });
      const recv = await new Receiver().start();
      try {
        recv.answer = () => ({ status: 500 });
        const res = await jittered.call('POST', '/webhooks', { token: jittered.member(A), body: { name: 'j', url: `${recv.url}/j`, trigger: 'message_status_change' } });
        await jittered.publish(MessageStatusChangedV1, status());
        await jittered.deliveries.runOnce();
        const [row] = await jittered.sql(`SELECT extract(epoch FROM next_attempt_at - $2::timestamptz) * 1000 AS ms FROM webhooks.delivery WHERE webhook_id = $1`, [res.body.id, jittered.clock.now()]);
        expect(Number(row.ms)).toBe(Math.round(5_000 * (0.9 + 0.2 * 0.999)));
      } finally {
        await recv.stop();
        await jittered.close();
      }
    });

    it('disables the webhook when the receiver answers 410 Gone, and ends its queued deliveries', async () => {
      const hook = await create(A, {});
      rx.answer = () => ({ status: 410 });
      await a.publish(MessageStatusChangedV1, status());
      await a.publish(MessageStatusChangedV1, status());
      await a.deliveries.runOnce();
      const shown = await a.call('GET', `/webhooks/${hook.id}`, { token: a.member(A) });
      expect(shown.body).toMatchObject({ active: false, disabledReason: expect.stringContaining('410') });
      await a.publish(MessageStatusChangedV1, status());
      a.clock.advance(86_400_000);
      const before = rx.requests.length;
      await a.deliveries.runOnce();
      expect(rx.requests.length).toBe(before);
      expect(await a.sql(`SELECT DISTINCT state FROM webhooks.delivery WHERE webhook_id = $1`, [hook.id])).toEqual([{ state: 'failed' }]);
    });

    it('disables a webhook that has failed for longer than the limit', async () => {
      const hook = await create(A, {});
      rx.answer = () => ({ status: 500 });
      for (let day = 0; day < 6; day++) {
        await a.publish(MessageStatusChangedV1, status());
        await a.deliveries.runOnce();
        a.clock.advance(86_400_000);
      }
      const shown = await a.call('GET', `/webhooks/${hook.id}`, { token: a.member(A) });
      expect(shown.body).toMatchObject({ active: false, disabledReason: expect.stringContaining('failed since') });
    });

    it('does not follow redirects and keeps at most the response cap', async () => {
      const other = await new Receiver().start();
      try {
        const hook = await create(A, {});
        rx.answer = () => ({ status: 302, headers: { location: `${other.url}/stolen` } });
        await a.publish(MessageStatusChangedV1, status());
        await a.deliveries.runOnce();
        expect(other.requests).toHaveLength(0);
        const log = await a.call('GET', `/webhook_requests/log?webhook=${hook.id}`, { token: a.member(A) });
        expect(log.body.items[0]).toMatchObject({ status: 'failed', error: 'HTTP_302' });
        await deactivateAll();

        const big = await create(A, {});
        rx.answer = () => ({ status: 200, body: 'x'.repeat(1_000_000) });
        await a.publish(MessageStatusChangedV1, status());
        await a.deliveries.runOnce();
        const bigLog = await a.call('GET', `/webhook_requests/log?webhook=${big.id}`, { token: a.member(A) });
        expect(bigLog.body.items[0].response.body).toHaveLength(16_384);
        await deactivateAll();
      } finally {
        await other.stop();
      }
    });

    it('signs with both secrets during a rotation\'s overlap, then with the new one only', async () => {
      const hook = await create(A, {});
      const rotated = await a.call('POST', `/webhooks/${hook.id}/rotate_secret`, { token: a.member(A) });
      expect(rotated.body.secret).not.toBe(hook.secret);
      await a.publish(MessageStatusChangedV1, status());
      await a.deliveries.runOnce();
      const r = rx.requests.at(-1) as Received;
      expect([verifies(hook.secret, r), verifies(rotated.body.secret, r)]).toEqual([true, true]);
      a.clock.advance(86_400_001);
      await a.publish(MessageStatusChangedV1, status());
      await a.deliveries.runOnce();
      const later = rx.requests.at(-1) as Received;
      expect([verifies(hook.secret, later), verifies(rotated.body.secret, later)]).toEqual([false, true]);
      await deactivateAll();
    });
  });

  describe('send_bulk', () => {
    it('gathers events into one signed request when full or after the wait, and retries the batch with its id', async () => {
      const bulk = await startWebhooks({ bulkMaxEvents: 3, bulkWaitMs: 1000 });
      const recv = await new Receiver().start();
      try {
        const created = await bulk.call('POST', '/webhooks', { token: bulk.member(A), body: { name: 'bulk', url: `${recv.url}/bulk`, trigger: 'message_status_change', params: { send_bulk: true } } });
        const secret = created.body.secret as string;
        const uuids: string[] = [];
        for (let i = 0; i < 4; i++) {
          const d = status();
          uuids.push(d.messageUuid);
          await bulk.publish(MessageStatusChangedV1, d);
        }
        // three are a full batch at once; the fourth waits for company or for the wait to pass
        await bulk.deliveries.runOnce();
        expect(recv.requests).toHaveLength(1);
        const first = JSON.parse(recv.requests[0].body) as Json[];
        expect(first.map((p) => p.message_uuid)).toEqual(uuids.slice(0, 3));
        expect(first[0]).toMatchObject({ type: 'message_status_change', portal_id: 71 });
        expect(verifies(secret, recv.requests[0])).toBe(true);

        bulk.clock.advance(999);
        await bulk.deliveries.runOnce();
        expect(recv.requests).toHaveLength(1);
        recv.answer = () => ({ status: 503 });
        bulk.clock.advance(1);
        await bulk.deliveries.runOnce();
        expect(recv.requests).toHaveLength(2);
        expect((JSON.parse(recv.requests[1].body) as Json[]).map((p) => p.message_uuid)).toEqual([uuids[3]]);
        // the retry sends the same batch under the same webhook-id
        recv.answer = () => ({ status: 200 });
        bulk.clock.advance(5_000);
        await bulk.deliveries.runOnce();
        expect(recv.requests).toHaveLength(3);
        expect(recv.requests[2].headers['webhook-id']).toBe(recv.requests[1].headers['webhook-id']);
        expect(recv.requests[2].body).toBe(recv.requests[1].body);
        expect(await bulk.sql(`SELECT state, count(*)::int AS n FROM webhooks.delivery GROUP BY state ORDER BY state`)).toEqual([{ state: 'batched', n: 4 }, { state: 'succeeded', n: 2 }]);
      } finally {
        await recv.stop();
        await bulk.close();
      }
    });
  });

  describe('test call', () => {
    it('answers success with the request and response, and logs it', async () => {
      const hook = await create(A, { trigger: 'edr_info' });
      const res = await a.call('POST', `/webhooks/test/${hook.id}`, { token: a.member(A) });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'success', code: null, request: { method: 'POST', uri: `${rx.url}/hook` }, response: { status: 200, body: '{"ok":true}' } });
      expect(JSON.parse(res.body.request.body)).toMatchObject({ type: 'edr_info', test: true, cost: 0.05 });
      expect(verifies(hook.secret, rx.requests[0])).toBe(true);
      const log = await a.call('GET', `/webhook_requests/log?webhook=${hook.id}`, { token: a.member(A) });
      expect(log.body.items[0]).toMatchObject({ test: true, status: 'success' });
      await deactivateAll();
    });

    it('answers timeout with E-CONNECTION_TIMEOUT when the receiver does not answer in time, failed for an error status', async () => {
      const quick = await startWebhooks({ timeoutMs: 300 });
      const recv = await new Receiver().start();
      try {
        recv.answer = () => 'hang';
        const hook = await quick.call('POST', '/webhooks', { token: quick.member(A), body: { name: 't', url: `${recv.url}/slow`, trigger: 'incoming_message', httpMethod: 'GET' } });
        const res = await quick.call('POST', `/webhooks/test/${hook.body.id}`, { token: quick.member(A) });
        expect(res.body).toMatchObject({ status: 'timeout', code: 'E-CONNECTION_TIMEOUT', response: null, request: { method: 'GET' } });
        expect(new URL(recv.requests[0].url, 'http://x').searchParams.get('payload')).toContain('"type":"incoming_message"');
        recv.answer = () => ({ status: 500, body: 'boom' });
        const failed = await quick.call('POST', `/webhooks/test/${hook.body.id}`, { token: quick.member(A) });
        expect(failed.body).toMatchObject({ status: 'failed', code: 'HTTP_500', response: { status: 500, body: 'boom' } });
      } finally {
        await recv.stop();
        await quick.close();
      }
    });
  });
});
