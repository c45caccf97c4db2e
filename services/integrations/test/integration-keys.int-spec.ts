import { ALL_PERMISSIONS, Permission } from '@switchboard/contracts';
import { startIntegrations, type IntegrationsTestApp, type Json } from './support';

describe('integration_keys and integration_config', () => {
  let s: IntegrationsTestApp;
  beforeAll(async () => {
    s = await startIntegrations();
  }, 60000);
  afterAll(() => s?.close());

  it('says which vendors can be connected and that OAuth has no app configured here, instead of pretending', async () => {
    const r = await s.call<Json[]>('GET', '/integration_keys/manual_install', { token: s.member('1') });
    expect(r.status).toBe(200);
    expect(r.body.map((o) => o.type).sort()).toEqual(['dialer', 'hubspot', 'intercom', 'monday', 'pipedrive', 'shopify', 'zoho']);
    expect(r.body.find((o) => o.type === 'pipedrive')).toMatchObject({ adminOnly: true });
    const install = await s.call('POST', '/integration_keys/manual_install', { token: s.member('1'), body: { type: 'zoho' } });
    expect(install.status).toBe(400);
    expect(install.body.code).toBe('0x1');
  });

  it('issues the dialer its integration token once and keeps only its hash', async () => {
    const r = await s.call('POST', '/integration_keys/manual_install', { token: s.member('1'), body: { type: 'dialer', name: 'Office dialer' } });
    expect(r.status).toBe(201);
    expect(r.body.token).toMatch(/^dk_/);
    expect(r.body.integration).toMatchObject({ type: 'dialer', name: 'Office dialer', status: 'active' });
    const stored = await s.sql(`SELECT token_hash, credentials_sealed FROM integrations.integration WHERE key = $1`, [r.body.key]);
    expect(JSON.stringify(stored)).not.toContain(r.body.token);
    const got = await s.call('GET', `/integration_keys/${r.body.key}`, { token: s.member('1') });
    expect(got.text).not.toContain(r.body.token);
  });

  it("never shows one account another account's integrations", async () => {
    const a = await s.call('POST', '/integration_keys/manual_install', { token: s.member('1'), body: { type: 'dialer' } });
    const key = a.body.key as string;
    const b = s.member('2');
    expect((await s.call('GET', `/integration_keys/${key}`, { token: b })).status).toBe(404);
    expect((await s.call('GET', `/integration_config/${key}`, { token: b })).status).toBe(404);
    expect((await s.call('DELETE', `/integration_keys/${key}`, { token: b })).status).toBe(404);
    const list = await s.call('GET', '/integration_keys', { token: b });
    expect(list.body.items.map((i: Json) => i.key)).not.toContain(key);
  });

  it('refuses a member without INTEGRATION_VIEW on every route', async () => {
    const token = s.member('1', [Permission.InboxView]);
    for (const [m, p] of [['GET', '/integration_keys'], ['GET', '/integration_keys/manual_install'], ['POST', '/integration_keys/manual_install'], ['GET', '/integration_keys/dropdown']] as const) {
      expect({ m, p, status: (await s.call(m, p, { token, body: m === 'POST' ? { type: 'dialer' } : undefined })).status }).toEqual({ m, p, status: 403 });
    }
  });

  it('refuses every route without its permission (403) and answers it with that permission', async () => {
    const dialer = await s.call('POST', '/integration_keys/manual_install', { token: s.member('1'), body: { type: 'dialer' } });
    const key = dialer.body.key as string;
    const conv = await s.call('POST', '/integration_keys/dialer/conversation', { headers: { 'x-integration-token': dialer.body.token }, body: { phone: '+447911123456' } });
    const routes: Array<[string, string, string, unknown?]> = [
      ['GET', '/integration_keys', Permission.IntegrationView],
      ['GET', '/integration_keys/manual_install', Permission.IntegrationView],
      ['POST', '/integration_keys/manual_install', Permission.IntegrationView, { type: 'dialer' }],
      ['GET', '/integration_keys/dropdown', Permission.IntegrationView],
      ['POST', '/integration_keys', Permission.IntegrationView, { type: 'dialer' }],
      ['GET', `/integration_keys/${key}`, Permission.IntegrationView],
      ['PUT', `/integration_keys/${key}`, Permission.IntegrationView, { name: 'Office dialer' }],
      ['GET', `/integration_keys/${key}/sync`, Permission.IntegrationView],
      ['GET', `/integration_keys/${key}/contact_fields`, Permission.IntegrationView],
      ['GET', `/integration_keys/${key}/contact_filters`, Permission.IntegrationView],
      ['GET', `/integration_config/${key}`, Permission.IntegrationView],
      ['POST', `/integration_config/${key}`, Permission.IntegrationView, { import_users: { type: 'all' } }],
      ['GET', `/integration_config/${key}/start`, Permission.IntegrationView],
      ['GET', `/integration_keys/dialer_contacts/${conv.body.contactKey}`, Permission.InboxNewConversation],
      ['GET', '/integration_keys/contact_lookup?phone=%2B447911123456', Permission.InboxView],
      ['DELETE', `/integration_keys/${key}`, Permission.IntegrationView],
    ];
    for (const [m, p, perm, body] of routes) {
      const without = await s.call(m, p, { token: s.member('1', ALL_PERMISSIONS.filter((x) => x !== perm)), body });
      expect({ m, p, status: without.status }).toEqual({ m, p, status: 403 });
      const withIt = await s.call(m, p, { token: s.member('1', [perm]), body });
      expect({ m, p, allowed: withIt.status < 300 || withIt.status === 400 }).toEqual({ m, p, allowed: true });
    }
    expect((await s.call('GET', '/integration_keys'))).toMatchObject({ status: 401 });
  });

  it('lets the dialer open a conversation in one click with its integration token, inside its own account only', async () => {
    const d = await s.call('POST', '/integration_keys/manual_install', { token: s.member('1'), body: { type: 'dialer' } });
    const noToken = await s.call('POST', '/integration_keys/dialer/conversation', { body: { phone: '+447911123456' } });
    expect(noToken).toMatchObject({ status: 401, body: { code: '0x15' } });
    const wrong = await s.call('POST', '/integration_keys/dialer/conversation', { headers: { 'x-integration-token': 'dk_forged' }, body: { phone: '+447911123456' } });
    expect(wrong).toMatchObject({ status: 401, body: { code: '0x15' } });
    const bad = await s.call('POST', '/integration_keys/dialer/conversation', { headers: { 'x-integration-token': d.body.token }, body: { phone: 'not a phone' } });
    expect(bad.status).toBe(400);
    const r = await s.call('POST', '/integration_keys/dialer/conversation', { headers: { 'x-integration-token': d.body.token }, body: { phone: '+447911123456', name: 'Jane Caller' } });
    expect(r.status).toBe(201);
    expect(r.body.url).toBe(`http://console.test/inbox?action=newDialerConv&contact_key=${r.body.contactKey}`);
    const c = await s.call('GET', `/integration_keys/dialer_contacts/${r.body.contactKey}`, { token: s.member('1') });
    expect(c.body).toMatchObject({ phone: '+447911123456', name: 'Jane Caller', integrationKey: d.body.key });
    expect((await s.call('GET', `/integration_keys/dialer_contacts/${r.body.contactKey}`, { token: s.member('2') })).status).toBe(404);
    // removed: its token stops working
    await s.call('DELETE', `/integration_keys/${d.body.key}`, { token: s.member('1') });
    expect((await s.call('POST', '/integration_keys/dialer/conversation', { headers: { 'x-integration-token': d.body.token }, body: { phone: '+447911123456' } })).status).toBe(401);
  });

  it("shows the inbox the CRM contact by phone, from the account's own integrations only", async () => {
    const [row] = await s.sql<{ id: string }>(
      `INSERT INTO integrations.integration (key, account_id, type, name, status, auth_mode, domain, sync, created_at, updated_at)
       VALUES (gen_random_uuid(), 1, 'pipedrive', 'Pipedrive', 'active', 'api_key', 'acme', '{}', now(), now()) RETURNING id`,
    );
    await s.sql(`INSERT INTO integrations.crm_contact (integration_id, external_id, account_id, phone, first_name, last_name, email, fields, hash, updated_at) VALUES ($1, '77', 1, '+44 7911 555666', 'Jane', 'Doe', 'jane@example.com', '{"stage":"customer"}', 'h', now())`, [row.id]);
    const r = await s.call<Json[]>('GET', '/integration_keys/contact_lookup?phone=%2B447911555666', { token: s.member('1') });
    expect(r.body).toEqual([expect.objectContaining({ type: 'pipedrive', externalId: '77', name: 'Jane Doe', email: 'jane@example.com', url: 'https://acme.pipedrive.com/person/77', fields: { stage: 'customer' } })]);
    expect((await s.call<Json[]>('GET', '/integration_keys/contact_lookup?phone=%2B447911555666', { token: s.member('2') })).body).toEqual([]);
  });
});
