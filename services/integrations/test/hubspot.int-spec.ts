import { AgentsImported, ContactsSynced, IntegrationChanged, IntegrationListRequested, type ContactsSyncedData } from '@switchboard/contracts';
import { startIntegrations, type IntegrationsTestApp, type Json } from './support';
import { HubSpotServer } from '../src/testing';

/** HubSpot against a local server speaking its documented API: OAuth, refresh, paging, 429, incremental changes. */
describe('HubSpot connector', () => {
  let s: IntegrationsTestApp;
  let hs: HubSpotServer;
  let key: string;
  const token = () => s.member('31');

  beforeAll(async () => {
    let now = () => Date.now();
    hs = await new HubSpotServer('hs-client', 'hs-secret-value', () => now()).start();
    s = await startIntegrations({
      oauthClients: { hubspot: { clientId: 'hs-client', clientSecret: 'hs-secret-value' } },
      endpoints: { hubspot: { apiUrl: hs.url, authorizeUrl: `${hs.url}/oauth/authorize`, tokenUrl: `${hs.url}/oauth/v1/token` } },
    });
    now = () => s.clock.now().getTime();
    hs.addContacts(250);
  }, 60000);
  afterAll(async () => {
    await s?.close();
    await hs?.stop();
  });

  it('connects by OAuth: the authorisation URL, the code exchanged on the callback, the completion screen next', async () => {
    const r = await s.call('POST', '/integration_keys/manual_install', { token: token(), body: { type: 'hubspot' } });
    expect(r.status).toBe(201);
    key = r.body.key;
    const auth = new URL(r.body.authorizeUrl);
    expect(`${auth.origin}${auth.pathname}`).toBe(`${hs.url}/oauth/authorize`);
    expect(auth.searchParams.get('client_id')).toBe('hs-client');
    expect(auth.searchParams.get('redirect_uri')).toBe('http://console.test/api/integration_keys/oauth_callback');
    expect(auth.searchParams.get('scope')).toContain('crm.objects.contacts.read');
    expect(r.body.integration).toMatchObject({ status: 'pending', credentials: false });

    // the customer approves; HubSpot sends the browser back with a code and our state
    const code = hs.tokens.newCode();
    const cb = await s.call('GET', `/integration_keys/oauth_callback?code=${code}&state=${auth.searchParams.get('state')}`);
    expect(cb.status).toBe(200);
    expect(cb.text).toContain(`http://console.test/complete-integration/hubspot/${key}`);
    const got = await s.call('GET', `/integration_keys/${key}`, { token: token() });
    expect(got.body).toMatchObject({ status: 'authorised', credentials: true, companyName: 'HubSpot 4242', authMode: 'oauth' });

    // the state works once
    const again = await s.call('GET', `/integration_keys/oauth_callback?code=${hs.tokens.newCode()}&state=${auth.searchParams.get('state')}`);
    expect(again.text).toContain('/integration-connections?error=expired_or_unknown_state');
  });

  it('offers the CRM roles as profiles and validates the config (import mode required; profiles non-empty)', async () => {
    const cfg = await s.call('GET', `/integration_config/${key}`, { token: token() });
    expect(cfg.status).toBe(200);
    expect(cfg.body).toMatchObject({ status: 'success', data: { key, type: 'hubspot', company_name: 'HubSpot 4242', import_users: null, profiles: [{ id: '100', name: 'Sales' }, { id: '200', name: 'Support' }] } });

    const none = await s.call('POST', `/integration_config/${key}`, { token: token(), body: { space_name: 'Sales' } });
    expect(none.status).toBe(400);
    expect(none.body.violations.map((v: Json) => v.propertyPath)).toEqual(['import_users']);
    const empty = await s.call('POST', `/integration_config/${key}`, { token: token(), body: { import_users: { type: 'profiles', profiles: [] } } });
    expect(empty.status).toBe(400);
    expect(empty.body.violations.map((v: Json) => v.propertyPath)).toEqual(['import_users.profiles']);
    const unknown = await s.call('POST', `/integration_config/${key}`, { token: token(), body: { import_users: { type: 'profiles', profiles: ['999'] } } });
    expect(unknown.status).toBe(400);
    // nothing was saved by the refused calls
    expect((await s.call('GET', `/integration_config/${key}`, { token: token() })).body.data.import_users).toBeNull();

    const ok = await s.call('POST', `/integration_config/${key}`, { token: token(), body: { company_name: 'Acme', space_name: 'Sales', import_users: { type: 'profiles', profiles: ['100'] } } });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ company_name: 'Acme', space_name: 'Sales', import_users: { type: 'profiles', profiles: ['100'] }, import_teams: { type: 'profiles' } });
  });

  it('answers the contact fields and the filters they allow', async () => {
    const fields = await s.call<Json[]>('GET', `/integration_keys/${key}/contact_fields`, { token: token() });
    expect(fields.status).toBe(200);
    expect(fields.body.map((f) => f.name)).not.toContain('hs_secret_internal');
    expect(fields.body.find((f) => f.name === 'lifecyclestage')).toEqual({ name: 'lifecyclestage', label: 'Lifecycle Stage', type: 'enum', options: [{ value: 'lead', label: 'Lead' }, { value: 'customer', label: 'Customer' }] });
    const filters = await s.call<Json[]>('GET', `/integration_keys/${key}/contact_filters`, { token: token() });
    expect(filters.body.find((f) => f.field === 'lifecyclestage')?.operators).toEqual(['eq', 'neq', 'in', 'empty', 'not_empty']);
  });

  it('imports the chosen users and pages through every contact, pausing for a 429 exactly as long as Retry-After says', async () => {
    // contacts asked for two integration lists: all contacts, and customers only
    await s.publish(IntegrationListRequested, { accountId: '31', integrationKey: key, listId: 7, importListId: 70, filters: [], removed: false });
    await s.publish(IntegrationListRequested, { accountId: '31', integrationKey: key, listId: 8, importListId: 80, filters: [{ field: 'lifecyclestage', operator: 'eq', value: 'customer' }], removed: false });
    const start = await s.call('GET', `/integration_config/${key}/start`, { token: token() });
    expect(start.status).toBe(200);
    expect(start.body.data.sync).toMatchObject({ state: 'running', steps: [{ name: 'users', state: 'waiting' }, { name: 'contacts', state: 'waiting' }] });

    s.worker.pagesPerStep = 1;
    await s.worker.runOnce(); // users and the first page
    hs.rateLimitNext(1, 7);
    await s.worker.runOnce(); // the second page is answered 429
    let sync = (await s.call('GET', `/integration_keys/${key}/sync`, { token: token() })).body;
    expect(sync).toMatchObject({ state: 'paused', error: { code: 'RATE_LIMITED' }, retryAt: new Date(s.clock.now().getTime() + 7000).toISOString() });
    expect(sync.steps.find((x: Json) => x.name === 'users')).toMatchObject({ state: 'done', done: 1, total: 1, progress: 100 });
    expect(sync.steps.find((x: Json) => x.name === 'contacts')).toMatchObject({ state: 'paused', done: 100 });
    expect((await s.call('GET', `/integration_keys/${key}`, { token: token() })).body.status).toBe('paused');
    // not before the Retry-After
    s.clock.advance(6000);
    expect(await s.worker.runOnce()).toBe(0);
    s.clock.advance(1000);
    await s.worker.drain();
    sync = (await s.call('GET', `/integration_keys/${key}/sync`, { token: token() })).body;
    expect(sync).toMatchObject({ state: 'done', progress: 100, error: null });
    expect((await s.call('GET', `/integration_keys/${key}`, { token: token() })).body.status).toBe('active');
    await s.settle();

    const agents = s.data(AgentsImported);
    expect(agents).toHaveLength(1);
    expect(agents[0]).toMatchObject({ accountId: '31', integrationKey: key, spaceName: 'Sales', importTeams: 'profiles', last: true, agents: [{ externalId: '12', email: 'bob@acme.test', firstName: 'Bob', admin: false, profile: '100' }] });

    const batches = s.data(ContactsSynced);
    const all = batches.filter((b) => b.listId === 7);
    const customers = batches.filter((b) => b.listId === 8);
    const ids = (bs: ContactsSyncedData[]) => new Set(bs.flatMap((b) => b.upserts.map((u) => u.externalId)));
    expect(ids(all).size).toBe(250);
    expect(ids(customers).size).toBe(125);
    expect([...ids(customers)].every((id) => Number(id) % 2 === 1)).toBe(true);
    expect(all.every((b) => b.fullSync && b.upserts.length <= 500)).toBe(true);
    expect(all.at(-1)).toMatchObject({ last: true });
    expect(all.map((b) => b.seq)).toEqual([...all.map((b) => b.seq)].sort((a, z) => a - z));
    const first = all[0].upserts.find((u) => u.externalId === '1000');
    expect(first).toEqual({ externalId: '1000', phone: '+447911000000', firstName: 'First0', lastName: 'Last0', email: 'c0@example.com', fields: expect.objectContaining({ lifecyclestage: 'lead', firstname: 'First0' }) });
  });

  it('refreshes the expired access token and syncs a field change incrementally: only the changed contact', async () => {
    const before = s.data(ContactsSynced).length;
    s.clock.advance(31 * 60_000); // past the token's 30 minutes and the incremental interval
    const c = hs.contacts.find((x) => x.id === '1004') as { properties: Record<string, string | null> };
    c.properties.lifecyclestage = 'customer';
    c.properties.lastmodifieddate = new Date(s.clock.now().getTime() - 1000).toISOString();
    const tokenCalls = hs.calls.filter((x) => x.path === '/oauth/v1/token').length;
    await s.worker.drain();
    await s.settle();
    const refreshes = hs.calls.filter((x) => x.path === '/oauth/v1/token').slice(tokenCalls);
    expect(refreshes.map((x) => new URLSearchParams(x.body).get('grant_type'))).toEqual(['refresh_token']);
    const fresh = s.data(ContactsSynced).slice(before);
    expect(fresh.filter((b) => b.listId === 7)).toEqual([expect.objectContaining({ fullSync: false, last: false, deletes: [], upserts: [expect.objectContaining({ externalId: '1004', fields: expect.objectContaining({ lifecyclestage: 'customer' }) })] })]);
    // it now matches the customers list
    expect(fresh.filter((b) => b.listId === 8).flatMap((b) => b.upserts.map((u) => u.externalId))).toEqual(['1004']);
    // an unchanged run publishes nothing
    s.clock.advance(5 * 60_000 + 1);
    await s.worker.drain();
    await s.settle();
    expect(s.data(ContactsSynced).length).toBe(before + fresh.length);
  });

  it('pauses and retries through an outage instead of giving up, then catches up', async () => {
    const c = hs.contacts.find((x) => x.id === '1006') as { properties: Record<string, string | null> };
    c.properties.lifecyclestage = 'customer';
    c.properties.lastmodifieddate = new Date(s.clock.now().getTime() - 500).toISOString();
    s.clock.advance(5 * 60_000 + 1);
    hs.failNext(3, 503);
    await s.worker.runOnce();
    let row = (await s.call('GET', `/integration_keys/${key}`, { token: token() })).body;
    expect(row).toMatchObject({ status: 'paused', sync: { state: 'paused', error: { code: 'VENDOR_UNAVAILABLE' } } });
    const waits: number[] = [];
    for (let i = 0; i < 3; i++) {
      row = (await s.call('GET', `/integration_keys/${key}`, { token: token() })).body;
      if (row.status !== 'paused') break;
      const wait = Date.parse(row.sync.retryAt) - s.clock.now().getTime();
      waits.push(wait);
      s.clock.advance(wait);
      await s.worker.runOnce();
    }
    expect(waits).toEqual([5000, 10000, 20000]);
    expect((await s.call('GET', `/integration_keys/${key}`, { token: token() })).body.status).toBe('active');
    await s.settle();
    expect(s.data(ContactsSynced).filter((b) => b.listId === 8 && b.upserts.some((u) => u.externalId === '1006'))).toHaveLength(1);
    expect(await s.sql(`SELECT count(*)::int AS n FROM integrations.dead_letter`)).toEqual([{ n: 0 }]);
  });

  it('stops with "invalid token" when HubSpot refuses the credentials even after a refresh', async () => {
    hs.tokens.revokeAccess();
    hs.tokens.refresh.clear();
    s.clock.advance(5 * 60_000 + 1);
    await s.worker.drain();
    const row = (await s.call('GET', `/integration_keys/${key}`, { token: token() })).body;
    expect(row).toMatchObject({ status: 'error', sync: { state: 'failed', error: { code: 'INVALID_TOKEN' } } });
    const fields = await s.call('GET', `/integration_keys/${key}/contact_fields`, { token: token() });
    expect(fields.status).toBe(400);
    expect(fields.body.code).toBe('0x15');
  });

  it('checks a private app token before keeping it: a refused one is "invalid token" (0x15) and nothing is created', async () => {
    const bad = await s.call('POST', '/integration_keys/manual_install', { token: s.member('32'), body: { type: 'hubspot', apiKey: 'pat-na1-wrong' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: '0x15' });
    expect(bad.body.message).toContain('invalid token');
    expect((await s.call('GET', '/integration_keys', { token: s.member('32') })).body.total).toBe(0);
    const ok = await s.call('POST', '/integration_keys/manual_install', { token: s.member('32'), body: { type: 'hubspot', apiKey: 'pat-na1-valid' } });
    expect(ok.status).toBe(201);
    expect(ok.body.integration).toMatchObject({ status: 'authorised', authMode: 'api_key', credentials: true });
  });

  it('keeps every credential out of the events, the outbox, the read models and the API answers', async () => {
    await s.settle();
    const secrets = ['hs-secret-value', 'pat-na1-valid', ...hs.tokens.access.keys(), ...hs.tokens.refresh, 'hs-access-', 'hs-refresh-'];
    const events = JSON.stringify(s.events());
    const outbox = JSON.stringify(await s.sql(`SELECT * FROM integrations.outbox`));
    const tables = JSON.stringify(await s.sql(`SELECT key, sync, cursor, config, company_name FROM integrations.integration`)) + JSON.stringify(await s.sql(`SELECT * FROM integrations.crm_contact LIMIT 50`));
    const api = JSON.stringify((await s.call('GET', '/integration_keys', { token: token() })).body) + JSON.stringify((await s.call('GET', '/integration_keys', { token: s.member('32') })).body);
    for (const secret of secrets) {
      expect({ secret, events: events.includes(secret), outbox: outbox.includes(secret), tables: tables.includes(secret), api: api.includes(secret) }).toEqual({ secret, events: false, outbox: false, tables: false, api: false });
    }
    // and the sealed column opens only for its own integration
    const sealed = await s.sql<{ credentials_sealed: string }>(`SELECT credentials_sealed FROM integrations.integration WHERE credentials_sealed IS NOT NULL`);
    expect(sealed.length).toBeGreaterThan(0);
    for (const r of sealed) expect(r.credentials_sealed).toMatch(/^ps1:/);
    expect(s.data(IntegrationChanged).length).toBeGreaterThan(0);
  });
});
