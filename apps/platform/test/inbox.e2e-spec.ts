import * as path from 'node:path';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { SmppPeer, WhatsAppPeer } from '@switchboard/dispatch';
import { HubSpotServer } from '@switchboard/integrations/testing';
import { repoRoot, type ServerProcess } from './server-process';
import { pageApi, signInWithPin, startConsole, type ConsoleSession, until } from './browser';

const SHOTS = path.join(repoRoot, 'test-results', 'inbox');
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
/** Our two-way number (the stream's sender) and two customers writing to it from German mobiles. */
const OUR_NUMBER = '+4930111111';
const CUSTOMER_EN = '491700000001';
const CUSTOMER_RU = '491700000002';
/** WhatsApp: the stream's business, number and token at the local Cloud API; two customers, one of them silent for 25 hours. */
const WA_TOKEN = 'EAAG-inbox-browser-token';
const WA_BUSINESS = '1010101010';
const WA_PHONE_ID = '2020202020';
const WA_CUSTOMER = '491700000011';
const WA_SILENT = '491700000012';
const FILTERS = ['all', 'active', 'unanswered', 'closed', 'my_closed', 'assigned_to_me'] as const;
/** The server counts the totals no counter keeps only up to one past this (INBOX_TOTALS_CAP, small here to stay fast). */
const TOTALS_CAP = 2;
/** A total as the filter tab shows it: one the server stopped counting (one past the cap) `2+`, any other exactly. */
const shownTotal = (n: number) => (n === TOTALS_CAP + 1 ? `${TOTALS_CAP}+` : String(n));
/** Markup and script payloads that must show as text, never run. */
const XSS_BODY = 'Order 1001 <img src=x onerror="window.__xss=1"><script>window.__xss=2</script>';
const XSS_NAME = '<b onmouseover="window.__xss=3">Eve</b><script>window.__xss=4</script>';
const XSS_TAG = '<svg onload="window.__xss=5">VIP';
const XSS_NOTE = '<iframe src="javascript:window.__xss=6"></iframe> call back <script>window.__xss=7</script>';

/**
 * The shared inbox in Chromium against the real embedded server, with a local SMSC speaking SMPP: a customer's SMS
 * reply arrives at the agent's open inbox without a reload, the agent answers it and the answer reaches the SMSC, in
 * English and in Russian; message bodies, contact names, tags and notes carrying markup and scripts show as text.
 */
describe('the shared inbox in the console (Chromium, embedded server, SMPP peer)', () => {
  let server: ServerProcess;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let smsc: SmppPeer;
  let smscPort = 0;
  let wa: WhatsAppPeer;
  let hubspot: HubSpotServer;
  let errors: string[] = [];
  let session: ConsoleSession;
  const api = pageApi(() => page);

  beforeAll(async () => {
    smsc = new SmppPeer({ receiptDelayMs: 100 });
    smscPort = await smsc.listen();
    wa = new WhatsAppPeer('wa-app-secret', new Set([WA_TOKEN]));
    wa.business(WA_BUSINESS, WA_TOKEN, [WA_PHONE_ID]);
    await wa.listen();
    // the account's CRM: a local HubSpot knowing the customer the new-conversation test writes to (and no CRM users)
    hubspot = await new HubSpotServer().start();
    hubspot.users = [];
    hubspot.addContacts(1, undefined, () => ({ firstname: 'Dana', lastname: 'Buyer', email: 'dana@example.com', phone: '+491700000003' }));
    session = await startConsole('inbox', {
      env: { INBOX_TOTALS_CAP: String(TOTALS_CAP), WHATSAPP_API_BASE_URL: wa.url, INTEGRATIONS_ENDPOINTS: JSON.stringify({ hubspot: { apiUrl: hubspot.url, tokenUrl: `${hubspot.url}/oauth/v1/token` } }) },
    });
    ({ server, base, browser, context, page, errors } = session);
  }, 150000);

  afterAll(async () => {
    await session?.stop();
    await smsc?.close();
    await wa?.close();
    await hubspot?.stop();
  });

  let streamUid = '';
  let spaceId = 0;
  let teamId = 0;

  /**
   * The filter tabs show the server's totals (GET /inbox/conversations/totals, what this agent sees) once the live
   * events have settled: the console never counts on its own.
   */
  const countsMatchServer = async (what: string, expected?: Partial<Record<(typeof FILTERS)[number], number>>) => {
    const read = async () => {
      const server = (await api<Record<string, number>>('GET', `/inbox/conversations/totals?space=${spaceId}`)).body;
      const shown: Record<string, string> = {};
      for (const f of FILTERS) shown[f] = (await page.getByTestId(`filter-${f}-count`).textContent())?.trim() ?? '';
      return { server, shown };
    };
    const { server } = await until(read, ({ server, shown }) => FILTERS.every((f) => server[f] !== undefined && shown[f] === shownTotal(server[f])), `the filter counts equal to the server's (${what})`);
    if (expected) expect(server).toMatchObject(expected);
  };

  it('signs in and sets up a two-way stream on the local SMSC, a space, a team and the incoming routing', async () => {
    await signInWithPin(page, base, 'admin@example.com', 'browser password', 'a***@example.com');
    await page.waitForURL('**/home', { timeout: 20000 });
    const me = (await api<{ id: number }>('GET', '/users/connected')).body;

    // the carrier: an SMPP vendor on the local peer, Germany routed through it, a price for Germany
    const vendor = await api<{ id: number }>('POST', '/service_type_manager/vendor', {
      name: 'Local SMSC', service_type: 'sms', adapter: 'smpp', active: true, carrier: 'Local', product_name: 'SMS', product_id: 'local-sms', currency: 'EUR',
      config: { host: '127.0.0.1', port: smscPort, systemId: 'dispatch', password: 'secret', moRegion: 'DE', reconnectMs: 100 },
    });
    expect(vendor.status).toBe(201);
    expect((await api('PUT', '/service_type_manager/countries_mapping', { iso2: 'DE', serviceType: 'sms', vendorIds: [String(vendor.body.id)] })).status).toBe(200);
    const de = await api<{ items: Array<{ id: number }> }>('GET', '/countries?iso2=DE');
    expect((await api('PUT', `/countries/global/${de.body.items[0].id}`, { pricePerSegment: 0.05, priceCurrency: 'EUR' })).status).toBe(200);
    await until(() => smsc.binds, (n) => n > 0, 'the SMPP bind').catch((e) => {
      throw new Error(`${(e as Error).message}\n${server.output().slice(-3000)}`);
    });

    // our number as an approved sender and a two-way stream sending from it
    const sender = await api<{ id: number }>('POST', '/senders', { name: 'Support line', value: OUR_NUMBER });
    expect(sender.status).toBe(201);
    expect((await api('PUT', `/senders/superadmin/${sender.body.id}`, { approved: 1 })).status).toBe(200);
    const stream = await api<{ id: number }>('POST', '/streams', { name: 'Support SMS', streamType: 4, sender: OUR_NUMBER });
    expect(stream.status).toBe(201);
    streamUid = (await api<{ streamUid: string }>('GET', `/streams/${stream.body.id}`)).body.streamUid;

    // the inbox: a space, a team with the signed-in user, everything from the stream to that team
    const space = await api<{ id: number }>('POST', '/spaces', { name: 'Customer care' });
    expect(space.status).toBe(201);
    spaceId = space.body.id;
    const team = await until(
      () => api<{ id: number }>('POST', '/teams', { name: 'First line', space: `/api/spaces/${spaceId}`, agents: [`/api/agents/${me.id}`] }),
      (r) => r.status === 201,
      'the team (the agents read model fills from auth events)',
    );
    teamId = team.body.id;
    expect((await api('POST', '/incoming_routings', { name: 'Support SMS', stream: streamUid, team: `/api/teams/${team.body.id}`, space: `/api/spaces/${spaceId}` })).status).toBe(201);
    expect((await api('POST', '/conversation_tags', { name: XSS_TAG, space: `/api/spaces/${spaceId}` })).status).toBe(201);
    expect((await api('POST', '/canned_templates', { name: 'Thanks', templateKey: 'thanks', text: 'Thank you {{name}}, we are on it.', space: `/api/spaces/${spaceId}` })).status).toBe(201);

    // the account's HubSpot, connected with a private app token and synced
    const crm = await api<{ key: string }>('POST', '/integration_keys', { type: 'hubspot', apiKey: 'pat-na1-valid' });
    expect(crm.status).toBe(201);
    expect((await api('POST', `/integration_config/${crm.body.key}`, { company_name: 'Acme CRM', import_users: { type: 'admins' } })).status).toBe(200);
    expect((await api('GET', `/integration_config/${crm.body.key}/start`)).status).toBe(200);
    await until(() => api<unknown[]>('GET', '/integration_keys/contact_lookup?phone=%2B491700000003'), (r) => r.status === 200 && r.body.length === 1, 'the CRM contact synced');
  }, 90000);

  it('shows a customer’s SMS reply in the open inbox without a reload, as text, with its unread badge', async () => {
    await page.getByTestId('menu-inbox').click();
    await page.getByTestId('inbox-workspace').waitFor();
    await until(() => page.getByTestId('live-state').getAttribute('data-state'), (s) => s === 'open', 'the live connection');
    await page.getByTestId('conversation-list-empty').waitFor();
    const navigations: string[] = [];
    page.on('framenavigated', (f) => f === page.mainFrame() && navigations.push(f.url()));

    smsc.sendMo(CUSTOMER_EN, OUR_NUMBER.slice(1), XSS_BODY);
    const row = page.getByTestId('conversation-row').first();
    await row.waitFor({ timeout: 30000 });
    await expect(row.getByTestId('conversation-last').textContent()).resolves.toBe(XSS_BODY);
    await expect(row.getByTestId('unread-badge').textContent()).resolves.toBe('1');
    await countsMatchServer('a new conversation', { all: 1, unanswered: 1, active: 0 });
    expect(navigations).toEqual([]);
    await shot(page, '01-live-incoming');

    // keyboard: focus the list, Enter opens the first conversation
    await page.getByTestId('conversation-list').focus();
    await page.keyboard.press('Enter');
    const incoming = page.getByTestId('message-incoming').last();
    await incoming.waitFor();
    await expect(incoming.getByTestId('message-body').textContent()).resolves.toBe(XSS_BODY);
    await expect(row.getByTestId('unread-badge').count()).resolves.toBe(0);
  }, 60000);

  it('answers it from the composer, and the answer reaches the SMSC and shows its delivery', async () => {
    // "r" focuses the composer; a canned reply fills in the text
    await page.locator('body').press('r');
    await page.getByTestId('composer-canned').click();
    await page.getByTestId('canned-item').first().click();
    await expect(page.getByTestId('composer-input').inputValue()).resolves.toContain('we are on it');
    await page.getByTestId('composer-input').fill('Your parcel left our warehouse today.');
    await expect(page.getByTestId('composer-count').textContent()).resolves.toMatch(/37/);
    await page.getByTestId('composer-input').press('Enter');

    const part = await until(() => smsc.parts.find((p) => p.destination === CUSTOMER_EN), (p) => !!p, 'the answer at the SMSC');
    expect(part?.text).toBe('Your parcel left our warehouse today.');
    const out = page.getByTestId('message-outgoing').last();
    await expect(out.getByTestId('message-body').textContent()).resolves.toBe('Your parcel left our warehouse today.');
    await until(() => out.getByTestId('message-ticks').getAttribute('data-status'), (s) => s === 'delivered', 'the delivery tick');
    // answered: it moved from unanswered to active, and the tabs say so (a screenshot once showed All 1 / Active 2)
    await countsMatchServer('after the answer', { all: 1, unanswered: 0, active: 1 });
    await shot(page, '02-answered');
  }, 60000);

  it('shows contact names, tags and notes with markup and scripts as text', async () => {
    await page.getByTestId('contact-edit').click();
    await page.getByTestId('contact-firstName').fill(XSS_NAME);
    await page.getByTestId('contact-save').click();
    await page.getByTestId('contact-edit-dialog').waitFor({ state: 'detached' });
    await expect(page.getByTestId('contact-name').textContent()).resolves.toContain(XSS_NAME);

    await page.getByTestId('tag-input').click();
    await page.getByRole('option', { name: XSS_TAG }).click();
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('conversation-tag').first().textContent()).resolves.toBe(XSS_TAG);
    await page.getByTestId('timeline-change').filter({ hasText: XSS_TAG }).waitFor();

    await page.getByTestId('composer-mode-note').click();
    await page.getByTestId('composer-input').fill(XSS_NOTE);
    await page.getByTestId('composer-send').click();
    await expect(page.getByTestId('note-body').last().textContent()).resolves.toBe(XSS_NOTE);
    await page.reload();
    await page.getByTestId('conversation-row').first().click();
    await page.getByTestId('note-body').last().waitFor();
    await expect(page.getByTestId('note-body').last().textContent()).resolves.toBe(XSS_NOTE);
    await shot(page, '03-markup-as-text');

    expect(await page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await page.locator('[data-testid="timeline"] script, [data-testid="timeline"] img, [data-testid="timeline"] iframe, [data-testid="contact-panel"] b, [data-testid="contact-panel"] svg[onload]').count()).toBe(0);
  }, 60000);

  it('starts a conversation from the new-conversation popup (two-way streams only, no team choice under two teams) and opens it', async () => {
    await page.getByTestId('new-conversation').click();
    const popup = page.getByTestId('send-message-dialog');
    await expect(popup.getByRole('heading').first().textContent()).resolves.toBe('New conversation');
    await popup.getByTestId('send-stream').click();
    await expect(page.getByRole('option').allTextContents()).resolves.toEqual(['Support SMSTwo-way SMS']);
    await page.getByRole('option').first().click();
    await popup.getByTestId('send-phone').fill('12');
    await popup.getByTestId('send-next').click();
    await popup.getByText('This does not look like a phone number').waitFor();
    await expect(popup.getByTestId('send-team').count()).resolves.toBe(0);
    await popup.getByTestId('send-phone').fill('+491700000003');
    await popup.getByTestId('send-next').click();
    await popup.getByTestId('send-text').fill('Hello from Acme support: your order is ready.');
    await popup.getByTestId('sms-counter').waitFor();
    await shot(page, '04-new-conversation');
    await popup.getByTestId('send-submit').click();
    await popup.waitFor({ state: 'detached' });
    const part = await until(() => smsc.parts.find((p) => p.destination === '491700000003'), (p) => !!p, 'the first message at the SMSC');
    expect(part?.text).toBe('Hello from Acme support: your order is ready.');
    await until(() => page.getByTestId('conversation-title').textContent(), (t) => t === '+491700000003', 'the new conversation opened');
    await page.getByTestId('message-outgoing').filter({ hasText: 'your order is ready' }).waitFor();
    await countsMatchServer('after a new conversation', { all: 2 });
  }, 60000);

  it('shows the CRM contact with the conversation’s number beside it, and puts an agent’s note on it through the CRM’s API', async () => {
    const card = page.getByTestId('crm-contact');
    await card.waitFor();
    await expect(card.textContent()).resolves.toContain('Dana Buyer · HubSpot');
    await card.getByTestId('crm-note').click();
    const dialog = page.getByTestId('crm-note-dialog');
    await expect(dialog.getByTestId('crm-note-send').isDisabled()).resolves.toBe(true);
    await dialog.getByTestId('crm-note-text').fill('Asked about order 1001; ready for pickup.');
    await page.waitForTimeout(300); // the dialog's entrance
    await shot(page, '04b-crm-note');
    await dialog.getByTestId('crm-note-send').click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('The note is in the CRM').waitFor();
    const note = await until(() => hubspot.notes, (n) => n.length === 1, 'the note at HubSpot');
    expect(note[0].properties.hs_note_body).toBe('Asked about order 1001; ready for pickup.');
    expect(note[0].associations).toEqual([expect.objectContaining({ to: { id: '1000' } })]);
  }, 60000);

  it('shows the space board with the day’s conversations and messages', async () => {
    await page.getByTestId('inbox-tab-statistics').click();
    await page.getByTestId('board-space_reports').waitFor();
    await until(() => page.getByTestId('report-conversations-value').textContent(), (t) => t === '2', 'two conversations');
    await expect(page.getByTestId('report-incoming-value').textContent()).resolves.toBe('1');
    await expect(page.getByTestId('report-outbound-value').textContent()).resolves.toBe('2');
    await page.getByTestId('messages-chart').locator('[data-testid="chart-bar"]').first().waitFor();
    await page.getByTestId('board-tab-team_reports').click();
    await page.getByTestId('board-team_reports').waitFor();
    await until(() => page.getByTestId('report-conversations-value').textContent(), (t) => t === '2', 'the team board');
    await shot(page, '05-statistics');
  }, 60000);

  it('adds a tag in the settings, refusing a name over 64 characters', async () => {
    await page.getByTestId('inbox-tab-settings').click();
    await page.getByTestId('settings-nav-conversation_tags').click();
    await page.getByTestId('settings-conversation_tags').waitFor();
    await page.getByTestId('settings-add').click();
    await page.getByTestId('settings-field-name').fill('x'.repeat(65));
    await page.getByTestId('settings-submit').click();
    await page.getByTestId('settings-dialog').getByText('Must be shorter than 65 characters').waitFor();
    await page.getByTestId('settings-field-name').fill(`Refund ${'x'.repeat(57)}`);
    await page.getByTestId('settings-submit').click();
    await page.getByTestId('settings-dialog').waitFor({ state: 'detached' });
    await page.getByTestId('settings-row').filter({ hasText: `Refund ${'x'.repeat(57)}` }).waitFor();
    await shot(page, '06-settings-tags');
    await page.getByTestId('inbox-tab-main').click();
    await page.getByTestId('inbox-workspace').waitFor();
  }, 60000);

  it('does the same in Russian', async () => {
    await page.getByTestId('language-switcher').click();
    await page.getByRole('menuitem', { name: 'Русский' }).click();
    await expect(page.getByTestId('filter-all').textContent()).resolves.toMatch(/^Все/);
    await until(() => page.getByTestId('live-state').getAttribute('data-state'), (s) => s === 'open', 'the live connection');

    smsc.sendMo(CUSTOMER_RU, OUR_NUMBER.slice(1), 'Здравствуйте! Где мой заказ?');
    const row = page.getByTestId('conversation-row').filter({ hasText: 'Где мой заказ' });
    await row.waitFor({ timeout: 30000 });
    await row.click();
    await page.getByTestId('message-incoming').filter({ hasText: 'Где мой заказ' }).waitFor();
    await page.getByTestId('composer-mode-reply').click();
    await page.getByTestId('composer-input').fill('Заказ передан курьеру.');
    await page.getByTestId('composer-send').click();
    const part = await until(() => smsc.parts.find((p) => p.destination === CUSTOMER_RU), (p) => !!p, 'the Russian answer at the SMSC');
    expect(part?.text).toBe('Заказ передан курьеру.');
    await expect(page.getByTestId('message-outgoing').last().getByTestId('message-body').textContent()).resolves.toBe('Заказ передан курьеру.');
    await countsMatchServer('after the Russian exchange', { all: 3, unanswered: 0 });
    await shot(page, '07-ru');
    expect(errors).toEqual([]);
  }, 60000);

  it('stacks the panes on a 390 px phone: the list, then the conversation with a way back', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, storageState: await context.storageState() });
    // the desktop's open menu is stored in the profile copied here: a phone starts with it closed
    await phone.addInitScript(() => (globalThis as unknown as { localStorage: { setItem: (k: string, v: string) => void } }).localStorage.setItem('RaStore.sidebar.open', 'false'));
    const p = await phone.newPage();
    p.on('pageerror', (e) => errors.push(e.message));
    await p.goto(`${base}/inbox`);
    await p.getByTestId('conversation-row').first().waitFor();
    await expect(p.getByTestId('conversation-pane').count()).resolves.toBe(0);
    await p.getByTestId('conversation-row').filter({ hasText: '+491700000002' }).click();
    await p.getByTestId('message-incoming').filter({ hasText: 'Где мой заказ' }).waitFor();
    await expect(p.getByTestId('conversation-list-pane').count()).resolves.toBe(0);
    const width = await p.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);
    await p.screenshot({ path: path.join(SHOTS, '08-phone.png') });
    await p.getByTestId('conversation-back').click();
    await p.getByTestId('conversation-list-pane').waitFor();
    await phone.close();
    expect(errors).toEqual([]);
  }, 60000);
  let waHook = '';
  let waStreamUid = '';

  it('sets up a WhatsApp stream on the local Cloud API and routes it to the team', async () => {
    const me = (await api<{ customer: { id: number } | null }>('GET', '/users/connected')).body;
    expect((await api('PUT', `/customers/${me.customer?.id ?? 0}`, { customSettings: { allow_whatsapp: 1 } })).status).toBe(200);
    const vendor = await api<{ id: number }>('POST', '/service_type_manager/vendor', {
      name: 'Local Cloud API', service_type: 'whatsapp', adapter: 'whatsapp', active: true, carrier: 'Meta', product_name: 'WhatsApp', product_id: 'local-wa', currency: 'EUR',
      config: { baseUrl: wa.url, apiVersion: 'v21.0', appSecret: 'wa-app-secret' },
    });
    expect(vendor.status).toBe(201);
    expect((await api('PUT', '/service_type_manager/countries_mapping', { iso2: 'DE', serviceType: 'whatsapp', vendorIds: [String(vendor.body.id)] })).status).toBe(200);
    // streams hears of the account's WhatsApp permission by event
    const stream = await until(
      () => api<{ id: number; streamUid: string }>('POST', '/streams', { name: 'Support WhatsApp', streamType: 5, params: { auth_token: WA_TOKEN, business_id: WA_BUSINESS, phone_number: WA_PHONE_ID } }),
      (r) => r.status === 201,
      'the WhatsApp stream',
    );
    waStreamUid = (await api<{ streamUid: string }>('GET', `/streams/${stream.body.id}`)).body.streamUid;
    const hook = await api<{ callbackUrl: string }>('GET', `/streams/webhooks/${stream.body.id}`);
    waHook = `${base}${new URL(hook.body.callbackUrl).pathname}`;
    await until(
      () => api('POST', '/incoming_routings', { name: 'Support WhatsApp', stream: waStreamUid, team: `/api/teams/${teamId}`, space: `/api/spaces/${spaceId}` }),
      (r) => r.status === 201,
      'the WhatsApp stream known to the inbox',
    );
    await page.goto(`${base}/inbox`);
    await page.getByTestId('inbox-workspace').waitFor();
    await until(() => page.getByTestId('live-state').getAttribute('data-state'), (s) => s === 'open', 'the live connection');
  }, 90000);

  const waMessage = async (from: string, id: string, body: string, at: Date) => {
    const m = { from, id, timestamp: String(Math.floor(at.getTime() / 1000)), type: 'text', text: { body } };
    expect(await wa.deliver(waHook, WhatsAppPeer.notification(WA_PHONE_ID, { messages: [m], contacts: [{ wa_id: from, profile: { name: `WhatsApp ${from.slice(-2)}` } }] }))).toBe(200);
  };

  const serverTotals = async () => (await api<Record<string, number>>('GET', `/inbox/conversations/totals?space=${spaceId}`)).body;

  it('answers a WhatsApp message inside the 24-hour window, and the answer reaches the Cloud API', async () => {
    const before = await serverTotals();
    await waMessage(WA_CUSTOMER, 'wamid.BROWSER1', 'Is my order on its way?', new Date());
    const row = page.getByTestId('conversation-row').filter({ hasText: 'Is my order on its way?' });
    await row.waitFor({ timeout: 30000 });
    await countsMatchServer('a WhatsApp conversation arrived', { all: before.all + 1, unanswered: before.unanswered + 1 });
    await row.click();
    await page.getByTestId('message-incoming').filter({ hasText: 'Is my order on its way?' }).waitFor();
    await expect(page.locator('[data-testid^="reply-block-"]').count()).resolves.toBe(0);
    await page.getByTestId('composer-mode-reply').click();
    await page.getByTestId('composer-input').fill('Yes, it arrives tomorrow.');
    await page.getByTestId('composer-send').click();
    const sent = await until(() => wa.sends.find((x) => x.body.to === WA_CUSTOMER), (x) => !!x, 'the answer at the Cloud API');
    expect(sent).toMatchObject({ phoneNumberId: WA_PHONE_ID, token: WA_TOKEN, body: { type: 'text', text: { body: 'Yes, it arrives tomorrow.' } } });
    await page.getByTestId('message-outgoing').filter({ hasText: 'Yes, it arrives tomorrow.' }).waitFor();
    await countsMatchServer('the WhatsApp conversation answered', { all: before.all + 1, unanswered: before.unanswered, active: before.active + 1 });
    await shot(page, '09-whatsapp-answered');
  }, 60000);

  it('blocks a reply 24 hours after the customer’s last WhatsApp message and offers a template instead', async () => {
    const before = await serverTotals();
    await waMessage(WA_SILENT, 'wamid.BROWSER2', 'Hello? Anyone there?', new Date(Date.now() - 25 * 3_600_000));
    const row = page.getByTestId('conversation-row').filter({ hasText: 'Hello? Anyone there?' });
    await row.waitFor({ timeout: 30000 });
    await row.click();
    await page.getByTestId('message-incoming').filter({ hasText: 'Hello? Anyone there?' }).waitFor();
    await page.getByTestId('reply-block-passed24Hours').waitFor();
    await expect(page.getByTestId('composer-send').isDisabled()).resolves.toBe(true);
    await shot(page, '10-whatsapp-24h');
    // the server refuses it too, whatever a client does
    const uuid = new URL(page.url()).searchParams.get('conversation') ?? (await api<{ items: Array<{ conversation_uuid: string; contact_phone_number: string }> }>('GET', `/inbox/conversations?space=${spaceId}`)).body.items.find((c) => c.contact_phone_number.endsWith('12'))?.conversation_uuid;
    const refused = await api<{ code: string; violations: Array<{ code: string }> }>('POST', `/inbox/simple_send/${uuid ?? ''}`, { messages: [{ text: 'Still there?' }] });
    expect([refused.status, refused.body.code, refused.body.violations?.[0]?.code]).toEqual([409, 'INBOX_REPLY_BLOCKED', 'passed24Hours']);
    expect(wa.sends.some((x) => x.body.to === WA_SILENT)).toBe(false);
    // the template offer opens the new-conversation popup on this WhatsApp stream and customer
    await page.getByTestId('offer-template').click();
    const popup = page.getByTestId('send-message-dialog');
    await popup.waitFor();
    await until(() => popup.getByTestId('send-stream').textContent(), (t) => !!t?.includes('Support WhatsApp'), 'the WhatsApp stream chosen in the popup', 10000);
    await expect(popup.getByTestId('send-phone').inputValue()).resolves.toContain(WA_SILENT.slice(-6));
    await shot(page, '11-whatsapp-template-offer');
    await page.keyboard.press('Escape');
    await countsMatchServer('after the WhatsApp paths', { all: before.all + 1, unanswered: before.unanswered + 1 });
    expect(errors).toEqual([]);
  }, 60000);

  it('shows a total past the counting cap as `2+` and the whole space’s totals exactly (INBOX_TOTALS_CAP=2 here)', async () => {
    const before = await serverTotals();
    // three more customers write: more unanswered conversations than the cap
    for (const n of ['491700000021', '491700000022', '491700000023']) smsc.sendMo(n, OUR_NUMBER.slice(1), `Where is my parcel? (${n.slice(-2)})`);
    const after = await until(serverTotals, (t) => t.unanswered === before.unanswered + 3, 'the three new conversations');
    // the whole space's totals come from counters: exact, however far past the cap
    await countsMatchServer('three more unanswered', { all: before.all + 3 });
    await expect(page.getByTestId('filter-all-count').textContent()).resolves.toBe(String(after.all));
    await expect(page.getByTestId('filter-unanswered-count').textContent()).resolves.toBe(String(after.unanswered));
    // narrowed to a status no counter keeps, each total is counted up to one past the cap, and shown `2+` above it
    await page.getByTestId('filter-status').locator('xpath=..').locator('[role="combobox"]').click();
    await page.getByRole('option').nth(2).click(); // unanswered (the statuses: active, unanswered, closed)
    const narrowed = (await api<Record<string, number>>('GET', `/inbox/conversations/totals?space=${spaceId}&status=unanswered`)).body;
    expect([narrowed.all, narrowed.unanswered, narrowed.active]).toEqual([TOTALS_CAP + 1, TOTALS_CAP + 1, 0]);
    const tabs = async () => ({ all: await page.getByTestId('filter-all-count').textContent(), unanswered: await page.getByTestId('filter-unanswered-count').textContent(), active: await page.getByTestId('filter-active-count').textContent() });
    await until(tabs, (t) => t.all === `${TOTALS_CAP}+`, 'the capped totals in the tabs');
    await expect(tabs()).resolves.toEqual({ all: `${TOTALS_CAP}+`, unanswered: `${TOTALS_CAP}+`, active: '0' });
    await shot(page, '12-totals-capped');
    expect(errors).toEqual([]);
  }, 60000);
});
