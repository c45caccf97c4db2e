import * as http from 'node:http';
import { type Page } from 'playwright-core';
import { CampaignStatus } from '@switchboard/contracts';
import { SmppPeer } from '@switchboard/dispatch';
import { DnsZone } from '@switchboard/platform/testing';
import { ADMIN_EMAIL, ADMIN_PASSWORD, pageApi, signInWithPin, startConsole, type ConsoleSession, until } from './browser';

const TARGET = 'r.links.test';
const DOMAIN = 'go.acme-shop.com';
const SENDER_ID = 'AcmeSMS';
const RECIPIENTS = 10;
const PHONE_UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148';

/** A GET of a short link at the redirect server, as a phone would send it (the Host header is the link's domain). */
function open(redirectBase: string, shortUrl: string, userAgent = PHONE_UA): Promise<{ status: number; location: string | undefined }> {
  const u = new URL(shortUrl);
  const r = new URL(redirectBase);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: r.hostname, port: Number(r.port), path: u.pathname, method: 'GET', headers: { host: u.host, 'user-agent': userAgent } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * A campaign with `{{shorturl}}` sent through a local SMSC by the real embedded server: each recipient's SMS carries a
 * personal link on the account's verified domain; recipients open some of them at the redirect server (and a
 * messenger's preview fetches one), and the open campaign page shows the clicks and the CTR move, coloured by the
 * campaign's own indicators, without a reload; the campaigns list colours the CTR the same way.
 */
describe('campaign links clicked through the redirect server (Chromium, embedded server, SMPP peer, local DNS)', () => {
  let zone: DnsZone;
  let smsc: SmppPeer;
  let session: ConsoleSession;
  let base: string;
  let redirectBase: string;
  let page: Page;
  let errors: string[] = [];
  const api = pageApi(() => page);
  let campaignId = 0;
  let links: string[] = [];

  beforeAll(async () => {
    zone = await new DnsZone().start();
    smsc = new SmppPeer({ receiptDelayMs: 50 });
    const smscPort = await smsc.listen();
    session = await startConsole('links-clicks', { env: { LINKS_DNS_SERVERS: zone.address, LINKS_DNS_CNAME_TARGET: TARGET } });
    ({ base, page, errors } = session);
    redirectBase = (await session.server.waitFor(/Short links\s*: (http:\/\/[\d.:]+)\//, 10000))[1];
    await signInWithPin(page, base, ADMIN_EMAIL, ADMIN_PASSWORD, 'a***@example.com');
    await page.waitForURL('**/home', { timeout: 20000 });

    // the carrier: an SMPP vendor on the local SMSC, Germany routed through it and priced; a sender and a stream
    const vendor = await api<{ id: number }>('POST', '/service_type_manager/vendor', {
      name: 'Local SMSC', service_type: 'sms', adapter: 'smpp', active: true, carrier: 'Local', product_name: 'SMS', product_id: 'local-sms', currency: 'EUR',
      config: { host: '127.0.0.1', port: smscPort, systemId: 'dispatch', password: 'secret', reconnectMs: 100 },
    });
    expect(vendor.status).toBe(201);
    expect((await api('PUT', '/service_type_manager/countries_mapping', { iso2: 'DE', serviceType: 'sms', vendorIds: [String(vendor.body.id)] })).status).toBe(200);
    const de = await api<{ items: Array<{ id: number }> }>('GET', '/countries?iso2=DE');
    expect((await api('PUT', `/countries/global/${de.body.items[0].id}`, { pricePerSegment: 0.05, priceCurrency: 'EUR' })).status).toBe(200);
    await until(() => smsc.binds, (n) => n > 0, 'the SMPP bind');
    const me = await api<{ customer: { id: number } }>('GET', '/users/connected');
    expect((await api('PUT', `/customers/${me.body.customer.id}`, { tps: 200 })).status).toBe(200);
    const sender = await api<{ id: number }>('POST', '/senders', { name: 'Acme', value: SENDER_ID });
    expect(sender.status).toBe(201);
    expect((await api('PUT', `/senders/superadmin/${sender.body.id}`, { approved: 1 })).status).toBe(200);
    const stream = await api<{ id: number }>('POST', '/streams', { name: 'Spring links', streamType: 1, sender: SENDER_ID });
    expect(stream.status).toBe(201);

    // the account's domain, verified in DNS
    const added = await api<{ data: Array<{ id: number; dns: Array<{ type: string; host: string; value: string }> }> }>('POST', '/domains/bulk', { domains: [DOMAIN] });
    const domain = added.body.data[0];
    const txt = domain.dns.find((r) => r.type === 'TXT');
    zone.set(DOMAIN, { cname: TARGET });
    zone.set(txt?.host ?? '', { txt: [txt?.value ?? ''] });
    expect((await api<{ state: number }>('POST', `/domains/${domain.id}/check`)).body.state).toBe(1);

    // the recipients
    const list = await api<{ id: number }>('POST', '/contact_lists', { name: 'Link clickers' });
    expect(list.status).toBe(201);
    for (let i = 0; i < RECIPIENTS; i++) {
      const c = await api('POST', '/contacts', { phone: `+49151${String(3000000 + i).padStart(8, '0')}`, firstName: `Person ${i + 1}`, contactLists: [list.body.id] });
      expect(c.status).toBe(201);
    }

    // the campaign: {{shorturl}} on the domain, CTR indicators [20, 40]
    const campaign = await until(
      () =>
        api<{ id: number }>('POST', '/campaigns', {
          name: 'Spring links',
          stream: stream.body.id,
          contactLists: [list.body.id],
          campaignVariants: [{ name: 'A', text: 'Hi {{firstName}}, spring sale: {{shorturl}}', ratio: 100 }],
          campaignsSenders: [{ sender: sender.body.id, ratio: 100 }],
          activityTime: { working_hours: { start: '00:00', end: '23:59' }, working_days: [1, 2, 3, 4, 5, 6, 7], timezone_mode: 'selected', timezone: 'UTC' },
          campaignSettings: { ctr_indicators: [20, 40] },
        }),
      (r) => r.status === 201,
      'the campaign (the campaigns read models of stream, sender and list fill from events)',
    );
    campaignId = campaign.body.id;
    const offer = await api<{ id: number }>('POST', '/offers', { name: 'Spring landing', originalUrl: 'https://acme-shop.example/spring?name={firstName}', expireInDays: 30 });
    expect(offer.status).toBe(201);
    expect((await api('POST', '/campaigns_variables', { campaign: campaignId, variable: 7, params: { domains: [domain.id], offer: offer.body.id } })).status).toBe(201);
  }, 240000);

  afterAll(async () => {
    await session?.stop();
    await smsc?.close();
    await zone?.stop();
  });

  it('sends every recipient their own short link on the verified domain', async () => {
    expect((await api('POST', `/campaigns/${campaignId}/start`)).status).toBe(200);
    await until(() => smsc.parts.length, (n) => n >= RECIPIENTS, 'the SMS at the SMSC', 90000).catch(async (e: unknown) => {
      const c = await api('GET', `/campaigns/${campaignId}`);
      throw new Error(`${(e as Error).message}\ncampaign: ${JSON.stringify(c.body)}\n${session.server.output().slice(-4000)}`);
    });
    const re = new RegExp(`http://${DOMAIN.replace(/\./g, '\\.')}/[0-9A-Za-z]{7}`);
    links = smsc.parts.map((p) => re.exec(p.text)?.[0] ?? `no link in: ${p.text}`);
    expect(links.every((l) => re.test(l))).toBe(true);
    expect(new Set(links).size).toBe(RECIPIENTS);
    // the campaign page once everything was sent: no clicks yet, a bad CTR by the campaign's indicators
    await page.goto(`${base}/campaigns/${campaignId}`);
    await page.locator('[data-testid="campaign-page"][data-live="true"]').waitFor({ timeout: 20000 });
    await until(() => page.getByTestId('stat-sent').innerText(), (t) => t.includes(String(RECIPIENTS)), 'sent on the campaign page', 60000);
    // finished and every message reported: the page no longer polls, so only live frames can move it from here
    await page.locator(`[data-testid="campaign-page"][data-status="${CampaignStatus.Finished}"]`).waitFor({ timeout: 60000 });
    await expect(page.getByTestId('stat-clicked').innerText()).resolves.toContain('0');
    await expect(page.getByTestId('stat-ctr').getAttribute('data-level')).resolves.toBe('bad');
  }, 150000);

  it('moves the open campaign page’s clicks and CTR as recipients open their links; a preview is not a click', async () => {
    // a messenger's preview of the first link: redirected, not counted
    expect(await open(redirectBase, links[0], 'WhatsApp/2.23.20.0 A')).toMatchObject({ status: 302 });
    // one click: "1 click" per domain, and the clicks chart's axis counts in whole numbers (walkthrough 10)
    expect((await open(redirectBase, links[0])).status).toBe(302);
    const oneClick = async () => {
      await page.reload();
      await page.locator('[data-testid="campaign-page"][data-live="true"]').waitFor({ timeout: 20000 });
      await page.getByTestId('campaign-report-clicks').waitFor({ timeout: 5000 }).catch(() => undefined);
      return page.getByTestId('campaign-report-domain-value').first().innerText().catch(() => '');
    };
    await expect(until(oneClick, (t) => t === '1 click', 'one click per domain on the campaign page', 60000)).resolves.toBe('1 click');
    const ticks = await page.getByTestId('campaign-report-clicks').locator('svg text[text-anchor="end"]').allTextContents();
    expect(ticks).toEqual(['0', '1']);
    await page.getByTestId('campaign-report-domains').scrollIntoViewIfNeeded();
    await session.shot('00-campaign-one-click');
    await page.mouse.wheel(0, -5000);
    // three recipients open their links, one of them twice (the first one's above)
    for (const l of [links[1], links[2], links[1]]) {
      const r = await open(redirectBase, l);
      expect(r.status).toBe(302);
      expect(r.location).toMatch(/^https:\/\/acme-shop\.example\/spring\?name=Person%20\d+$/);
    }
    // 3 unique clickers of 10 sent: 30 %, between the campaign's bad 20 and good 40
    const ctr = page.getByTestId('stat-ctr');
    await until(() => ctr.innerText(), (t) => /^30\s?%/.test(t), 'the CTR at 30 % on the open page', 30000);
    await expect(ctr.getAttribute('data-level')).resolves.toBe('mid');
    await expect(page.getByTestId('stat-clicked').innerText()).resolves.toContain('3');
    await session.shot('01-campaign-ctr');

    // a fourth and fifth clicker: 50 %, good
    for (const l of [links[3], links[4]]) expect((await open(redirectBase, l)).status).toBe(302);
    await until(() => ctr.innerText(), (t) => /^50\s?%/.test(t), 'the CTR at 50 %', 30000);
    await expect(ctr.getAttribute('data-level')).resolves.toBe('good');

    // the campaign's report per domain (built by stats from the minted batches and the click events)
    const perDomain = async () => (await api<{ items: Array<{ domain: string; usages: number; clicks: number; uniqueClicks: number }> }>('GET', `/campaign_domain_statistics?campaign=${campaignId}`)).body.items;
    const items = await until(perDomain, (i) => i.length === 1 && i[0].uniqueClicks === 5, 'the per-domain report', 30000);
    expect(items).toEqual([expect.objectContaining({ domain: DOMAIN, usages: RECIPIENTS, clicks: 6, uniqueClicks: 5 })]);
  }, 90000);

  it('colours each campaign’s CTR in the campaigns list by its own indicators', async () => {
    await page.getByTestId('menu-campaigns').click();
    const row = page.getByTestId('campaign-row').filter({ hasText: 'Spring links' });
    await row.waitFor();
    await expect(row.getByTestId('campaign-ctr').getAttribute('data-level')).resolves.toBe('good');
    await expect(row.getByTestId('campaign-ctr').innerText()).resolves.toMatch(/^50\s?%/);
    await session.shot('02-campaigns-list');
    expect(errors).toEqual([]);
  }, 60000);
});
