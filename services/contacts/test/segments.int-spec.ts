import { gb, startContacts, type ContactsTestApp } from './support';

type Row = Record<string, unknown>;

describe('segments and list counts', () => {
  let a: ContactsTestApp;
  let token: string;
  let gbList: number;
  let frImport: number;
  let frList: number;

  beforeAll(async () => {
    a = await startContacts();
    token = a.token('1');
    await a.call('POST', '/variables', { token, body: { name: 'tier' } });
    await a.call('POST', '/variables', { token, body: { name: 'score', type: 'number' } });
    const mapping = [
      { column: 0, variable: 'phone' },
      { column: 1, variable: 'tier' },
      { column: 2, variable: 'score' },
      { column: 3, variable: 'firstName' },
    ];
    // 10 GB contacts: tiers gold (0-3), silver (4-9); scores 0..9; names only on even ones
    const gbRows = Array.from({ length: 10 }, (_, i) => `${gb(300 + i)},${i < 4 ? 'gold' : 'silver'},${i},${i % 2 ? '' : `N${i}`}`);
    const g = await a.importFile(token, `phone,tier,score,name\n${gbRows.join('\n')}\n`, 'gb.csv', mapping);
    gbList = g.contactList as number;
    const frRows = Array.from({ length: 5 }, (_, i) => `+3361234560${i},gold,${10 + i},F${i}`);
    const f = await a.importFile(token, `phone,tier,score,name\n${frRows.join('\n')}\n`, 'fr.csv', mapping);
    frImport = f.id as number;
    frList = f.contactList as number;
    // the first three GB contacts were created a year ago
    await a.sql(`UPDATE contacts.contact SET created_at = '2023-06-15T12:00:00Z' WHERE normalized_phone = ANY($1)`, [[gb(300), gb(301), gb(302)]]);
  });
  afterAll(async () => a?.close());

  const total = async (filter: unknown): Promise<number> => {
    const r = await a.call<{ total: number }>('POST', '/contact_lists/total_by_filter', { token, body: { filter } });
    expect(r.status).toBe(200);
    return r.body.total;
  };

  it('counts each kind of filter group as the filter changes', async () => {
    expect(await total({ groups: [] })).toBe(15);
    expect(await total({ groups: [{ type: 'country', values: ['FR'] }] })).toBe(5);
    expect(await total({ groups: [{ type: 'country', operator: 'not_in', values: ['FR'] }] })).toBe(10);
    expect(await total({ groups: [{ type: 'contact_list', values: [gbList] }] })).toBe(10);
    expect(await total({ groups: [{ type: 'import_list', values: [frImport] }] })).toBe(5);
    expect(await total({ groups: [{ type: 'custom_fields', conditions: [{ variable: 'tier', operator: 'eq', value: 'GOLD' }] }] })).toBe(9);
    expect(await total({ groups: [{ type: 'custom_fields', conditions: [{ variable: 'score', operator: 'gte', value: 8 }] }] })).toBe(7);
    expect(await total({ groups: [{ type: 'custom_fields', conditions: [{ variable: 'firstName', operator: 'empty' }] }] })).toBe(5);
    expect(await total({ groups: [{ type: 'custom_fields', match: 'any', conditions: [{ variable: 'tier', operator: 'eq', value: 'silver' }, { variable: 'score', operator: 'lt', value: 1 }] }] })).toBe(7);
    expect(await total({ groups: [{ type: 'created_before', value: '2023-12-31' }] })).toBe(3);
    expect(await total({ groups: [{ type: 'created_after', value: '2024-01-01' }] })).toBe(12);
    expect(await total({ groups: [{ type: 'campaign_clickers', values: [1] }] })).toBe(0);
    expect(await total({ groups: [{ type: 'operator', values: ['Vodafone'] }] })).toBe(0);
    expect(await total({ match: 'any', groups: [{ type: 'country', values: ['FR'] }, { type: 'created_before', value: '2023-12-31' }] })).toBe(8);
    expect(await total(JSON.stringify({ groups: [{ type: 'country', values: ['gb'] }, { type: 'custom_fields', conditions: [{ variable: 'tier', operator: 'eq', value: 'gold' }] }] }))).toBe(4);
  });

  it('saves a segment with its count, nests segments, and recounts when the filter changes', async () => {
    const s = await a.call<Row>('POST', '/contact_lists', { token, body: { name: 'Gold', filter: { groups: [{ type: 'custom_fields', conditions: [{ variable: 'tier', operator: 'eq', value: 'gold' }] }] } } });
    expect(s.status).toBe(201);
    expect(s.body).toMatchObject({ type: 'segment', status: 2, numOfContacts: 9 });
    expect(JSON.parse(s.body.filter as string)).toEqual({ match: 'all', groups: [{ type: 'custom_fields', match: 'all', conditions: [{ variable: 'tier', operator: 'eq', value: 'gold' }] }] });
    expect(await total({ groups: [{ type: 'segment', values: [s.body.id] }, { type: 'country', values: ['GB'] }] })).toBe(4);
    expect(await total({ groups: [{ type: 'contact_list', operator: 'not_in', values: [s.body.id] }] })).toBe(6);
    const upd = await a.call<Row>('PUT', `/contact_lists/${s.body.id}`, { token, body: { name: 'Gold FR', description: 'French gold', filter: { groups: [{ type: 'segment', values: [s.body.id] }] } } });
    expect(upd.status).toBe(400);
    const upd2 = await a.call<Row>('PUT', `/contact_lists/${s.body.id}`, { token, body: { name: 'Gold FR', description: 'French gold', filter: { groups: [{ type: 'contact_list', values: [frList] }] } } });
    expect(upd2.body).toMatchObject({ name: 'Gold FR', description: 'French gold', numOfContacts: 5 });
    expect((await a.call('PUT', `/contact_lists/${gbList}`, { token, body: { filter: { groups: [] } } })).status).toBe(400);
    const members = await a.call<{ total: number }>('GET', `/contacts?contactList=${s.body.id}`, { token });
    expect(members.body.total).toBe(5);
    expect((await a.call('DELETE', `/contact_lists/${s.body.id}`, { token })).status).toBe(204);
    expect((await a.call('GET', `/contact_lists/${s.body.id}`, { token })).status).toBe(404);
    expect(await total({ groups: [{ type: 'segment', values: [s.body.id] }] }).catch(() => -1)).toBe(-1);
  });

  it('refuses hostile filters and changes nothing', async () => {
    const hostile = [
      { groups: [{ type: 'country', values: ["GB') OR 1=1; --"] }] },
      { groups: [{ type: 'custom_fields', conditions: [{ variable: "tier'||pg_sleep(5)||'", operator: 'eq', value: 'x' }] }] },
      { groups: [{ type: 'custom_fields', conditions: [{ variable: 'tier', operator: 'eq OR 1=1', value: 'x' }] }] },
      { groups: [{ type: 'contact_list', values: ['1); DELETE FROM contacts.contact; --'] }] },
      { groups: [{ type: 'created_after', value: "now()'; DROP TABLE contacts.contact; --" }] },
      { groups: [{ type: 'custom_fields', conditions: [{ variable: 'score', operator: 'gt', value: '1 OR 1=1' }] }] },
      { groups: [{ type: 'country', values: ['GB'] }], orderBy: 'id; DROP TABLE x' },
      { groups: Array.from({ length: 51 }, () => ({ type: 'country', values: ['GB'] })) },
      'not json',
      [],
    ];
    for (const filter of hostile) {
      const r = await a.call<{ code: string; violations: unknown[] }>('POST', '/contact_lists/total_by_filter', { token, body: { filter } });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('0x1');
      expect(r.body.violations.length).toBeGreaterThan(0);
    }
    // values that are only odd, not invalid, are data: they match nothing and break nothing
    expect(await total({ groups: [{ type: 'custom_fields', conditions: [{ variable: 'tier', operator: 'eq', value: "gold' OR '1'='1" }] }] })).toBe(0);
    expect(await total({ groups: [{ type: 'custom_fields', conditions: [{ variable: 'tier', operator: 'contains', value: '%' }] }] })).toBe(0);
    const created = await a.call('POST', '/contact_lists', { token, body: { name: 'x', filter: { groups: [{ type: 'nope' }] } } });
    expect(created.status).toBe(400);
    expect(await a.sql(`SELECT count(*)::int AS n FROM contacts.contact`)).toEqual([{ n: 15 }]);
    expect(await a.sql(`SELECT count(*)::int AS n FROM contacts.contact_list WHERE name = 'x'`)).toEqual([{ n: 0 }]);
  });

  it('refuses a 10,000-term filter and saves a filter with its repeats collapsed', async () => {
    const groups = Array.from({ length: 50 }, (_, g) => ({ type: 'contact_list', values: Array.from({ length: 200 }, (_, v) => 1 + g * 200 + v) }));
    for (const [method, path, body] of [
      ['POST', '/contact_lists/total_by_filter', { filter: { groups } }],
      ['POST', '/contact_lists', { name: 'huge', filter: JSON.stringify({ groups }) }],
    ] as const) {
      const r = await a.call<{ code: string; violations: Array<{ propertyPath: string; message: string }> }>(method, path, { token, body });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('0x1');
      expect(r.body.violations).toEqual([{ propertyPath: 'filter', message: 'has 10000 terms; at most 1000' }]);
    }
    const repeated = { groups: [{ type: 'contact_list', values: [gbList, gbList, String(gbList)] }, { type: 'contact_list', values: [gbList] }, { type: 'country', values: ['gb', 'GB'] }] };
    const s = await a.call<Row>('POST', '/contact_lists', { token, body: { name: 'Repeats', filter: repeated } });
    expect(s.status).toBe(201);
    expect(JSON.parse(s.body.filter as string)).toEqual({ match: 'all', groups: [{ type: 'contact_list', operator: 'in', values: [String(gbList)] }, { type: 'country', operator: 'in', values: ['GB'] }] });
    expect(s.body.numOfContacts).toBe(await total({ groups: [{ type: 'contact_list', values: [gbList] }, { type: 'country', values: ['GB'] }] }));
    expect((await a.call('DELETE', `/contact_lists/${s.body.id}`, { token })).status).toBeLessThan(300);
    expect(await a.sql(`SELECT count(*)::int AS n FROM contacts.contact_list WHERE name = 'huge'`)).toEqual([{ n: 0 }]);
  });

  it('never counts blacklisted or opted-out numbers, in lists or segments', async () => {
    const before = await total({ groups: [{ type: 'contact_list', values: [gbList] }] });
    await a.call('POST', '/black_lists', { token, body: { phone: gb(309) } });
    const c = await a.call<{ items: Row[] }>('GET', `/contacts?search=${encodeURIComponent(gb(308))}`, { token });
    await a.call('PUT', `/contacts/${c.body.items[0].id}`, { token, body: { optedOut: true } });
    expect(await total({ groups: [{ type: 'contact_list', values: [gbList] }] })).toBe(before - 2);
    const l = await a.call<Row>('GET', `/contact_lists/${gbList}`, { token });
    expect(l.body.numOfContacts).toBe(before - 2);
    const bl = await a.call<{ items: Row[] }>('GET', '/black_lists', { token });
    expect((await a.call('DELETE', `/black_lists/${bl.body.items[0].id}`, { token })).status).toBe(204);
    expect((await a.call<Row>('GET', `/contact_lists/${gbList}`, { token })).body.numOfContacts).toBe(before - 1);
    expect((await a.call('POST', '/black_lists', { token, body: { phone: 'nope' } })).status).toBe(400);
  });

  it('tells how many contacts of lists lack each variable', async () => {
    const r = await a.call<{ items: Row[] }>('GET', `/contact_lists/missing_variables?contactLists=${gbList},${frList}&variables[]=firstName&variables[]=tier`, { token });
    expect(r.status).toBe(200);
    expect(r.body.items).toEqual([
      { id: 2, name: 'firstName', missing: 5, total: 14 },
      { id: expect.any(Number), name: 'tier', missing: 0, total: 14 },
    ]);
    expect((await a.call('GET', '/contact_lists/missing_variables', { token })).status).toBe(400);
    expect((await a.call('GET', `/contact_lists/missing_variables?contactLists=${gbList}&variables=nope`, { token })).status).toBe(400);
  });
});
