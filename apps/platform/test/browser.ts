import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { buildServer, repoRoot, startProcess, type ServerProcess } from './server-process';

/** Debian's Chromium, headless, with the flags this machine's closed network needs. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
}

/** Calls `/api` from the page with the console's own token, as the console would. */
export function pageApi(page: () => Page) {
  return async <T = Record<string, unknown>>(method: string, url: string, body?: unknown): Promise<{ status: number; body: T }> =>
    page().evaluate(
      async ([m, u, b]) => {
        const w = globalThis as unknown as Record<'localStorage' | 'sessionStorage', { getItem: (k: string) => string | null }>;
        const token = w.localStorage.getItem('switchboard.token') ?? w.sessionStorage.getItem('switchboard.token');
        const r = await fetch(`/api${u}`, { method: m, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: b === undefined ? undefined : JSON.stringify(b) });
        const text = await r.text();
        return { status: r.status, body: text ? JSON.parse(text) : null };
      },
      [method, url, body] as const,
    );
}

/** Signs in through the login page with the PIN the embedded server's dev mailbox received; answers the PIN. */
export async function signInWithPin(page: Page, base: string, email: string, password: string, maskedEmail: string): Promise<string> {
  await page.goto(`${base}/login`);
  await page.getByTestId('login-email').fill(email);
  await page.getByTestId('login-password').fill(password);
  await page.getByTestId('login-submit').click();
  await page.getByText(maskedEmail).first().waitFor({ timeout: 15000 });
  const mail = (await (await fetch(`${base}/api/dev/mailbox`)).json()) as Array<{ text: string }>;
  const pin = /\b(\d{6})\b/.exec(mail[0]?.text ?? '')?.[1] ?? '';
  await page.keyboard.type(pin);
  return pin;
}

export const ADMIN_EMAIL = 'admin@example.com';
export const ADMIN_PASSWORD = 'browser password';
export const DEMO_ACCOUNT = 'Acme Messaging';

/** The embedded server (`npm start`'s process) with a fresh data dir, Chromium and one signed-out page on its console. */
/** Reads until `ok` holds, every 200 ms; fails naming `what` and the last value after `timeoutMs`. */
export async function until<T>(read: () => Promise<T> | T, ok: (v: T) => boolean, what: string, timeoutMs = 30000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last = await read();
  while (!ok(last)) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 200));
    last = await read();
  }
  return last;
}

export interface ConsoleSession {
  server: ServerProcess;
  /** The console's URL, e.g. http://127.0.0.1:41234 */
  base: string;
  dataDir: string;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Uncaught errors of every page opened through `watch` (the first page is watched). */
  errors: string[];
  /** Folder of this test's screenshots (test-results/<name>). */
  shots: string;
  shot: (name: string, page?: Page) => Promise<Buffer>;
  /** Records a page's uncaught errors in `errors`. */
  watch: (page: Page) => Page;
  stop: () => Promise<void>;
}

export interface ConsoleOptions {
  /** Extra variables of the server process. */
  env?: NodeJS.ProcessEnv;
  adminEmail?: string;
  adminPassword?: string;
  demoAccount?: string;
  viewport?: { width: number; height: number };
  /** Options of the first browser context (downloads, locale...). */
  contextOptions?: BrowserContextOptions;
}

/**
 * Starts what a browser test of the console needs: the built server as `npm start` runs it (dist/apps/platform) on a
 * temp data dir with a known admin and demo account, Chromium, a context and a page whose errors are collected.
 */
export async function startConsole(name: string, opts: ConsoleOptions = {}): Promise<ConsoleSession> {
  if (!fs.existsSync(path.join(repoRoot, 'apps/admin/dist/index.html'))) throw new Error('build the admin first: node scripts/build.mjs');
  buildServer();
  const shots = path.join(repoRoot, 'test-results', name);
  fs.mkdirSync(shots, { recursive: true });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `sb-${name}-`));
  fs.chmodSync(dataDir, 0o755);
  const server = startProcess('dist/apps/platform/src/main.js', {
    PORT: '0',
    SWITCHBOARD_DATA_DIR: dataDir,
    SWITCHBOARD_ADMIN_EMAIL: opts.adminEmail ?? ADMIN_EMAIL,
    SWITCHBOARD_ADMIN_PASSWORD: opts.adminPassword ?? ADMIN_PASSWORD,
    SWITCHBOARD_DEMO_ACCOUNT: opts.demoAccount ?? DEMO_ACCOUNT,
    ...opts.env,
  });
  let browser: Browser | undefined;
  try {
    const base = (await server.waitFor(/Admin console : (http:\/\/[\d.:]+)\//, 120000))[1];
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: opts.viewport ?? { width: 1440, height: 900 }, ...opts.contextOptions });
    const errors: string[] = [];
    const watch = (p: Page) => {
      p.on('pageerror', (e) => errors.push(e.message));
      return p;
    };
    const page = watch(await context.newPage());
    return {
      server,
      base,
      dataDir,
      browser,
      context,
      page,
      errors,
      shots,
      shot: (shotName, p = page) => p.screenshot({ path: path.join(shots, `${shotName}.png`) }),
      watch,
      stop: async () => {
        await context.close().catch(() => undefined);
        await browser?.close();
        await server.stop();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await browser?.close();
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
}
