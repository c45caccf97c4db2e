import * as path from 'node:path';
import { type Page } from 'playwright-core';
import { DnsZone } from '@switchboard/platform/testing';
import { pageApi, signInWithPin, startConsole, type ConsoleSession } from './browser';
import { repoRoot } from './server-process';

const SHOTS = path.join(repoRoot, 'test-results', 'links');
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
const TARGET = 'r.links.test';

/**
 * A customer adds domains in bulk in the console of the real embedded server, is shown the DNS records, sees a domain
 * become configured once its records exist (a DNS server started here, asked by the server's verification), builds a
 * pool from the table and reads it in pool info, and creates an offer.
 */
describe('short-link domains in the console (Chromium, embedded server, local DNS)', () => {
  let zone: DnsZone;
  let base: string;
  let page: Page;
  let errors: string[] = [];
  let session: ConsoleSession;
  const api = pageApi(() => page);

  beforeAll(async () => {
    zone = await new DnsZone().start();
    session = await startConsole('links', { env: { LINKS_DNS_SERVERS: zone.address, LINKS_DNS_CNAME_TARGET: TARGET } });
    ({ base, page, errors } = session);
  }, 150000);

  afterAll(async () => {
    await session?.stop();
    await zone?.stop();
  });

  it('signs in', async () => {
    await signInWithPin(page, base, 'admin@example.com', 'browser password', 'a***@example.com');
    await page.waitForURL('**/home', { timeout: 20000 });
  }, 60000);

  it('adds domains in bulk and shows their DNS instructions', async () => {
    await page.getByTestId('menu-domains').click();
    await page.getByTestId('domains-page').waitFor();
    await page.getByTestId('add-domains').click();
    const input = page.getByTestId('add-domains-input');
    // typed one by one, and a pasted list
    await input.fill('go.acme-shop.com');
    await input.press('Enter');
    await input.fill('click.acme-shop.com ');
    await input.fill('https://bad.acme-shop.com/x');
    await input.press('Enter');
    expect(await page.getByTestId('add-domains-input-chip').count()).toBe(3);
    // a bad chip (scheme and path) blocks the submit until it is removed
    await expect(page.getByTestId('add-domains-submit').isDisabled()).resolves.toBe(true);
    await shot(page, '01-add-domains-invalid');
    await page.getByTestId('add-domains-input-chip').filter({ hasText: 'bad.acme-shop.com' }).locator('svg').click();
    // a name typed and not yet a chip counts: one click on "Add domains" adds it with the others (walkthrough 4)
    await input.fill('links.acme-shop.com');
    await expect(page.getByTestId('add-domains-submit').isDisabled()).resolves.toBe(false);
    await page.getByTestId('add-domains-submit').click();

    const dns = page.getByTestId('dns-instructions');
    await dns.waitFor();
    expect(await dns.getByTestId('dns-domain').count()).toBe(3);
    const text = await dns.innerText();
    expect(text).toContain('go.acme-shop.com');
    expect(text).toContain(TARGET);
    expect(text).toContain('_switchboard.go.acme-shop.com');
    expect(text).toMatch(/switchboard-verify=[0-9a-f]{32}/);
    await shot(page, '02-dns-instructions');
    await page.getByTestId('dns-instructions-close').click();
    await page.getByTestId('domain-row').first().waitFor();
    expect(await page.getByTestId('domain-row').count()).toBe(3);
    // no records yet: not configured
    expect(await page.getByTestId('domain-state-0').count()).toBe(3);
  }, 60000);

  it('lists duplicates in the confirm popup and adds the others', async () => {
    await page.getByTestId('add-domains').click();
    const input = page.getByTestId('add-domains-input');
    await input.fill('go.acme-shop.com promo.acme-shop.com ');
    await page.getByTestId('add-domains-submit').click();
    const popup = page.getByTestId('duplicate-domains');
    await popup.waitFor();
    expect(await popup.getByTestId('duplicate-domains-list').innerText()).toBe('go.acme-shop.com');
    await shot(page, '03-duplicates-confirm');
    await popup.getByTestId('confirm-ok').click();
    const dns = page.getByTestId('dns-instructions');
    await dns.waitFor();
    expect(await dns.getByTestId('dns-domain').count()).toBe(1);
    expect(await dns.innerText()).toContain('promo.acme-shop.com');
    await page.getByTestId('dns-instructions-close').click();
    await page.getByTestId('domain-row').filter({ hasText: 'promo.acme-shop.com' }).waitFor();
    expect(await page.getByTestId('domain-row').count()).toBe(4);
  }, 60000);

  it('turns a domain configured once its DNS records exist', async () => {
    const list = await api<{ items: Array<{ id: number; name: string; dns: Array<{ type: string; host: string; value: string }> }> }>('GET', '/domains?itemsPerPage=100');
    const go = list.body.items.find((d) => d.name === 'go.acme-shop.com');
    if (!go) throw new Error('go.acme-shop.com missing');
    const txt = go.dns.find((r) => r.type === 'TXT');
    zone.set('go.acme-shop.com', { cname: TARGET });
    zone.set(txt?.host ?? '', { txt: [txt?.value ?? ''] });
    const row = page.getByTestId('domain-row').filter({ hasText: 'go.acme-shop.com' });
    await row.getByTestId('domain-check').click();
    await row.getByTestId('domain-state-1').waitFor({ timeout: 15000 });
    await page.getByTestId('dashboard-configured').getByText('1').waitFor();
    await shot(page, '04-domain-configured');
  }, 60000);

  it('moves a domain in the open table when its state changes elsewhere (the realtime domains topic)', async () => {
    await page.locator('[data-testid="domains-page"][data-live="true"]').waitFor({ timeout: 15000 });
    const list = await api<{ items: Array<{ id: number; name: string; dns: Array<{ type: string; host: string; value: string }> }> }>('GET', '/domains?itemsPerPage=100');
    const links = list.body.items.find((d) => d.name === 'links.acme-shop.com');
    if (!links) throw new Error('links.acme-shop.com missing');
    const txt = links.dns.find((r) => r.type === 'TXT');
    zone.set('links.acme-shop.com', { cname: TARGET });
    zone.set(txt?.host ?? '', { txt: [txt?.value ?? ''] });
    // verified by a call outside this page (as the DNS scheduler or another user would): no domain is pending, so the
    // table does not poll; only the live frame can move the row
    expect((await api<{ state: number }>('POST', `/domains/${links.id}/check`)).body.state).toBe(1);
    await page.getByTestId('domain-row').filter({ hasText: 'links.acme-shop.com' }).getByTestId('domain-state-1').waitFor({ timeout: 15000 });
    await page.getByTestId('dashboard-configured').getByText('2').waitFor();
  }, 60000);

  it('builds a pool from chosen domains and reads it in pool info', async () => {
    for (const name of ['go.acme-shop.com', 'click.acme-shop.com']) await page.getByTestId('domain-row').filter({ hasText: name }).getByTestId('domain-select').click();
    await page.getByTestId('add-to-pool').click();
    const dialog = page.getByTestId('add-to-pool-dialog');
    await dialog.waitFor();
    // no pool yet: "existing" is disabled and "new pool" is chosen
    await dialog.getByTestId('new-pool-name').fill('Spring sale');
    await dialog.getByTestId('new-pool-description').fill('Domains for the spring campaigns');
    await shot(page, '05-add-to-pool');
    await page.getByTestId('add-to-pool-submit').click();
    await dialog.waitFor({ state: 'hidden' });

    await page.getByTestId('menu-domain-pools').click();
    await page.getByTestId('pools-page').waitFor();
    const row = page.getByTestId('pool-row').filter({ hasText: 'Spring sale' });
    await row.waitFor();
    expect(await row.getByTestId('pool-row-domains').innerText()).toBe('1 / 2');
    await row.getByTestId('pool-info-open').click();
    const info = page.getByTestId('pool-info');
    await info.getByTestId('pool-info-domain').first().waitFor();
    expect(await info.getByTestId('pool-info-domain').allInnerTexts()).toEqual([expect.stringContaining('go.acme-shop.com'), expect.stringContaining('click.acme-shop.com')]);
    await shot(page, '06-pool-info');
    await page.keyboard.press('Escape');
    const pools = await api<{ items: Array<{ name: string; distribution: number; domains: Array<{ name: string }> }> }>('GET', '/domain_pools');
    expect(pools.body.items).toEqual([expect.objectContaining({ name: 'Spring sale', distribution: 10, domains: [expect.objectContaining({ name: 'go.acme-shop.com' }), expect.objectContaining({ name: 'click.acme-shop.com' })] })]);
  }, 60000);

  it('creates an offer with recipient variables and shows its state', async () => {
    await page.getByTestId('menu-offers').click();
    await page.getByTestId('offers-page').waitFor();
    await page.getByTestId('new-offer').click();
    await page.getByTestId('offer-name').fill('Spring landing');
    await page.getByTestId('offer-url').fill('https://{host}/spring');
    await page.getByTestId('offer-days').fill('30');
    await page.getByTestId('offer-save').click();
    // a variable in the host is refused with the server's reason on the field
    await page.getByText('variables may not stand in the scheme or host').waitFor();
    // the message texts' {{firstName}} is taken, stored as {firstName} (walkthrough 6)
    await page.getByTestId('offer-url').fill('https://acme-shop.com/spring?name={{firstName}}');
    await page.getByTestId('offer-save').click();
    const row = page.getByTestId('offer-row').filter({ hasText: 'Spring landing' });
    await row.getByTestId('offer-state-active').waitFor();
    expect(await row.innerText()).toContain('https://acme-shop.com/spring?name={firstName}');
    // dates as the other tables write them, 28 Nov 2026, 14:05 (walkthrough 12)
    expect(await row.getByTestId('offer-row-created').innerText()).toMatch(/^\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2}$/);
    await shot(page, '07-offers');
  }, 60000);

  it('adds a domain from the campaign wizard (campaigns/add/domain) into a new pool, shows its DNS records, and saves the pool and offer as the short link\'s params', async () => {
    // what a campaign needs besides its links: an approved sender's stream and a list
    const sender = await api<{ id: number }>('POST', '/senders', { name: 'Acme', value: 'ACMESHOP' });
    expect(sender.status).toBe(201);
    expect((await api('PUT', `/senders/superadmin/${sender.body.id}`, { approved: 1 })).status).toBe(200);
    const stream = await api<{ id: number }>('POST', '/streams', { name: 'Spring links', streamType: 1, sender: 'ACMESHOP' });
    expect(stream.status).toBe(201);
    expect((await api('POST', '/contact_lists', { name: 'Wizard recipients' })).status).toBe(201);
    const offers = await api<{ items: Array<{ id: number; name: string }> }>('GET', '/offers/dropdown');
    const offer = offers.body.items.find((o) => o.name === 'Spring landing');
    if (!offer) throw new Error('the offer is missing');

    await page.getByTestId('menu-campaigns').click();
    await page.getByTestId('campaigns-page').waitFor();
    await page.getByTestId('new-campaign').click();
    await page.getByTestId('campaign-wizard').waitFor();
    await page.getByTestId('campaign-name-input').fill('Spring links wizard');
    await page.getByTestId('campaign-stream').click();
    await page.getByTestId(`stream-option-${stream.body.id}`).click();
    await page.getByRole('listbox').waitFor({ state: 'detached' });
    await page.getByTestId('wizard-next').click();
    await page.getByTestId('wizard-step-audience').waitFor();
    await page.getByTestId('campaign-lists').click();
    await page.getByTestId('list-option').filter({ hasText: 'Wizard recipients' }).click();
    await page.getByTestId('wizard-next').click();

    // a text with a short link: the links panel asks where they go; nothing chosen blocks the step
    await page.getByTestId('wizard-step-message').waitFor();
    await page.getByTestId('variant-text').first().fill('Spring sale: {{shorturl}}');
    const links = page.getByTestId('campaign-link-shorturl');
    await links.waitFor();
    await page.getByTestId('wizard-next').click();
    expect(await links.locator('.Mui-error').count()).toBeGreaterThan(0);
    await page.getByTestId('wizard-step-message').waitFor();

    // add domain from the wizard: an existing name among them is listed in the duplicates popup, the other is added
    await links.getByTestId('link-add-domain').click();
    const dialog = page.getByTestId('campaign-add-domain-dialog');
    await dialog.waitFor();
    await dialog.getByTestId('campaign-add-domain-input').fill('go.acme-shop.com spring.acme-shop.com ');
    // the pool part is required: a new pool without its name and description is refused before anything is sent
    await dialog.getByTestId('campaign-add-domain-new').click();
    await page.getByTestId('campaign-add-domain-submit').click();
    await dialog.locator('.Mui-error').first().waitFor();
    await dialog.getByTestId('campaign-add-domain-pool-name').fill('Wizard pool');
    await dialog.getByTestId('campaign-add-domain-pool-description').fill('Added from the campaign wizard');
    await shot(page, '08-wizard-add-domain');
    const sent = page.waitForRequest((r) => r.url().endsWith('/api/campaigns/add/domain') && r.method() === 'POST');
    await page.getByTestId('campaign-add-domain-submit').click();
    expect((await sent).postDataJSON()).toEqual({ domains: ['go.acme-shop.com', 'spring.acme-shop.com'], skipDuplicates: false, newPool: { name: 'Wizard pool', description: 'Added from the campaign wizard' } });
    const popup = page.getByTestId('duplicate-domains');
    await popup.waitFor();
    expect(await popup.getByTestId('duplicate-domains-list').innerText()).toBe('go.acme-shop.com');
    await popup.getByTestId('confirm-ok').click();
    // then the DNS instructions of the new domain
    const dns = page.getByTestId('dns-instructions');
    await dns.waitFor();
    expect(await dns.getByTestId('dns-domain').count()).toBe(1);
    expect(await dns.innerText()).toContain('spring.acme-shop.com');
    expect(await dns.innerText()).toContain(TARGET);
    await shot(page, '09-wizard-dns');
    await page.getByTestId('dns-instructions-close').click();

    // the new pool is where the links go; the offer and the expiry complete the link
    const pools = await api<{ items: Array<{ id: number; name: string; domains: Array<{ name: string }> }> }>('GET', '/domain_pools');
    const pool = pools.body.items.find((p) => p.name === 'Wizard pool');
    expect(pool?.domains.map((d) => d.name)).toEqual(['spring.acme-shop.com']);
    // the select shows its value once the dropdown's list has come back: wait for it rather than read it once
    await links.getByTestId('link-pool').filter({ hasText: /^Wizard pool$/ }).waitFor();
    await links.getByTestId('link-offer').click();
    await page.getByTestId(`link-offer-option-${offer.id}`).click();
    await page.getByRole('listbox').waitFor({ state: 'detached' });
    // or an offer added here, without leaving the wizard: it becomes the short link's offer (walkthrough 5)
    await links.getByTestId('link-add-offer').click();
    await page.getByTestId('offer-dialog').waitFor();
    await page.getByTestId('offer-name').fill('Wizard offer');
    await page.getByTestId('offer-url').fill('https://acme-shop.com/wizard?n={{firstName}}');
    await page.getByTestId('offer-days').fill('30');
    await page.getByTestId('offer-save').click();
    await page.getByTestId('offer-dialog').waitFor({ state: 'hidden' });
    await links.getByTestId('link-offer').filter({ hasText: 'Wizard offer' }).waitFor();
    const added = (await api<{ items: Array<{ id: number; name: string }> }>('GET', '/offers/dropdown')).body.items.find((o) => o.name === 'Wizard offer');
    if (!added) throw new Error('the offer added in the wizard is missing');
    await links.getByTestId('link-expired').fill('14');
    await shot(page, '10-wizard-links');
    for (const step of ['senders', 'schedule', 'settings']) {
      await page.getByTestId('wizard-next').click();
      await page.getByTestId(`wizard-step-${step}`).waitFor();
    }
    await page.getByTestId('wizard-save-draft').click();
    await page.getByTestId('campaign-wizard').waitFor({ state: 'hidden' });

    const campaigns = await api<{ items: Array<{ id: number; name: string }> }>('GET', '/campaigns?itemsPerPage=100');
    const campaign = campaigns.body.items.find((c) => c.name === 'Spring links wizard');
    if (!campaign) throw new Error('the campaign was not created');
    const vars = await api<{ items: Array<{ variableName: string; params: Record<string, unknown> }> }>('GET', `/campaigns/${campaign.id}/variables`);
    expect(vars.body.items.find((x) => x.variableName === 'shorturl')?.params).toEqual({ domains: [], domain_pool: pool?.id, offer: added.id, expired: 14 });
  }, 90000);

  it('reads in Russian: state chips, the pool and offer screens', async () => {
    await page.getByTestId('language-switcher').click();
    await page.getByRole('menuitem', { name: 'Русский' }).click();
    await page.getByTestId('menu-domains').click();
    await page.getByTestId('page-title').getByText('Домены').waitFor();
    await page.getByTestId('domain-row').filter({ hasText: 'go.acme-shop.com' }).getByText('Настроен').waitFor();
    await shot(page, '08-domains-ru');
    await page.getByTestId('menu-offers').click();
    await page.getByTestId('offer-row').filter({ hasText: 'Spring landing' }).getByText('Активен').waitFor();
    await page.getByTestId('language-switcher').click();
    await page.getByRole('menuitem', { name: 'English' }).click();
    expect(errors).toEqual([]);
  }, 60000);

  it('shows the 404 page for an API resource name typed as a page, /contact_lists (walkthrough 9)', async () => {
    for (const route of ['/contact_lists', '/contact_lists/7', '/import_lists', '/no-such-page']) {
      await page.goto(`${base}${route}`);
      await page.getByTestId('not-found').waitFor({ timeout: 15000 });
    }
    expect(errors).toEqual([]);
  }, 60000);
});
