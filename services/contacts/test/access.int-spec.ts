import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Permission } from '@switchboard/contracts';
import { listRoutes } from '@switchboard/platform';
import { gb, startContacts, type ContactsTestApp } from './support';

type Row = Record<string, unknown>;
const P = Permission;

describe('contacts access', () => {
  let a: ContactsTestApp;
  /** Account 2's things, which account 1 must not reach. */
  const b: Record<string, number> = {};
  let bToken: string;
  let aToken: string;
  let aContact: number;

  beforeAll(async () => {
    a = await startContacts();
    bToken = a.token('2');
    aToken = a.token('1');
    const done = await a.importFile(bToken, `phone\n${gb(1)}\n`, 'b.csv', [{ column: 0, variable: 'phone' }]);
    b.import = done.id as number;
    b.list = done.contactList as number;
    b.uploaded = (await a.upload<{ id: number }>(bToken, `phone\n${gb(2)}\n`, 'b2.csv')).body.id;
    b.contact = (await a.call<{ items: Row[] }>('GET', '/contacts', { token: bToken })).body.items[0].id as number;
    b.variable = (await a.call<{ id: number }>('POST', '/variables', { token: bToken, body: { name: 'secret' } })).body.id;
    b.segment = (await a.call<{ id: number }>('POST', '/contact_lists', { token: bToken, body: { name: 'B seg', filter: { groups: [{ type: 'country', values: ['GB'] }] } } })).body.id;
    b.blacklist = (await a.call<{ id: number }>('POST', '/black_lists', { token: bToken, body: { phone: gb(3) } })).body.id;
    const task = await a.call<{ id: number }>('POST', '/tasks', { token: bToken, body: { type: 'export_contacts', params: { contactList: b.list } } });
    b.task = (await a.waitTask(bToken, task.body.id)).id as number;
    aContact = (await a.call<{ id: number }>('POST', '/contacts', { token: aToken, body: { phone: gb(10) } })).body.id;
  });
  afterAll(async () => a?.close());

  const snapshot = () =>
    a.sql(`SELECT
      (SELECT json_agg(t ORDER BY id) FROM (SELECT id, name, status, mapping, number_of_contacts FROM contacts.import_list WHERE account_id = 2) t) AS imports,
      (SELECT json_agg(t ORDER BY id) FROM (SELECT id, phone, first_name, variables, list_ids, opted_out_at, blocked FROM contacts.contact WHERE account_id = 2) t) AS contacts,
      (SELECT json_agg(t ORDER BY id) FROM (SELECT id, name, description, filter, is_deleted, num_of_contacts FROM contacts.contact_list WHERE account_id = 2) t) AS lists,
      (SELECT json_agg(t ORDER BY id) FROM (SELECT id, name, ui_name FROM contacts.variable WHERE account_id = 2) t) AS variables,
      (SELECT json_agg(t ORDER BY id) FROM (SELECT id, phone FROM contacts.black_list WHERE account_id = 2) t) AS blacklist,
      (SELECT json_agg(t ORDER BY id) FROM (SELECT id, status, file_path FROM contacts.task WHERE account_id = 2) t) AS tasks`);

  it('declares an access rule on every route', () => {
    const routes = listRoutes(a.t.app);
    expect(routes.map((r) => `${r.method} ${r.path}`).sort()).toEqual(
      [
        'DELETE /black_lists/:id',
        'DELETE /contact_lists/:id',
        'DELETE /contacts/:id',
        'DELETE /import_lists/:id',
        'DELETE /tasks/:id',
        'DELETE /variables/:id',
        'GET /black_lists',
        'GET /contact_lists',
        'GET /contact_lists/:id',
        'GET /contact_lists/missing_variables',
        'GET /contacts',
        'GET /contacts/:id',
        'GET /import_lists',
        'GET /import_lists/:id',
        'GET /import_lists/example_file',
        'GET /task/download',
        'GET /tasks',
        'GET /tasks/:id',
        'GET /variables',
        'GET /variables/:id',
        'POST /black_lists',
        'POST /contact_lists',
        'POST /contact_lists/total_by_filter',
        'POST /contacts',
        'POST /contacts_variables',
        'POST /import_lists',
        'POST /import_lists/integration',
        'POST /tasks',
        'POST /variables',
        'PUT /contact_lists/:id',
        'PUT /contacts/:id',
        'PUT /contacts_variables',
        'PUT /contacts_variables/:contactId',
        'PUT /import_lists/:id',
        'PUT /variables/:id',
      ].sort(),
    );
    for (const r of routes) expect(r.rule).toBeDefined();
    expect(routes.filter((r) => r.rule?.kind === 'public')).toEqual([]);
  });

  it('describes its routes in OpenAPI', () => {
    const doc = SwaggerModule.createDocument(a.t.app, new DocumentBuilder().build());
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/import_lists', '/api/import_lists/{id}', '/api/contacts', '/api/contact_lists/total_by_filter', '/api/task/download']));
    expect(Object.keys(doc.components?.schemas ?? {})).toEqual(expect.arrayContaining(['UpdateImportListDto', 'CreateContactDto', 'CreateContactListDto', 'CreateTaskDto', 'CreateVariableDto']));
  });

  it("gives a member of another account 404 (or 400 for a reference in a body) on every route with the first account's ids, and changes nothing", async () => {
    const before = await snapshot();
    const t = aToken;
    const expectStatus = async (method: string, path: string, status: number, body?: unknown) => {
      const r = await a.call(method, path, { token: t, body });
      expect([`${method} ${path}`, r.status]).toEqual([`${method} ${path}`, status]);
    };
    await expectStatus('GET', `/import_lists/${b.import}`, 404);
    await expectStatus('PUT', `/import_lists/${b.uploaded}`, 404, { mapping: [{ column: 0, variable: 'phone' }], start: true });
    await expectStatus('DELETE', `/import_lists/${b.import}`, 404);
    await expectStatus('GET', `/contacts/${b.contact}`, 404);
    await expectStatus('PUT', `/contacts/${b.contact}`, 404, { firstName: 'hacked', optedOut: true });
    await expectStatus('DELETE', `/contacts/${b.contact}`, 404);
    await expectStatus('GET', `/contacts?contactList=${b.list}`, 404);
    await expectStatus('GET', `/contacts?importList=${b.import}`, 404);
    await expectStatus('GET', `/contacts?importList=${b.import}&state=failed`, 200);
    await expectStatus('POST', '/contacts', 400, { phone: gb(11), contactLists: [b.list] });
    await expectStatus('PUT', `/contacts/${aContact}`, 400, { contactLists: [b.list] });
    await expectStatus('PUT', `/contacts/${aContact}`, 400, { variables: { secret: 'x' } });
    await expectStatus('POST', '/contacts_variables', 404, { contact: b.contact, variable: 'firstName', value: 'x' });
    await expectStatus('PUT', '/contacts_variables', 400, { contact: aContact, variable: b.variable, value: 'x' });
    await expectStatus('PUT', `/contacts_variables/${b.contact}`, 404, { variable: 'firstName', value: 'x' });
    await expectStatus('PUT', `/contacts_variables/${aContact}`, 400, { variable: b.variable, value: 'x' });
    await expectStatus('GET', `/variables/${b.variable}`, 404);
    await expectStatus('PUT', `/variables/${b.variable}`, 404, { UIname: 'x' });
    await expectStatus('DELETE', `/variables/${b.variable}`, 404);
    await expectStatus('GET', `/contact_lists/${b.list}`, 404);
    await expectStatus('GET', `/contact_lists/${b.segment}`, 404);
    await expectStatus('PUT', `/contact_lists/${b.list}`, 404, { name: 'x' });
    await expectStatus('DELETE', `/contact_lists/${b.segment}`, 404);
    await expectStatus('POST', '/contact_lists/total_by_filter', 400, { filter: { groups: [{ type: 'contact_list', values: [b.list] }] } });
    await expectStatus('POST', '/contact_lists/total_by_filter', 400, { filter: { groups: [{ type: 'import_list', values: [b.import] }] } });
    await expectStatus('POST', '/contact_lists/total_by_filter', 400, { filter: { groups: [{ type: 'custom_fields', conditions: [{ variable: b.variable, operator: 'empty' }] }] } });
    await expectStatus('POST', '/contact_lists', 400, { name: 'x', filter: { groups: [{ type: 'segment', values: [b.segment] }] } });
    await expectStatus('GET', `/contact_lists/missing_variables?contactLists=${b.list}`, 404);
    await expectStatus('DELETE', `/black_lists/${b.blacklist}`, 404);
    await expectStatus('GET', `/tasks/${b.task}`, 404);
    await expectStatus('DELETE', `/tasks/${b.task}`, 404);
    await expectStatus('GET', `/task/download?id=${b.task}`, 404);
    await expectStatus('POST', '/tasks', 404, { type: 'delete_contacts', params: { contactList: b.list } });
    await expectStatus('POST', '/tasks', 404, { type: 'export_contacts', params: { importList: b.import } });

    // collections of the first account show nothing of the second
    const lists = await Promise.all(['/import_lists', '/contacts', '/contact_lists', '/black_lists', '/tasks'].map((p) => a.call<{ items: Row[] }>('GET', p, { token: t })));
    const ids = (r: { body: { items: Row[] } }) => r.body.items.map((x) => x.id);
    expect(ids(lists[0])).toEqual([]);
    expect(ids(lists[1])).toEqual([aContact]);
    expect(ids(lists[2])).toEqual([]);
    expect(ids(lists[3])).toEqual([]);
    expect(ids(lists[4])).toEqual([]);
    const vars = await a.call<{ items: Row[] }>('GET', '/variables', { token: t });
    expect(vars.body.items.map((v) => v.name)).not.toContain('secret');
    expect(await a.call<{ total: number }>('POST', '/contact_lists/total_by_filter', { token: t, body: { filter: { groups: [] } } }).then((r) => r.body.total)).toBe(1);

    // an opt-out or delete task of the first account never reaches the second's contacts
    const all = await a.call<{ id: number }>('POST', '/tasks', { token: t, body: { type: 'opt_out_contacts', params: { all: true } } });
    await a.waitTask(t, all.body.id);
    expect(await snapshot()).toEqual(before);
  });

  it('refuses every route to a token without an account, and without a token', async () => {
    const noAccount = a.t.token({ sub: 'u', acc: null, perms: Object.values(Permission) });
    for (const [method, path] of [
      ['GET', '/contacts'],
      ['GET', '/variables'],
      ['GET', '/import_lists'],
      ['GET', '/import_lists/example_file'],
      ['POST', '/tasks'],
      ['GET', '/task/download?id=1'],
    ]) {
      expect((await a.call(method, path, { token: noAccount, body: method === 'POST' ? {} : undefined })).status).toBe(403);
      expect((await a.call(method, path, { body: method === 'POST' ? {} : undefined })).status).toBe(401);
    }
  });

  describe('permissions', () => {
    /** [method, path, body, the permission that opens it]. */
    const gated = (): Array<[string, string, unknown, string]> => [
      ['GET', '/contacts', undefined, P.ContactView],
      ['GET', `/contacts/${aContact}`, undefined, P.ContactView],
      ['POST', '/contacts', { phone: gb(Math.floor(Math.random() * 1e6) + 1000) }, P.ContactAddEdit],
      ['PUT', `/contacts/${aContact}`, { firstName: 'x' }, P.ContactAddEdit],
      ['POST', '/contacts_variables', { contact: aContact, variable: 'firstName', value: 'y' }, P.ContactAddEdit],
      ['PUT', '/contacts_variables', { contact: aContact, variable: 'firstName', value: 'y' }, P.ContactAddEdit],
      ['PUT', `/contacts_variables/${aContact}`, { variable: 'firstName', value: 'y' }, P.ContactAddEdit],
      ['DELETE', '/contacts/999999', undefined, P.ContactRemove],
      ['POST', '/variables', { name: `v${Math.floor(Math.random() * 1e9)}` }, P.ContactFieldAddEdit],
      ['PUT', '/variables/999999', { UIname: 'x' }, P.ContactFieldAddEdit],
      ['DELETE', '/variables/999999', undefined, P.ContactFieldRemove],
      ['GET', '/contact_lists', undefined, P.ContactListSegmentView],
      ['GET', '/contact_lists/999999', undefined, P.ContactListSegmentView],
      ['POST', '/contact_lists/total_by_filter', { filter: { groups: [] } }, P.ContactListSegmentView],
      ['GET', '/contact_lists/missing_variables?contactLists=999999', undefined, P.ContactListSegmentView],
      ['POST', '/contact_lists', { name: 'p' }, P.ContactListSegmentAdd],
      ['PUT', '/contact_lists/999999', { name: 'p' }, P.ContactListSegmentEdit],
      ['DELETE', '/contact_lists/999999', undefined, P.ContactListSegmentRemove],
      ['GET', '/black_lists', undefined, P.BlockDestinationView],
      ['POST', '/black_lists', { phone: gb(Math.floor(Math.random() * 1e6) + 2_000_000) }, P.BlockDestinationAddEdit],
      ['DELETE', '/black_lists/999999', undefined, P.BlockDestinationRemove],
      ['GET', '/import_lists', undefined, P.ContactListSegmentView],
      ['GET', '/import_lists', undefined, P.BlockDestinationView],
      ['POST', '/tasks', { type: 'export_contacts' }, P.ContactListSegmentExport],
      ['POST', '/tasks', { type: 'delete_contacts', params: { ids: [999999] } }, P.ContactRemove],
      ['POST', '/tasks', { type: 'opt_out_contacts', params: { ids: [999999] } }, P.ContactAddEdit],
    ];

    it('refuses each gated route without its permission and lets it through with it', async () => {
      const others = Object.values(Permission);
      for (const [method, path, body, perm] of gated()) {
        const without = await a.call(method, path, { token: a.token('1', others.filter((p) => p !== perm && !(path === '/import_lists' && ([P.ContactListSegmentAdd, P.BlockDestinationAddEdit, P.ContactListSegmentView, P.BlockDestinationView] as string[]).includes(p)))), body });
        expect([`${method} ${path} without ${perm}`, without.status]).toEqual([`${method} ${path} without ${perm}`, 403]);
        const withIt = await a.call(method, path, { token: a.token('1', [perm]), body });
        expect([`${method} ${path} with ${perm}`, withIt.status === 403]).toEqual([`${method} ${path} with ${perm}`, false]);
      }
    });

    it('checks import permissions by import type: lists need CONTACT_LIST_SEGMENT_*, blacklists BLOCK_DESTINATION_*', async () => {
      const listOnly = a.token('1', [P.ContactListSegmentAdd, P.ContactListSegmentView]);
      const blockOnly = a.token('1', [P.BlockDestinationAddEdit, P.BlockDestinationView]);
      expect((await a.upload(listOnly, `phone\n${gb(50)}\n`, 'x.csv', { type: 'blacklist' })).status).toBe(403);
      expect((await a.upload(blockOnly, `phone\n${gb(50)}\n`, 'x.csv')).status).toBe(403);
      const none = a.token('1', [P.ContactView]);
      expect((await a.upload(none, `phone\n${gb(50)}\n`, 'x.csv')).status).toBe(403);
      const bl = await a.upload<{ id: number }>(blockOnly, `phone\n${gb(50)}\n`, 'x.csv', { type: 'blacklist' });
      expect(bl.status).toBe(201);
      const cl = await a.upload<{ id: number }>(listOnly, `phone\n${gb(51)}\n`, 'y.csv');
      expect(cl.status).toBe(201);
      expect((await a.call('GET', `/import_lists/${bl.body.id}`, { token: listOnly })).status).toBe(403);
      expect((await a.call('PUT', `/import_lists/${cl.body.id}`, { token: blockOnly, body: { ignoreFirstLine: false } })).status).toBe(403);
      expect((await a.call('DELETE', `/import_lists/${cl.body.id}`, { token: blockOnly })).status).toBe(403);
      const seen = await a.call<{ items: Row[] }>('GET', '/import_lists', { token: listOnly });
      expect(seen.body.items.map((i) => i.type)).not.toContain('blacklist');
      expect((await a.call('DELETE', `/import_lists/${cl.body.id}`, { token: a.token('1', [P.ContactListSegmentRemove]) })).status).toBe(204);
    });

    it('hides a task from a member who may not run its type', async () => {
      const t = await a.call<{ id: number }>('POST', '/tasks', { token: a.token('1', [P.ContactListSegmentExport]), body: { type: 'export_contacts' } });
      await a.waitTask(a.token('1'), t.body.id);
      const other = a.token('1', [P.ContactRemove]);
      expect((await a.call('GET', `/tasks/${t.body.id}`, { token: other })).status).toBe(403);
      expect((await a.call('GET', `/task/download?id=${t.body.id}`, { token: other })).status).toBe(403);
      expect((await a.call('DELETE', `/tasks/${t.body.id}`, { token: other })).status).toBe(403);
      const listed = await a.call<{ items: Row[] }>('GET', '/tasks', { token: other });
      expect(listed.body.items.find((x) => x.id === t.body.id)).toMatchObject({ params: {}, filePath: null });
      expect((await a.call('GET', `/task/download?id=${t.body.id}`, { token: a.token('1', [P.ContactListSegmentExport]) })).status).toBe(200);
    });
  });
});
