import * as fs from 'node:fs';
import * as path from 'node:path';
import { type Page } from 'playwright-core';
import { repoRoot } from './server-process';
import { pageApi, signInWithPin, startConsole, type ConsoleSession } from './browser';

const SHOTS = path.join(repoRoot, 'test-results', 'stats');
const SENDER_ID = 'AcmeStats';
const PHONES = ['+4915112345671', '+4915112345672', '+4915112345673'];

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

/**
 * The home dashboard and the statistics page against the real embedded server: three SMS sent through a stream to a
 * simulator that always delivers show as three messages, three delivered, their cost in euros and Germany as the top
 * destination, with the charts drawn; the same page in Russian.
 */
describe('statistics dashboard in Chromium against the embedded server', () => {
  let base: string;
  let page: Page;
  let errors: string[] = [];
  let session: ConsoleSession;
  let streamId = 0;

  const api = pageApi(() => page);

  beforeAll(async () => {
    session = await startConsole('stats', { viewport: { width: 1440, height: 1000 } });
    ({ base, page, errors } = session);
  }, 150000);

  afterAll(async () => {
    await session?.stop();
  });

  it('signs in and shows an empty dashboard on the home page', async () => {
    await signInWithPin(page, base, 'admin@example.com', 'browser password', 'a***@example.com');
    await page.waitForURL('**/home', { timeout: 20000 });
    await page.getByTestId('stats-dashboard').waitFor();
    await page.getByTestId('stats-traffic-empty').waitFor();
    await expect(page.getByTestId('stats-total-value').textContent()).resolves.toBe('0');
  }, 60000);

  it('sends three SMS through a stream to a simulator that always delivers', async () => {
    const de = await api<{ items: Array<{ id: number }> }>('GET', '/countries?iso2=DE');
    expect((await api('PUT', `/countries/global/${de.body.items[0].id}`, { pricePerSegment: 0.05, priceCurrency: 'EUR' })).status).toBe(200);
    const vendor = await api<{ id: number }>('POST', '/service_type_manager/vendor', {
      name: 'Certain simulator',
      service_type: 'sms',
      adapter: 'simulator',
      carrier: 'Sim',
      product_name: 'Sim',
      product_id: 'sim-1',
      currency: 'EUR',
      active: true,
      config: { deliveryRatio: 1, delayMs: 200 },
      routingProvider: 1,
    });
    expect(vendor.status).toBe(201);
    expect((await api('PUT', '/service_type_manager/countries_mapping', { iso2: 'DE', serviceType: 'sms', vendorIds: [String(vendor.body.id)] })).status).toBe(200);
    const sender = await api<{ id: number }>('POST', '/senders', { name: 'Acme stats', value: SENDER_ID });
    expect(sender.status).toBe(201);
    expect((await api('PUT', `/senders/superadmin/${sender.body.id}`, { approved: 1 })).status).toBe(200);
    const stream = await api<{ id: number }>('POST', '/streams', { name: 'Dashboard stream', streamType: 1, sender: SENDER_ID });
    expect(stream.status).toBe(201);
    streamId = stream.body.id;
    for (const phone of PHONES) {
      const sent = await api<{ code: number }>('POST', '/streams/demo', { streamId: stream.body.id, message: 'Hello from the dashboard test', phone, sender: SENDER_ID });
      expect(sent.status).toBeLessThan(300);
    }
    // every one delivered, as the stream's own statistics say
    for (let i = 0; i < 150; i++) {
      const s = await api<{ totals: { delivered: number } }>('GET', `/streams/statistics?streamId=${stream.body.id}`);
      if (s.body.totals.delivered === 3) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const s = await api<{ totals: { delivered: number; total: number } }>('GET', `/streams/statistics?streamId=${stream.body.id}`);
    expect(s.body.totals).toMatchObject({ total: 3, delivered: 3 });
  }, 90000);

  it('shows the messages, their delivery, cost and destination on the statistics page, with charts', async () => {
    await page.getByTestId('menu-statistics').click();
    await page.getByTestId('statistics-page').waitFor();
    // the two-minute cache may hold the empty answer of a moment ago: another slice is a fresh query
    await page.getByTestId('stats-slice-day').click();
    await page.getByTestId('stats-total-value').filter({ hasText: /^3$/ }).waitFor({ timeout: 20000 });
    await expect(page.getByTestId('stats-delivered-value').textContent()).resolves.toBe('3');
    await expect(page.getByTestId('stats-failed-value').textContent()).resolves.toBe('0');
    await expect(page.getByTestId('stats-cost-value').textContent()).resolves.toBe('€0.15');
    const bars = page.getByTestId('stats-traffic').getByTestId('chart-bar');
    const totals = await bars.evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-total'))));
    expect(totals.reduce((a, b) => a + b, 0)).toBe(3);
    const top = page.getByTestId('stats-destinations-row');
    await expect(top.first().getAttribute('data-key')).resolves.toBe('DE');
    await expect(top.first().getByTestId('stats-destinations-value').textContent()).resolves.toBe('3');
    await expect(page.getByTestId('stats-streams-row').first().textContent()).resolves.toContain('Dashboard stream');
    await page.getByTestId('stats-cost-chart').waitFor();
    await shot(page, '01-statistics');
  }, 60000);

  /** Starts the export of the open dialog and answers the lines of the file the console downloads (BOM dropped). */
  const exportFromDialog = async (name: string): Promise<string[][]> => {
    const dialog = page.getByTestId('message-export-dialog');
    await dialog.waitFor();
    const download = page.waitForEvent('download', { timeout: 30000 });
    await dialog.getByTestId('message-export-start').click();
    // spec 4: the task is created and the console waits 5 s before it looks; meanwhile the task's progress shows
    await dialog.getByTestId('message-export-task').waitFor();
    await dialog.getByTestId('message-export-progress').waitFor();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(new RegExp(`^${name}-\\d+-\\d{14}\\.csv$`));
    const text = fs.readFileSync(await file.path(), 'utf8').replace(/^\uFEFF/, '');
    await dialog.waitFor({ state: 'detached' });
    return text.trim().split('\r\n').map((l) => l.split(','));
  };

  it('exports the messages of the dashboard range from the statistics page, then those of the stream from its messages tab, and deletes the tasks', async () => {
    await page.getByTestId('stats-export').click();
    await expect(page.getByTestId('message-export-summary').textContent()).resolves.toContain('Messages from');
    const sent = await exportFromDialog('export-messages');
    expect(sent[0].slice(0, 8)).toEqual(['messageUuid', 'acceptedAt', 'streamId', 'stream', 'sender', 'destination', 'country', 'status']);
    expect(sent.slice(1).map((r) => r[5]).sort()).toEqual(PHONES);
    expect(sent.slice(1).map((r) => [r[3], r[4], r[6], r[7], r[8], r[9], r[10]])).toEqual(PHONES.map(() => ['Dashboard stream', SENDER_ID, 'DE', 'delivered', '1', '0.05', 'EUR']));
    await shot(page, '03-statistics-export');

    await page.goto(`${base}/streams/${streamId}`);
    await page.getByTestId('detail-tab-messages').click();
    await page.getByTestId('message-row').first().waitFor();
    await page.getByTestId('messages-export').click();
    await expect(page.getByTestId('message-export-summary').textContent()).resolves.toContain('this stream');
    const stream = await exportFromDialog('export-stream-messages');
    expect(stream.slice(1).map((r) => [r[2], r[5]]).sort()).toEqual(PHONES.map((p) => [String(streamId), p]));
    // downloaded tasks are deleted (spec 4), and their files with them
    const tasks = await api<{ items: Array<{ type: string }> }>('GET', '/tasks');
    expect(tasks.body.items.filter((t) => t.type.startsWith('export_'))).toEqual([]);
    await page.getByTestId('menu-statistics').click();
    await page.getByTestId('statistics-page').waitFor();
  }, 90000);

  it('shows the same figures in Russian', async () => {
    await page.getByTestId('language-switcher').first().click();
    await page.locator('li[lang="ru"]').click();
    await page.getByTestId('stats-total').getByText('Отправлено сообщений').waitFor();
    await page.getByTestId('stats-slice-day').click();
    await page.getByTestId('stats-total-value').filter({ hasText: /^3$/ }).waitFor({ timeout: 20000 });
    await expect(page.getByTestId('stats-total').textContent()).resolves.toContain('Отправлено сообщений');
    await expect(page.getByTestId('stats-cost-value').textContent()).resolves.toBe('€0,15');
    await expect(page.getByTestId('stats-export').textContent()).resolves.toBe('Выгрузить');
    await shot(page, '02-statistics-ru');
    expect(errors).toEqual([]);
  }, 60000);
});
