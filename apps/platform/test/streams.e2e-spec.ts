import * as path from 'node:path';
import { type Page } from 'playwright-core';
import { repoRoot } from './server-process';
import { pageApi, signInWithPin, startConsole, type ConsoleSession } from './browser';

const SHOTS = path.join(repoRoot, 'test-results', 'streams');
/** A German mobile number: valid for libphonenumber, so the send reaches the simulator. */
const PHONE = '+4915112345678';
const SENDER_ID = 'AcmeSMS';
const STREAM = 'Spring promotions';
/** 70 UTF-16 units with Cyrillic letters: one UCS-2 SMS exactly; one more character makes two parts of 67. */
const UCS2_ONE_PART = 'Весенняя распродажа в Acme: скидки до 50% на всё! Ждём вас в магазине.';

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`) });

/** Polls `read` until it answers `expected` (values that load after the element shows), then returns it. */
async function until<T>(read: () => Promise<T>, expected: T, timeoutMs = 10000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last = await read();
  while (last !== expected && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 100));
    last = await read();
  }
  return last;
}

/**
 * The messaging screens against the real embedded server (streams and dispatch with the SMS simulator): a person adds
 * a sender that a super administrator approves, routes Germany through a simulator that always delivers, creates a
 * marketing stream, opens its token, and sends a demo SMS from the popup (the part counter follows a UCS-2 text live)
 * that reaches "delivered" in the popup, the stream's statistics and its messages.
 */
describe('streams in the console, in Chromium against the embedded server', () => {
  let base: string;
  let page: Page;
  let errors: string[] = [];
  let session: ConsoleSession;

  /** An /api call with the signed-in user's token (test set-up the console has no screen for). */
  const api = pageApi(() => page);

  beforeAll(async () => {
    session = await startConsole('streams');
    ({ base, page, errors } = session);
  }, 150000);

  afterAll(async () => {
    await session?.stop();
  });

  it('signs in with the PIN from the dev mailbox', async () => {
    const pin = await signInWithPin(page, base, 'admin@example.com', 'browser password', 'a***@example.com');
    expect(pin).toMatch(/^\d{6}$/);
    await page.waitForURL('**/home', { timeout: 20000 });
    await page.getByTestId('menu-streams').waitFor();
  }, 60000);

  it('adds a sender, refusing an alphanumeric ID over 11 characters, and a super admin approves it', async () => {
    await page.getByTestId('menu-senders').click();
    await page.getByTestId('senders-page').waitFor();
    await page.getByTestId('add-sender').click();
    await page.getByTestId('sender-name').fill('Acme Germany');
    await page.getByTestId('sender-value').fill('Acme Messaging');
    await page.getByTestId('sender-submit').click();
    const dialog = page.getByTestId('sender-dialog');
    await dialog.getByText('An alphanumeric sender ID has at most 11 characters').waitFor();
    await shot(page, '01-sender-alpha-max');

    await page.getByTestId('sender-value').fill(SENDER_ID);
    await page.getByTestId('sender-submit').click();
    await dialog.waitFor({ state: 'detached' });
    const row = page.getByTestId('sender-row').filter({ hasText: SENDER_ID });
    await expect(row.getByTestId('sender-approval').textContent()).resolves.toBe('Pending approval');

    await page.getByTestId('menu-sender-approval').click();
    const pending = page.getByTestId('approval-row').filter({ hasText: SENDER_ID });
    await pending.waitFor();
    await shot(page, '02-sender-approval');
    await pending.getByTestId('approve-sender').click();
    await page.getByTestId('no-results').waitFor();

    await page.getByTestId('menu-senders').click();
    await expect(page.getByTestId('sender-row').filter({ hasText: SENDER_ID }).getByTestId('sender-approval').textContent()).resolves.toBe('Approved');
  }, 60000);

  it('routes Germany through a simulator that always delivers, on the vendors and routing screens', async () => {
    // Prices are commercial terms set by super admins on the countries screen: a global one for Germany.
    const de = await api<{ items: Array<{ id: number }> }>('GET', '/countries?iso2=DE');
    expect(de.status).toBe(200);
    expect((await api('PUT', `/countries/global/${de.body.items[0].id}`, { pricePerSegment: 0.05, priceCurrency: 'EUR' })).status).toBe(200);

    await page.getByTestId('menu-vendors').click();
    await page.getByTestId('vendor-row').first().waitFor();
    await page.getByTestId('vendor-create').click();
    await page.getByTestId('vendor-name').fill('Certain simulator');
    await page.getByTestId('vendor-adapter').click();
    await page.getByRole('option', { name: 'Simulator' }).click();
    await page.getByTestId('vendor-config').fill('{ "deliveryRatio": 1, "delayMs": 500 }');
    await shot(page, '03-vendor');
    await page.getByTestId('vendor-submit').click();
    await page.getByTestId('vendor-dialog').waitFor({ state: 'detached' });
    await page.getByTestId('vendor-row').filter({ hasText: 'Certain simulator' }).waitFor();

    await page.getByTestId('menu-routing').click();
    await page.getByTestId('route-add').click();
    await page.getByTestId('route-country').fill('Germany');
    await page.getByRole('option', { name: 'Germany (DE)' }).click();
    await page.getByTestId('route-add-vendor').click();
    await page.getByRole('option', { name: 'Certain simulator' }).click();
    await page.getByTestId('route-save').click();
    const route = page.getByTestId('route-row').filter({ hasText: 'Germany' });
    await route.waitFor();
    await expect(route.getByTestId('route-chain-vendor').allTextContents()).resolves.toEqual(['Certain simulator']);
    await shot(page, '04-routing');
  }, 60000);

  it('creates a marketing stream, refusing a bad IP list, and shows its token and code snippets', async () => {
    await page.getByTestId('menu-streams').click();
    await page.getByTestId('streams-page').waitFor();
    await page.getByTestId('create-stream').click();
    await page.getByTestId('stream-type-marketing').click();
    await page.getByTestId('stream-type-next').click();
    await page.getByTestId('stream-name').fill(STREAM);
    await page.getByTestId('stream-sender').fill(SENDER_ID);
    await page.getByTestId('stream-ipAcl').fill('10.0.0.300');
    await page.keyboard.press('Enter');
    await page.getByTestId('stream-submit').click();
    const dialog = page.getByTestId('stream-create-dialog');
    await dialog.getByText('Enter IPv4 addresses (optionally with a /mask) or IPv6 addresses').waitFor();
    await shot(page, '05-create-stream-ips');
    await page.getByTestId('stream-ipAcl-chip').locator('svg').click();
    await page.getByTestId('stream-tps').fill('50');
    await page.getByTestId('stream-submit').click();
    await dialog.waitFor({ state: 'detached' });
    const listed = await api<{ items: Array<{ id: number; name: string }> }>('GET', '/streams?itemsPerPage=100');
    const created = listed.body.items.find((s) => s.name === STREAM);
    expect(created).toBeDefined();
    const saved = await api<{ params: { tps?: number } }>('GET', `/streams/${created?.id}`);
    expect(saved.body.params.tps).toBe(50);

    const row = page.getByTestId('stream-row').filter({ hasText: STREAM });
    await row.waitFor();
    await expect(row.getByTestId('stream-status').textContent()).resolves.toBe('Ready');
    await shot(page, '06-streams');

    await row.getByTestId('stream-token').click();
    const token = page.getByTestId('token-dialog');
    await token.getByTestId('snippet-curl').waitFor();
    await token.getByTestId('token-toggle').click();
    const first = (await token.getByTestId('token-value').getAttribute('data-token')) ?? '';
    expect(first.length).toBeGreaterThan(20);
    await expect(token.getByTestId('snippet-curl').textContent()).resolves.toContain(first);
    await token.getByTestId('snippet-tab-python').click();
    await expect(token.getByTestId('snippet-python').textContent()).resolves.toContain('requests.post(');
    await shot(page, '07-token');

    await token.getByTestId('token-reset').click();
    await page.getByTestId('token-reset-confirm').getByTestId('confirm-ok').click();
    await token.getByTestId('token-reset-done').waitFor();
    const second = (await token.getByTestId('token-value').getAttribute('data-token')) ?? '';
    expect(second.length).toBeGreaterThan(20);
    expect(second).not.toBe(first);
    await token.getByTestId('token-done').click();
    await token.waitFor({ state: 'detached' });
  }, 60000);

  it('sends a demo SMS from the popup, counting UCS-2 parts live, and follows it to delivered', async () => {
    await page.getByTestId('stream-row').filter({ hasText: STREAM }).getByTestId('stream-send').click();
    const popup = page.getByTestId('send-message-dialog');
    await expect(popup.getByRole('heading').first().textContent()).resolves.toBe(`Demo message: ${STREAM}`);
    await expect(until(() => popup.getByTestId('send-sender').inputValue(), SENDER_ID)).resolves.toBe(SENDER_ID);
    await popup.getByTestId('send-phone').fill('12');
    await popup.getByTestId('send-next').click();
    await popup.getByText('This does not look like a phone number').waitFor();
    await popup.getByTestId('send-phone').fill(PHONE);
    await popup.getByTestId('send-next').click();

    const counter = popup.getByTestId('sms-counter');
    await popup.getByTestId('send-text').fill('Hello from Acme');
    await expect(counter.getAttribute('data-encoding')).resolves.toBe('GSM7');
    await expect(popup.getByTestId('sms-utf8-warning').count()).resolves.toBe(0);

    expect(UCS2_ONE_PART).toHaveLength(70);
    await popup.getByTestId('send-text').fill(UCS2_ONE_PART);
    await expect(counter.getAttribute('data-encoding')).resolves.toBe('UCS2');
    await expect(counter.getAttribute('data-segments')).resolves.toBe('1');
    await expect(popup.getByTestId('sms-count-chars').textContent()).resolves.toBe('70 characters');
    await popup.getByTestId('sms-utf8-warning').waitFor();
    await popup.getByTestId('send-text').press('End');
    await page.keyboard.type('!');
    await expect(counter.getAttribute('data-segments')).resolves.toBe('2');
    await expect(popup.getByTestId('sms-count-segments').textContent()).resolves.toBe('2 SMS parts');
    await shot(page, '08-send-message-ucs2');

    await popup.getByTestId('send-submit').click();
    await popup.getByTestId('send-result').waitFor({ timeout: 15000 });
    await expect(popup.getByTestId('send-message-uuid').textContent()).resolves.toMatch(/^[0-9a-f-]{36}$/);
    await popup.locator('[data-testid="demo-status"][data-status="delivered"]').waitFor({ timeout: 30000 });
    await expect(popup.getByTestId('send-result-title').textContent()).resolves.toBe('Message delivered');
    await shot(page, '09-send-delivered');
    await popup.getByTestId('send-close').click();
    await popup.waitFor({ state: 'detached' });
  }, 60000);

  it('shows the delivered message in the stream statistics and its messages', async () => {
    await page.getByTestId('stream-row').filter({ hasText: STREAM }).getByTestId('stream-row-name').click();
    await page.getByTestId('stream-detail-page').waitFor();
    await page.getByTestId('stat-delivered-value').filter({ hasText: /^1$/ }).waitFor({ timeout: 15000 });
    await expect(page.getByTestId('stat-total-value').textContent()).resolves.toBe('1');
    await shot(page, '10-stream-overview');

    await page.getByTestId('detail-tab-messages').click();
    const message = page.getByTestId('message-row').first();
    await message.waitFor();
    await expect(message.getByTestId('message-row-status').textContent()).resolves.toBe('Delivered');
    await expect(message.textContent()).resolves.toContain(PHONE);
    await expect(message.getByTestId('message-row-text').textContent()).resolves.toBe(`${UCS2_ONE_PART}!`);
    // every column fits the 1440 px screen, Delivered at included; the whole text on hover (walkthrough 15)
    const box = page.getByTestId('messages-table').locator('.MuiTableContainer-root');
    await expect(box.evaluate((el) => el.scrollWidth <= el.clientWidth)).resolves.toBe(true);
    await message.getByTestId('message-row-text').hover();
    await expect(page.getByRole('tooltip').innerText()).resolves.toBe(`${UCS2_ONE_PART}!`);
    await page.mouse.move(0, 0);
    await shot(page, '11-stream-messages');
    expect(errors).toEqual([]);
  }, 60000);
});
