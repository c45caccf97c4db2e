import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from './browser';
import { buildServer, json, repoRoot, startProcess, type ServerProcess } from './server-process';
import { LocalZoho } from './zoho-server';

const SHOTS = path.join(repoRoot, 'test-results', 'zoho-sso');
const ADMIN_EMAIL = 'admin@example.com';
const ADMIN_PASSWORD = 'browser password';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers read field by field

/**
 * The /zoho-sso popup in Chromium against the real embedded server and a local Zoho (spec 2, spec 4 "SSO popup":
 * login, pending "Pending for access approval ...", then the tokens delivered by complete-sso, or "Error occurred").
 */
describe('Zoho Inbox sign-on popup (Chromium, embedded server)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-zoho-sso-'));
  fs.chmodSync(dataDir, 0o755);
  let server: ServerProcess;
  let base: string;
  let browser: Browser;
  let zoho: LocalZoho;
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];

  async function api<T = Json>(method: string, p: string, body?: unknown, token?: string): Promise<T> {
    const res = await fetch(`${base}/api${p}`, { method, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${p} answered ${res.status}: ${text.slice(0, 300)}`);
    return (text ? JSON.parse(text) : null) as T;
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
    const context = await browser.newContext({ viewport: { width: 1280, height: 820 } });
    await context.addInitScript(`window.localStorage.setItem('switchboard.locale', '${locale}')`);
    contexts.push(context);
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    return page;
  }
  const shot = async (page: Page, name: string) => {
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
  };
  /** Clicks the page's button and lets the popup run its course: Zoho, the callback, /complete-sso, closed. */
  async function throughPopup(page: Page, button: string): Promise<void> {
    const [popup] = await Promise.all([page.waitForEvent('popup'), page.getByTestId(button).click()]);
    await popup.waitForEvent('close', { timeout: 20000 });
  }

  beforeAll(async () => {
    if (!fs.existsSync(path.join(repoRoot, 'apps/admin/dist/index.html'))) throw new Error('build the admin first: node scripts/build.mjs');
    buildServer();
    fs.mkdirSync(SHOTS, { recursive: true });
    zoho = await new LocalZoho().start();
    server = startProcess('dist/apps/platform/src/main.js', {
      PORT: '0',
      SWITCHBOARD_DATA_DIR: dataDir,
      SWITCHBOARD_ADMIN_EMAIL: ADMIN_EMAIL,
      SWITCHBOARD_ADMIN_PASSWORD: ADMIN_PASSWORD,
      SWITCHBOARD_DEMO_ACCOUNT: 'Acme Messaging',
      ZOHO_CLIENT_ID: zoho.clientId,
      ZOHO_CLIENT_SECRET: zoho.clientSecret,
      ZOHO_ACCOUNTS_URL: zoho.url,
    });
    base = (await server.waitFor(/Admin console : (http:\/\/[\d.:]+)\//, 120000))[1];
    browser = await launchChromium();
    // an inbox agent of the demo account, whose Zoho address is the same
    const token = await adminToken();
    const roles = await api<{ items: Array<{ id: number; name: string }> }>('GET', '/user_roles?itemsPerPage=500', undefined, token);
    const agentRole = roles.items.find((r) => r.name === 'Inbox Agent')?.id;
    await api('POST', '/user_invites', { email: 'agent@example.com', firstname: 'Alex', lastname: 'Agent', user_roles_ids: [agentRole] }, token);
    const [, customerID, inviteID, inviteToken] = /\/team-member-invite\/(\d+)\/(\d+)\/(\S+)/.exec(await mail('agent@example.com', /team-member-invite/)) ?? [];
    await api('POST', '/user_invites/register', { customerID, inviteID, inviteToken, password: 'agent password 1', confirmPassword: 'agent password 1', firstname: 'Alex', lastname: 'Agent' });
  }, 180000);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await server?.stop();
    await zoho?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
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
    const stored = await page.evaluate(() => window.localStorage.getItem('switchboard.token') ?? window.sessionStorage.getItem('switchboard.token'));
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
    expect(pageErrors).toEqual([]);
  }, 120000);

  it('/complete-sso says "Log in ..." and closes its window', async () => {
    const page = await newPage('en');
    await page.goto(`${base}/zoho-sso`);
    const [popup] = await Promise.all([page.waitForEvent('popup'), page.evaluate((u) => void window.open(u, 'done', 'popup'), `${base}/complete-sso`)]);
    const closed = popup.waitForEvent('close', { timeout: 15000 });
    const text = popup.getByTestId('complete-sso').textContent().catch(() => null);
    await closed;
    expect(popup.isClosed()).toBe(true);
    // the page said "Log in ..." before closing
    await expect(text).resolves.toBe('Log in ...');
  }, 60000);
});
