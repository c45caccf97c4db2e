import * as path from 'node:path';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Page } from 'playwright-core';
import { repoRoot } from './server-process';
import { pageApi, signInWithPin, startConsole, type ConsoleSession } from './browser';

const SHOTS = path.join(repoRoot, 'test-results', 'webhooks');
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`) });

/**
 * A developer registers a webhook to a local receiver in the console of the real embedded server, presses "test" and
 * sees success, then sends a demo SMS and finds its status-change delivery in the request log.
 */
describe('webhooks in the console (Chromium, embedded server)', () => {
  let base: string;
  let page: Page;
  let receiver: Server;
  let receiverUrl = '';
  const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  let errors: string[] = [];
  let session: ConsoleSession;

  const api = pageApi(() => page);

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"received":true}');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/switchboard-hook/delivery-statuses`;
    session = await startConsole('webhooks');
    ({ base, page, errors } = session);
  }, 150000);

  afterAll(async () => {
    await session?.stop();
    receiver?.closeAllConnections();
    await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()));
  });

  it('signs in', async () => {
    await signInWithPin(page, base, 'admin@example.com', 'browser password', 'a***@example.com');
    await page.waitForURL('**/home', { timeout: 20000 });
  }, 60000);

  it('creates a webhook to a local receiver, shows its secret once, and the test call answers success', async () => {
    await page.getByTestId('menu-webhooks').click();
    await page.getByTestId('webhooks-page').waitFor();
    await page.getByTestId('new-webhook').click();
    await page.getByTestId('webhook-name').fill('Delivery statuses');
    await page.getByTestId('webhook-url').fill(receiverUrl);
    await shot(page, '01-create');
    await page.getByTestId('webhook-submit').click();
    const secret = page.getByTestId('webhook-secret-value');
    await secret.waitFor();
    expect(await secret.textContent()).toMatch(/^whsec_/);
    await page.getByTestId('webhook-secret').getByRole('button', { name: 'Close' }).last().click();

    const row = page.getByTestId('webhook-row').filter({ hasText: 'Delivery statuses' });
    await row.waitFor();
    await row.getByTestId('webhook-test').click();
    await page.getByTestId('webhook-test-success').waitFor({ timeout: 15000 });
    await expect(page.getByTestId('request-uri').textContent()).resolves.toBe(`${receiverUrl.slice(0, 44)}…`);
    await shot(page, '02-test-success');
    expect(received).toHaveLength(1);
    expect(received[0].headers['webhook-signature']).toMatch(/^v1,/);
    await page.getByTestId('webhook-test-result').getByRole('button', { name: 'Close' }).last().click();
  }, 60000);

  it('sends a demo SMS and finds its status-change delivery in the request log', async () => {
    // an approved sender (the demo account validates senders; the signed-in super admin approves it)
    const sender = await api<{ id: number }>('POST', '/senders', { name: 'Acme', value: 'AcmeSMS' });
    expect(sender.status).toBe(201);
    expect((await api('PUT', `/senders/superadmin/${sender.body.id}`, { approved: 1 })).status).toBe(200);
    const stream = await api<{ id: number }>('POST', '/streams', { name: 'Webhook demo', streamType: 2, sender: 'AcmeSMS' });
    expect(stream.status).toBe(201);
    const demo = await api<{ code: string }>('POST', '/streams/demo', { streamId: stream.body.id, phone: '+4915112345678', message: 'Your order has shipped', sender: 'AcmeSMS' });
    expect([demo.status, demo.body.code]).toEqual([200, 'OK']);
    const deadline = Date.now() + 30000;
    while (!received.some((r) => r.body.includes('"message_status_change"') && !r.body.includes('"test":true')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    const delivery = received.find((r) => r.body.includes('"message_status_change"') && !r.body.includes('"test":true'));
    expect(delivery).toBeDefined();
    expect(JSON.parse(delivery?.body ?? '{}')).toMatchObject({ type: 'message_status_change', destination: '+4915112345678', status: expect.any(String) });

    await page.getByTestId('menu-webhook-requests').click();
    await page.getByTestId('webhook-requests-page').waitFor();
    const rows = page.getByTestId('webhook-request-row');
    await rows.nth(1).waitFor({ timeout: 15000 });
    const live = rows.filter({ hasNotText: 'test' }).first();
    await live.click();
    const panel = page.getByTestId('webhook-request-panel');
    await panel.waitFor();
    await expect(panel.textContent()).resolves.toContain('message_status_change');
    await shot(page, '03-request-log');
    expect(errors).toEqual([]);
  }, 90000);
});
