import { Pool } from 'pg';
import { ALL_PERMISSIONS, ContactsSynced } from '@switchboard/contracts';
import { InMemoryEventBus, type OutgoingEvent } from '@switchboard/platform';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { ContactsModule, ContactsOutboxRelay } from '@switchboard/contacts';
import { IntegrationsModule, IntegrationsOutboxRelay, ManualClock, SyncWorker } from '@switchboard/integrations';
import { HubSpotServer } from '@switchboard/integrations/testing';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers are read field by field

/**
 * Contacts and integrations booted together, as the embedded server runs them, against a local HubSpot: POST
 * /import_lists/integration makes an integration list that fills from the CRM and stays in sync (a field change, a
 * phone change, a deletion), filterable by the CRM's own fields, each batch applied once.
 */
describe('integration lists: a CRM kept in sync as a contact list', () => {
  let t: TestApp;
  let pool: Pool;
  let hs: HubSpotServer;
  let hs2: HubSpotServer;
  const clock = new ManualClock(Date.parse('2026-03-02T10:00:00Z'));
  const published: OutgoingEvent[] = [];
  let key = '';

  const token = (acc = '41') => t.token({ sub: `${acc}01`, acc, perms: [...ALL_PERMISSIONS] });
  const call = async (method: string, path: string, body?: unknown, acc = '41'): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${t.url}/api${path}`, { method, headers: { authorization: `Bearer ${token(acc)}`, accept: 'application/json', 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
  };
  const settle = async () => {
    const bus = t.bus as InMemoryEventBus;
    for (let i = 0; i < 4; i++) {
      await t.app.get(ContactsOutboxRelay).relay.flush();
      await t.app.get(IntegrationsOutboxRelay).relay.flush();
      await bus.drain();
    }
  };
  const sync = async () => {
    await settle();
    await t.app.get(SyncWorker).drain();
    await settle();
  };
  const sql = async <R = Json>(text: string, values: unknown[] = []) => (await pool.query(text, values)).rows as R[];
  const members = (listId: number) => sql<{ phone: string }>(`SELECT normalized_phone AS phone FROM contacts.contact WHERE account_id = 41 AND list_ids @> ARRAY[$1::bigint] ORDER BY 1`, [listId]);

  beforeAll(async () => {
    hs = await new HubSpotServer('hs-client', 'hs-secret-value', () => clock.now().getTime()).start();
    hs.addContacts(120);
    hs2 = await new HubSpotServer('hs-client', 'hs-secret-value', () => clock.now().getTime()).start();
    hs2.addContacts(120);
    t = await createTestApp(() => ({
      imports: [ContactsModule.register({ migrationsRun: true }), IntegrationsModule.register({ secret: 'integration-lists-test-secret', appUrl: 'http://console.test', clock, allowPrivateUrls: true, pollMs: 0, endpoints: { hubspot: { apiUrl: hs.url } } })],
    }));
    const bus = t.bus as InMemoryEventBus;
    const original = bus.publish.bind(bus);
    bus.publish = async (events) => {
      published.push(...events);
      return original(events);
    };
    pool = new Pool({ connectionString: t.db.url, max: 2 });
    const r = await call('POST', '/integration_keys/manual_install', { type: 'hubspot', apiKey: 'pat-na1-valid' });
    expect(r.status).toBe(201);
    key = r.body.key;
    expect((await call('POST', `/integration_config/${key}`, { import_users: { type: 'admins' } })).status).toBe(200);
    expect((await call('GET', `/integration_config/${key}/start`)).status).toBe(200);
    await sync();
  }, 90000);

  afterAll(async () => {
    await pool?.end();
    await t?.close();
    await hs?.stop();
    await hs2?.stop();
  });

  let all = 0;
  let customers = 0;

  it('creates an import list and a contact list of type integration that fill from the CRM and become ready', async () => {
    const r = await call('POST', '/import_lists/integration', { integrationKey: key, name: 'HubSpot all' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ type: 'integration', name: 'HubSpot all', integrationKey: key, status: 'processing' });
    all = r.body.contactList;
    await sync();
    const list = await call('GET', `/contact_lists/${all}`);
    expect(list.body).toMatchObject({ type: 'integration', status: 2, numOfContacts: 120 });
    expect((await call('GET', `/import_lists/${r.body.id}`)).body).toMatchObject({ status: 'parsed', numberOfContacts: 120 });
    // the CRM's fields are contact variables of the account
    const vars = await sql<{ name: string }>(`SELECT name FROM contacts.variable WHERE account_id = 41 AND name LIKE 'hubspot_%' ORDER BY name`);
    expect(vars.map((v) => v.name)).toEqual(expect.arrayContaining(['hubspot_lifecyclestage', 'hubspot_firstname']));
    const [c] = await sql<{ variables: Record<string, string> }>(`SELECT variables FROM contacts.contact WHERE account_id = 41 AND normalized_phone = '+447911000001'`);
    const lifecycle = await sql<{ id: string }>(`SELECT id::text FROM contacts.variable WHERE account_id = 41 AND name = 'hubspot_lifecyclestage'`);
    expect(c.variables[lifecycle[0].id]).toBe('customer');
  });

  it("filters by the CRM's own fields", async () => {
    const r = await call('POST', '/import_lists/integration', { integrationKey: key, name: 'Customers', filters: [{ field: 'lifecyclestage', operator: 'eq', value: 'customer' }] });
    expect(r.status).toBe(201);
    customers = r.body.contactList;
    await sync();
    expect((await call('GET', `/contact_lists/${customers}`)).body).toMatchObject({ status: 2, numOfContacts: 60 });
  });

  it('follows a field change, a phone change and a deletion', async () => {
    const lead = hs.contacts.find((x) => x.id === '1000') as { properties: Record<string, string | null> };
    lead.properties.lifecyclestage = 'customer';
    lead.properties.lastmodifieddate = new Date(clock.now().getTime() + 1000).toISOString();
    const mover = hs.contacts.find((x) => x.id === '1003') as { properties: Record<string, string | null> };
    mover.properties.mobilephone = '+447911123456';
    mover.properties.lastmodifieddate = new Date(clock.now().getTime() + 1000).toISOString();
    clock.advance(5 * 60_000 + 2000);
    await sync();
    expect((await members(customers)).map((m) => m.phone)).toEqual(expect.arrayContaining(['+447911000000', '+447911123456']));
    expect((await members(customers)).map((m) => m.phone)).not.toContain('+447911000003');
    expect((await call('GET', `/contact_lists/${customers}`)).body.numOfContacts).toBe(61);
    expect((await call('GET', `/contact_lists/${all}`)).body.numOfContacts).toBe(120);

    // deleted in the CRM: gone from the lists at the next full sync
    hs.contacts = hs.contacts.filter((x) => x.id !== '1005');
    expect((await call('GET', `/integration_config/${key}/start`)).status).toBe(200);
    await sync();
    expect((await members(all)).map((m) => m.phone)).not.toContain('+447911000005');
    expect((await call('GET', `/contact_lists/${all}`)).body.numOfContacts).toBe(119);
    expect((await call('GET', `/contact_lists/${customers}`)).body.numOfContacts).toBe(60);
  });

  it("removes a contact deleted in HubSpot from the lists at the next incremental sync; nothing else changes, another account's list is untouched", async () => {
    // another account's integration list, synced from its own HubSpot portal holding the same contacts
    const other = await call('POST', '/integration_keys/manual_install', { type: 'hubspot', apiKey: 'pat-na1-valid', baseUrl: hs2.url }, '43');
    expect(other.status).toBe(201);
    expect((await call('POST', `/integration_config/${other.body.key}`, { import_users: { type: 'admins' } }, '43')).status).toBe(200);
    expect((await call('GET', `/integration_config/${other.body.key}/start`, undefined, '43')).status).toBe(200);
    await sync();
    const theirs = (await call('POST', '/import_lists/integration', { integrationKey: other.body.key, name: 'Their HubSpot' }, '43')).body.contactList as number;
    await sync();
    const otherMembers = () => sql<{ phone: string }>(`SELECT normalized_phone AS phone FROM contacts.contact WHERE account_id = 43 AND list_ids @> ARRAY[$1::bigint] ORDER BY 1`, [theirs]);
    const otherBefore = await otherMembers();
    expect(otherBefore).toHaveLength(120);
    const allBefore = await members(all);
    const customersBefore = await members(customers);
    expect(customersBefore.map((m) => m.phone)).toContain('+447911000009');

    // deleted (archived) in account 41's HubSpot, beside more than a page of contacts archived long ago
    for (let i = 0; i < 150; i++) hs.archived.push({ id: String(9000 + i), properties: { lastmodifieddate: '2026-01-01T00:00:00.000Z' }, archivedAt: '2026-01-02T00:00:00.000Z' });
    hs.archive('1009', new Date(clock.now().getTime() + 1000).toISOString());
    clock.advance(5 * 60_000 + 2000);
    hs.rateLimitNext(1, 3);
    await sync();
    clock.advance(3000);
    await sync();

    const gone = (rows: Array<{ phone: string }>) => rows.filter((m) => m.phone !== '+447911000009');
    expect(await members(all)).toEqual(gone(allBefore));
    expect(await members(customers)).toEqual(gone(customersBefore));
    expect((await call('GET', `/contact_lists/${all}`)).body.numOfContacts).toBe(allBefore.length - 1);
    expect((await call('GET', `/contact_lists/${customers}`)).body.numOfContacts).toBe(customersBefore.length - 1);
    // the contact itself stays in the account's contacts (only its membership of the integration lists goes)
    expect(await sql(`SELECT 1 FROM contacts.contact WHERE account_id = 41 AND normalized_phone = '+447911000009'`)).toHaveLength(1);
    expect(await otherMembers()).toEqual(otherBefore);
    expect((await call('GET', `/contact_lists/${theirs}`, undefined, '43')).body.numOfContacts).toBe(120);
  });

  it('applies a redelivered batch once', async () => {
    const batch = published.filter((e) => e.type === ContactsSynced.type).at(-1) as OutgoingEvent;
    const before = await members(all);
    await (t.bus as InMemoryEventBus).publish([batch]);
    await (t.bus as InMemoryEventBus).drain();
    expect(await members(all)).toEqual(before);
  });

  it('stops syncing a deleted integration list', async () => {
    expect((await call('DELETE', `/contact_lists/${customers}`)).status).toBe(204);
    await settle();
    expect(await sql(`SELECT list_id FROM integrations.synced_list WHERE list_id = $1`, [customers])).toEqual([]);
    const before = published.filter((e) => e.type === ContactsSynced.type && (e.data as { listId: number }).listId === customers).length;
    hs.contacts.find((x) => x.id === '1007')!.properties.lastmodifieddate = new Date(clock.now().getTime() + 1000).toISOString();
    clock.advance(5 * 60_000 + 2000);
    await sync();
    expect(published.filter((e) => e.type === ContactsSynced.type && (e.data as { listId: number }).listId === customers).length).toBe(before);
  });

  it("refuses another account's integration key and a disconnected one, creating nothing", async () => {
    const other = await call('POST', '/import_lists/integration', { integrationKey: key }, '42');
    expect(other.status).toBe(400);
    expect(other.body.violations[0].propertyPath).toBe('integrationKey');
    expect(await sql(`SELECT id FROM contacts.contact_list WHERE account_id = 42`)).toEqual([]);
    const missing = await call('POST', '/import_lists/integration', {});
    expect(missing.status).toBe(400);
  });
});
