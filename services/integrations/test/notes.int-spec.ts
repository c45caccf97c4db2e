import { Permission } from '@switchboard/contracts';
import { HubSpotServer, IntercomServer, MondayServer, PipedriveServer, plainContacts, ShopifyServer, ZohoServer, type LocalCrm } from '../src/testing';
import { startIntegrations, type IntegrationsTestApp, type Json } from './support';

type Server = LocalCrm | HubSpotServer;

interface Vendor {
  type: 'hubspot' | 'pipedrive' | 'zoho' | 'shopify' | 'intercom' | 'monday';
  make: (now: () => number) => Server;
  endpoints: (url: string) => { apiUrl: string; authorizeUrl: string; tokenUrl: string };
  domain?: string;
  /** A pasted key the vendor accepts (account B connects with it), or null: OAuth only. */
  apiKey: string | null;
  /** The mirrored contact id of contact n. */
  id: (n: number) => string;
  phone: (n: number) => string;
  /** The notes the vendor kept: contact id, text, the credential the call came with. */
  notes: (s: Server) => Array<{ contactId: string; text: string; token: string }>;
}

const local = (s: Server) => (s as LocalCrm).notes;
const VENDORS: Vendor[] = [
  {
    type: 'hubspot',
    make: (now) => new HubSpotServer('hs-client', 'hs-secret-value', now),
    endpoints: (u) => ({ apiUrl: u, authorizeUrl: `${u}/oauth/authorize`, tokenUrl: `${u}/oauth/v1/token` }),
    apiKey: 'pat-na1-valid',
    id: (n) => String(1000 + n),
    phone: (n) => `+4479${String(11000000 + n).padStart(8, '0')}`,
    notes: (s) => (s as HubSpotServer).notes.map((n) => ({ contactId: String((n.associations as Array<{ to: { id: string } }>)[0].to.id), text: n.properties.hs_note_body, token: n.token })),
  },
  { type: 'pipedrive', make: (now) => new PipedriveServer('pd-client', 'pd-client-secret', now), endpoints: (u) => ({ apiUrl: u, authorizeUrl: `${u}/oauth/authorize`, tokenUrl: `${u}/oauth/token` }), apiKey: 'valid-key', id: (n) => String(5000 + n), phone: (n) => `+4479${String(22000000 + n).padStart(8, '0')}`, notes: local },
  { type: 'zoho', make: (now) => new ZohoServer('zo-client', 'zo-client-secret', now), endpoints: (u) => ({ apiUrl: u, authorizeUrl: `${u}/oauth/v2/auth`, tokenUrl: `${u}/oauth/v2/token` }), apiKey: null, id: (n) => String(5000 + n), phone: (n) => `+4479${String(22000000 + n).padStart(8, '0')}`, notes: local },
  { type: 'shopify', make: (now) => new ShopifyServer('sh-client', 'sh-client-secret', now), endpoints: (u) => ({ apiUrl: `${u}/admin/api/2024-01`, authorizeUrl: `${u}/admin/oauth/authorize`, tokenUrl: `${u}/admin/oauth/access_token` }), domain: 'acme.myshopify.com', apiKey: 'valid-key', id: (n) => String(5000 + n), phone: (n) => `+4479${String(22000000 + n).padStart(8, '0')}`, notes: local },
  { type: 'intercom', make: (now) => new IntercomServer('ic-client', 'ic-client-secret', now), endpoints: (u) => ({ apiUrl: u, authorizeUrl: `${u}/oauth`, tokenUrl: `${u}/auth/eagle/token` }), apiKey: 'valid-key', id: (n) => `ic${5000 + n}`, phone: (n) => `+4479${String(22000000 + n).padStart(8, '0')}`, notes: local },
  { type: 'monday', make: (now) => new MondayServer('md-client', 'md-client-secret', now), endpoints: (u) => ({ apiUrl: u, authorizeUrl: `${u}/oauth2/authorize`, tokenUrl: `${u}/oauth2/token` }), domain: '4242', apiKey: 'valid-key', id: (n) => String(5000 + n), phone: (n) => `+4479${String(22000000 + n).padStart(8, '0')}`, notes: local },
];

/**
 * `POST /integration_keys/{key}/notes` (docs/decisions/0063, "Notes to the CRM"): a conversation's note reaches the
 * CRM contact through each vendor's documented note API (the local servers refuse anything else), only through the
 * caller's own integration, and an outage is a clear 503 that changes nothing and succeeds when retried.
 */
describe.each(VENDORS)('notes to $type', (v) => {
  let s: IntegrationsTestApp;
  let crm: Server;
  const A = '61';
  const B = '62';
  let keyA = '';
  let keyB = '';
  const at = '2026-03-01T00:00:00.000Z';

  const mirror = async (key: string, acc: string, n: number) => {
    const [row] = await s.sql<{ id: string }>(`SELECT id FROM integrations.integration WHERE key = $1`, [key]);
    await s.sql(
      `INSERT INTO integrations.crm_contact (integration_id, account_id, external_id, phone, first_name, last_name, email, fields, hash, seen_sync, updated_at) VALUES ($1, $2, $3, $4, 'First', 'Last', NULL, '{}', 'h', NULL, now())`,
      [row.id, acc, v.id(n), v.phone(n)],
    );
  };
  const note = (acc: string, key: string, body: Json, perms?: readonly string[]) => s.call('POST', `/integration_keys/${key}/notes`, { token: s.member(acc, perms), body });

  beforeAll(async () => {
    let now = () => Date.now();
    crm = await v.make(() => now()).start();
    if (crm instanceof HubSpotServer) crm.addContacts(10, at);
    else crm.contacts = plainContacts(10, at);
    const { clientId, clientSecret } = crm as unknown as { clientId: string; clientSecret: string };
    s = await startIntegrations({ oauthClients: { [v.type]: { clientId, clientSecret } }, endpoints: { [v.type]: v.endpoints(crm.url) } });
    now = () => s.clock.now().getTime();
    // account A connects by OAuth; account B by a pasted key where the vendor takes one
    const r = await s.call('POST', '/integration_keys/manual_install', { token: s.member(A), body: { type: v.type, domain: v.domain } });
    keyA = r.body.key;
    const state = new URL(r.body.authorizeUrl).searchParams.get('state');
    await s.call('GET', `/integration_keys/oauth_callback?code=${crm.tokens.newCode()}&state=${state}`);
    if (v.apiKey) {
      keyB = (await s.call('POST', '/integration_keys/manual_install', { token: s.member(B), body: { type: v.type, apiKey: v.apiKey, domain: v.domain } })).body.integration.key;
    } else {
      const rb = await s.call('POST', '/integration_keys/manual_install', { token: s.member(B), body: { type: v.type, domain: v.domain } });
      keyB = rb.body.key;
      await s.call('GET', `/integration_keys/oauth_callback?code=${crm.tokens.newCode()}&state=${new URL(rb.body.authorizeUrl).searchParams.get('state')}`);
    }
    // both accounts' mirrors know contact 4 (the same number); only B's knows contact 5
    await mirror(keyA, A, 4);
    await mirror(keyB, B, 4);
    await mirror(keyB, B, 5);
  }, 60000);
  afterAll(async () => {
    await s?.close();
    await crm?.stop();
  });

  it('puts the note on the CRM contact with the conversation\'s number, in the vendor\'s documented format', async () => {
    const r = await note(A, keyA, { phone: v.phone(4), text: 'Conversation closed: "thanks, see you Tuesday"' });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ integrationKey: keyA, externalIds: [v.id(4)] });
    expect(v.notes(crm).map((n) => [n.contactId, n.text])).toEqual([[v.id(4), 'Conversation closed: "thanks, see you Tuesday"']]);
    if (crm instanceof HubSpotServer) {
      expect(crm.notes[0]).toMatchObject({
        properties: { hs_note_body: 'Conversation closed: "thanks, see you Tuesday"', hs_timestamp: s.clock.now().toISOString() },
        associations: [{ to: { id: '1004' }, types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 202 }] }],
      });
    }
    if (v.type === 'pipedrive') {
      const call = crm.calls.find((c) => c.path === '/notes') as { body: string };
      expect(JSON.parse(call.body)).toEqual({ content: 'Conversation closed: "thanks, see you Tuesday"', person_id: 5004 });
    }
  });

  it('reaches account B\'s CRM only with B\'s credential and never another account\'s contact or integration', async () => {
    const before = v.notes(crm).length;
    const tokenA = v.notes(crm)[0].token;
    // A names B's integration, or a contact only B's mirror has: 404, nothing sent
    expect((await note(A, keyB, { phone: v.phone(4), text: 'from A' })).status).toBe(404);
    expect((await note(A, keyA, { externalId: v.id(5), text: 'from A' })).status).toBe(404);
    expect(v.notes(crm).length).toBe(before);
    // B's own note goes with B's credential, A's with A's
    expect((await note(B, keyB, { externalId: v.id(4), text: 'from B' })).status).toBe(201);
    const fresh = v.notes(crm).slice(before);
    expect(fresh.map((n) => n.text)).toEqual(['from B']);
    expect(fresh[0].token).not.toBe(tokenA);
    if (v.apiKey) expect(fresh[0].token).toBe(v.apiKey);
    expect(v.notes(crm).filter((n) => n.token === tokenA).map((n) => n.text)).not.toContain('from B');
  });

  it('answers a vendor outage with 503 and sends the note when retried', async () => {
    const before = v.notes(crm).length;
    crm.failNext(1, 503);
    const down = await note(A, keyA, { externalId: v.id(4), text: 'retry me' });
    expect(down.status).toBe(503);
    expect(JSON.stringify(down.body)).not.toMatch(/token|Bearer/i);
    expect(v.notes(crm).length).toBe(before);
    expect((await note(A, keyA, { externalId: v.id(4), text: 'retry me' })).status).toBe(201);
    expect(v.notes(crm).slice(before).map((n) => n.text)).toEqual(['retry me']);
  });

  it('refuses a bad note (0x1) or a caller without the inbox permission (403), sending nothing', async () => {
    const before = v.notes(crm).length;
    const both = await note(A, keyA, { phone: v.phone(4), externalId: v.id(4), text: 'x' });
    expect(both.status).toBe(400);
    expect(both.body.code).toBe('0x1');
    expect((await note(A, keyA, { phone: v.phone(4), text: '  ' })).status).toBe(400);
    expect((await note(A, keyA, { phone: v.phone(4), text: 'x' }, [Permission.IntegrationView])).status).toBe(403);
    expect((await note(A, keyA, { phone: '+441234567890', text: 'x' })).status).toBe(404);
    expect(v.notes(crm).length).toBe(before);
  });
});
