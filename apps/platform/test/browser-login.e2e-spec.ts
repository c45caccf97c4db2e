import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { buildServer, json, repoRoot, startProcess, type ServerProcess } from './server-process';

const SHOTS = path.join(repoRoot, 'test-results', 'platform');

/** A person signs in to the real embedded server in Chromium: password, the PIN from the dev mailbox, then /home. */
describe('signing in to the embedded server in Chromium', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-browser-'));
  fs.chmodSync(dataDir, 0o755);
  let server: ServerProcess;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    if (!fs.existsSync(path.join(repoRoot, 'apps/admin/dist/index.html'))) throw new Error('build the admin first: node scripts/build.mjs');
    buildServer();
    fs.mkdirSync(SHOTS, { recursive: true });
    server = startProcess('dist/apps/platform/src/main.js', {
      PORT: '0',
      SWITCHBOARD_DATA_DIR: dataDir,
      SWITCHBOARD_ADMIN_EMAIL: 'admin@example.com',
      SWITCHBOARD_ADMIN_PASSWORD: 'browser password',
      SWITCHBOARD_DEMO_ACCOUNT: 'Acme Messaging',
    });
    base = (await server.waitFor(/Admin console : (http:\/\/[\d.:]+)\//, 120000))[1];
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    });
  }, 150000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('enters the PIN emailed to the dev mailbox and lands on /home showing the account', async () => {
    const context = await browser.newContext({ viewport: { width: 1360, height: 860 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));

    await page.goto(`${base}/`);
    await page.waitForURL('**/login');
    await page.getByTestId('login-email').fill('admin@example.com');
    await page.getByTestId('login-password').fill('browser password');
    await page.getByTestId('login-submit').click();

    await page.getByText('a***@example.com').first().waitFor({ timeout: 15000 });
    const mail = await json<Array<{ to: string; text: string }>>(await fetch(`${base}/api/dev/mailbox`));
    const pin = /\b(\d{6})\b/.exec(mail[0].text)?.[1] ?? '';
    expect(pin).toMatch(/^\d{6}$/);
    await page.screenshot({ path: path.join(SHOTS, 'pin-step.png') });
    await page.keyboard.type(pin);

    await page.waitForURL('**/home', { timeout: 20000 });
    const account = page.getByTestId('current-account');
    await account.filter({ hasText: 'Acme Messaging' }).waitFor({ timeout: 10000 });
    await expect(account.textContent()).resolves.toContain('Acme Messaging');
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(SHOTS, 'home.png'), fullPage: true });
    expect(errors).toEqual([]);
    await context.close();
  }, 60000);
});
