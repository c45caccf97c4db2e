import { gb, startContacts, type ContactsTestApp } from './support';

type Row = Record<string, unknown>;
type Page = { items: Row[]; total: number; nextAfter: number | null };

describe('contacts and variables', () => {
  let a: ContactsTestApp;
  let token: string;

  beforeAll(async () => {
    a = await startContacts();
    token = a.token('1');
  });
  afterAll(async () => a?.close());

  it('lists the standard variables first and manages custom ones with unique keys', async () => {
    const std = await a.call<{ items: Row[]; total: number }>('GET', '/variables?isStandard=true', { token });
    expect(std.body.items.map((v) => v.name).sort()).toEqual(['country', 'email', 'firstName', 'lastName', 'optout', 'phone', 'shorturl', 'timezone']);
    expect(std.body.items.find((v) => v.name === 'phone')).toMatchObject({ id: 1, type: 'phone', isStandard: true, UIname: 'Phone number', mappable: true, hidden: false });
    expect(std.body.items.find((v) => v.name === 'shorturl')).toMatchObject({ mappable: false });

    const created = await a.call<Row>('POST', '/variables', { token, body: { name: 'city', UIname: 'City', example: 'Paris' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'city', UIname: 'City', type: 'text', isStandard: false, example: 'Paris' });
    expect(Number(created.body.id)).toBeGreaterThanOrEqual(1000);
    const dup = await a.call<{ violations: Row[] }>('POST', '/variables', { token, body: { name: 'CITY' } });
    expect(dup.status).toBe(400);
    expect(dup.body.violations).toEqual([expect.objectContaining({ propertyPath: 'name', message: 'uniqVarName' })]);
    expect((await a.call('POST', '/variables', { token, body: { name: 'phone' } })).status).toBe(400);
    const badKey = await a.call<{ violations: Row[] }>('POST', '/variables', { token, body: { name: 'two words' } });
    expect(badKey.body.violations).toEqual([expect.objectContaining({ propertyPath: 'name', message: 'invalidKey' })]);
    expect((await a.call('POST', '/variables', { token, body: { name: 'x', extra: 1 } })).status).toBe(400);

    const renamed = await a.call<Row>('PUT', `/variables/${created.body.id}`, { token, body: { UIname: 'Town', type: 'text', hidden: true } });
    expect(renamed.body).toMatchObject({ name: 'city', UIname: 'Town', hidden: true });
    expect((await a.call('PUT', '/variables/1', { token, body: { UIname: 'x' } })).status).toBe(400);
    expect((await a.call('DELETE', '/variables/1', { token })).status).toBe(400);
    const all = await a.call<{ items: Row[]; total: number }>('GET', '/variables', { token });
    expect(all.body.total).toBe(9);
    expect(all.body.items.slice(0, 8).every((v) => v.isStandard)).toBe(true);
  });

  it('creates a contact with its number normalised, country, time zone and custom values', async () => {
    const c = await a.call<Row>('POST', '/contacts', { token, body: { phone: '07400 000101', country: 'gb', firstName: ' Ann ', email: 'ann@example.com', variables: { city: 'Leeds' } } });
    expect(c.status).toBe(201);
    expect(c.body).toMatchObject({ phone: '07400 000101', normalizedPhone: gb(101), country: 'GB', timezone: 'Europe/London', firstName: 'Ann', email: 'ann@example.com', variables: { city: 'Leeds' }, state: 'no_error', optedOutAt: null, blocked: false });
    const dup = await a.call<{ violations: Row[] }>('POST', '/contacts', { token, body: { phone: gb(101) } });
    expect(dup.status).toBe(400);
    expect(dup.body.violations).toEqual([expect.objectContaining({ propertyPath: 'phone', code: 'duplicate' })]);
    const bad = await a.call<{ violations: Row[] }>('POST', '/contacts', { token, body: { phone: '12', variables: { nope: 'x' }, email: 'not-an-email' } });
    expect(bad.status).toBe(400);
    expect(bad.body.violations.map((v) => v.propertyPath).sort()).toEqual(['email']);
    const bad2 = await a.call<{ violations: Row[] }>('POST', '/contacts', { token, body: { phone: '12', variables: { nope: 'x' }, contactLists: [999] } });
    expect(bad2.body.violations.map((v) => v.propertyPath).sort()).toEqual(['contactLists[0]', 'phone', 'variables.nope']);
    const landline = await a.call<{ violations: Row[] }>('POST', '/contacts', { token, body: { phone: '+44 20 7946 0958' } });
    expect(landline.body.violations).toEqual([expect.objectContaining({ propertyPath: 'phone', code: 'notMobile' })]);
    expect(await a.sql(`SELECT count(*)::int AS n FROM contacts.contact`)).toEqual([{ n: 1 }]);
  });

  it('adds contacts to lists and keeps the list count as contacts come, go and opt out', async () => {
    const list = await a.call<Row>('POST', '/contact_lists', { token, body: { name: 'Manual' } });
    expect(list.status).toBe(201);
    expect(list.body).toMatchObject({ type: 'list', status: 2, numOfContacts: 0, filter: null });
    const one = await a.call<Row>('POST', '/contacts', { token, body: { phone: gb(111), contactLists: [list.body.id] } });
    const two = await a.call<Row>('POST', '/contacts', { token, body: { phone: gb(112), contactLists: [`/api/contact_lists/${list.body.id}`] } });
    expect(two.body.contactLists).toEqual([list.body.id]);
    const count = async () => (await a.call<Row>('GET', `/contact_lists/${list.body.id}`, { token })).body.numOfContacts;
    expect(await count()).toBe(2);
    const out = await a.call<Row>('PUT', `/contacts/${one.body.id}`, { token, body: { optedOut: true } });
    expect(out.body.optedOutAt).toEqual(expect.any(String));
    expect(await count()).toBe(1);
    const undo = await a.call('PUT', `/contacts/${one.body.id}`, { token, body: { optedOut: false } });
    expect(undo.status).toBe(400);
    const events = await a.events();
    expect(events.filter((e) => e.type === 'contacts.contact.opted_out').map((e) => e.data)).toEqual([
      expect.objectContaining({ contactId: String(one.body.id), phone: gb(111), source: 'api', accountId: '1' }),
    ]);
    expect((await a.call('DELETE', `/contacts/${two.body.id}`, { token })).status).toBe(204);
    expect(await count()).toBe(0);
    expect((await a.call('GET', `/contacts/${two.body.id}`, { token })).status).toBe(404);
    const moved = await a.call<Row>('PUT', `/contacts/${one.body.id}`, { token, body: { contactLists: [] } });
    expect(moved.body.contactLists).toEqual([]);
  });

  it('sets and clears one variable value through contacts_variables', async () => {
    const c = await a.call<Row>('POST', '/contacts', { token, body: { phone: gb(121) } });
    const set = await a.call<Row>('POST', '/contacts_variables', { token, body: { contact: c.body.id, variable: 'city', value: 'York' } });
    expect(set.status).toBe(201);
    expect(set.body.variables).toEqual({ city: 'York' });
    const std = await a.call<Row>('PUT', '/contacts_variables', { token, body: { contact: `/api/contacts/${c.body.id}`, variable: 2, value: 'Zoe' } });
    expect(std.body).toMatchObject({ firstName: 'Zoe', variables: { city: 'York' } });
    const cleared = await a.call<Row>('PUT', '/contacts_variables', { token, body: { contact: c.body.id, variable: 'city', value: null } });
    expect(cleared.body.variables).toEqual({});
    expect((await a.call('PUT', '/contacts_variables', { token, body: { contact: c.body.id, variable: 'phone', value: '+1' } })).status).toBe(400);
    expect((await a.call('PUT', '/contacts_variables', { token, body: { contact: 999999, variable: 'city', value: 'x' } })).status).toBe(404);
  });

  it('sets a value with the contact in the path (PUT /contacts_variables/{contact}) and refuses a bad one', async () => {
    expect((await a.call('POST', '/variables', { token, body: { name: 'town' } })).status).toBe(201);
    const c = await a.call<Row>('POST', '/contacts', { token, body: { phone: gb(122) } });
    const set = await a.call<Row>('PUT', `/contacts_variables/${c.body.id}`, { token, body: { variable: 'town', value: 'Leeds' } });
    expect(set.status).toBe(200);
    expect(set.body.variables).toEqual({ town: 'Leeds' });
    const bad = await a.call<{ violations: Array<{ propertyPath: string }> }>('PUT', `/contacts_variables/${c.body.id}`, { token, body: { variable: 'town', value: 42 } });
    expect(bad.status).toBe(400);
    expect(new Set(bad.body.violations.map((v) => v.propertyPath))).toEqual(new Set(['value']));
    expect((await a.call<Row>('GET', `/contacts/${c.body.id}`, { token })).body.variables).toEqual({ town: 'Leeds' });
    expect((await a.call('PUT', '/contacts_variables/999999', { token, body: { variable: 'town', value: 'x' } })).status).toBe(404);
  });

  it('pages through contacts by keyset and by page, sorted and filtered', async () => {
    const done = await a.importFile(
      token,
      `phone,name\n${Array.from({ length: 30 }, (_, i) => `${gb(200 + i)},${String.fromCharCode(65 + (i % 26))}${i}`).join('\n')}\n`,
      'page.csv',
      [
        { column: 0, variable: 'phone' },
        { column: 1, variable: 'firstName' },
      ],
    );
    const seen: number[] = [];
    let after: number | null = null;
    for (let i = 0; i < 10; i++) {
      const r: { body: Page } = await a.call<Page>('GET', `/contacts?contactList=${done.contactList}&itemsPerPage=7&order[id]=desc${after ? `&after=${after}` : ''}`, { token });
      expect(r.body.total).toBe(30);
      seen.push(...r.body.items.map((x) => Number(x.id)));
      after = r.body.nextAfter;
      if (!after) break;
    }
    expect(seen).toHaveLength(30);
    expect([...seen].sort((x, y) => y - x)).toEqual(seen);
    const page2 = await a.call<Page>('GET', `/contacts?contactList=${done.contactList}&itemsPerPage=7&page=2&order[id]=desc`, { token });
    expect(page2.body.items.map((x) => Number(x.id))).toEqual(seen.slice(7, 14));
    const byName = await a.call<Page>('GET', `/contacts?contactList=${done.contactList}&itemsPerPage=3&order[firstName]=asc`, { token });
    expect(byName.body.items.map((x) => x.firstName)).toEqual(['A0', 'A26', 'B1']);
    const search = await a.call<Page>('GET', `/contacts?search=${encodeURIComponent(gb(205))}`, { token });
    expect(search.body.items.map((x) => x.normalizedPhone)).toEqual([gb(205)]);
    const hostile = await a.call<Page>('GET', `/contacts?search=${encodeURIComponent("%' OR 1=1 --")}`, { token });
    expect(hostile.body.total).toBe(0);
    expect((await a.call('GET', '/contacts?order[phone); DROP TABLE x; --]=asc', { token })).status).toBe(400);
    expect((await a.call('GET', '/contacts?after=abc', { token })).status).toBe(400);
    expect((await a.call('GET', '/contacts?after=5&order[firstName]=asc', { token })).status).toBe(400);
    expect((await a.call('GET', '/contacts?state=bogus', { token })).status).toBe(400);
    expect((await a.call('GET', '/contacts?state=invalid', { token })).status).toBe(400);
    expect((await a.call('GET', '/contacts/abc', { token })).status).toBe(404);
  });
});
