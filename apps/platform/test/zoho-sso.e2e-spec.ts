import type { BrowserContext, Page } from 'playwright-core';
import { apiClient, type ApiCall } from '@switchboard/platform/testing';
import { ADMIN_EMAIL, ADMIN_PASSWORD, signInWithPin, startConsole, type ConsoleSession } from './browser';
import { json } from './server-process';
import { LocalZoho } from './zoho-server';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers read field by field

/**
 * The /zoho-sso popup in Chromium against the real embedded server and a local Zoho (spec 2, spec 4 "SSO popup":
 * login, pending "Pending for access approval ...", then the tokens delivered by complete-sso, or "Error occurred").
 */
describe('Zoho Inbox sign-on popup (Chromium, embedded server)', () => {
  let c: ConsoleSession;
  let base: string;
  let call: ApiCall;
  let zoho: LocalZoho;
  const contexts: BrowserContext[] = [];

  async function api<T = Json>(method: string, p: string, body?: unknown, token?: string): Promise<T> {
    const res = await call<T>(method, p, { body, token });
    if (res.status >= 300) throw new Error(`${method} ${p} answered ${res.status}: ${res.text.slice(0, 300)}`);
    return res.body;
  }
  async function mail(to: string, re: RegExp): Promise<string> {
    for (let i = 0; i < 150; i++) {
      const box = await json<Array<{ to: string; text: string }>>(await fetch(`${base}/api/dev/mailbox?limit=200`));
      const hit = box.find((m) => m.to === to && re.test(m.text));
      if (hit) return hit.text;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no mail to ${to} matching ${re}`);
  }
  async function adminToken(): Promise<string> {
    await api('POST', '/login_check', { username: ADMIN_EMAIL, password: ADMIN_PASSWORD, gCaptchaToken: 'x' });
    const pin = /\b(\d{6})\b/.exec(await mail(ADMIN_EMAIL, /\b\d{6}\b/))?.[1];
    const pair = await api<{ token: string }>('POST', '/login/manual', { username: ADMIN_EMAIL, password: ADMIN_PASSWORD, pin, gCaptchaToken: 'x' });
    return (await api<{ token: string }>('PUT', '/users/connected_update', { customer: 1 }, pair.token)).token;
  }
  async function newPage(locale: 'en' | 'ru'): Promise<Page> {
    const context = await c.browser.newContext({ viewport: { width: 1280, height: 820 } });
    await context.addInitScript(`window.localStorage.setItem('switchboard.locale', '${locale}')`);
    contexts.push(context);
    return c.watch(await context.newPage());
  }
  const shot = async (page: Page, name: string) => {
    await page.waitForTimeout(300);
    await c.shot(name, page);
  };
  /** Clicks the page's button and lets the popup run its course: Zoho, the callback, /complete-sso, closed. */
  async function throughPopup(page: Page, button: string): Promise<void> {
    const [popup] = await Promise.all([page.waitForEvent('popup'), page.getByTestId(button).click()]);
    // the popup waits for the opener's socket before it goes to Zoho: slow on a loaded CI runner
    await popup.waitForEvent('close', { timeout: 60000 });
  }

  beforeAll(async () => {
    zoho = await new LocalZoho().start();
    c = await startConsole('zoho-sso', { env: { ZOHO_CLIENT_ID: zoho.clientId, ZOHO_CLIENT_SECRET: zoho.clientSecret, ZOHO_ACCOUNTS_URL: zoho.url } });
    base = c.base;
    call = apiClient(base);
    // an inbox agent of the demo account, whose Zoho address is the same
    await addAgent('agent@example.com', 'Alex', 'Agent');
  }, 180000);

  /** An inbox agent of the demo account, invited and registered. */
  async function addAgent(email: string, firstname: string, lastname: string): Promise<void> {
    const token = await adminToken();
    const roles = await api<{ items: Array<{ id: number; name: string }> }>('GET', '/user_roles?itemsPerPage=500', undefined, token);
    const agentRole = roles.items.find((r) => r.name === 'Inbox Agent')?.id;
    await api('POST', '/user_invites', { email, firstname, lastname, user_roles_ids: [agentRole] }, token);
    const [, customerID, inviteID, inviteToken] = /\/team-member-invite\/(\d+)\/(\d+)\/(\S+)/.exec(await mail(email, /team-member-invite/)) ?? [];
    await api('POST', '/user_invites/register', { customerID, inviteID, inviteToken, password: 'agent password 1', confirmPassword: 'agent password 1', firstname, lastname });
  }

  afterAll(async () => {
    for (const x of contexts) await x.close().catch(() => undefined);
    await c?.stop();
    await zoho?.close();
  });

  it('login, pending until an admin approves, then the tokens by complete-sso open the inbox (en)', async () => {
    zoho.signInAs({ sub: '675925609', email: 'agent@example.com', email_verified: true, name: 'Alex Agent' });
    const page = await newPage('en');
    await page.goto(`${base}/zoho-sso`);
    await page.getByTestId('zoho-sso-login').waitFor();
    await expect(page.getByTestId('zoho-sso-start').textContent()).resolves.toBe('Log in with Zoho');
    await shot(page, '01-login-en');

    await throughPopup(page, 'zoho-sso-start');
    await page.getByTestId('zoho-sso-pending').waitFor({ timeout: 20000 });
    await expect(page.getByTestId('zoho-sso-pending').textContent()).resolves.toContain('Pending for access approval ...');
    await shot(page, '02-pending-en');

    const token = await adminToken();
    const [request] = (await api<Json[]>('GET', '/sso/access_requests', undefined, token)).filter((r) => r.email === 'agent@example.com');
    await api('POST', `/sso/access_requests/${request.id}/approve`, undefined, token);

    await throughPopup(page, 'zoho-sso-retry');
    await page.waitForURL('**/inbox', { timeout: 20000 });
    const stored = await page.evaluate<string | null>("window.localStorage.getItem('switchboard.token') ?? window.sessionStorage.getItem('switchboard.token')");
    const claims = JSON.parse(Buffer.from(String(stored).split('.')[1], 'base64url').toString('utf8')) as Json;
    expect(claims).toMatchObject({ email: 'agent@example.com', acc: '1', sa: false });
    await page.waitForTimeout(500);
    await shot(page, '03-inbox-after-sso-en');
    // signed in already: /zoho-sso goes straight through /inbox-login to the inbox
    await page.goto(`${base}/zoho-sso`);
    await page.waitForURL('**/inbox', { timeout: 20000 });
  }, 120000);

  it('a refused consent shows "Error occurred"; the Russian texts (ru)', async () => {
    const page = await newPage('ru');
    await page.goto(`${base}/zoho-sso`);
    await page.getByTestId('zoho-sso-login').waitFor();
    await expect(page.getByTestId('zoho-sso-start').textContent()).resolves.toBe('Войти через Zoho');
    zoho.refuseNext();
    await throughPopup(page, 'zoho-sso-start');
    await page.getByTestId('zoho-sso-error').waitFor({ timeout: 20000 });
    await expect(page.getByTestId('zoho-sso-error').textContent()).resolves.toContain('Произошла ошибка');
    await expect(page.getByTestId('zoho-sso-error-detail').textContent()).resolves.toBe('access to Zoho was not granted');
    await shot(page, '04-error-ru');

    zoho.signInAs({ sub: '675925999', email: 'stranger@example.com', email_verified: true, name: 'A Stranger' });
    await throughPopup(page, 'zoho-sso-retry');
    await page.getByTestId('zoho-sso-pending').waitFor({ timeout: 20000 });
    await expect(page.getByTestId('zoho-sso-pending').textContent()).resolves.toContain('Ожидает одобрения доступа ...');
    await shot(page, '05-pending-ru');
    expect(c.errors).toEqual([]);
  }, 120000);

  it('lists the access requests in the console, where an admin approves one, denies another and revokes an approval', async () => {
    // two more agents ask for access through the popup: pending
    const asking: Record<string, Page> = {};
    for (const [sub, email, first] of [['675925701', 'sam@example.com', 'Sam'], ['675925702', 'kim@example.com', 'Kim']] as const) {
      await addAgent(email, first, 'Agent');
      zoho.signInAs({ sub, email, email_verified: true, name: `${first} Agent` });
      const p = await newPage('en');
      await p.goto(`${base}/zoho-sso`, { timeout: 60000 });
      await throughPopup(p, 'zoho-sso-start');
      await p.getByTestId('zoho-sso-pending').waitFor({ timeout: 20000 });
      asking[email] = p;
    }

    const admin = await newPage('en');
    await signInWithPin(admin, base, ADMIN_EMAIL, ADMIN_PASSWORD, 'a***@example.com');
    await admin.waitForURL('**/home', { timeout: 20000 });
    await admin.getByTestId('menu-zoho-access').click();
    await admin.waitForURL('**/zoho-access-requests');
    await expect(admin.getByTestId('page-title').textContent()).resolves.toBe('Zoho Inbox access');
    const row = (email: string) => admin.locator(`[data-testid="access-request"][data-email="${email}"]`);
    await row('sam@example.com').waitFor({ timeout: 15000 });
    // pending first (an earlier approved request, if any, after them); a stranger (no member) is not listed
    const listed = await admin.getByTestId('access-request').evaluateAll((rows) => rows.map((r) => `${r.getAttribute('data-email')}:${r.getAttribute('data-status')}`));
    expect(listed.slice(0, 2).sort()).toEqual(['kim@example.com:pending', 'sam@example.com:pending']);
    await expect(admin.locator('[data-testid="access-request"][data-email="stranger@example.com"]').count()).resolves.toBe(0);
    await shot(admin, '06-access-requests-en');

    await row('sam@example.com').getByTestId('access-approve').click();
    await admin.locator('[data-testid="access-request"][data-email="sam@example.com"][data-status="approved"]').waitFor({ timeout: 15000 });
    await expect(admin.getByTestId('access-notice').textContent()).resolves.toContain('Access approved for sam@example.com');
    await row('kim@example.com').getByTestId('access-deny').click();
    await admin.getByTestId('access-deny-confirm').click();
    // a denied request leaves the list (the API lists pending and approved ones)
    await row('kim@example.com').waitFor({ state: 'detached', timeout: 15000 });
    await expect(admin.getByTestId('access-notice').textContent()).resolves.toContain('Access denied for kim@example.com');
    await shot(admin, '07-access-decided-en');

    // what the server kept
    const decided = await api<Json[]>('GET', '/sso/access_requests', undefined, await adminToken());
    expect(decided.filter((r) => ['sam@example.com', 'kim@example.com'].includes(r.email)).map((r) => `${r.email}:${r.status}`)).toEqual(['sam@example.com:approved']);
    // the denied user's popup now answers an error
    zoho.signInAs({ sub: '675925702', email: 'kim@example.com', email_verified: true, name: 'Kim Agent' });
    await throughPopup(asking['kim@example.com'], 'zoho-sso-retry');
    await asking['kim@example.com'].getByTestId('zoho-sso-error').waitFor({ timeout: 20000 });
    for (const p of Object.values(asking)) await p.context().close();

    // an approval revoked: gone from the list, and from the server
    await row('sam@example.com').getByTestId('access-revoke').click();
    await admin.getByTestId('access-deny-confirm').click();
    await row('sam@example.com').waitFor({ state: 'detached', timeout: 15000 });
    await expect(admin.getByTestId('access-notice').textContent()).resolves.toContain('Access denied for sam@example.com');
    expect((await api<Json[]>('GET', '/sso/access_requests', undefined, await adminToken())).map((r) => r.email)).not.toContain('sam@example.com');
    expect(c.errors).toEqual([]);
  }, 300000);

  it('/complete-sso says "Log in ..." and closes its window', async () => {
    const page = await newPage('en');
    await page.goto(`${base}/zoho-sso`);
    // the popup closes itself 100 ms after it renders, too soon to be read from outside on a loaded machine: its
    // window.close is wrapped to note what the page shows when it asks to close, and to close a second later
    await page.context().addInitScript(
      `{ const close = window.close.bind(window); window.close = () => { document.title = 'closing:' + (document.querySelector('[data-testid=complete-sso]')?.textContent ?? ''); setTimeout(close, 1000); }; }`,
    );
    const [popup] = await Promise.all([page.waitForEvent('popup'), page.evaluate(`void window.open(${JSON.stringify(`${base}/complete-sso`)}, 'done', 'popup')`)]);
    const closed = popup.waitForEvent('close', { timeout: 15000 });
    await popup.waitForFunction(`document.title.startsWith('closing:')`, undefined, { timeout: 15000 });
    const said = await popup.title();
    await closed;
    expect(popup.isClosed()).toBe(true);
    // the page said "Log in ..." when it closed itself
    expect(said).toBe('closing:Log in ...');
  }, 60000);
});
