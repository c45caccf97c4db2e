import * as fs from 'node:fs';
import { CsvParser } from '../src/import/csv-parser';
import { gb, startContacts, type ContactsTestApp } from './support';

type Row = Record<string, unknown>;

describe('background tasks', () => {
  let a: ContactsTestApp;
  let token: string;
  let list: number;
  let importId: number;

  const run = async (type: string, params: unknown): Promise<Row> => {
    const r = await a.call<{ id: number; status: string; progress: number }>('POST', '/tasks', { token, body: { type, params } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ type, fileType: 'CSV', filePath: null });
    return a.waitTask(token, r.body.id);
  };
  const download = async (id: unknown): Promise<string[][]> => {
    const r = await fetch(`${a.t.url}/api/task/download?id=${id}`, { headers: { authorization: `Bearer ${token}` } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(r.headers.get('content-disposition')).toMatch(/^attachment; filename="[\w.-]+\.csv"$/);
    const bytes = Buffer.from(await r.arrayBuffer());
    // a UTF-8 byte-order mark, so that spreadsheet programs read the file as UTF-8
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    return new CsvParser(',')
      .push(bytes.subarray(3).toString('utf8'))
      .map((x) => x.cells)
      .filter((c) => c.join('') !== '');
  };
  beforeAll(async () => {
    a = await startContacts({ batchSize: 1000 });
    token = a.token('1');
    await a.call('POST', '/variables', { token, body: { name: 'note' } });
    const rows = [
      `${gb(401)},"=HYPERLINK(""http://evil.example"",""click"")",@SUM(A1),"+1+cmd|' /C calc'!A0"`,
      `${gb(402)},-2+3,\tTabbed,plain`,
      `${gb(403)},"Ann, ""the"" first",Lee,ok`,
      ...Array.from({ length: 30 }, (_, i) => `${gb(410 + i)},Bulk${i},X,`),
      'nope,Bad,Row,',
    ];
    const done = await a.importFile(token, `phone,first,last,note\n${rows.join('\n')}\n`, 'export.csv', [
      { column: 0, variable: 'phone' },
      { column: 1, variable: 'firstName' },
      { column: 2, variable: 'lastName' },
      { column: 3, variable: 'note' },
    ]);
    list = done.contactList as number;
    importId = done.id as number;
  });
  afterAll(async () => a?.close());

  it('exports contacts to a CSV whose formula-like cells are neutralised', async () => {
    const t = await run('export_contacts', { contactList: list });
    expect(t).toMatchObject({ status: 'done', progress: 100, total: 33, processed: 33, filePath: `/api/task/download?id=${t.id}` });
    const csv = await download(t.id);
    expect(csv[0]).toEqual(['id', 'phone', 'firstName', 'lastName', 'email', 'country', 'timezone', 'optedOutAt', 'blocked', 'createdAt', 'note']);
    expect(csv).toHaveLength(34);
    const byPhone = new Map(csv.slice(1).map((r) => [r[1], r]));
    expect(byPhone.get(gb(401))?.slice(2, 4)).toEqual([`'=HYPERLINK("http://evil.example","click")`, "'@SUM(A1)"]);
    expect(byPhone.get(gb(401))?.[10]).toBe(`'+1+cmd|' /C calc'!A0`);
    expect(byPhone.get(gb(402))?.slice(2, 4)).toEqual(["'-2+3", 'Tabbed']);
    expect(byPhone.get(gb(403))?.slice(2, 4)).toEqual(['Ann, "the" first', 'Lee']);
    // the phone itself stays a plain number, and no cell of the file starts like a formula
    expect(byPhone.get(gb(403))?.[1]).toBe(gb(403));
    for (const r of csv) for (const cell of r) expect(/^[=@\t\r]|^[+-](?![0-9.]+$)/.test(cell)).toBe(false);
  });

  it('exports the rejected rows of an import', async () => {
    const t = await run('export_contacts', { importList: importId, state: 'failed' });
    const csv = await download(t.id);
    expect(csv).toEqual([
      ['rowNumber', 'phone', 'normalizedPhone', 'state', 'error', 'firstName', 'lastName', 'email'],
      ['35', 'nope', '', 'invalid', 'not a phone number', 'Bad', 'Row', ''],
    ]);
  });

  it('answers "task is not ready yet" until the task is done', async () => {
    const [row] = await a.sql<{ id: string }>(
      `INSERT INTO contacts.task (account_id, type, status, progress, lease_owner, lease_until) VALUES (1, 'export_contacts', 'running', 40, 'elsewhere', now() + interval '1 hour') RETURNING id`,
    );
    const r = await a.call<{ message: string; code: string }>('GET', `/task/download?id=${row.id}`, { token });
    expect(r.status).toBe(409);
    expect(r.body.message).toBe('task is not ready yet');
    expect((await a.call('GET', '/task/download', { token })).status).toBe(400);
    expect((await a.call('GET', '/task/download?id=99999', { token })).status).toBe(404);
  });

  it('opts contacts out by filter, with an event per contact and a CSV of them', async () => {
    const t = await run('opt_out_contacts', { filter: { groups: [{ type: 'custom_fields', conditions: [{ variable: 'lastName', operator: 'eq', value: 'x' }] }] } });
    expect(t).toMatchObject({ status: 'done', total: 30, processed: 30 });
    const csv = await download(t.id);
    expect(csv[0]).toEqual(['id', 'phone', 'firstName', 'lastName', 'email', 'optedOutAt']);
    expect(csv).toHaveLength(31);
    const events = (await a.events()).filter((e) => e.type === 'contacts.contact.opted_out');
    expect(events).toHaveLength(30);
    expect(events[0].data).toMatchObject({ accountId: '1', source: 'task' });
    expect(await a.sql(`SELECT count(*)::int AS n FROM contacts.contact WHERE opted_out_at IS NOT NULL`)).toEqual([{ n: 30 }]);
    const l = await a.call<Row>('GET', `/contact_lists/${list}`, { token });
    expect(l.body.numOfContacts).toBe(3);
    // nothing left to opt out: a second run changes nothing
    const again = await run('opt_out_contacts', { contactList: list, optedOut: true });
    expect(again).toMatchObject({ total: 0, processed: 0 });
  });

  it('deletes contacts of a list and lists them in its CSV', async () => {
    const t = await run('delete_contacts', { contactList: list });
    expect(t).toMatchObject({ status: 'done', total: 33, processed: 33 });
    expect((await download(t.id)).length).toBe(34);
    expect(await a.sql(`SELECT count(*)::int AS n FROM contacts.contact`)).toEqual([{ n: 0 }]);
    expect((await a.call<Row>('GET', `/contact_lists/${list}`, { token })).body.numOfContacts).toBe(0);
    expect(a.realtime.some((m) => m.subject === `rt.1.tasks.${t.id}` && m.data.status === 'done')).toBe(true);
  });

  it('refuses unsafe or unavailable tasks, and lists and deletes tasks with their files', async () => {
    const bad = async (body: unknown) => (await a.call<{ violations: Array<{ propertyPath: string }> }>('POST', '/tasks', { token, body })).body.violations?.map((v) => v.propertyPath);
    expect(await bad({ type: 'delete_contacts', params: {} })).toEqual(['params']);
    expect(await bad({ type: 'delete_messages' })).toEqual(['type']);
    // message exports are run by stats (apps/platform/test/message-exports.int-spec.ts); their parameters are checked here
    expect(await bad({ type: 'export_messages', params: { sql: 'x' } })).toEqual(['params']);
    expect(await bad({ type: 'export_stream_messages', params: {} })).toEqual(['params.streamId']);
    expect(await bad({ type: 'drop_tables' })).toEqual(['type']);
    expect(await bad({ type: 'export_contacts', params: { contactList: 'x; DROP' } })).toEqual(['params.contactList']);
    expect(await bad({ type: 'export_contacts', params: { sql: 'x' } })).toEqual(['params']);
    expect(await bad({ type: 'export_contacts', params: { filter: { groups: [{ type: 'contact_list', values: [424242] }] } } })).toEqual(['filter.groups[0].values[0]']);
    expect((await a.call('POST', '/tasks', { token, body: { type: 'export_contacts', params: { contactList: 424242 } } })).status).toBe(404);
    const list = await a.call<{ items: Row[]; total: number }>('GET', '/tasks?type=export_contacts', { token });
    expect(list.body.total).toBeGreaterThanOrEqual(2);
    const done = list.body.items.find((t) => t.status === 'done') as Row;
    const [file] = await a.sql<{ file_path: string }>(`SELECT file_path FROM contacts.task WHERE id = $1`, [done.id]);
    expect(fs.existsSync(file.file_path)).toBe(true);
    expect((await a.call('DELETE', `/tasks/${done.id}`, { token })).status).toBe(204);
    expect(fs.existsSync(file.file_path)).toBe(false);
    expect((await a.call('GET', `/tasks/${done.id}`, { token })).status).toBe(404);
  });
});
