import { xlsx, xlsxBomb } from './xlsx-fixture';
import { gb, startContacts, type ContactsTestApp } from './support';

type Row = Record<string, unknown>;

describe('contact imports', () => {
  let a: ContactsTestApp;
  let token: string;
  const phone = { column: 0, variable: 'phone' };

  beforeAll(async () => {
    a = await startContacts({ maxUploadBytes: 64 * 1024 });
    token = a.token('1');
  });
  afterAll(async () => {
    await a?.close();
  });

  const rejected = async (importId: unknown, state = 'failed') => {
    const r = await a.call<{ items: Row[]; total: number }>('GET', `/contacts?importList=${importId}&state=${state}&itemsPerPage=100&order[id]=asc`, { token });
    expect(r.status).toBe(200);
    return r.body.items.map((x) => [x.rowNumber, x.state, x.error]);
  };

  it('previews an upload, maps it, parses it and turns its list ready', async () => {
    const csv = `phone,first name,last name,promo\n${gb(1)},Ann,Lee,A1\n${gb(2)},Bob,,B2\n`;
    const v = await a.call<{ id: number }>('POST', '/variables', { token, body: { name: 'promo', UIname: 'Promo' } });
    expect(v.status).toBe(201);
    const up = await a.upload<{ id: number } & { preview: { rows: Array<{ cells: string[] }>; delimiter: string; columns: number } }>(token, csv, 'customers.csv');
    expect(up.status).toBe(201);
    expect(up.body).toMatchObject({ name: 'customers', status: 'uploaded', fileFormat: 'csv', columns: 4, mapping: null });
    expect(up.body.preview).toMatchObject({ delimiter: ',', columns: 4 });
    expect(up.body.preview.rows[1].cells).toEqual([gb(1), 'Ann', 'Lee', 'A1']);

    const mapped = await a.call('PUT', `/import_lists/${up.body.id}`, {
      token,
      body: { mapping: [phone, { column: 1, variable: 'firstName' }, { column: 2, variable: 3 }, { column: 3, variable: v.body.id }], ignoreFirstLine: true },
    });
    expect(mapped.status).toBe(200);
    expect(mapped.body).toMatchObject({ status: 'mapped', mapping: [{ column: 0, variable: 1, name: 'phone' }, { column: 1, variable: 2, name: 'firstName' }, { column: 2, variable: 3, name: 'lastName' }, { column: 3, variable: v.body.id, name: 'promo' }] });

    const started = await a.call<Row>('PUT', `/import_lists/${up.body.id}`, { token, body: { start: true } });
    expect(started.status).toBe(200);
    expect(started.body.status).toBe('processing');
    const done = await a.waitImport(token, up.body.id);
    expect(done).toMatchObject({ status: 'parsed', parsed: 2, failed: 0, duplicates: 0, numberOfContacts: 2, progress: 100 });

    const list = await a.call<Row>('GET', `/contact_lists/${done.contactList}`, { token });
    expect(list.body).toMatchObject({ type: 'list', status: 2, progress: 100, numOfContacts: 2, importListId: up.body.id, importList: { id: up.body.id, status: 'parsed', parsed: 2 } });
    const contacts = await a.call<{ items: Row[]; total: number }>('GET', `/contacts?contactList=${done.contactList}&order[id]=asc`, { token });
    expect(contacts.body.total).toBe(2);
    expect(contacts.body.items[0]).toMatchObject({ phone: gb(1), normalizedPhone: gb(1), firstName: 'Ann', lastName: 'Lee', country: 'GB', timezone: 'Europe/London', state: 'no_error', variables: { promo: 'A1' } });
    expect(contacts.body.items[1]).toMatchObject({ firstName: 'Bob', lastName: null, variables: { promo: 'B2' } });

    const events = await a.events();
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['contacts.import_list.imported', 'contacts.contact_list.became_ready']));
    expect(events.find((e) => e.type === 'contacts.import_list.imported')?.data).toMatchObject({ importListId: String(up.body.id), parsed: 2, numberOfContacts: 2 });
    expect(a.realtime.some((m) => m.subject === `rt.1.imports.${up.body.id}` && m.data.status === 'parsed')).toBe(true);
    expect(a.realtime.some((m) => m.subject === `rt.1.contact_lists.${done.contactList}` && m.type === 'contact_list.ready')).toBe(true);
  });

  it('reads each delimiter, quotes with newlines, a BOM, CRLF and empty lines', async () => {
    const files: Array<[string, string]> = [
      ['semicolon.csv', `\uFEFFphone;name\r\n${gb(11)};"Smith; John"\r\n\r\n${gb(12)};"multi\r\nline"\r\n`],
      ['tab.csv', `phone\tname\n${gb(13)}\t"say ""hi"""\n\n\n${gb(14)}\tplain`],
      ['comma.csv', `phone,name\n"${gb(15)}","a, b"\n${gb(16)},\n`],
    ];
    const expected: Record<string, Array<[string, string | null]>> = {
      'semicolon.csv': [[gb(11), 'Smith; John'], [gb(12), 'multi\r\nline']],
      'tab.csv': [[gb(13), 'say "hi"'], [gb(14), 'plain']],
      'comma.csv': [[gb(15), 'a, b'], [gb(16), null]],
    };
    for (const [name, content] of files) {
      const done = await a.importFile(token, content, name, [phone, { column: 1, variable: 'firstName' }]);
      expect(done).toMatchObject({ status: 'parsed', parsed: 2, failed: 0, numberOfContacts: 2 });
      const c = await a.call<{ items: Row[] }>('GET', `/contacts?contactList=${done.contactList}&order[id]=asc`, { token });
      expect(c.body.items.map((x) => [x.phone, x.firstName])).toEqual(expected[name]);
    }
  });

  it('reads UTF-16 text as Excel saves it, and a header after blank lines', async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`phone\tname\r\n${gb(17)}\tJosé\r\n`, 'utf16le')]);
    const a16 = await a.importFile(token, utf16, 'unicode.csv', [phone, { column: 1, variable: 'firstName' }]);
    expect(a16).toMatchObject({ status: 'parsed', parsed: 1, numberOfContacts: 1, delimiter: '\t' });
    const c = await a.call<{ items: Row[] }>('GET', `/contacts?importList=${a16.id}`, { token });
    expect(c.body.items.map((x) => [x.phone, x.firstName])).toEqual([[gb(17), 'José']]);
    const blank = await a.importFile(token, `\n\n,\nphone,name\n${gb(18)},x\n`, 'blank-top.csv', [phone]);
    expect(blank).toMatchObject({ parsed: 1, failed: 0, numberOfContacts: 1 });
  });

  it('imports an XLSX workbook, numbers stored as numbers included', async () => {
    const book = xlsx([['Phone', 'Name', 'Promo'], [447400000021, 'Numeric', 'x'], [gb(22), 'Text', null], ['', '', ''], ['not a phone', 'Bad', null]]);
    const done = await a.importFile(token, book, 'book.xlsx', [phone, { column: 1, variable: 'firstName' }]);
    expect(done).toMatchObject({ status: 'parsed', fileFormat: 'xlsx', parsed: 3, invalid: 1, failed: 1, numberOfContacts: 2 });
    const c = await a.call<{ items: Row[] }>('GET', `/contacts?importList=${done.id}&order[id]=asc`, { token });
    expect(c.body.items.map((x) => [x.normalizedPhone, x.firstName])).toEqual([[gb(21), 'Numeric'], [gb(22), 'Text']]);
    expect(await rejected(done.id)).toEqual([[5, 'invalid', 'not a phone number']]);
  });

  it('reports every bad row with its line: invalid, not mobile, empty, duplicate, blacklisted, opted out, unclosed quote', async () => {
    const black = await a.call('POST', '/black_lists', { token, body: { phone: gb(33) } });
    expect(black.status).toBe(201);
    const existing = await a.call<{ id: number }>('POST', '/contacts', { token, body: { phone: gb(34) } });
    await a.call('PUT', `/contacts/${existing.body.id}`, { token, body: { optedOut: true } });
    const csv = [
      'phone,name',
      `${gb(31)},ok`, // 2
      '+44 20 7946 0958,landline', // 3
      '12345,short', // 4
      ',no phone', // 5
      `${gb(31)},again`, // 6
      `${gb(33)},blocked`, // 7
      `${gb(34)},opted out`, // 8
      `00${gb(32).slice(1)},international prefix`, // 9
      `"${gb(35)}","never closed`, // 10
    ].join('\n');
    const done = await a.importFile(token, csv, 'messy.csv', [phone, { column: 1, variable: 'firstName' }]);
    expect(done).toMatchObject({ status: 'parsed', parsed: 9, invalid: 3, notMobile: 1, blacklisted: 2, failed: 6, duplicates: 1, numberOfContacts: 2 });
    expect(await rejected(done.id)).toEqual([
      [3, 'not_mobile', 'not a mobile number (fixed line)'],
      [4, 'invalid', 'invalid phone number'],
      [5, 'invalid', 'phone is empty'],
      [7, 'blacklist', 'blacklisted'],
      [8, 'blacklist', 'opted out'],
      [10, 'invalid', 'a quoted field is not closed'],
    ]);
    expect(await rejected(done.id, 'duplicate')).toEqual([[6, 'duplicate', 'duplicate of an earlier row']]);
    // the drill-down through the list gives the same rows
    const viaList = await a.call<{ total: number }>('GET', `/contacts?contactList=${done.contactList}&state=invalid`, { token });
    expect(viaList.body.total).toBe(3);
    const members = await a.call<{ items: Row[] }>('GET', `/contacts?contactList=${done.contactList}&order[id]=asc`, { token });
    expect(members.body.items.map((x) => x.normalizedPhone)).toEqual([gb(31), gb(32)]);
  });

  it('numbers rows as a spreadsheet does across batches, a quoted newline staying in its row', async () => {
    const lines = ['phone,note'];
    for (let i = 0; i < 1200; i++) lines.push(i === 650 ? `${gb(20_000 + i)},"two\nlines"` : [0, 699, 1199].includes(i) ? `bad${i},x` : `${gb(20_000 + i)},x`);
    const done = await a.importFile(token, `${lines.join('\n')}\n`, 'batches.csv', [phone]);
    expect(done).toMatchObject({ parsed: 1200, invalid: 3, numberOfContacts: 1197 });
    // rows as a spreadsheet shows them: header 1, row i on row i + 2; a quoted newline stays inside its row
    expect((await rejected(done.id)).map((r) => r[0])).toEqual([2, 701, 1201]);
  });

  it('adds a number already known from another import to the new list without calling it a duplicate', async () => {
    const first = await a.importFile(token, `phone,name\n${gb(41)},First\n`, 'first.csv', [phone, { column: 1, variable: 'firstName' }]);
    const second = await a.importFile(token, `${gb(41)},Second\n${gb(42)},New\n`, 'second.csv', [phone, { column: 1, variable: 'firstName' }], { ignoreFirstLine: false });
    expect(second).toMatchObject({ parsed: 2, duplicates: 0, numberOfContacts: 2 });
    const c = await a.call<{ items: Row[] }>('GET', `/contacts?search=${encodeURIComponent(gb(41))}`, { token });
    expect(c.body.items).toHaveLength(1);
    expect(c.body.items[0]).toMatchObject({ firstName: 'Second', importList: first.id });
    expect((c.body.items[0].contactLists as number[]).sort()).toEqual([first.contactList, second.contactList].sort());
    const l = await a.call<Row>('GET', `/contact_lists/${second.contactList}`, { token });
    expect(l.body).toMatchObject({ numOfContacts: 2, createdContacts: 1 });
  });

  it('reads national numbers with the default country, or a country column', async () => {
    const csv = 'phone,country\n07400 000051,\n0612345678,FR\n';
    const done = await a.importFile(token, csv, 'national.csv', [phone, { column: 1, variable: 'country' }], { defaultCountry: 'GB' });
    expect(done).toMatchObject({ parsed: 2, failed: 0, numberOfContacts: 2 });
    const c = await a.call<{ items: Row[] }>('GET', `/contacts?importList=${done.id}&order[id]=asc`, { token });
    expect(c.body.items.map((x) => [x.normalizedPhone, x.country, x.timezone])).toEqual([
      [gb(51), 'GB', 'Europe/London'],
      ['+33612345678', 'FR', 'Europe/Paris'],
    ]);
  });

  it('refuses a wrong mapping with one violation per problem and changes nothing', async () => {
    const up = await a.upload<{ id: number }>(token, `phone,name\n${gb(61)},x\n`, 'map.csv');
    const bad = async (mapping: unknown[], expected: Array<[string, string]>) => {
      const r = await a.call<{ code: string; violations: Array<{ propertyPath: string; message: string }> }>('PUT', `/import_lists/${up.body.id}`, { token, body: { mapping, start: true } });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('0x1');
      expect(r.body.violations.map((v) => [v.propertyPath, v.message])).toEqual(expected);
    };
    await bad([{ column: 1, variable: 'firstName' }], [['mapping', 'phoneVarMust']]);
    await bad([phone, { column: 1, variable: 'phone' }], [['mapping[1].variable', 'notSameVars']]);
    await bad([phone, { column: 5, variable: 'firstName' }], [['mapping[1].column', 'the file has 2 column(s)']]);
    await bad([phone, { column: 1, variable: 'nope' }], [['mapping[1].variable', 'no such variable']]);
    await bad([phone, { column: 1, variable: 'shorturl' }], [['mapping[1].variable', 'shorturl is filled when sending, not imported']]);
    const noMapping = await a.call('PUT', `/import_lists/${up.body.id}`, { token, body: { start: true } });
    expect(noMapping.status).toBe(400);
    const r = await a.call<Row>('GET', `/import_lists/${up.body.id}`, { token });
    expect(r.body).toMatchObject({ status: 'uploaded', mapping: null });
    expect(await a.sql(`SELECT count(*)::int AS n FROM contacts.contact_list WHERE import_list_id = $1`, [up.body.id])).toEqual([{ n: 0 }]);
  });

  it('refuses a file over the size limit, an empty file and files that are not CSV or XLSX, leaving nothing behind', async () => {
    const before = (await a.sql<{ n: number }>(`SELECT count(*)::int AS n FROM contacts.import_list`))[0].n;
    const big = `phone\n${Array.from({ length: 5000 }, (_, i) => gb(100000 + i)).join('\n')}\n`;
    expect(big.length).toBeGreaterThan(64 * 1024);
    const tooBig = await a.upload<{ code: string; violations: unknown[] }>(token, big, 'big.csv');
    expect(tooBig.status).toBe(413);
    expect(tooBig.body).toMatchObject({ code: '0x1', violations: [{ propertyPath: 'file', message: 'fileTooLarge' }] });
    expect((await a.upload(token, '', 'empty.csv')).status).toBe(400);
    expect((await a.upload(token, 'a,b', 'old.xls')).status).toBe(400);
    expect((await a.upload(token, 'phone\n+447400000001', 'fake.xlsx')).status).toBe(400);
    expect((await a.upload(token, '\n\n\n', 'blank.csv')).status).toBe(400);
    expect((await a.upload(token, 'x', 'a.csv', { type: 'unknown' })).status).toBe(400);
    expect((await a.sql<{ n: number }>(`SELECT count(*)::int AS n FROM contacts.import_list`))[0].n).toBe(before);
    const fs = await import('node:fs');
    const dir = `${a.storageDir}/uploads/1`;
    const referenced = (await a.sql<{ file_path: string | null }>(`SELECT file_path FROM contacts.import_list WHERE file_path IS NOT NULL`)).map((r) => r.file_path);
    const left = fs.existsSync(dir) ? fs.readdirSync(dir).map((f) => `${dir}/${f}`) : [];
    expect(left.filter((f) => !referenced.includes(f))).toEqual([]);
  });

  it('refuses an XLSX zip bomb at upload with 0x1, and fails an import whose sheet becomes one after its first rows, keeping nothing', async () => {
    const before = (await a.sql<{ n: number }>(`SELECT count(*)::int AS n FROM contacts.import_list`))[0].n;
    const up = await a.upload<{ code: string; violations: Array<{ propertyPath: string; message: string }> }>(token, xlsxBomb(40, { declare: 'lie' }), 'bomb.xlsx');
    expect(up.status).toBe(400);
    expect(up.body.code).toBe('0x1');
    expect(up.body.violations).toEqual([{ propertyPath: 'file', message: expect.stringMatching(/^the file cannot be read: .*inflates to more than the 4096 bytes its header declares/) }]);
    expect((await a.sql<{ n: number }>(`SELECT count(*)::int AS n FROM contacts.import_list`))[0].n).toBe(before);

    const headRows = Array.from({ length: 12 }, (_, i) => [gb(900 + i), `n${i}`]);
    const done = await a.importFile(token, xlsxBomb(40, { declare: 'truth', headRows, between: true }), 'later-bomb.xlsx', [phone]);
    expect(done).toMatchObject({ status: 'error', contactList: null, error: expect.stringMatching(/inflates more than 100 times its compressed size/) });
    expect(await a.sql(`SELECT count(*)::int AS n FROM contacts.contact WHERE normalized_phone = $1`, [gb(900)])).toEqual([{ n: 0 }]);
  });

  it('keeps an import in its state: no mapping change once started, no deletion while parsing; the list outlives its import', async () => {
    const done = await a.importFile(token, `phone\n${gb(71)}\n`, 'state.csv', [phone]);
    const again = await a.call('PUT', `/import_lists/${done.id}`, { token, body: { start: true } });
    expect(again.status).toBe(409);
    const del = await a.call('DELETE', `/import_lists/${done.id}`, { token });
    expect(del.status).toBe(204);
    expect((await a.call('GET', `/import_lists/${done.id}`, { token })).status).toBe(404);
    const l = await a.call<Row>('GET', `/contact_lists/${done.contactList}`, { token });
    expect(l.body).toMatchObject({ status: 2, numOfContacts: 1 });
  });

  it('serves the example file', async () => {
    const r = await a.call('GET', '/import_lists/example_file', { token });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/text\/csv/);
    expect(r.text.split('\r\n')[0]).toBe('phone,firstName,lastName,email');
  });

  it('imports a blacklist: numbers blocked, contacts with them no longer counted', async () => {
    const list = await a.importFile(token, `phone\n${gb(81)}\n${gb(82)}\n`, 'to-block.csv', [phone]);
    expect(list.numberOfContacts).toBe(2);
    const done = await a.importFile(token, `phone\n${gb(81)}\n${gb(81)}\n+44 20 7946 0958\nxx\n`, 'blocked.csv', [phone], { type: 'blacklist' });
    expect(done).toMatchObject({ type: 'blacklist', status: 'parsed', parsed: 4, invalid: 1, duplicates: 1, numberOfContacts: 2, contactList: null });
    const bl = await a.call<{ items: Row[] }>('GET', `/black_lists?importList=${done.id}&order[id]=asc`, { token });
    expect(bl.body.items.map((x) => x.normalizedPhone)).toEqual([gb(81), '+442079460958']);
    const c = await a.call<{ items: Row[] }>('GET', `/contacts?search=${encodeURIComponent(gb(81))}`, { token });
    expect(c.body.items[0]).toMatchObject({ blocked: true });
    const l = await a.call<Row>('GET', `/contact_lists/${list.contactList}`, { token });
    expect(l.body.numOfContacts).toBe(1);
    const events = await a.events();
    expect(events.find((e) => e.type === 'contacts.black_list.changed' && (e.data as { added: string[] }).added.includes('+442079460958'))).toBeDefined();
  });
});
