import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { buildServer, json, repoRoot, startProcess, type ServerProcess } from './server-process';

/**
 * The team and super-administration screens of the console, driven in Chromium against the real embedded server:
 * invites and registration, the role editor, API keys, account approval and status, login-as.
 */
const SHOTS = path.join(repoRoot, 'test-results', 'team');
const ADMIN_EMAIL = 'admin@example.com';
const ADMIN_PASSWORD = 'team admin password';
const DEMO = 'Acme Messaging';
const PIN_SUBJECT = /sign-in code/;
const INVITE_SUBJECT = /invited to join/;

interface Mail {
  to: string;
  subject: string;
  text: string;
  sentAt: string;
}

interface Tokens {
  token: string;
  refresh_token: string;
}

describe('team and super-admin screens in Chromium', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-team-'));
  fs.chmodSync(dataDir, 0o755);
  let server: ServerProcess;
  let base: string;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];

  const shot = async (page: Page, name: string) => {
    await page.waitForTimeout(400); // let dialogs and toasts finish their entrance so the picture shows them
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
  };

  async function newPage(locale?: 'ru'): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1360, height: 860 } });
    if (locale) await context.addInitScript(`window.localStorage.setItem('switchboard.locale', '${locale}')`);
    contexts.push(context);
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    return page;
  }

  /** The newest mail to `to` sent at or after `since` whose subject and text match; polls the dev mailbox. */
  async function waitForMail(to: string, since: number, subject: RegExp, text: RegExp = /./): Promise<Mail> {
    const deadline = Date.now() + 15000;
    for (;;) {
      const box = await json<Mail[]>(await fetch(`${base}/api/dev/mailbox?limit=200`));
      const hit = box.find((m) => m.to === to && Date.parse(m.sentAt) >= since - 5 && subject.test(m.subject) && text.test(m.text));
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error(`no mail to ${to} matching ${subject}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async function api<T>(method: string, p: string, body?: unknown, token?: string, expected = [200, 201]): Promise<T> {
    const res = await fetch(`${base}/api${p}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!expected.includes(res.status)) throw new Error(`${method} ${p} answered ${res.status}: ${text.slice(0, 400)}`);
    return (text ? JSON.parse(text) : null) as T;
  }

  /** Password + emailed PIN over the API; `accountId` picks the account when the user has several. */
  async function apiSignIn(email: string, password: string, accountId?: number): Promise<string> {
    const since = Date.now();
    await api('POST', '/login_check', { username: email, password, gCaptchaToken: 'x' });
    const pin = /\b(\d{6})\b/.exec((await waitForMail(email, since, PIN_SUBJECT, /\b\d{6}\b/)).text)?.[1];
    const pair = await api<Tokens>('POST', '/login/manual', { username: email, password, pin, gCaptchaToken: 'x' });
    if (accountId === undefined) return pair.token;
    return (await api<Tokens>('PUT', '/users/connected_update', { customer: accountId }, pair.token)).token;
  }

  /** Signs in through the console; lands on /home, choosing `account` on the picker when there are several. */
  async function signIn(page: Page, email: string, password: string, account = DEMO): Promise<void> {
    await page.goto(`${base}/login`);
    await page.getByTestId('login-email').fill(email);
    await page.getByTestId('login-password').fill(password);
    const since = Date.now();
    await page.getByTestId('login-submit').click();
    await page.getByTestId('pin-step').waitFor({ timeout: 15000 });
    const pin = /\b(\d{6})\b/.exec((await waitForMail(email, since, PIN_SUBJECT, /\b\d{6}\b/)).text)?.[1] ?? '';
    await page.keyboard.type(pin);
    await page.waitForURL(/\/(home|select-account)$/, { timeout: 20000 });
    if (page.url().endsWith('/select-account')) {
      await page.getByTestId('account-card').filter({ hasText: account }).click();
      await page.waitForURL('**/home', { timeout: 15000 });
    }
    await page.getByTestId('current-account').filter({ hasText: account }).waitFor({ timeout: 15000 });
  }

  /** Invites `email` into the token's account and returns the path of the emailed link. */
  async function inviteByApi(adminToken: string, email: string, roleIds: number[]): Promise<string> {
    const since = Date.now();
    await api('POST', '/user_invites', { email, firstname: 'Test', lastname: 'Member', user_roles_ids: roleIds }, adminToken);
    const mail = await waitForMail(email, since, INVITE_SUBJECT, /team-member-invite/);
    return /(\/team-member-invite\/\S+)/.exec(mail.text)?.[1] ?? '';
  }

  async function roleId(adminToken: string, name: string): Promise<number> {
    const roles = await api<{ items: Array<{ id: number; name: string }> }>('GET', '/user_roles?itemsPerPage=500', undefined, adminToken);
    const role = roles.items.find((r) => r.name === name);
    if (!role) throw new Error(`no role ${name}`);
    return role.id;
  }

  beforeAll(async () => {
    if (!fs.existsSync(path.join(repoRoot, 'apps/admin/dist/index.html'))) throw new Error('build the admin first: node scripts/build.mjs');
    buildServer();
    fs.mkdirSync(SHOTS, { recursive: true });
    server = startProcess('dist/apps/platform/src/main.js', {
      PORT: '0',
      SWITCHBOARD_DATA_DIR: dataDir,
      SWITCHBOARD_ADMIN_EMAIL: ADMIN_EMAIL,
      SWITCHBOARD_ADMIN_PASSWORD: ADMIN_PASSWORD,
      SWITCHBOARD_DEMO_ACCOUNT: DEMO,
    });
    base = (await server.waitFor(/Admin console : (http:\/\/[\d.:]+)\//, 120000))[1];
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    });
  }, 150000);

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('an invited person gets the link by email, registers, signs in with the PIN and lands on /home', async () => {
    const admin = await newPage();
    await signIn(admin, ADMIN_EMAIL, ADMIN_PASSWORD);
    await admin.getByTestId('menu-team').click();
    await admin.waitForURL('**/users/management');
    await admin.getByTestId('invite-user').click();
    await admin.getByTestId('invite-dialog').waitFor();
    await admin.getByTestId('invite-submit').click();
    await admin.getByText('Choose at least one role').waitFor();
    await admin.getByTestId('invite-email').fill('jane@example.com');
    await admin.getByTestId('invite-firstname').fill('Jane');
    await admin.getByTestId('invite-lastname').fill('Doe');
    await admin.getByTestId('inbox-role').click();
    await admin.getByTestId('inbox-role-option').filter({ hasText: 'Inbox Agent' }).click();
    await shot(admin, '01-invite-dialog');
    const since = Date.now();
    await admin.getByTestId('invite-submit').click();
    await admin.getByTestId('invite-dialog').waitFor({ state: 'hidden' });
    const pendingRow = admin.getByTestId('team-row').filter({ hasText: 'jane@example.com' });
    await pendingRow.getByTestId('member-status').filter({ hasText: 'Pending' }).waitFor();
    await shot(admin, '02-team-pending-invite');

    const mail = await waitForMail('jane@example.com', since, INVITE_SUBJECT, /team-member-invite/);
    const link = /(\/team-member-invite\/\d+\/\d+\/\S+)/.exec(mail.text)?.[1];
    expect(link).toBeDefined();

    const jane = await newPage();
    await jane.goto(`${base}${link}`);
    await jane.waitForURL('**/registration', { timeout: 15000 });
    await expect(jane.getByTestId('registration-email').inputValue()).resolves.toBe('jane@example.com');
    await expect(jane.getByTestId('registration-firstname').inputValue()).resolves.toBe('Jane');
    await jane.getByTestId('registration-password').fill('jane password 1');
    await jane.getByTestId('registration-confirmPassword').fill('another one');
    await jane.getByTestId('registration-submit').click();
    await jane.getByText('Passwords do not match').waitFor();
    await jane.getByTestId('registration-confirmPassword').fill('jane password 1');
    await shot(jane, '03-registration');
    await jane.getByTestId('registration-submit').click();
    await jane.getByTestId('welcome-popup').getByText('Welcome to Acme Messaging!').waitFor({ timeout: 15000 });
    await shot(jane, '04-welcome-popup');
    await jane.getByTestId('welcome-continue').click();
    await jane.waitForURL('**/login');

    await signIn(jane, 'jane@example.com', 'jane password 1');
    expect(new URL(jane.url()).pathname).toBe('/home');
    await expect(jane.getByTestId('home-page').textContent()).resolves.toContain('Welcome, Jane');
    await shot(jane, '05-invitee-home');

    // the used link no longer works: the invite error popup replaces the page with /login
    const again = await newPage();
    await again.goto(`${base}${link}`);
    await again.getByTestId('invite-error').waitFor({ timeout: 15000 });
    await shot(again, '06-invite-link-used');
    await again.getByTestId('confirm-ok').click();
    await again.waitForURL('**/login');

    await admin.reload();
    await admin.getByTestId('team-row').filter({ hasText: 'jane@example.com' }).getByTestId('member-status').filter({ hasText: 'Active' }).waitFor();
    expect(pageErrors).toEqual([]);
  }, 120000);

  it('the role editor creates a custom role with the permissions ticked in the matrix', async () => {
    const admin = await newPage();
    await signIn(admin, ADMIN_EMAIL, ADMIN_PASSWORD);
    await admin.getByTestId('menu-roles').click();
    await admin.waitForURL('**/users/roles');
    const owner = admin.locator('[data-testid=role-column][data-role-name="Tenant owner"]');
    await owner.getByTestId('role-readonly').waitFor();

    await admin.getByTestId('new-role').click();
    await expect(admin.getByTestId('role-name').inputValue()).resolves.toBe('Custom role name');
    await expect(admin.getByTestId('role-description').inputValue()).resolves.toBe('Role description');
    await admin.getByTestId('role-name').fill('Support lead');
    await admin.getByTestId('role-dialog-submit').click();
    await admin.getByTestId('role-dialog').waitFor({ state: 'hidden' });
    await admin.locator('[data-testid=role-column][data-role-name="Support lead"]').waitFor();

    // the new role is a draft column until "Save changes" creates it with the permissions ticked (decision 0026)
    await admin.getByTestId('perm--1-CAMPAIGN_VIEW').check();
    await admin.getByTestId('perm--1-STREAM_VIEW').check();
    await admin.getByTestId('roles-save-bar').waitFor();
    await shot(admin, '07-role-matrix-unsaved');
    await admin.getByTestId('roles-save').click();
    await admin.getByTestId('roles-save-bar').waitFor({ state: 'hidden' });
    const adminToken = await apiSignIn(ADMIN_EMAIL, ADMIN_PASSWORD, 1);
    const id = await roleId(adminToken, 'Support lead');

    const role = await api<{ name: string; permissions: string[]; readOnly: boolean; roleType: number }>('GET', `/user_roles/${id}`, undefined, adminToken);
    expect(role).toMatchObject({ name: 'Support lead', readOnly: false, roleType: 1 });
    expect([...role.permissions].sort()).toEqual(['CAMPAIGN_VIEW', 'STREAM_VIEW']);

    // a second draft gets the default name made unique with " - N"
    await admin.getByTestId('new-role').click();
    await admin.getByTestId('role-dialog-submit').click();
    await admin.locator('[data-testid=role-column][data-role-name="Custom role name"]').waitFor();
    await admin.getByTestId('new-role').click();
    await expect(admin.getByTestId('role-name').inputValue()).resolves.toBe('Custom role name - 1');
    await admin.keyboard.press('Escape');
    await shot(admin, '08-role-matrix-saved');
    expect(pageErrors).toEqual([]);
  }, 120000);

  it('an API key is created and its secret is shown once, with a copy button', async () => {
    const admin = await newPage();
    await signIn(admin, ADMIN_EMAIL, ADMIN_PASSWORD);
    await admin.getByTestId('menu-api-keys').click();
    await admin.waitForURL('**/api-keys');
    await admin.getByTestId('new-api-key').click();
    await admin.getByTestId('api-key-name').fill('CRM sync');
    await admin.getByTestId('api-key-ip').fill('10.0.0.0/8, 300.1.1.1');
    await admin.getByTestId('api-key-submit').click();
    await admin.getByText('Enter IPv4 addresses').waitFor();
    await admin.getByTestId('api-key-ip').fill('');
    await admin.getByTestId('key-perm-STREAM_VIEW').check();
    await admin.getByTestId('api-key-submit').click();

    const secret = (await admin.getByTestId('token-value').textContent())?.trim() ?? '';
    expect(secret).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    await admin.getByTestId('token-copy').click();
    await admin.getByText('Copied to the clipboard').waitFor();
    await shot(admin, '09-api-key-token');
    await admin.getByTestId('token-done').click();
    await admin.getByTestId('token-dialog').waitFor({ state: 'hidden' });

    const row = admin.getByTestId('api-key-row').filter({ hasText: 'CRM sync' });
    await row.waitFor();
    const rowText = (await row.textContent()) ?? '';
    expect(rowText).toContain(`${secret.slice(0, 9)}…`);
    await expect(admin.locator('body').textContent()).resolves.not.toContain(secret);
    await admin.reload();
    await row.waitFor();
    await expect(admin.locator('body').textContent()).resolves.not.toContain(secret);
    await shot(admin, '10-api-keys');

    // the key shown is the real one: it opens an access token
    const exchanged = await api<{ token: string; token_type: string }>('POST', '/api_keys/token', undefined, secret);
    expect(exchanged.token_type).toBe('Bearer');
    expect(pageErrors).toEqual([]);
  }, 120000);

  it('a super admin approves a new account and disables it; its members see "No Access" on the account picker', async () => {
    const adminToken = await apiSignIn(ADMIN_EMAIL, ADMIN_PASSWORD, 1);
    const agentRole = await roleId(adminToken, 'Inbox Agent');
    const registerLink = await inviteByApi(adminToken, 'multi@example.com', [agentRole]);
    const [, customerID, inviteID, inviteToken] = /\/team-member-invite\/(\d+)\/(\d+)\/(\S+)/.exec(registerLink) ?? [];
    await api('POST', '/user_invites/register', { customerID, inviteID, inviteToken, password: 'multi password 1', confirmPassword: 'multi password 1' });

    const admin = await newPage();
    await signIn(admin, ADMIN_EMAIL, ADMIN_PASSWORD);
    await admin.getByTestId('menu-superadmin').click();
    await admin.waitForURL('**/superadmin/accounts');
    await admin.getByTestId('new-account').click();
    await admin.getByTestId('new-account-name').fill('Beta Retail');
    await admin.getByTestId('new-account-approved').uncheck();
    await admin.getByTestId('new-account-submit').click();
    await admin.getByTestId('new-account-dialog').waitFor({ state: 'hidden' });
    const beta = admin.getByTestId('account-row').filter({ hasText: 'Beta Retail' });
    await beta.getByTestId('approve-account').waitFor();
    await shot(admin, '11-accounts-awaiting-approval');
    await beta.getByTestId('approve-account').click();
    await admin.getByTestId('confirm-ok').click();
    await beta.getByTestId('account-approval').filter({ hasText: 'Approved' }).waitFor();

    // the member joins Beta too, accepting the invite as a registered user while signed in
    const accounts = await api<{ items: Array<{ id: number; name: string; active: number }> }>('POST', '/customers/superadmin/all', { search: 'Beta Retail' }, adminToken);
    const betaId = accounts.items[0].id;
    expect(accounts.items[0].active).toBe(1);
    const betaToken = await apiSignIn(ADMIN_EMAIL, ADMIN_PASSWORD, betaId);
    const joinLink = await inviteByApi(betaToken, 'multi@example.com', [await roleId(betaToken, 'Inbox Agent')]);
    const member = await newPage();
    await signIn(member, 'multi@example.com', 'multi password 1');
    await member.goto(`${base}${joinLink}`);
    await member.getByTestId('welcome-popup').getByText('Welcome to Beta Retail!').waitFor({ timeout: 15000 });
    await shot(member, '12-invite-accepted-welcome');
    await member.getByTestId('welcome-continue').click();
    await member.waitForURL('**/select-account');
    await member.getByTestId('account-card').filter({ hasText: 'Beta Retail' }).waitFor();

    // the super admin disables Beta, after a confirm
    await beta.getByTestId('account-menu').click();
    await admin.getByTestId('status-disable').click();
    await admin.getByTestId('confirm-dialog').getByText('Disable this account?').waitFor();
    await shot(admin, '13-disable-confirm');
    await admin.getByTestId('confirm-ok').click();
    await beta.getByTestId('account-status').filter({ hasText: 'Disabled' }).waitFor();
    await shot(admin, '14-account-disabled');

    // the member's picker marks it "No Access" (the auth read model follows the accounts event)
    const card = member.getByTestId('account-card').filter({ hasText: 'Beta Retail' });
    const deadline = Date.now() + 20000;
    for (;;) {
      await member.goto(`${base}/select-account`);
      await card.waitFor();
      if (await card.getByTestId('account-no-access').count()) break;
      if (Date.now() > deadline) throw new Error('Beta Retail never showed "No Access"');
      await member.waitForTimeout(300);
    }
    await expect(card.getByTestId('account-no-access').textContent()).resolves.toContain('No Access, see more info');
    await card.click();
    await member.getByTestId('access-denied-modal').waitFor();
    await shot(member, '15-no-access');
    expect(pageErrors).toEqual([]);
  }, 150000);

  it('login-as shows the strip with the user\'s email, and exit restores the admin on /users/management', async () => {
    const adminToken = await apiSignIn(ADMIN_EMAIL, ADMIN_PASSWORD, 1);
    const link = await inviteByApi(adminToken, 'agent@example.com', [await roleId(adminToken, 'Inbox Agent')]);
    const [, customerID, inviteID, inviteToken] = /\/team-member-invite\/(\d+)\/(\d+)\/(\S+)/.exec(link) ?? [];
    await api('POST', '/user_invites/register', { customerID, inviteID, inviteToken, password: 'agent password 1', confirmPassword: 'agent password 1', firstname: 'Alex', lastname: 'Agent' });
    // the agent may see the team but not invite anyone
    const viewer = await api<{ id: number }>('POST', '/user_roles', { name: 'Team viewer', permissions: ['USER_INVITE_VIEW'] }, adminToken);
    const team = await api<{ items: Array<{ id: number; email: string }> }>('GET', '/users?itemsPerPage=500', undefined, adminToken);
    const agentId = team.items.find((m) => m.email === 'agent@example.com')?.id;
    await api('POST', '/users/roles', { userId: agentId, user_roles_ids: [viewer.id, await roleId(adminToken, 'Inbox Agent')] }, adminToken);

    const admin = await newPage();
    await signIn(admin, ADMIN_EMAIL, ADMIN_PASSWORD);
    await admin.goto(`${base}/users/management`);
    const row = admin.getByTestId('team-row').filter({ hasText: 'agent@example.com' });
    await row.getByTestId('row-menu').click();
    await admin.getByTestId('action-login-as').click();
    await admin.getByTestId('confirm-ok').click();
    await admin.waitForURL('**/home', { timeout: 15000 });
    const strip = admin.getByTestId('login-as-strip');
    await strip.waitFor();
    await expect(admin.getByTestId('login-as-email').textContent()).resolves.toBe('agent@example.com');
    await expect(admin.getByTestId('home-page').textContent()).resolves.toContain('Welcome, Alex');
    await shot(admin, '16-login-as-strip');
    // as the agent: the team is visible, inviting is disabled with a tooltip naming the missing permission; no roles
    await expect(admin.getByTestId('menu-roles').count()).resolves.toBe(0);
    await admin.getByTestId('menu-team').click();
    await admin.waitForURL('**/users/management');
    await expect(admin.getByTestId('invite-user').isDisabled()).resolves.toBe(true);
    await admin.getByTestId('missing-permission').first().hover();
    await admin.getByRole('tooltip').filter({ hasText: 'You need the USER_INVITE_ADD permission for this' }).waitFor();
    await expect(strip.count()).resolves.toBe(1);
    await shot(admin, '17-login-as-missing-permission');

    // the exit reloads the page (here the same URL), so wait for the strip to go before looking at the admin's view
    await admin.getByTestId('login-as-exit').click();
    await strip.waitFor({ state: 'detached', timeout: 15000 });
    await admin.waitForURL('**/users/management', { timeout: 15000 });
    await admin.locator('[data-testid=invite-user]:not([disabled])').waitFor();
    // the admin is themselves again: their own row is the one marked "You"
    await admin.getByTestId('team-row').filter({ hasText: ADMIN_EMAIL }).getByText('You', { exact: true }).waitFor();
    await shot(admin, '18-after-exit');

    // from the accounts list: enter the account and pick a member
    await admin.goto(`${base}/superadmin/accounts`);
    const acme = admin.getByTestId('account-row').filter({ hasText: DEMO });
    await acme.getByTestId('account-menu').click();
    await admin.getByTestId('account-login-as').click();
    await admin.getByTestId('login-as-member').filter({ hasText: 'agent@example.com' }).click();
    await shot(admin, '19-login-as-from-accounts');
    await admin.getByTestId('login-as-go').click();
    await admin.waitForURL('**/home', { timeout: 15000 });
    await expect(admin.getByTestId('login-as-email').textContent()).resolves.toBe('agent@example.com');
    await admin.getByTestId('login-as-exit').click();
    await admin.waitForURL('**/users/management', { timeout: 15000 });
    await admin.getByTestId('invite-user').waitFor();
    expect(pageErrors).toEqual([]);
  }, 120000);

  it('the team screens speak Russian', async () => {
    const admin = await newPage('ru');
    await signIn(admin, ADMIN_EMAIL, ADMIN_PASSWORD);
    await admin.goto(`${base}/users/management`);
    await admin.getByTestId('team-page').getByText('Пригласить').waitFor();
    await expect(admin.getByTestId('team-page').textContent()).resolves.toContain('Активен');
    await shot(admin, '20-team-ru');
    await admin.goto(`${base}/users/roles`);
    await admin.getByText('Роли и права').first().waitFor();
    await shot(admin, '21-roles-ru');
    expect(pageErrors).toEqual([]);
  }, 90000);
});
