import { Logger } from '@nestjs/common';
import { gb, restartContacts, startContacts, type ContactsTestApp } from './support';

type Row = Record<string, unknown>;

const file = (from: number, n: number): string => `phone,name\n${Array.from({ length: n }, (_, i) => `${gb(from + i)},n${i}`).join('\n')}\n`;
const mapping = [
  { column: 0, variable: 'phone' },
  { column: 1, variable: 'firstName' },
];

async function startImport(a: ContactsTestApp, token: string, content: string): Promise<number> {
  const up = await a.upload<{ id: number }>(token, content, 'big.csv');
  expect(up.status).toBe(201);
  const r = await a.call('PUT', `/import_lists/${up.body.id}`, { token, body: { mapping, start: true } });
  expect(r.status).toBe(200);
  return up.body.id;
}

// the failures below are on purpose; their log lines are not
beforeAll(() => {
  jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
});
afterAll(() => jest.restoreAllMocks());

describe('an import that fails midway', () => {
  let a: ContactsTestApp;
  afterAll(async () => a?.close());

  it('leaves no partial list, no contacts and no rejected rows, and says why', async () => {
    a = await startContacts({
      hooks: {
        afterBatch: (_id, batch) => {
          if (batch === 2) throw new Error('disk full (simulated)');
        },
      },
    });
    const token = a.token('1');
    const id = await startImport(a, token, `${file(1000, 1500)}12345,bad\n`);
    const done = await a.waitImport(token, id);
    expect(done).toMatchObject({ status: 'error', error: 'disk full (simulated)', contactList: null, parsed: 0, numberOfContacts: 0 });
    expect(await a.sql(`SELECT count(*)::int AS n FROM contacts.contact`)).toEqual([{ n: 0 }]);
    expect(await a.sql(`SELECT count(*)::int AS n FROM contacts.contact_list`)).toEqual([{ n: 0 }]);
    expect(await a.sql(`SELECT count(*)::int AS n FROM contacts.import_row_error`)).toEqual([{ n: 0 }]);
    const lists = await a.call<{ total: number }>('GET', '/contact_lists', { token });
    expect(lists.body.total).toBe(0);
    const events = await a.events();
    expect(events.filter((e) => e.type === 'contacts.import_list.imported')).toEqual([]);
    expect(a.realtime.some((m) => m.type === 'contact_list.deleted')).toBe(true);
  });
});

describe('a restart during processing', () => {
  let first: ContactsTestApp;
  let second: ContactsTestApp | undefined;
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it('resumes the import from the start in the next process and ends with exactly one copy of each row', async () => {
    let reached!: () => void;
    const midway = new Promise<void>((r) => (reached = r));
    first = await startContacts({
      hooks: {
        afterBatch: async (_id, batch) => {
          if (batch === 2) {
            reached();
            await new Promise(() => undefined); // hangs until the process stops
          }
        },
      },
    });
    const token = first.token('1');
    const id = await startImport(first, token, file(2000, 2200));
    await midway;
    const mid = await first.call<Row>('GET', `/import_lists/${id}`, { token });
    expect(mid.body).toMatchObject({ status: 'processing' });
    expect((await first.call('DELETE', `/import_lists/${id}`, { token })).status).toBe(409);
    expect((await first.call('DELETE', `/contact_lists/${mid.body.contactList}`, { token })).status).toBe(409);

    await first.t.app.close();
    // nothing of the interrupted run is visible: it was one transaction
    expect(await first.sql(`SELECT count(*)::int AS n FROM contacts.contact`)).toEqual([{ n: 0 }]);
    expect(await first.sql(`SELECT status, lease_owner, attempts FROM contacts.import_list WHERE id = $1`, [id])).toEqual([{ status: 'processing', lease_owner: null, attempts: 1 }]);
    // as if the process had died holding the import: the next one waits for the lease to run out
    await first.sql(`UPDATE contacts.import_list SET lease_owner = 'dead-process', lease_until = now() + interval '300 milliseconds' WHERE id = $1`, [id]);

    second = await restartContacts(first);
    const done = await second.waitImport(token, id);
    expect(done).toMatchObject({ status: 'parsed', parsed: 2200, failed: 0, duplicates: 0, numberOfContacts: 2200 });
    expect(await second.sql(`SELECT count(*)::int AS n, count(DISTINCT normalized_phone)::int AS d FROM contacts.contact`)).toEqual([{ n: 2200, d: 2200 }]);
    expect(await second.sql(`SELECT attempts FROM contacts.import_list WHERE id = $1`, [id])).toEqual([{ attempts: 2 }]);
    const list = await second.call<Row>('GET', `/contact_lists/${done.contactList}`, { token });
    expect(list.body).toMatchObject({ status: 2, numOfContacts: 2200 });
  });
});

describe('an import interrupted too many times', () => {
  let first: ContactsTestApp;
  let second: ContactsTestApp | undefined;
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it('fails cleanly: status error, no list, no contacts', async () => {
    let reached!: () => void;
    const midway = new Promise<void>((r) => (reached = r));
    first = await startContacts({
      maxAttempts: 1,
      hooks: {
        afterBatch: async () => {
          reached();
          await new Promise(() => undefined);
        },
      },
    });
    const token = first.token('1');
    const id = await startImport(first, token, file(5000, 800));
    await midway;
    await first.t.app.close();
    second = await restartContacts(first, { maxAttempts: 1 });
    const done = await second.waitImport(token, id);
    expect(done).toMatchObject({ status: 'error', contactList: null });
    expect(String(done.error)).toMatch(/interrupted/);
    expect(await second.sql(`SELECT count(*)::int AS n FROM contacts.contact_list`)).toEqual([{ n: 0 }]);
    expect(await second.sql(`SELECT count(*)::int AS n FROM contacts.contact`)).toEqual([{ n: 0 }]);
  });
});
