import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { repoRoot } from './server-process';
import { pageApi, signInWithPin, startConsole, until, type ConsoleSession } from './browser';

const SHOTS = path.join(repoRoot, 'test-results', 'campaigns');
const SENDER_ID = 'AcmeSMS';
const STREAM = 'Spring campaigns';
/** 200 German mobiles: libphonenumber accepts them, and Germany is routed to a simulator that always delivers. */
const RECIPIENTS = 200;
/** The campaign pauses itself after this many messages (auto-pause): the bar is seen part-way, whatever the speed. */
const PAUSE_AT = 50;
const csv = (): string => ['phone,first_name', ...Array.from({ length: RECIPIENTS }, (_, i) => `+49151${String(2000000 + i).padStart(8, '0')},Person ${i + 1}`)].join('\n') + '\n';

/**
 * The campaigns screens in Chromium against the real embedded server: a list is imported, a campaign is created from
 * it in the wizard (audience count, variants with ratios and the part counter, a sender, the schedule), started, and
 * its progress bar moves live (part-way at its auto-pause, then on after resume) until it finishes with every message
 * delivered; in English and in Russian. Around it: templates and word lists, the filter tabs, pin, duplicate and
 * delete, the changes-review popup of an edit, the campaigns tab of the list's side panel, and the screens on a 390 px
 * phone.
 */
describe('campaigns in the console (Chromium, embedded server)', () => {
  const files = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-campaigns-files-'));
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let errors: string[] = [];
  let session: ConsoleSession;
  const api = pageApi(() => page);

  const shot = async (name: string, p: Page = page) => {
    await p.waitForTimeout(300); // let modals and toasts finish their entrance
    await p.screenshot({ path: path.join(SHOTS, `${name}.png`) });
  };

  /** Selects an option of a MUI select opened by the element with `testId`. */
  async function choose(testId: string, optionTestId: string): Promise<void> {
    await page.getByTestId(testId).click();
    await page.getByTestId(optionTestId).click();
    await page.getByRole('listbox').waitFor({ state: 'detached' });
  }

  beforeAll(async () => {
    session = await startConsole('campaigns');
    ({ base, browser, context, page, errors } = session);
  }, 150000);

  afterAll(async () => {
    await session?.stop();
    fs.rmSync(files, { recursive: true, force: true });
  });

  it('signs in, and a super admin sets up a sender, a price and a route for Germany and a stream', async () => {
    await signInWithPin(page, base, 'admin@example.com', 'browser password', 'a***@example.com');
    await page.waitForURL('**/home', { timeout: 20000 });
    const sender = await api<{ id: number }>('POST', '/senders', { name: 'Acme', value: SENDER_ID });
    expect(sender.status).toBe(201);
    expect((await api('PUT', `/senders/superadmin/${sender.body.id}`, { approved: 1 })).status).toBe(200);
    const de = await api<{ items: Array<{ id: number }> }>('GET', '/countries?iso2=DE');
    expect((await api('PUT', `/countries/global/${de.body.items[0].id}`, { pricePerSegment: 0.05, priceCurrency: 'EUR' })).status).toBe(200);
    const vendor = await api<{ id: string | number }>('POST', '/service_type_manager/vendor', {
      name: 'Certain simulator',
      service_type: 'sms',
      adapter: 'simulator',
      carrier: 'Simulated',
      product_name: 'Simulator',
      product_id: 'sim-1',
      currency: 'EUR',
      active: true,
      config: { deliveryRatio: 1, delayMs: 200 },
      routingProvider: 1,
    });
    expect(vendor.status).toBe(201);
    expect((await api('PUT', '/service_type_manager/countries_mapping', { iso2: 'DE', serviceType: 'sms', vendorIds: [String(vendor.body.id)] })).status).toBe(200);
    // the account's TPS up from the default 10, so a few hundred messages go out in seconds
    const me = await api<{ customer: { id: number } }>('GET', '/users/connected');
    expect((await api('PUT', `/customers/${me.body.customer.id}`, { tps: 500 })).status).toBe(200);
    const stream = await api<{ id: number }>('POST', '/streams', { name: STREAM, streamType: 1, sender: SENDER_ID });
    expect(stream.status).toBe(201);
  }, 60000);

  it('imports the recipients through the import wizard', async () => {
    const file = path.join(files, 'spring-recipients.csv');
    fs.writeFileSync(file, csv());
    await page.goto(`${base}/contact-lists/import`);
    await page.locator('[data-testid="import-file"][data-state="empty"]').waitFor();
    await page.getByTestId('import-file-input').setInputFiles(file);
    await page.locator('[data-testid="import-file"][data-state="uploaded"]').waitFor({ timeout: 20000 });
    await page.getByTestId('import-next').click();
    await page.getByTestId('import-preview').waitFor();
    await page.getByTestId('import-name').fill('Spring recipients');
    await page.getByTestId('import-start').click();
    await page.locator('[data-testid="import-progress-step"][data-status="parsed"]').waitFor({ timeout: 60000 });
    await expect(page.getByTestId('count-contacts').textContent()).resolves.toBe(String(RECIPIENTS));
  }, 90000);

  it('keeps templates with variants, copies one as "copy X", and keeps word lists', async () => {
    await page.getByTestId('menu-templates').click();
    await page.getByTestId('templates-page').waitFor();
    await page.getByTestId('new-template').click();
    await page.getByTestId('template-name').fill('Spring sale');
    await page.getByTestId('template-variant-text').first().fill('Hi {{firstName}}, {our|the} spring sale starts today!');
    await page.getByTestId('template-add-variant').click();
    await expect(page.getByTestId('template-variant-ratio').evaluateAll((els) => els.map((e) => (e as unknown as { value: string }).value))).resolves.toEqual(['50', '50']);
    await page.getByTestId('template-submit').click();
    await page.getByTestId('template-variants-error').filter({ hasText: 'Every variant needs a text' }).waitFor();
    await page.getByTestId('template-variant-text').nth(1).fill('Spring sale: 20% off everything today only');
    await page.getByTestId('template-variant-ratio').nth(1).fill('40');
    await page.getByTestId('template-submit').click();
    await page.getByTestId('template-variants-error').filter({ hasText: 'add up to 100' }).waitFor();
    await page.getByTestId('template-variant-ratio').nth(0).fill('60');
    await shot('01-template-dialog');
    await page.getByTestId('template-submit').click();
    await page.getByTestId('template-dialog').waitFor({ state: 'detached' });
    const row = page.getByTestId('template-row').filter({ hasText: 'Spring sale' });
    await row.first().waitFor();
    await row.first().getByTestId('template-copy').click();
    await page.getByTestId('template-row-name').filter({ hasText: 'copy Spring sale' }).waitFor();
    await shot('02-templates');

    await page.getByTestId('menu-word-lists').click();
    await page.getByTestId('new-word-list').click();
    await page.getByTestId('word-list-name').fill('greetings');
    await page.getByTestId('word-input').fill('Hi');
    await page.keyboard.press('Enter');
    await page.getByTestId('word-input').fill('Hello, Hey');
    await expect(page.getByTestId('word-chip').count()).resolves.toBe(3);
    await page.getByTestId('word-list-submit').click();
    const wl = page.getByTestId('word-list-row').filter({ hasText: 'greetings' });
    await wl.waitFor();
    await expect(wl.getByTestId('word-list-count').textContent()).resolves.toBe('3');
    await shot('03-word-lists');
  }, 60000);

  /** The create wizard end to end; answers the new campaign's id. */
  async function createInWizard(name: string, locale: 'en' | 'ru'): Promise<number> {
    await page.getByTestId('menu-campaigns').click();
    await page.getByTestId('campaigns-page').waitFor();
    await page.getByTestId('new-campaign').click();
    const wizard = page.getByTestId('campaign-wizard');
    await wizard.waitFor();
    // details: the name and the stream are required
    await page.getByTestId('wizard-next').click();
    await page.locator('[data-testid="wizard-at-details"] .Mui-error').first().waitFor();
    await page.getByTestId('campaign-name-input').fill(name);
    await choose('campaign-stream', `stream-option-${await streamId()}`);
    // a new tag from the dropdown
    await page.getByTestId('campaign-tags').fill(locale === 'en' ? 'spring' : 'весна');
    await page.getByTestId('tag-create').click();
    await page.locator('.MuiChip-label', { hasText: locale === 'en' ? 'spring' : 'весна' }).waitFor();
    await shot(`${locale}-10-wizard-details`);
    await page.getByTestId('wizard-next').click();

    // audience: the imported list and its live count (the cost per country shows once saved)
    await page.getByTestId('wizard-step-audience').waitFor();
    await page.getByTestId('campaign-lists').click();
    await page.getByTestId('list-option').filter({ hasText: 'Spring recipients' }).click();
    await expect(page.getByTestId('audience-count').textContent()).resolves.toBe(String(RECIPIENTS));
    await page.getByTestId('estimates-after-save').waitFor();
    await shot(`${locale}-11-wizard-audience`);
    await page.getByTestId('wizard-next').click();

    // message: a GSM-7 text, then a second variant; ratios must add up to 100
    await page.getByTestId('wizard-step-message').waitFor();
    await page.getByTestId('wizard-next').click();
    await page.getByTestId('variants-error').waitFor();
    await page.getByTestId('variant-text').first().fill('Hi {{firstName}}, {our|the} spring sale starts today!');
    await expect(page.getByTestId('variant-counter').first().getAttribute('data-encoding')).resolves.toBe('GSM7');
    await page.getByTestId('add-variant').click();
    await page.getByTestId('variant-text').nth(1).fill('Весенняя распродажа: скидка 20% только сегодня');
    await expect(page.getByTestId('variant-counter').nth(1).getAttribute('data-encoding')).resolves.toBe('UCS2');
    await page.getByTestId('variant-ratio').nth(1).fill('30');
    await page.getByTestId('wizard-next').click();
    await page.getByTestId('variants-error').waitFor();
    await page.getByTestId('split-evenly').click();
    // the preview's samples are the service's (POST /campaigns/spintax_preview), not drawn in the browser
    const previewAnswer = page.waitForResponse((r) => r.url().includes('/campaigns/spintax_preview') && r.request().method() === 'POST');
    await page.getByTestId('variant-preview-toggle').first().click();
    const served = (await (await previewAnswer).json()) as { samples: string[] };
    await page.getByTestId('spintax-sample').first().waitFor();
    expect(await page.getByTestId('spintax-sample').allTextContents()).toEqual([...new Set(served.samples)]);
    // the variable the text uses: what a recipient without a first name gets (use the default: then one is required)
    const firstName = page.getByTestId('campaign-variable-firstName');
    await firstName.locator('select').selectOption('1');
    await page.getByTestId('wizard-next').click();
    await firstName.locator('.Mui-error').first().waitFor();
    await firstName.getByTestId('variable-default').fill(locale === 'en' ? 'friend' : 'друг');
    await shot(`${locale}-12-wizard-message`);
    await page.getByTestId('wizard-next').click();

    // senders: one, at 100 %
    await page.getByTestId('wizard-step-senders').waitFor();
    await page.getByTestId('add-sender').click();
    await choose('sender-select', `sender-option-${SENDER_ID}`);
    await shot(`${locale}-13-wizard-senders`);
    await page.getByTestId('wizard-next').click();

    // schedule: every day, all day, in each recipient's zone; equal hours are refused
    await page.getByTestId('wizard-step-schedule').waitFor();
    for (const d of [6, 7]) await page.getByTestId(`day-${d}`).click();
    await page.getByTestId('hours-start').fill('10:00');
    await page.getByTestId('hours-end').fill('10:00');
    await page.getByTestId('wizard-next').click();
    await page.getByTestId('hours-error').waitFor();
    await page.getByTestId('hours-start').fill('00:00');
    await page.getByTestId('hours-end').fill('23:59');
    await shot(`${locale}-14-wizard-schedule`);
    await page.getByTestId('wizard-next').click();

    // settings: auto-pause after PAUSE_AT messages; then create and start
    await page.getByTestId('wizard-step-settings').waitFor();
    await page.getByTestId('auto-pause-after').fill(String(PAUSE_AT));
    await shot(`${locale}-15-wizard-settings`);
    await page.getByTestId('wizard-start').click();
    await page.waitForURL(/\/campaigns\/\d+$/, { timeout: 20000 });
    return Number(/\/campaigns\/(\d+)$/.exec(page.url())?.[1]);
  }

  let streamIdCache = 0;
  async function streamId(): Promise<number> {
    if (!streamIdCache) {
      const r = await api<{ items: Array<{ id: number; name: string }> }>('GET', '/streams/dropdown');
      streamIdCache = r.body.items.find((s) => s.name === STREAM)?.id ?? 0;
    }
    return streamIdCache;
  }

  /**
   * Watches the campaign page until the campaign finished and its bar is full (the runner finishes once streams took
   * every message; the sent counts follow as dispatch reports them); answers every sent count the bar showed.
   */
  async function watchToTheEnd(): Promise<number[]> {
    const seen: number[] = [];
    const bar = page.getByTestId('campaign-page').getByTestId('progress-sent');
    const deadline = Date.now() + 90000;
    for (;;) {
      const v = Number(await bar.getAttribute('data-value'));
      if (seen[seen.length - 1] !== v) seen.push(v);
      const status = await page.getByTestId('campaign-page').getAttribute('data-status');
      if ((status === '7' && v === RECIPIENTS) || Date.now() > deadline) break;
      await page.waitForTimeout(100);
    }
    return seen;
  }

  for (const locale of ['en', 'ru'] as const) {
    it(`creates a campaign from the imported list in the wizard, starts it and watches it finish with every message delivered (${locale})`, async () => {
      if (locale === 'ru') {
        await page.evaluate("window.localStorage.setItem('switchboard.locale', 'ru')");
        await page.goto(`${base}/campaigns`);
        await page.getByRole('heading', { level: 1, name: 'Кампании' }).waitFor();
      }
      const name = locale === 'en' ? 'Spring sale' : 'Весенняя распродажа';
      const id = await createInWizard(name, locale);
      const links = await api<{ items: Array<{ variableName: string; defaultValue: string | null; missingRule: number }> }>('GET', `/campaigns/${id}/variables`);
      expect(links.body.items.map(({ variableName, defaultValue, missingRule }) => ({ variableName, defaultValue, missingRule }))).toEqual([
        { variableName: 'firstName', defaultValue: locale === 'en' ? 'friend' : 'друг', missingRule: 1 },
      ]);
      await page.getByTestId('campaign-page').waitFor();
      await expect(page.getByTestId('page-title').textContent()).resolves.toBe(name);
      await page.locator('[data-testid="campaign-page"][data-live="true"]').waitFor({ timeout: 15000 });
      // it pauses itself after PAUSE_AT messages (halt, reason auto pause), the bar part-way
      await page.locator('[data-testid="campaign-page"][data-status="10"]').waitFor({ timeout: 60000 });
      await page.getByTestId('halt-reason').filter({ hasText: locale === 'en' ? 'Auto pause' : 'Автопауза' }).waitFor();
      const bar = page.getByTestId('campaign-page').getByTestId('progress-sent');
      await expect(until(() => bar.getAttribute('data-value'), (v) => v === String(PAUSE_AT), 'the bar at the auto-pause', 60000)).resolves.toBe(String(PAUSE_AT));
      await shot(`${locale}-20-campaign-auto-paused`);
      // a halted campaign pauses, and resumes from where it stopped
      await page.getByTestId('campaign-pause').click();
      await page.locator('[data-testid="campaign-page"][data-status="3"]').waitFor({ timeout: 15000 });
      await page.getByTestId('campaign-play').click();
      const seen = [PAUSE_AT, ...(await watchToTheEnd())];
      await shot(`${locale}-21-campaign-finished`);
      expect(await page.getByTestId('campaign-page').getAttribute('data-status')).toBe('7');
      // the bar moved live: part-way at the auto-pause, never back, full at the end
      expect(seen[seen.length - 1]).toBe(RECIPIENTS);
      expect([...seen].sort((a, b) => a - b)).toEqual(seen);
      await expect(until(() => page.getByTestId('stat-delivered').textContent(), (t) => t === String(RECIPIENTS), 'every message delivered', 60000)).resolves.toBe(String(RECIPIENTS));
      await expect(page.getByTestId('stat-sent').textContent()).resolves.toBe(String(RECIPIENTS));
      await expect(page.getByTestId('campaign-page-status').textContent()).resolves.toBe(locale === 'en' ? 'Finished' : 'Завершена');
      const perVariant = await page.getByTestId('variant-delivered').allTextContents();
      expect(perVariant.map(Number).reduce((a, b) => a + b, 0)).toBe(RECIPIENTS);
      const server = await api<{ stats: { delivered: number } }>('GET', `/campaigns/${id}`);
      expect(server.body.stats.delivered).toBe(RECIPIENTS);
      // the campaign report (stats, from the events): delivery over time and delivered per variant add up to every message
      const sumOf = async (testId: string, attr: string) => (await page.getByTestId(testId).locator(attr === 'bar' ? '[data-testid="chart-bar"]' : `[data-testid="${attr}"]`).evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-total') ?? e.textContent)))).reduce((a, b) => a + b, 0);
      await expect(until(() => sumOf('campaign-report-series', 'bar'), (n) => n === RECIPIENTS, 'the report series', 60000)).resolves.toBe(RECIPIENTS);
      await expect(until(() => sumOf('campaign-report-variant', 'campaign-report-variant-value'), (n) => n === RECIPIENTS, 'the variants report', 60000)).resolves.toBe(RECIPIENTS);
      await expect(page.getByTestId('campaign-report-country-row').first().getAttribute('data-key')).resolves.toBe('DE');
      await shot(`${locale}-22-campaign-report`);
    }, 240000);
  }

  it('shows the campaigns under their filter tabs, pins one first, duplicates and deletes', async () => {
    await page.evaluate("window.localStorage.setItem('switchboard.locale', 'en')");
    await page.goto(`${base}/campaigns`);
    await page.getByTestId('campaign-row').nth(1).waitFor();
    await page.getByTestId('campaigns-tab-active').click();
    await page.getByTestId('no-results').waitFor();
    await page.getByTestId('campaigns-tab-finished').click();
    await expect(until(() => page.getByTestId('campaign-row').count(), (n) => n === 2, 'two campaign rows')).resolves.toBe(2);
    await expect(page.getByTestId('campaign-status').allTextContents()).resolves.toEqual(['Finished', 'Finished']);
    // the older campaign pinned comes first
    const older = page.getByTestId('campaign-row').filter({ hasText: 'Spring sale' });
    await older.getByTestId('campaign-pin').click();
    await expect(until(() => page.getByTestId('campaign-name').first().textContent(), (t) => t === 'Spring sale', 'the pinned campaign first')).resolves.toBe('Spring sale');
    await shot('30-list-finished-pinned');
    // duplicate makes a draft copy and opens it; a draft can be deleted
    await older.getByTestId('campaign-actions').click();
    await page.getByTestId('action-duplicate').click();
    await page.waitForURL(/\/campaigns\/\d+$/);
    await expect(page.getByTestId('campaign-page-status').textContent()).resolves.toBe('Draft');
    await page.getByTestId('campaign-delete').click();
    await page.getByTestId('confirm-ok').click();
    await page.waitForURL('**/campaigns');
    await page.getByTestId('campaigns-tab-all').click();
    await expect(until(() => page.getByTestId('campaign-row').count(), (n) => n === 2, 'two campaign rows')).resolves.toBe(2);
  }, 60000);

  it('asks to review the changes before an edit is saved', async () => {
    await page.getByTestId('menu-campaigns').click();
    await page.getByTestId('new-campaign').click();
    await page.getByTestId('campaign-name-input').fill('Autumn draft');
    await choose('campaign-stream', `stream-option-${await streamId()}`);
    await page.getByTestId('wizard-next').click();
    await page.getByTestId('campaign-lists').click();
    await page.getByTestId('list-option').filter({ hasText: 'Spring recipients' }).click();
    await page.getByTestId('wizard-next').click();
    await page.getByTestId('variant-text').first().fill('Autumn is here');
    for (let i = 0; i < 3; i++) await page.getByTestId('wizard-next').click();
    await page.getByTestId('wizard-save-draft').click();
    await page.waitForURL(/\/campaigns\/\d+$/);
    // before it starts, the draft shows its audience, the cost per country (200 × 1 part × €0.05) and no unreachable zone
    const estimates = page.getByTestId('campaign-estimates');
    await expect(until(() => estimates.getByTestId('estimate-recipients').textContent().catch(() => ''), (t) => t === String(RECIPIENTS), 'the audience estimate', 60000)).resolves.toBe(String(RECIPIENTS));
    await expect(estimates.getByTestId('estimate-cost').textContent()).resolves.toBe('€10.00');
    await estimates.getByTestId('unreachable-none').waitFor();
    await shot('39-draft-estimates');
    await page.getByTestId('campaign-edit').click();
    await page.getByTestId('campaign-name-input').fill('Autumn sale');
    await page.getByTestId('wizard-save-now').click();
    const review = page.getByTestId('changes-review');
    await review.waitFor();
    await expect(review.getByTestId('review-row').count()).resolves.toBe(1);
    await expect(review.getByTestId('review-after').textContent()).resolves.toBe('Autumn sale');
    await shot('40-changes-review');
    await page.getByTestId('review-confirm').click();
    await page.getByTestId('page-title').filter({ hasText: 'Autumn sale' }).waitFor();
  }, 120000);

  it('lists the campaigns of a list in its side panel', async () => {
    await page.getByTestId('menu-contact-lists').click();
    await page.getByTestId('list-row').filter({ hasText: 'Spring recipients' }).click();
    await page.getByTestId('panel-tab-campaigns').click();
    await expect(until(() => page.getByTestId('list-campaign').count(), (n) => n === 3, 'the list panel\'s three campaigns')).resolves.toBe(3);
    await shot('50-list-panel-campaigns');
  }, 90000);

  it('fits the campaigns screens on a 390 px phone', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, storageState: await context.storageState() });
    const p = await phone.newPage();
    p.on('pageerror', (e) => errors.push(e.message));
    try {
      for (const [route, ready] of [
        ['/campaigns', 'campaign-row'],
        ['/templates', 'template-row'],
        ['/word-lists', 'word-list-row'],
      ] as const) {
        await p.goto(`${base}${route}`);
        await p.getByTestId(ready).first().waitFor();
        const size = await p.evaluate(() => {
          const w = globalThis as unknown as { innerWidth: number; document: { scrollingElement: { scrollWidth: number } } };
          return { scroll: w.document.scrollingElement.scrollWidth, width: w.innerWidth };
        });
        expect([route, size.scroll]).toEqual([route, size.width]);
        await shot(`60-phone${route.replace(/\//g, '-')}`, p);
      }
      await p.goto(`${base}/campaigns`);
      await p.getByTestId('campaign-name').first().click();
      await p.getByTestId('campaign-page').waitFor();
      await shot('61-phone-campaign', p);
      await p.goto(`${base}/campaigns?new=1`);
      await p.getByTestId('campaign-wizard').waitFor();
      await shot('62-phone-wizard', p);
    } finally {
      await phone.close();
    }
  }, 60000);

  it('raised no page errors', () => {
    expect(errors).toEqual([]);
  });
});
