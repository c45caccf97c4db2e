import { Permission } from '@switchboard/contracts';
import { CUSTOM_SETTINGS_DEFAULTS, GEN_SETTINGS_DEFAULTS } from '../src';
import { startAccounts, violationPaths, type AccountsTestApp } from './support';

describe('customers: creation, settings, status and approval', () => {
  let a: AccountsTestApp;

  beforeAll(async () => {
    a = await startAccounts();
  });
  afterAll(async () => {
    await a?.close();
  });

  it('lets a super admin create an account with the spec fields, defaults and the currency sign', async () => {
    const res = await a.call('POST', '/customers', { token: a.superAdmin(), body: { name: 'Acme Trading', currency: 'USD', tps: 25 } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Acme Trading',
      shortName: 'AT',
      active: 1,
      status: 'active',
      balance: 0,
      balanceMicros: '0',
      currency: 'USD',
      currencySign: '$',
      tps: 25,
      customId: null,
      customSettings: CUSTOM_SETTINGS_DEFAULTS,
      genSettings: GEN_SETTINGS_DEFAULTS,
    });
    expect(res.body.portalId).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof res.body.id).toBe('number');

    const events = await a.events();
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'accounts.customer.created',
        accountId: String(res.body.id),
        data: expect.objectContaining({ accountId: String(res.body.id), name: 'Acme Trading', currency: 'USD', tps: 25, dailyLimit: 10_000, active: 1, status: 'active' }),
      }),
    );
  });

  it('shows EUR as € and an account to its own members', async () => {
    const id = await a.customer({ name: 'Euro Shop' });
    const res = await a.call('GET', `/customers/${id}`, { token: a.member(id, []) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: Number(id), name: 'Euro Shop', currency: 'EUR', currencySign: '€' });
  });

  it('refuses bad input with 400 0x1 and violations, creating nothing', async () => {
    const before = await a.sql<{ n: number }>('SELECT count(*)::int AS n FROM accounts.customer');
    const res = await a.call('POST', '/customers', {
      token: a.superAdmin(),
      body: { name: '  ', currency: 'XXY', tps: -1, customSettings: { allow_inbox: 'yes' }, colour: 'red' },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('0x1');
    expect(violationPaths(res.body)).toEqual(expect.arrayContaining(['colour', 'currency', 'name', 'tps']));
    const bad = await a.call('POST', '/customers', { token: a.superAdmin(), body: { name: 'Fine', customSettings: { allow_inbox: 'yes', nope: 1 } } });
    expect(bad.status).toBe(400);
    expect(violationPaths(bad.body)).toEqual(['customSettings.allow_inbox', 'customSettings.nope']);
    expect(await a.sql('SELECT count(*)::int AS n FROM accounts.customer')).toEqual(before);
  });

  it('lets members with SETTINGS_EDIT rename their account, and only super admins change TPS and settings', async () => {
    const id = await a.customer({ name: 'Rename Me' });
    const editor = a.member(id, [Permission.SettingsEdit]);

    const renamed = await a.call('PUT', `/customers/${id}`, { token: editor, body: { name: 'Renamed', shortName: 'RN' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Renamed', shortName: 'RN' });

    for (const body of [{ tps: 99 }, { customSettings: { allow_whatsapp: true } }, { genSettings: { allow_automations: true } }, { name: 'X', tps: 1 }]) {
      const res = await a.call('PUT', `/customers/${id}`, { token: editor, body });
      expect(res.status).toBe(403);
    }
    expect((await a.call('GET', `/customers/${id}`, { token: editor })).body).toMatchObject({ name: 'Renamed', tps: 10 });

    const sa = await a.call('PUT', `/customers/${id}`, {
      token: a.superAdmin(id),
      body: { tps: 99, customSettings: { allow_whatsapp: 1, streams_max_messages_per_day: 500 }, genSettings: { default_generative_service: 'ollama' } },
    });
    expect(sa.status).toBe(200);
    expect(sa.body).toMatchObject({ tps: 99, customSettings: { ...CUSTOM_SETTINGS_DEFAULTS, allow_whatsapp: true, streams_max_messages_per_day: 500 }, genSettings: { default_generative_service: 'ollama' } });

    const events = (await a.events()).filter((e) => e.type === 'accounts.customer.updated' && e.accountId === id);
    expect(events.at(-1)!.data).toMatchObject({ tps: 99, dailyLimit: 500, customSettings: expect.objectContaining({ allow_whatsapp: true }) });
  });

  it('refuses invalid settings with violations and changes nothing', async () => {
    const id = await a.customer();
    const res = await a.call('PUT', `/customers/${id}`, { token: a.superAdmin(id), body: { tps: 5, customSettings: { balance_limit: 'lots' }, genSettings: { default_generative_service: 'x' } } });
    expect(res.status).toBe(400);
    expect(violationPaths(res.body)).toEqual(['customSettings.balance_limit', 'genSettings.default_generative_service']);
    expect((await a.call('GET', `/customers/${id}`, { token: a.member(id) })).body.tps).toBe(10);
  });

  describe('status', () => {
    it('disables an account: every route answers 403 ACCESS_DENIED to its members, super admins still get in', async () => {
      const id = await a.customer({ name: 'Soon Disabled' });
      const owner = a.member(id);
      const res = await a.call('POST', '/customers/status', { token: a.superAdmin(), body: { customer_id: Number(id), status: 'disable' } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'disable' });

      const routes: Array<[string, string, unknown?]> = [
        ['GET', `/customers/${id}`],
        ['PUT', `/customers/${id}`, { name: 'x' }],
        ['GET', '/customers/dropdown'],
        ['POST', '/customers/get_dropdown_data', { entity: 'statuses' }],
        ['POST', '/customers/feature_access_request', { feature: 'allow_inbox', message: '' }],
        ['GET', '/daily_usage_and_limit'],
        ['GET', `/customers/${id}/balance_entries`],
        ['GET', '/countries'],
        ['GET', '/countries/1'],
        ['GET', '/countries/prices'],
        ['GET', '/countries/sending_hours'],
        ['PUT', '/countries/1', { availability: null }],
        ['GET', '/timezones'],
        ['GET', '/timezones/1'],
      ];
      for (const [method, path, body] of routes) {
        const r = await a.call(method, path, { token: owner, body });
        expect([method, path, r.status, r.body?.code]).toEqual([method, path, 403, 'ACCESS_DENIED']);
      }
      const sa = a.superAdmin(id);
      expect((await a.call('GET', `/customers/${id}`, { token: sa })).status).toBe(200);
      expect((await a.call('GET', '/daily_usage_and_limit', { token: sa })).status).toBe(200);
    });

    it('emits the new snapshot with the previous status and tells the account live', async () => {
      const id = await a.customer();
      await a.call('POST', '/customers/status', { token: a.superAdmin(), body: { customer_id: String(id), status: 'restrict' } });
      const events = (await a.events()).filter((e) => e.type === 'accounts.customer.updated' && e.accountId === id);
      expect(events.at(-1)!.data).toMatchObject({ accountId: id, status: 'restrict', previousStatus: 'active' });
      expect(a.live).toContainEqual(expect.objectContaining({ subject: `rt.${id}.accounts`, type: 'customer.status_changed', data: { id: Number(id), status: 'restrict', previousStatus: 'active' } }));
    });

    it('keeps a restricted account open to its members, showing its status', async () => {
      const id = await a.customer();
      await a.call('POST', '/customers/status', { token: a.superAdmin(), body: { customer_id: id, status: 'restrict' } });
      const res = await a.call('GET', `/customers/${id}`, { token: a.member(id) });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('restrict');
    });

    it('closes a deleted account too, and reopens one set active again', async () => {
      const id = await a.customer();
      const owner = a.member(id);
      await a.call('POST', '/customers/status', { token: a.superAdmin(), body: { customer_id: id, status: 'delete' } });
      expect((await a.call('GET', `/customers/${id}`, { token: owner })).status).toBe(403);
      await a.call('POST', '/customers/status', { token: a.superAdmin(), body: { customer_id: id, status: 'active' } });
      // the service itself reopens at once; every process's guard follows the status event shortly after
      let status = 0;
      for (let i = 0; i < 50 && status !== 200; i++) {
        status = (await a.call('GET', `/customers/${id}`, { token: owner })).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 50));
      }
      expect(status).toBe(200);
    });

    it('refuses an unknown status or account', async () => {
      const id = await a.customer();
      const bad = await a.call('POST', '/customers/status', { token: a.superAdmin(), body: { customer_id: id, status: 'paused' } });
      expect(bad.status).toBe(400);
      expect(violationPaths(bad.body)).toEqual(['status']);
      expect((await a.call('POST', '/customers/status', { token: a.superAdmin(), body: { customer_id: 987654, status: 'active' } })).status).toBe(404);
      expect((await a.call('POST', '/customers/status', { token: a.superAdmin(), body: { customer_id: 'abc', status: 'active' } })).status).toBe(400);
    });
  });

  it('approves a new account (active 0 -> 1) once', async () => {
    const id = await a.customer({ active: 0 });
    const res = await a.call('POST', '/customers/superadmin/approve', { token: a.superAdmin(), body: { customer_id: Number(id) } });
    expect(res.status).toBe(200);
    expect(res.body.active).toBe(1);
    const again = await a.call('POST', '/customers/superadmin/approve', { token: a.superAdmin(), body: { customer_id: Number(id) } });
    expect(again.status).toBe(200);
    const updates = (await a.events()).filter((e) => e.type === 'accounts.customer.updated' && e.accountId === id);
    expect(updates).toHaveLength(1);
    expect(updates[0].data).toMatchObject({ active: 1 });
  });

  it('lists every account for super admins with filters, paging and {items,total}', async () => {
    const tag = `Zeta${Date.now()}`;
    const ids = [await a.customer({ name: `${tag} One` }), await a.customer({ name: `${tag} Two`, active: 0 }), await a.customer({ name: `${tag} Three` })];
    await a.call('POST', '/customers/status', { token: a.superAdmin(), body: { customer_id: ids[2], status: 'disable' } });

    const all = await a.call<{ items: Array<{ id: number; name: string }>; total: number }>('POST', '/customers/superadmin/all', { token: a.superAdmin(), body: { search: tag, order: { name: 'asc' } } });
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(3);
    expect(all.body.items.map((c) => c.name)).toEqual([`${tag} One`, `${tag} Three`, `${tag} Two`]);

    const pending = await a.call<{ items: Array<{ id: number }>; total: number }>('POST', '/customers/superadmin/all', { token: a.superAdmin(), body: { search: tag, active: 0 } });
    expect(pending.body.items.map((c) => String(c.id))).toEqual([ids[1]]);
    const disabled = await a.call<{ total: number }>('POST', '/customers/superadmin/all', { token: a.superAdmin(), body: { search: tag, status: ['disable'] } });
    expect(disabled.body.total).toBe(1);
    const page2 = await a.call<{ items: unknown[]; total: number }>('POST', '/customers/superadmin/all', { token: a.superAdmin(), body: { search: tag, page: 2, itemsPerPage: 2 } });
    expect(page2.body).toMatchObject({ total: 3 });
    expect(page2.body.items).toHaveLength(1);

    const bad = await a.call('POST', '/customers/superadmin/all', { token: a.superAdmin(), body: { order: { password: 'asc' } } });
    expect(bad.status).toBe(400);
  });

  it('gives super admins every live account in the dropdown and members only their own', async () => {
    const tag = `Drop${Date.now()}`;
    const mine = await a.customer({ name: `${tag} Mine` });
    const gone = await a.customer({ name: `${tag} Gone` });
    await a.call('POST', '/customers/status', { token: a.superAdmin(), body: { customer_id: gone, status: 'delete' } });

    const sa = await a.call<{ items: Array<{ id: number; name: string }>; total: number }>('GET', `/customers/dropdown?search=${tag}`, { token: a.superAdmin() });
    expect(sa.body).toEqual({ items: [{ id: Number(mine), name: `${tag} Mine`, shortName: expect.any(String), status: 'active', active: 1 }], total: 1 });

    const member = await a.call('GET', '/customers/dropdown', { token: a.member(mine, []) });
    expect(member.body).toEqual({ items: [expect.objectContaining({ id: Number(mine) })], total: 1 });
  });

  it('answers get_dropdown_data for each entity and refuses an unknown one', async () => {
    const id = await a.customer();
    const token = a.member(id, []);
    const statuses = await a.call<{ items: Array<{ key: string }> }>('POST', '/customers/get_dropdown_data', { token, body: { entity: 'statuses' } });
    expect(statuses.status).toBe(200);
    expect(statuses.body.items.map((o) => o.key)).toEqual(['active', 'restrict', 'disable', 'delete']);
    const services = await a.call<{ items: Array<{ value: string }> }>('POST', '/customers/get_dropdown_data', { token, body: { entity: 'generative_services' } });
    expect(services.body.items.map((o) => o.value)).toEqual(['openai', 'gemini', 'ollama']);
    const countries = await a.call<{ items: Array<{ key: string; text: string }> }>('POST', '/customers/get_dropdown_data', { token, body: { entity: 'countries', search: 'france' } });
    expect(countries.body.items).toContainEqual(expect.objectContaining({ key: 'FR', text: 'France' }));
    const currencies = await a.call<{ items: Array<{ key: string; text: string }> }>('POST', '/customers/get_dropdown_data', { token, body: { entity: 'currencies', search: 'eur' } });
    expect(currencies.body.items).toContainEqual({ key: 'EUR', text: 'EUR (€)', value: 'EUR' });
    for (const entity of ['customers', 'timezones', 'features']) {
      const r = await a.call<{ total: number }>('POST', '/customers/get_dropdown_data', { token, body: { entity } });
      expect([entity, r.status, r.body.total > 0]).toEqual([entity, 200, true]);
    }
    const bad = await a.call('POST', '/customers/get_dropdown_data', { token, body: { entity: 'passwords' } });
    expect(bad.status).toBe(400);
    expect(violationPaths(bad.body)).toEqual(['entity']);
  });

  describe('feature access requests', () => {
    it('accepts a request (201), answers a repeat with 409 "already sent", and publishes it', async () => {
      const id = await a.customer();
      const token = a.member(id, [], '77');
      const first = await a.call('POST', '/customers/feature_access_request', { token, body: { feature: 'allow_whatsapp', message: 'We need WhatsApp' } });
      expect(first.status).toBe(201);
      expect(first.body).toMatchObject({ feature: 'allow_whatsapp', message: 'We need WhatsApp', status: 'accepted' });
      const again = await a.call('POST', '/customers/feature_access_request', { token, body: { feature: 'allow_whatsapp', message: 'Please' } });
      expect(again.status).toBe(409);
      expect((await a.call('POST', '/customers/feature_access_request', { token, body: { feature: 'allow_inbox' } })).status).toBe(201);

      const events = (await a.events()).filter((e) => e.type === 'accounts.feature_access.requested' && e.accountId === id);
      expect(events.map((e) => e.data)).toEqual([
        expect.objectContaining({ feature: 'allow_whatsapp', userId: '77', message: 'We need WhatsApp' }),
        expect.objectContaining({ feature: 'allow_inbox', message: '' }),
      ]);
    });

    it('refuses a malformed feature', async () => {
      const id = await a.customer();
      const res = await a.call('POST', '/customers/feature_access_request', { token: a.member(id), body: { feature: 'drop table;', message: 1 } });
      expect(res.status).toBe(400);
      expect(violationPaths(res.body)).toEqual(['feature', 'message']);
    });

    it('mails the configured recipients', async () => {
      const b = await startAccounts({ featureRequestRecipients: ['ops@example.com'], syncCountries: false });
      try {
        const id = await b.customer({ name: 'Mailing Co' });
        expect((await b.call('POST', '/customers/feature_access_request', { token: b.member(id), body: { feature: 'allow_inbox', message: 'hi' } })).status).toBe(201);
        expect(b.t.mailbox.list()).toEqual([expect.objectContaining({ to: 'ops@example.com', subject: 'Feature access request: allow_inbox for Mailing Co' })]);
      } finally {
        await b.close();
      }
    });
  });

  describe('seeding', () => {
    it('creates the demo account once, credited, and publishes it', async () => {
      const first = await a.seed.seed({ demoAccountName: 'Demo Seed' });
      const second = await a.seed.seed({ demoAccountName: 'Demo Seed' });
      expect(first).toMatchObject({ created: true, snapshot: expect.objectContaining({ name: 'Demo Seed', status: 'active', active: 1 }) });
      expect(second).toMatchObject({ created: false, demoAccountId: first.demoAccountId });
      const res = await a.call('GET', `/customers/${first.demoAccountId}`, { token: a.member(first.demoAccountId) });
      expect(res.body).toMatchObject({ name: 'Demo Seed', balance: 100, currencySign: '€' });
      const events = (await a.events()).filter((e) => e.accountId === first.demoAccountId);
      expect(events.map((e) => e.type)).toEqual(['accounts.customer.created', 'accounts.balance.adjusted']);
    });
  });
});
