import { ALL_PERMISSIONS, Permission } from '@switchboard/contracts';
import { IntercomServer, PipedriveServer, plainContacts } from '../src/testing';
import { startIntegrations, type IntegrationsTestApp, type Json } from './support';

/** `POST /integration_keys` (connect) and `PUT /integration_keys/{key}` (rename, replace the key) of spec 7. */
describe('POST and PUT /integration_keys', () => {
  let s: IntegrationsTestApp;
  let ic: IntercomServer;
  let pd: PipedriveServer;
  const acc = '61';
  const token = (perms?: readonly string[]) => s.member(acc, perms);
  const stored = async (key: string) => (await s.sql(`SELECT name, status, auth_mode, base_url, domain, company_name, credentials_sealed, updated_at FROM integrations.integration WHERE key = $1`, [key]))[0];

  beforeAll(async () => {
    ic = await new IntercomServer('ic-client', 'ic-secret', () => Date.now()).start();
    ic.contacts = plainContacts(3, '2026-03-01T00:00:00.000Z');
    pd = await new PipedriveServer('pd-client', 'pd-secret', () => Date.now()).start();
    s = await startIntegrations({
      endpoints: {
        intercom: { apiUrl: ic.url, authorizeUrl: `${ic.url}/oauth`, tokenUrl: `${ic.url}/auth/eagle/token` },
        pipedrive: { apiUrl: pd.url, authorizeUrl: `${pd.url}/oauth/authorize`, tokenUrl: `${pd.url}/oauth/token` },
      },
    });
  }, 60000);
  afterAll(async () => {
    await s?.close();
    await ic?.stop();
    await pd?.stop();
  });

  it('connects with a key checked by the vendor, and refuses bad input and a refused key without storing anything', async () => {
    const count = async () => Number((await s.sql(`SELECT count(*) AS n FROM integrations.integration WHERE account_id = $1`, [acc]))[0].n);
    const before = await count();
    const bad: Array<[unknown, string, string]> = [
      [{ type: 'salesforce', apiKey: 'valid-key' }, '0x1', 'type'],
      [{ type: 'intercom', apiKey: 'valid-key', extra: 1 }, '0x1', '(body)'],
      [{ type: 'intercom', apiKey: 'valid-key', baseUrl: 'not a url' }, '0x1', 'baseUrl'],
      [{ type: 'intercom', apiKey: 'valid-key', domain: 'acme' }, '0x1', 'domain'],
      [{ type: 'intercom', apiKey: 'refused-key' }, '0x15', ''],
    ];
    for (const [body, code, path] of bad) {
      const r = await s.call('POST', '/integration_keys', { token: token(), body });
      expect({ body, status: r.status, code: r.body.code }).toEqual({ body, status: 400, code });
      if (path) expect(r.body.violations.map((v: Json) => v.propertyPath)).toEqual([path]);
    }
    expect(await count()).toBe(before);

    const r = await s.call('POST', '/integration_keys', { token: token(), body: { type: 'intercom', name: 'Support desk', apiKey: 'valid-key' } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ authorizeUrl: null, integration: { type: 'intercom', name: 'Support desk', status: 'authorised', authMode: 'api_key', credentials: true, companyName: 'Acme Intercom' } });
    expect(JSON.stringify(await stored(r.body.key))).not.toContain('valid-key');
    expect(await count()).toBe(before + 1);
  });

  it('renames, and replaces the key only after the vendor accepted the new one', async () => {
    const { body } = await s.call('POST', '/integration_keys', { token: token(), body: { type: 'intercom', apiKey: 'valid-key' } });
    const key = body.key as string;
    const renamed = await s.call('PUT', `/integration_keys/${key}`, { token: token(), body: { name: '  Intercom EU  ' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ key, name: 'Intercom EU', status: 'authorised', credentials: true });

    const sealedBefore = (await stored(key)).credentials_sealed;
    ic.apiKeys.add('rotated-key');
    const rotated = await s.call('PUT', `/integration_keys/${key}`, { token: token(), body: { apiKey: 'rotated-key' } });
    expect(rotated.status).toBe(200);
    expect((await stored(key)).credentials_sealed).not.toBe(sealedBefore);
    // the old key is revoked at the vendor: the integration works with the new one
    ic.apiKeys.delete('valid-key');
    const fields = await s.call<Json[]>('GET', `/integration_keys/${key}/contact_fields`, { token: token() });
    expect(fields.status).toBe(200);
    expect(fields.body.length).toBeGreaterThan(0);
    ic.apiKeys.add('valid-key');
  });

  it('changes nothing on bad input or a refused key, and never moves a stored key to another host', async () => {
    const { body } = await s.call('POST', '/integration_keys', { token: token(), body: { type: 'intercom', name: 'Keep me', apiKey: 'valid-key' } });
    const key = body.key as string;
    const before = await stored(key);
    const bad: Array<[unknown, number, string, string[]]> = [
      [{}, 400, '0x1', ['(body)']],
      [{ name: '' }, 400, '0x1', ['name']],
      [{ name: 'x'.repeat(121) }, 400, '0x1', ['name']],
      [{ owner: 'me' }, 400, '0x1', ['(body)']],
      [{ baseUrl: 'https://collector.example.com' }, 400, '0x1', ['baseUrl']],
      [{ name: 'Renamed', baseUrl: 'https://collector.example.com' }, 400, '0x1', ['baseUrl']],
      [{ apiKey: 'refused-key', name: 'Renamed' }, 400, '0x15', []],
      [{ apiKey: 'valid-key', baseUrl: 'ftp://x.example.com' }, 400, '0x1', ['baseUrl']],
    ];
    for (const [b, status, code, paths] of bad) {
      const r = await s.call('PUT', `/integration_keys/${key}`, { token: token(), body: b });
      expect({ b, status: r.status, code: r.body.code }).toEqual({ b, status, code });
      if (paths.length) expect(r.body.violations.map((v: Json) => v.propertyPath)).toEqual(paths);
    }
    expect(await stored(key)).toEqual(before);
  });

  it("refuses another account's integration (404) and a member without the permission (403), changing nothing", async () => {
    const { body } = await s.call('POST', '/integration_keys', { token: token(), body: { type: 'intercom', name: 'Ours', apiKey: 'valid-key' } });
    const key = body.key as string;
    const before = await stored(key);
    const other = s.member('62');
    expect((await s.call('PUT', `/integration_keys/${key}`, { token: other, body: { name: 'Theirs' } })).status).toBe(404);
    expect((await s.call('PUT', `/integration_keys/${key}`, { token: other, body: { apiKey: 'valid-key' } })).status).toBe(404);
    expect((await s.call('GET', '/integration_keys', { token: other })).body.items.map((i: Json) => i.key)).not.toContain(key);
    const without = token(ALL_PERMISSIONS.filter((p) => p !== Permission.IntegrationView));
    expect((await s.call('PUT', `/integration_keys/${key}`, { token: without, body: { name: 'Nope' } })).status).toBe(403);
    expect((await s.call('POST', '/integration_keys', { token: without, body: { type: 'intercom', apiKey: 'valid-key' } })).status).toBe(403);
    expect((await s.call('PUT', `/integration_keys/${key}`, { body: { name: 'Nope' } })).status).toBe(401);
    expect(await stored(key)).toEqual(before);
  });

  it('keeps Pipedrive to the account admin (spec 6) on create and update', async () => {
    const notAdmin = token(ALL_PERMISSIONS.filter((p) => p !== Permission.TenantOwner));
    expect((await s.call('POST', '/integration_keys', { token: notAdmin, body: { type: 'pipedrive', apiKey: 'valid-key', domain: 'acme' } })).status).toBe(403);
    const r = await s.call('POST', '/integration_keys', { token: token(), body: { type: 'pipedrive', apiKey: 'valid-key', domain: 'acme' } });
    expect(r.status).toBe(201);
    const before = await stored(r.body.key);
    expect((await s.call('PUT', `/integration_keys/${r.body.key}`, { token: notAdmin, body: { name: 'Mine now' } })).status).toBe(403);
    expect(await stored(r.body.key)).toEqual(before);
    expect((await s.call('PUT', `/integration_keys/${r.body.key}`, { token: token(), body: { name: 'Pipedrive HQ' } })).body.name).toBe('Pipedrive HQ');
  });
});
