/**
 * Browser test of the admin console's login: real Chromium (playwright-core) against the built app (apps/admin/dist)
 * served by a small fake of the /api calls it makes. The fake stands in until the real backend is there; it answers
 * exactly the contracts of the spec (login_check, login/manual, token_refresh, users/connected, connected_update).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

const ADMIN = path.resolve(__dirname, '..');
const DIST = path.join(ADMIN, 'dist');
const REPO = path.resolve(ADMIN, '..', '..');
const SHOTS = path.join(REPO, 'test-results', 'admin');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

const PASSWORD = 'correct horse';
const PIN = '123456';

// ---------------------------------------------------------------------------------------------------------------
// the fake backend

type Status = 'active' | 'restrict' | 'disable' | 'delete';
interface Account {
  id: number;
  name: string;
  shortName: string;
  status: Status;
  currency: string;
}
interface User {
  id: number;
  email: string;
  firstName: string;
  lastName: string;
  roles: string[];
  accounts: Account[];
}

const ACME: Account = { id: 1, name: 'Acme Trading', shortName: 'acme', status: 'active', currency: 'EUR' };
const GLOBEX: Account = { id: 2, name: 'Globex Logistics', shortName: 'globex', status: 'active', currency: 'USD' };
const INITECH: Account = { id: 3, name: 'Initech Retail', shortName: 'initech', status: 'restrict', currency: 'EUR' };
const UMBRELLA: Account = { id: 4, name: 'Umbrella Health', shortName: 'umbrella', status: 'disable', currency: 'USD' };

const USERS: User[] = [
  { id: 10, email: 'john@example.com', firstName: 'John', lastName: 'Smith', roles: ['ROLE_USER'], accounts: [ACME, GLOBEX] },
  { id: 11, email: 'maria@example.com', firstName: 'Maria', lastName: 'Garcia', roles: ['ROLE_USER'], accounts: [ACME, GLOBEX, INITECH, UMBRELLA] },
  { id: 12, email: 'solo@example.com', firstName: 'Sam', lastName: 'Solo', roles: ['ROLE_USER'], accounts: [ACME] },
];

interface Session {
  userId: number;
  accountId: number;
}

interface Fake {
  url: string;
  /** Every /api call, for assertions on what the page sent. */
  calls: { method: string; path: string; body: unknown; auth?: string }[];
  /** Lifetime of issued access tokens, in seconds. */
  tokenTtl: number;
  /** Seconds before the PIN step may ask for a new code. */
  resendAfter: number;
  refreshFails: boolean;
  close: () => Promise<void>;
}

const b64url = (s: string) => Buffer.from(s).toString('base64url');

function startFake(): Promise<Fake> {
  const sessions = new Map<string, Session>();
  const refreshTokens = new Map<string, Session>();
  let serial = 0;

  const issue = (session: Session) => {
    serial++;
    const exp = Math.floor(Date.now() / 1000) + fake.tokenTtl;
    const token = `${b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${b64url(JSON.stringify({ sub: session.userId, acc: session.accountId, exp, n: serial }))}.sig`;
    const refresh = `refresh-${serial}`;
    sessions.set(token, session);
    refreshTokens.set(refresh, session);
    return { token, refresh_token: refresh };
  };

  const profileOf = (s: Session) => {
    const user = USERS.find((u) => u.id === s.userId)!;
    const current = user.accounts.find((a) => a.id === s.accountId) ?? null;
    return {
      id: user.id,
      email: user.email,
      firstName: user.firstName,
      lastName: user.lastName,
      timezone: 'Europe/Paris',
      preferences: '{}',
      roles: user.roles,
      userPermissions: ['CAMPAIGN_VIEW', 'STREAM_VIEW'],
      customer: current,
      customers: user.accounts.map(({ id, name, shortName, status }) => ({ id, name, shortName, status })),
    };
  };

  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const unauthorized = (res: http.ServerResponse) => send(res, 401, { code: 401, message: 'JWT Token not found', status: 401 });

  const api = (req: http.IncomingMessage, res: http.ServerResponse, route: string, body: Record<string, unknown>) => {
    const bearer = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    const session = sessions.get(bearer);
    const expired = (() => {
      const payload = bearer.split('.')[1];
      if (!payload) return true;
      return (JSON.parse(Buffer.from(payload, 'base64url').toString()) as { exp: number }).exp * 1000 < Date.now();
    })();

    if (req.method === 'POST' && route === '/login_check') {
      if (body.username === 'throttled@example.com') {
        return send(res, 429, { code: 'TOO_MANY_REQUESTS', message: 'Too many attempts, try again in a minute', status: 429 });
      }
      const user = USERS.find((u) => u.email === body.username);
      if (!user || body.password !== PASSWORD) return send(res, 401, { code: 1801, message: 'Invalid credentials', status: 401 });
      return send(res, 200, { maskedEmail: `${user.email[0]}***@example.com`, pinLength: 6, resendAfter: fake.resendAfter });
    }
    if (req.method === 'POST' && route === '/login/manual') {
      const user = USERS.find((u) => u.email === body.username);
      if (!user || body.password !== PASSWORD || body.pin !== PIN) {
        return send(res, 401, { code: 1801, message: 'Invalid credentials', status: 401 });
      }
      return send(res, 200, issue({ userId: user.id, accountId: user.accounts[0].id }));
    }
    if (req.method === 'POST' && route === '/token_refresh') {
      const s = refreshTokens.get(String(body.refresh_token));
      if (!s || fake.refreshFails) return send(res, 401, { code: 401, message: 'Invalid refresh token', status: 401 });
      refreshTokens.delete(String(body.refresh_token));
      return send(res, 200, issue(s));
    }
    if (!session || expired) return unauthorized(res);
    if (req.method === 'POST' && route === '/logout') {
      res.writeHead(204);
      return res.end();
    }
    if (req.method === 'GET' && route === '/users/connected') return send(res, 200, profileOf(session));
    if (req.method === 'PUT' && route === '/users/connected_update') {
      const user = USERS.find((u) => u.id === session.userId)!;
      const account = user.accounts.find((a) => a.id === Number(body.customer));
      if (!account) return send(res, 403, { code: 'ACCESS_DENIED', message: 'No access to this account', status: 403 });
      const next = { userId: user.id, accountId: account.id };
      return send(res, 200, { ...profileOf(next), ...issue(next) });
    }
    return send(res, 404, { code: 'NOT_FOUND', message: `No route ${req.method} ${route}`, status: 404 });
  };

  const TYPES: Record<string, string> = {
    '.html': 'text/html; charset=utf-8',
    '.js': 'text/javascript',
    '.css': 'text/css',
    '.svg': 'image/svg+xml',
    '.png': 'image/png',
    '.json': 'application/json',
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname.startsWith('/api/')) {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        let body: Record<string, unknown> = {};
        try {
          body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
        } catch (_e) {
          return send(res, 400, { code: 'BAD_JSON', message: 'Malformed JSON', status: 400 });
        }
        const route = url.pathname.slice('/api'.length);
        fake.calls.push({ method: req.method ?? 'GET', path: route, body, auth: req.headers.authorization });
        api(req, res, route, body);
      });
      return;
    }
    // the SPA: real files, else index.html
    const file = path.join(DIST, path.normalize(url.pathname).replace(/^(\.\.[/\\])+/, ''));
    const target = file.startsWith(DIST) && fs.existsSync(file) && fs.statSync(file).isFile() ? file : path.join(DIST, 'index.html');
    res.writeHead(200, { 'Content-Type': TYPES[path.extname(target)] ?? 'application/octet-stream' });
    fs.createReadStream(target).pipe(res);
  });

  const fake: Fake = {
    url: '',
    calls: [],
    tokenTtl: 3600,
    resendAfter: 30,
    refreshFails: false,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      resolve(fake);
    });
  });
}

// ---------------------------------------------------------------------------------------------------------------
// helpers

function newestMtime(p: string): number {
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(st.mtimeMs, ...fs.readdirSync(p).map((e) => newestMtime(path.join(p, e))));
}

/** Builds the admin when dist is missing or older than its sources, so the test never runs a stale bundle. */
function ensureBuilt(): void {
  const index = path.join(DIST, 'index.html');
  const sources = ['src', 'index.html', 'vite.config.ts', 'public'].map((p) => path.join(ADMIN, p)).filter((p) => fs.existsSync(p));
  if (fs.existsSync(index) && fs.statSync(index).mtimeMs >= Math.max(...sources.map(newestMtime))) return;
  const vite = path.join(REPO, 'node_modules', 'vite', 'bin', 'vite.js');
  const r = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: ADMIN, encoding: 'utf8', timeout: 180_000 });
  if (r.status !== 0) throw new Error(`admin build failed:\n${r.stdout}\n${r.stderr}`);
}

// The browser-side snippets are strings: this file is type-checked with the server's libs, which have no DOM.
const focusedTestId = (page: Page) => page.evaluate<string | null>(`document.activeElement && document.activeElement.getAttribute('data-testid')`);
const storedToken = (page: Page) => page.evaluate<string | null>(`localStorage.getItem('switchboard.token')`);
const pasteIntoFocused = (page: Page, text: string) =>
  page.evaluate(`(() => {
    const data = new DataTransfer();
    data.setData('text/plain', ${JSON.stringify(text)});
    document.activeElement.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  })()`);
const widthOf = async (page: Page, selector: string) => Math.round((await page.locator(selector).first().boundingBox())?.width ?? -1);

/** Waits until the element reads `expected` (content may first be a loading skeleton), then checks it. */
async function expectText(page: Page, testId: string, expected: string): Promise<void> {
  const el = page.getByTestId(testId);
  await el.filter({ hasText: expected }).first().waitFor({ timeout: 10_000 }).catch(() => undefined);
  await expect(el.first().textContent()).resolves.toBe(expected);
}

/** Screenshots for a person to look at; MUI's enter transitions (≤ 300 ms) are let finish first. */
async function shot(page: Page, name: string): Promise<void> {
  await page.waitForTimeout(350);
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true, animations: 'disabled' });
}

async function signIn(page: Page, base: string, email: string, password = PASSWORD): Promise<void> {
  await page.goto(`${base}/login`);
  await page.getByTestId('login-email').fill(email);
  await page.getByTestId('login-password').fill(password);
  await page.getByTestId('login-submit').click();
}

// ---------------------------------------------------------------------------------------------------------------

describe('admin login (browser)', () => {
  let fake: Fake;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    ensureBuilt();
    fs.mkdirSync(SHOTS, { recursive: true });
    fake = await startFake();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await fake?.close();
  });

  beforeEach(async () => {
    fake.calls.length = 0;
    fake.tokenTtl = 3600;
    fake.resendAfter = 30;
    fake.refreshFails = false;
    pageErrors.length = 0;
    context = await browser.newContext({ viewport: { width: 1360, height: 860 }, locale: 'en-US' });
    page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
  });

  afterEach(async () => {
    await context?.close();
    expect(pageErrors).toEqual([]);
  });

  it('shows the login layout, redirects an anonymous visitor to /login, and validates the form', async () => {
    await page.goto(`${fake.url}/home`);
    await page.waitForURL('**/login');
    await page.getByTestId('login-form').waitFor();
    await expect(page.getByTestId('login-promo').isVisible()).resolves.toBe(true);
    await expect(page.getByTestId('login-or').textContent()).resolves.toBe('or');
    await expect(page.getByTestId('login-sso').getAttribute('href')).resolves.toBe('/sso/login');
    await expect(page.getByTestId('forgot-password').getAttribute('href')).resolves.toBe('/forgot-password');
    await expect(page.getByTestId('recaptcha-disclaimer').textContent()).resolves.toContain('reCAPTCHA');
    await expect(page.getByTestId('copyright').textContent()).resolves.toContain('0.2.0');
    await expect(page.title()).resolves.toBe('SMS platform');
    await shot(page, 'login');

    await page.getByTestId('login-submit').click();
    await expect(page.getByText('This field is required').count()).resolves.toBe(2);
    await page.getByTestId('login-email').fill('not-an-email');
    await expect(page.getByText('Enter a valid email address').isVisible()).resolves.toBe(true);
    expect(fake.calls).toEqual([]);

    // spec 2: the promo panel is hidden on narrow screens
    await page.setViewportSize({ width: 700, height: 900 });
    await page.reload();
    await page.getByTestId('login-form').waitFor();
    await expect(page.getByTestId('login-promo').isVisible()).resolves.toBe(false);
    await shot(page, 'login-narrow');
  });

  it('shows the server error banner for a wrong password, and the server message when throttled', async () => {
    await signIn(page, fake.url, 'john@example.com', 'wrong password');
    const banner = page.getByTestId('login-error');
    await banner.waitFor();
    await expect(banner.textContent()).resolves.toContain('Wrong email or password');
    expect(fake.calls[0]).toMatchObject({
      method: 'POST',
      path: '/login_check',
      body: { username: 'john@example.com', password: 'wrong password', gCaptchaToken: 'dev-placeholder' },
    });
    await shot(page, 'login-error');

    await page.getByTestId('login-email').fill('throttled@example.com');
    await page.getByTestId('login-submit').click();
    await page.getByText('Too many attempts, try again in a minute').waitFor();
  });

  it('logs in with the PIN (typed, auto-submitted), picks one of two accounts and lands on /home with its name', async () => {
    await signIn(page, fake.url, 'john@example.com');
    await page.getByTestId('pin-step').waitFor();
    await expect(page.getByTestId('pin-email').textContent()).resolves.toBe('j***@example.com');
    await expect(page.getByTestId('pin-resend').isDisabled()).resolves.toBe(true);
    await expect(page.getByTestId('pin-resend').textContent()).resolves.toMatch(/^Resend in (30|29|28)$/);
    await expect(page.getByTestId('pin-verify').count()).resolves.toBe(0);
    await expect(focusedTestId(page)).resolves.toBe('pin-digit-0');
    await shot(page, 'pin');

    // typing moves forward box by box; the last digit submits without any click
    await page.keyboard.type(PIN, { delay: 30 });
    await page.getByTestId('pin-success').waitFor();
    const manual = fake.calls.find((c) => c.path === '/login/manual');
    expect(manual?.body).toEqual({ username: 'john@example.com', password: PASSWORD, pin: PIN, gCaptchaToken: 'dev-placeholder' });
    await shot(page, 'pin-success');

    await page.waitForURL('**/select-account');
    const cards = page.getByTestId('account-card');
    await cards.first().waitFor();
    await expect(cards.count()).resolves.toBe(2);
    await expect(page.getByTestId('header-version').textContent()).resolves.toContain('0.2.0');
    await shot(page, 'select-account');

    // the search filters by name, case-insensitively, and says so when nothing matches
    await page.getByTestId('account-search').fill('gLoBeX');
    await expect(cards.count()).resolves.toBe(1);
    await page.getByTestId('account-search').fill('zzz');
    await expect(page.getByTestId('accounts-no-results').textContent()).resolves.toContain('zzz');
    await page.getByTestId('account-search').fill('');

    await page.locator('[data-testid="account-card"][data-account-id="2"]').getByRole('button').click();
    await page.waitForURL('**/home');
    await expectText(page, 'current-account', 'Globex Logistics');
    const update = fake.calls.find((c) => c.path === '/users/connected_update');
    expect(update?.body).toEqual({ customer: 2 });
    // the tokens scoped to the chosen account are the ones sent from now on
    const stored = await storedToken(page);
    expect(stored).toBeTruthy();
    await page.reload();
    await expectText(page, 'current-account', 'Globex Logistics');
    expect(fake.calls.at(-1)?.auth).toBe(`Bearer ${stored}`);
    await expect(page.getByTestId('switch-account').isVisible()).resolves.toBe(true);
    await shot(page, 'home');

    await page.getByTestId('open-details').click();
    await page.getByTestId('right-sidebar').waitFor();
    // the drawer slides in: wait until it rests against the right edge
    await waitForAsync(async () => {
      const box = await page.getByTestId('right-sidebar').boundingBox();
      return !!box && Math.round(box.x + box.width) === 1360;
    }, 5000);
    await expect(widthOf(page, '[data-testid="right-sidebar"]')).resolves.toBe(600);
    await shot(page, 'home-sidebar');
    await page.getByTestId('right-sidebar-close').click();
    await page.getByTestId('right-sidebar').waitFor({ state: 'hidden' });

    // menu 230 px open, 70 px closed
    await expect(widthOf(page, '.RaSidebar-fixed')).resolves.toBe(230);
    await page.locator('.RaAppBar-menuButton').click();
    await waitForAsync(async () => (await widthOf(page, '.RaSidebar-fixed')) === 70, 5000);

    await page.goto(`${fake.url}/no-such-page`);
    await page.getByText('Not found ..(').first().waitFor();
    await page.goto(`${fake.url}/`);
    await page.waitForURL('**/home');
  });

  it('auto-submits a pasted PIN, after a wrong one showed the error and the manual verify button', async () => {
    fake.resendAfter = 2;
    await signIn(page, fake.url, 'solo@example.com');
    await page.getByTestId('pin-step').waitFor();

    await page.keyboard.type('999999');
    await page.getByTestId('pin-error').waitFor();
    await expect(page.getByTestId('pin-error').textContent()).resolves.toBe('The code is incorrect. Please try again.');
    await expect(page.getByTestId('pin-verify').isVisible()).resolves.toBe(true);
    await shot(page, 'pin-error');

    // typing resets the state; Backspace on an empty box and ArrowLeft move back
    await page.getByTestId('pin-digit-5').focus();
    await page.keyboard.press('Backspace');
    await expect(page.getByTestId('pin-input').getAttribute('data-status')).resolves.toBe('none');
    await page.keyboard.press('Backspace');
    await expect(focusedTestId(page)).resolves.toBe('pin-digit-4');
    await page.keyboard.press('ArrowLeft');
    await expect(focusedTestId(page)).resolves.toBe('pin-digit-3');
    await page.keyboard.press('ArrowRight');
    await expect(focusedTestId(page)).resolves.toBe('pin-digit-4');

    // resend, once the countdown is over: a new code is asked for, the boxes are cleared, the countdown restarts
    await page.locator('[data-testid="pin-resend"]:not([disabled])').waitFor({ timeout: 5000 });
    await expect(page.getByTestId('pin-resend').textContent()).resolves.toBe('Resend code');
    await page.getByTestId('pin-resend').click();
    await page.getByTestId('pin-resend').filter({ hasText: /^Resend in [12]$/ }).waitFor({ timeout: 3000 });
    await expect(page.getByTestId('pin-resend').isDisabled()).resolves.toBe(true);
    expect(fake.calls.filter((c) => c.path === '/login_check')).toHaveLength(2);
    await expect(page.getByTestId('pin-digit-0').inputValue()).resolves.toBe('');
    await expect(page.getByTestId('pin-input').getAttribute('data-status')).resolves.toBe('none');

    // paste into the first box: whitespace stripped, all six boxes filled, submitted at once
    await page.getByTestId('pin-digit-0').focus();
    await pasteIntoFocused(page, ' 12 34\n56 ');
    await page.getByTestId('pin-success').waitFor();
    const digits = (await Promise.all([0, 1, 2, 3, 4, 5].map((i) => page.getByTestId(`pin-digit-${i}`).inputValue()))).join('');
    expect(digits).toBe(PIN);
    expect(fake.calls.filter((c) => c.path === '/login/manual').map((c) => (c.body as { pin: string }).pin)).toEqual(['999999', PIN]);

    // one account only: straight to /home
    await page.waitForURL('**/home');
    await expectText(page, 'current-account', 'Acme Trading');
    await expect(page.getByTestId('switch-account').count()).resolves.toBe(0);
  });

  it('switches the login page to Russian and keeps the choice after a reload', async () => {
    await page.goto(`${fake.url}/login`);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Sign in');
    await page.getByTestId('language-switcher').click();
    await page.getByRole('menuitem', { name: 'Русский' }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Вход');
    await expect(page.getByTestId('login-submit').textContent()).resolves.toBe('Войти');
    await expect(page.getByTestId('login-or').textContent()).resolves.toBe('или');
    await expect(page.getByTestId('forgot-password').textContent()).resolves.toBe('Забыли пароль?');
    await shot(page, 'login-ru');

    await page.reload();
    await expect(page.getByTestId('login-submit').textContent()).resolves.toBe('Войти');
    await signIn(page, fake.url, 'john@example.com', 'nope');
    await expect(page.getByTestId('login-error').textContent()).resolves.toContain('Неверный адрес электронной почты или пароль');
  });

  it('shows restricted and disabled accounts, and refuses a disabled one with the access-denied modal', async () => {
    await signIn(page, fake.url, 'maria@example.com');
    await page.getByTestId('pin-step').waitFor();
    await page.keyboard.type(PIN);
    await page.waitForURL('**/select-account');
    await page.getByTestId('account-card').nth(3).waitFor();
    await expect(page.locator('[data-account-id="3"] [data-testid="account-restricted"]').textContent()).resolves.toBe('restricted account');
    await expect(page.locator('[data-account-id="4"] [data-testid="account-no-access"]').textContent()).resolves.toBe('No Access, see more info');
    await shot(page, 'select-account-states');

    await page.locator('[data-account-id="4"]').getByRole('button').click();
    await page.getByTestId('access-denied-modal').getByText('Access denied').waitFor();
    await shot(page, 'access-denied');
    expect(fake.calls.some((c) => c.path === '/users/connected_update')).toBe(false);
  });

  it('signing out ends the session on the server (POST /api/logout with its token) and shows /login', async () => {
    await signIn(page, fake.url, 'john@example.com');
    await page.getByTestId('pin-step').waitFor();
    await page.keyboard.type(PIN);
    await page.waitForURL('**/select-account');
    const token = await storedToken(page);
    expect(token).toBeTruthy();
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL('**/login');
    await waitForAsync(async () => fake.calls.some((c) => c.method === 'POST' && c.path === '/logout'), 5000);
    expect(fake.calls.find((c) => c.path === '/logout')?.auth).toBe(`Bearer ${token}`);
    await expect(storedToken(page)).resolves.toBeNull();
  });

  it('refreshes a token about to expire, and logs out to /login when the refresh fails', async () => {
    fake.tokenTtl = 7; // inside the 5 s refresh margin after about 2 s
    await signIn(page, fake.url, 'solo@example.com');
    await page.getByTestId('pin-step').waitFor();
    await page.keyboard.type(PIN);
    await page.waitForURL('**/home');
    await waitForAsync(async () => fake.calls.some((c) => c.path === '/token_refresh'), 8000);

    fake.refreshFails = true;
    await page.waitForURL('**/login', { timeout: 15_000 });
    await expect(storedToken(page)).resolves.toBeNull();
  });
});

async function waitForAsync(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}
