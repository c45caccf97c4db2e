import { Permission } from '@switchboard/contracts';
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
});
