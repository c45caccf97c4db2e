import { randomUUID } from 'node:crypto';
import { MessageStatusChangedV1, type EventData } from '@switchboard/contracts';
import { Receiver, startWebhooks, type Json, type WebhooksTestApp } from './support';

const A = '81';
const B = '82';

const status = (acc: string): EventData<typeof MessageStatusChangedV1> => ({
  messageUuid: randomUUID(),
  accountId: acc,
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
});

/** The request log's keyset paging (docs/decisions/0027-webhooks.md, "Request log paging"). */
describe('webhook request log paging', () => {
  let a: WebhooksTestApp;
  let rx: Receiver;
  let hookA: number;
  let failing: number;

  beforeAll(async () => {
    a = await startWebhooks();
    rx = await new Receiver().start();
    rx.answer = (r) => (r.url.startsWith('/bad') ? { status: 500, body: 'down' } : { status: 200, body: 'ok' });
    const make = async (acc: string, path: string) => {
      const res = await a.call('POST', '/webhooks', { token: a.member(acc), body: { name: path, url: `${rx.url}${path}`, trigger: 'message_status_change' } });
      expect(res.status).toBe(201);
      return res.body.id as number;
    };
    hookA = await make(A, '/ok');
    failing = await make(A, '/bad');
    await make(B, '/ok');
    for (let i = 0; i < 12; i++) await a.publish(MessageStatusChangedV1, status(A));
    await a.publish(MessageStatusChangedV1, status(B));
    await a.deliveries.runOnce();
  });
  afterAll(async () => {
    await rx?.stop();
    await a?.close();
  });

  const log = (acc: string, qs: string) => a.call<Json>('GET', `/webhook_requests/log?${qs}`, { token: a.member(acc) });
  const ids = (body: Json) => (body.items as Array<{ id: number }>).map((i) => i.id);

  it('walks every entry once with the cursor, in either order, and agrees with page numbers', async () => {
    const all = await log(A, 'itemsPerPage=500');
    expect(all.body).toMatchObject({ total: 24, totalCapped: false, nextCursor: null });
    const every = ids(all.body);
    expect(every).toEqual([...every].sort((x, y) => y - x));

    const walked: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: { status: number; body: Json } = await log(A, `itemsPerPage=5${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(24);
      walked.push(...ids(res.body));
      cursor = res.body.nextCursor as string | null;
      pages++;
    } while (cursor);
    expect(pages).toBe(5);
    expect(walked).toEqual(every);

    const page3 = await log(A, 'itemsPerPage=5&page=3');
    expect(ids(page3.body)).toEqual(every.slice(10, 15));
    expect((await log(A, 'itemsPerPage=5&page=6')).body).toMatchObject({ items: [], total: 24, nextCursor: null });

    const asc = await log(A, 'itemsPerPage=10&order[id]=asc');
    expect(ids(asc.body)).toEqual([...every].reverse().slice(0, 10));
    const asc2 = await log(A, `itemsPerPage=10&order[id]=asc&cursor=${asc.body.nextCursor}`);
    expect(ids(asc2.body)).toEqual([...every].reverse().slice(10, 20));
  });

  it('keeps filters on every page and never shows another account', async () => {
    const first = await log(A, `webhook=${failing}&status=failed&itemsPerPage=5`);
    expect(first.body.total).toBe(12);
    const second = await log(A, `webhook=${failing}&status=failed&itemsPerPage=5&cursor=${first.body.nextCursor}`);
    for (const e of [...first.body.items, ...second.body.items]) expect(e).toMatchObject({ webhookId: failing, status: 'failed', response: expect.objectContaining({ status: 500 }) });
    expect(ids(second.body).every((id) => id < Math.min(...ids(first.body)))).toBe(true);
    expect((await log(A, `status=success&itemsPerPage=500`)).body.items.every((e: Json) => e.webhookId === hookA)).toBe(true);
    expect((await log(B, 'itemsPerPage=500')).body.total).toBe(1);
    // a cursor taken from account A's log shows B nothing of A's
    const fromA = (await log(A, 'itemsPerPage=1')).body.nextCursor as string;
    const inB = await log(B, `itemsPerPage=500&cursor=${fromA}`);
    expect(inB.body.items.every((e: Json) => e.webhookId !== hookA && e.webhookId !== failing)).toBe(true);
  });

  it('refuses a forged cursor, a cursor of the other order, a page beside a cursor and pages beyond the window, with 0x1', async () => {
    const next = (await log(A, 'itemsPerPage=5')).body.nextCursor as string;
    for (const [qs, field] of [
      ['cursor=not-a-cursor!', 'cursor'],
      [`cursor=${Buffer.from('d:1 OR 1=1').toString('base64url')}`, 'cursor'],
      [`cursor=${next}&order[id]=asc`, 'cursor'],
      [`cursor=${next}&page=2`, 'page'],
      ['page=1001&itemsPerPage=10', 'page'],
      ['order[status]=asc', 'order[status]'],
    ]) {
      const res = await log(A, qs);
      expect([qs, res.status, res.body.code]).toEqual([qs, 400, '0x1']);
      expect(res.body.violations).toEqual([expect.objectContaining({ propertyPath: field })]);
    }
    expect((await log(A, 'page=1000&itemsPerPage=10')).status).toBe(200);
  });

  it('caps the total at the window and still reaches the entries beyond it by cursor', async () => {
    const C = '83';
    const [{ id: hookC }] = await a.sql<{ id: string }>(
      `INSERT INTO webhooks.webhook (uid, account_id, name, url, trigger, secret_sealed, created_at, updated_at)
       VALUES ($1, $2, 'bulk', 'http://127.0.0.1/x', 'edr_info', 'x', now(), now()) RETURNING id::text`,
      [randomUUID(), C],
    );
    // an old, big log: 10,005 attempts
    await a.sql(
      `INSERT INTO webhooks.request_log (account_id, webhook_id, attempt, request, status, duration_ms, sent_at)
       SELECT $1, $2, 1, '{"uri":"http://127.0.0.1/x","method":"POST","headers":{},"body":""}', CASE WHEN g % 1000 = 0 THEN 'failed' ELSE 'success' END, 1, now()
         FROM generate_series(1, 10005) g`,
      [C, hookC],
    );
    const first = await log(C, 'itemsPerPage=500');
    expect(first.body).toMatchObject({ total: 10000, totalCapped: true });
    expect((await log(C, 'status=failed&itemsPerPage=500')).body).toMatchObject({ total: 10, totalCapped: false });
    const last = await log(C, 'page=20&itemsPerPage=500');
    expect(last.body.items).toHaveLength(500);
    const beyond = await log(C, `itemsPerPage=500&cursor=${last.body.nextCursor}`);
    expect(beyond.body.items).toHaveLength(5);
    expect(beyond.body.nextCursor).toBeNull();
    expect(Math.max(...ids(beyond.body))).toBeLessThan(Math.min(...ids(last.body)));
  });
});
