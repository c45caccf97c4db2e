import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';
import { ALL_PERMISSIONS, Permission } from '@switchboard/contracts';
import { ACCESS_KEY, type AccessRule } from '@switchboard/platform';
import { CountryController, TimezoneController } from '../src/controllers/country.controller';
import { CustomerController } from '../src/controllers/customer.controller';
import { UsageController } from '../src/controllers/usage.controller';
import { startAccounts, type AccountsTestApp } from './support';

type Access = { kind: 'superAdmin' } | { kind: 'authenticated'; accountRequired: boolean } | { kind: 'permissions'; permission: string };
interface Route {
  method: string;
  path: string;
  access: Access;
  /** A valid body, with `:other` for an id of the other account. */
  body?: unknown;
}

const SA: Access = { kind: 'superAdmin' };
const ANY: Access = { kind: 'authenticated', accountRequired: false };
const ACC: Access = { kind: 'authenticated', accountRequired: true };
const perm = (permission: string): Access => ({ kind: 'permissions', permission });

/** Every route of the service; the first test proves the list is complete. `:id` is an account id, `:country` a country id. */
const ROUTES: Route[] = [
  { method: 'POST', path: '/customers', access: SA, body: { name: 'Created In Matrix' } },
  { method: 'GET', path: '/customers/dropdown', access: ANY },
  { method: 'POST', path: '/customers/status', access: SA, body: { customer_id: ':id', status: 'active' } },
  { method: 'POST', path: '/customers/feature_access_request', access: ACC, body: { feature: 'allow_inbox', message: 'matrix' } },
  { method: 'POST', path: '/customers/get_dropdown_data', access: ANY, body: { entity: 'statuses' } },
  { method: 'POST', path: '/customers/superadmin/all', access: SA, body: {} },
  { method: 'POST', path: '/customers/superadmin/approve', access: SA, body: { customer_id: ':id' } },
  { method: 'GET', path: '/customers/:id', access: ACC },
  { method: 'PUT', path: '/customers/:id', access: perm(Permission.SettingsEdit), body: { shortName: 'MX' } },
  { method: 'POST', path: '/customers/:id/balance', access: SA, body: { amount: 1, reason: 'matrix' } },
  { method: 'GET', path: '/customers/:id/balance_entries', access: perm(Permission.CostView) },
  { method: 'GET', path: '/daily_usage_and_limit', access: ACC },
  { method: 'GET', path: '/countries', access: ANY },
  { method: 'GET', path: '/countries/prices', access: perm(Permission.CostView) },
  { method: 'GET', path: '/countries/sending_hours', access: perm(Permission.SendingHoursView) },
  { method: 'GET', path: '/countries/global', access: SA },
  { method: 'GET', path: '/countries/global/:country', access: SA },
  { method: 'PUT', path: '/countries/global/:country', access: SA, body: {} },
  { method: 'GET', path: '/countries/:country', access: ANY },
  { method: 'PUT', path: '/countries/:country', access: perm(Permission.SendingHoursEdit), body: { defaultTimezone: null } },
  { method: 'GET', path: '/timezones', access: ANY },
  { method: 'GET', path: '/timezones/:tz', access: ANY },
];

function declaredRoutes(): Array<{ method: string; path: string; rule: AccessRule | undefined }> {
  const out: Array<{ method: string; path: string; rule: AccessRule | undefined }> = [];
  for (const controller of [CustomerController, UsageController, CountryController, TimezoneController]) {
    const base = Reflect.getMetadata(PATH_METADATA, controller) as string;
    const proto = controller.prototype as unknown as Record<string, unknown>;
    for (const name of Object.getOwnPropertyNames(proto)) {
      const handler = proto[name];
      if (name === 'constructor' || typeof handler !== 'function') continue;
      const sub = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
      if (sub === undefined) continue;
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
      const path = `/${base}${sub === '/' ? '' : `/${sub}`}`.replace(/:id\b/, '*');
      out.push({ method, path, rule: Reflect.getMetadata(ACCESS_KEY, handler) as AccessRule | undefined });
    }
  }
  return out;
}

describe('access: tenant isolation and permissions on every route', () => {
  let a: AccountsTestApp;
  let mine: string;
  let theirs: string;
  let country: string;
  let tz: string;

  const pathFor = (r: Route, account: string) => r.path.replace(':id', account).replace(':country', country).replace(':tz', tz);
  const bodyFor = (r: Route, account: string) => (r.body === undefined ? undefined : JSON.parse(JSON.stringify(r.body).replace(/":id"/g, JSON.stringify(account))));

  beforeAll(async () => {
    a = await startAccounts();
    mine = await a.customer({ name: 'Mine' });
    theirs = await a.customer({ name: 'Theirs' });
    const fr = await a.call<{ items: Array<{ id: number; timezones: Array<{ id: number }> }> }>('GET', '/countries?iso2=FR', { token: a.member(mine, []) });
    country = String(fr.body.items[0].id);
    tz = String(fr.body.items[0].timezones[0].id);
  });
  afterAll(async () => {
    await a?.close();
  });

  it('covers every route, each declaring exactly the rule listed here', () => {
    const declared = declaredRoutes();
    const normalise = (p: string) => p.replace(/:(id|country|tz)\b/, '*');
    expect(declared.map((d) => `${d.method} ${normalise(d.path)}`).sort()).toEqual(ROUTES.map((r) => `${r.method} ${normalise(r.path)}`).sort());
    for (const d of declared) {
      const r = ROUTES.find((x) => x.method === d.method && normalise(x.path) === normalise(d.path))!;
      const expected: AccessRule =
        r.access.kind === 'permissions' ? { kind: 'permissions', permissions: [r.access.permission] } : r.access.kind === 'superAdmin' ? { kind: 'superAdmin' } : { kind: 'authenticated', accountRequired: r.access.accountRequired };
      expect([d.method, d.path, d.rule]).toEqual([d.method, d.path, expected]);
    }
  });

  it('answers 401 to every route without a token', async () => {
    for (const r of ROUTES) {
      const res = await a.call(r.method, pathFor(r, mine), { body: bodyFor(r, mine) });
      expect([r.method, r.path, res.status]).toEqual([r.method, r.path, 401]);
    }
  });

  it('refuses super-admin routes to an account owner holding every permission', async () => {
    const owner = a.member(mine, ALL_PERMISSIONS);
    for (const r of ROUTES.filter((x) => x.access.kind === 'superAdmin')) {
      const res = await a.call(r.method, pathFor(r, mine), { token: owner, body: bodyFor(r, mine) });
      expect([r.method, r.path, res.status]).toEqual([r.method, r.path, 403]);
    }
    expect((await a.sql<{ n: number }>(`SELECT count(*)::int AS n FROM accounts.customer WHERE name = 'Created In Matrix'`))[0].n).toBe(0);
  });

  it('refuses each gated route without its permission and allows it with only that permission', async () => {
    const everythingElse = (p: string) => ALL_PERMISSIONS.filter((x) => x !== p);
    for (const r of ROUTES.filter((x) => x.access.kind === 'permissions')) {
      const permission = (r.access as { permission: string }).permission;
      const without = await a.call(r.method, pathFor(r, mine), { token: a.member(mine, everythingElse(permission)), body: bodyFor(r, mine) });
      expect([r.method, r.path, without.status, (without.body as { code: string }).code]).toEqual([r.method, r.path, 403, 'NO_PERMISSIONS']);
      const withIt = await a.call(r.method, pathFor(r, mine), { token: a.member(mine, [permission]), body: bodyFor(r, mine) });
      expect([r.method, r.path, withIt.status]).toEqual([r.method, r.path, 200]);
    }
  });

  it('lets a member with no permissions use the open routes of their account, and requires an account where listed', async () => {
    const plain = a.member(mine, []);
    const noAccount = a.t.token({ sub: '4242', acc: null });
    for (const r of ROUTES.filter((x) => x.access.kind === 'authenticated')) {
      const res = await a.call(r.method, pathFor(r, mine), { token: plain, body: bodyFor(r, mine) });
      expect([r.method, r.path, res.status < 300]).toEqual([r.method, r.path, true]);
      const none = await a.call(r.method, pathFor(r, mine), { token: noAccount, body: bodyFor(r, mine) });
      const accountRequired = (r.access as { accountRequired: boolean }).accountRequired;
      expect([r.method, r.path, accountRequired ? none.status : none.status < 300]).toEqual([r.method, r.path, accountRequired ? 403 : true]);
    }
  });

  it("gives a member of one account nothing of another's: 404 or 403 on every route naming it, and nothing changes", async () => {
    const snapshot = async () => ({
      customer: await a.sql('SELECT * FROM accounts.customer WHERE id = $1', [theirs]),
      ledger: await a.sql('SELECT * FROM accounts.balance_entry WHERE account_id = $1', [theirs]),
      overrides: await a.sql('SELECT * FROM accounts.country_setting WHERE account_id = $1', [theirs]),
      requests: await a.sql('SELECT * FROM accounts.feature_access_request WHERE account_id = $1', [theirs]),
    });
    const before = await snapshot();
    const owner = a.member(mine, ALL_PERMISSIONS);
    const naming = ROUTES.filter((r) => r.path.includes(':id') || JSON.stringify(r.body ?? {}).includes(':id'));
    expect(naming.length).toBe(6);
    for (const r of naming) {
      const res = await a.call(r.method, pathFor(r, theirs), { token: owner, body: bodyFor(r, theirs) });
      expect([r.method, r.path, [403, 404].includes(res.status)]).toEqual([r.method, r.path, true]);
    }
    // routes without an id read the token's own account only
    const dropdown = await a.call<{ items: Array<{ id: number }> }>('GET', '/customers/dropdown', { token: owner });
    expect(dropdown.body.items.map((c) => String(c.id))).toEqual([mine]);
    const dd = await a.call<{ items: Array<{ value: number }> }>('POST', '/customers/get_dropdown_data', { token: owner, body: { entity: 'customers' } });
    expect(dd.body.items.map((c) => String(c.value))).toEqual([mine]);
    // account-scoped writes land in the caller's account only
    await a.call('PUT', `/countries/${country}`, { token: owner, body: { defaultTimezone: 'Europe/Paris' } });
    await a.call('POST', '/customers/feature_access_request', { token: owner, body: { feature: 'allow_telegram_bot' } });
    expect(await snapshot()).toEqual(before);
    const theirView = await a.call<{ items: Array<{ overridden: boolean }> }>('GET', `/countries?iso2=FR`, { token: a.member(theirs, []) });
    expect(theirView.body.items[0].overridden).toBe(false);
  });

  it('publishes realtime changes only on the changed account', async () => {
    a.live.length = 0;
    await a.call('PUT', `/customers/${mine}`, { token: a.member(mine, [Permission.SettingsEdit]), body: { name: 'Mine Renamed' } });
    await a.call('POST', `/customers/${mine}/balance`, { token: a.superAdmin(), body: { amount: 2, reason: 'x' } });
    expect(a.live.length).toBeGreaterThanOrEqual(2);
    expect(a.live.every((m) => m.subject === `rt.${mine}.accounts` && m.accountId === mine)).toBe(true);
  });

  it('lets a super admin reach any account', async () => {
    const sa = a.superAdmin(mine);
    expect((await a.call('GET', `/customers/${theirs}`, { token: sa })).status).toBe(200);
    expect((await a.call('GET', `/customers/${theirs}/balance_entries`, { token: sa })).status).toBe(200);
    expect((await a.call('PUT', `/customers/${theirs}`, { token: sa, body: { shortName: 'TH' } })).status).toBe(200);
  });
});
