import { randomUUID } from 'node:crypto';
import { AUDIENCE_CHUNK_MAX_BYTES, AUDIENCE_COPY_COLUMNS, AudienceBatchPreparedV1, AudienceChunkPreparedV1, AudienceCountedV1, AudienceRequestedV1, type EventData } from '@switchboard/contracts';
import { createEnvelope, InMemoryEventBus, type OutgoingEvent } from '@switchboard/platform';
import type { Pool } from 'pg';
import { AUDIENCE_CHUNKS_IN_FLIGHT, AudienceConsumer } from '../src/services/audience.consumer';
import { gb, startContacts, type ContactsTestApp } from './support';

type Batch = EventData<typeof AudienceBatchPreparedV1>;
type Chunk = EventData<typeof AudienceChunkPreparedV1>;

/** A COPY text field read back as PostgreSQL's COPY reads it. */
const unescape = (f: string): string | null => (f === '\\N' ? null : f.replace(/\\(.)/g, (_m, c: string) => ({ t: '\t', n: '\n', r: '\r' })[c] ?? c));
/** A copy chunk's lines as the batches' recipients, to compare the two formats. */
const recipientsOf = (chunks: Chunk[]) =>
  chunks.flatMap((c, i) => {
    const lines = c.data.split('\n').slice(0, -1);
    expect(lines).toHaveLength(c.rows);
    expect(c.firstOrdinal).toBe(chunks.slice(0, i).reduce((n, x) => n + x.rows, 0));
    return lines.map((l) => {
      const f = l.split('\t').map(unescape);
      expect(f).toHaveLength(AUDIENCE_COPY_COLUMNS.length);
      return { contactId: f[0], occurrence: Number(f[1]), phone: f[2], iso2: f[3], timezone: f[4], variables: JSON.parse(f[5] as string) as Record<string, string> };
    });
  });
const recipientsOfBatches = (bs: Batch[]) =>
  bs.flatMap((b) => b.recipients.contactId.map((contactId, k) => ({ contactId, occurrence: b.recipients.occurrence[k], phone: b.recipients.phone[k], iso2: b.recipients.iso2[k], timezone: b.recipients.timezone[k], variables: b.recipients.variables[k] })));

/** A campaign's audience handed over by contacts (libs/contracts/src/audience-events.ts). */
describe('contacts: campaign audience snapshots', () => {
  let a: ContactsTestApp;
  let token: string;
  let listA: string;
  let listB: string;
  let segment: string;
  let tier: string;

  beforeAll(async () => {
    a = await startContacts();
    token = a.token('1');
    tier = String((await a.call<{ id: number }>('POST', '/variables', { token, body: { name: 'tier' } })).body.id);
    const mapping = [
      { column: 0, variable: 'phone' },
      { column: 1, variable: 'tier' },
      { column: 2, variable: 'firstName' },
    ];
    // list A: gb 0..9; list B: gb 5..14 (5..9 in both); tiers gold for even numbers
    const rows = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `${gb(from + i)},${(from + i) % 2 ? 'silver' : 'gold'},N${from + i}`).join('\n');
    listA = String((await a.importFile(token, `phone,tier,name\n${rows(0, 9)}\n`, 'a.csv', mapping)).contactList);
    listB = String((await a.importFile(token, `phone,tier,name\n${rows(5, 14)}\n`, 'b.csv', mapping)).contactList);
    const s = await a.call<{ id: number }>('POST', '/contact_lists', { token, body: { name: 'Gold', filter: { groups: [{ type: 'custom_fields', conditions: [{ variable: 'tier', operator: 'eq', value: 'gold' }] }] } } });
    segment = String(s.body.id);
    // gb(1) blacklisted, gb(3) opted out
    await a.call('POST', '/black_lists', { token, body: { phone: gb(1) } });
    const c = await a.call<{ items: Array<{ id: number }> }>('GET', `/contacts?search=${encodeURIComponent(gb(3))}`, { token });
    await a.call('PUT', `/contacts/${c.body.items[0].id}`, { token, body: { optedOut: true } });
    // another account's contact with a number of list A
    await a.call('POST', '/contacts', { token: a.token('2'), body: { phone: gb(0) } });
  });
  afterAll(async () => a?.close());

  /** Asks as the campaign runner does and returns the batches of the answer, in order. */
  async function ask(o: Partial<EventData<typeof AudienceRequestedV1>> = {}, eventId = randomUUID()): Promise<Batch[]> {
    const requestId = o.requestId ?? randomUUID();
    const req = { requestId, accountId: '1', campaignId: '42', contactListIds: [listA], sendDuplicates: false, variableIds: null, ...o };
    await a.t.bus.publish([createEnvelope(AudienceRequestedV1, req, { accountId: req.accountId, source: 'campaigns', id: eventId })]);
    await (a.t.bus as InMemoryEventBus).drain();
    return (await a.events())
      .filter((e) => e.type === AudienceBatchPreparedV1.type && (e.data as Batch).requestId === requestId)
      .map((e) => AudienceBatchPreparedV1.schema.parse(e.data))
      .sort((x, y) => x.seq - y.seq);
  }

  /** Asks for the `copy` format and returns the chunks of the answer, in order. */
  async function askCopy(o: Partial<EventData<typeof AudienceRequestedV1>> = {}): Promise<Chunk[]> {
    const requestId = randomUUID();
    const req = { requestId, accountId: '1', campaignId: '42', contactListIds: [listA], sendDuplicates: false, variableIds: null, format: 'copy' as const, ...o };
    await a.t.bus.publish([createEnvelope(AudienceRequestedV1, req, { accountId: req.accountId, source: 'campaigns' })]);
    await (a.t.bus as InMemoryEventBus).drain();
    const events = await a.events();
    expect(events.filter((e) => e.type === AudienceBatchPreparedV1.type && (e.data as Batch).requestId === requestId)).toHaveLength(0);
    return events
      .filter((e) => e.type === AudienceChunkPreparedV1.type && (e.data as Chunk).requestId === requestId)
      .map((e) => AudienceChunkPreparedV1.schema.parse(e.data))
      .sort((x, y) => x.seq - y.seq);
  }

  const phones = (bs: Batch[]) => bs.flatMap((b) => b.recipients.phone).sort();

  it('hands over a list without its blacklisted and opted-out numbers, in numbered batches with the totals on the last', async () => {
    const bs = await ask({ batchSize: 3 });
    expect(bs.map((b) => [b.seq, b.last, b.recipients.contactId.length])).toEqual([
      [0, false, 3],
      [1, false, 3],
      [2, true, 2],
    ]);
    expect(phones(bs)).toEqual([0, 2, 4, 5, 6, 7, 8, 9].map(gb));
    expect(bs[2].totals).toEqual({ batches: 3, recipients: 8, contacts: 8, excluded: 2, duplicatesRemoved: 0 });
    const i = bs[0].recipients.phone.indexOf(gb(0));
    expect(bs[0].recipients).toMatchObject({ iso2: expect.arrayContaining(['GB']), timezone: expect.arrayContaining(['Europe/London']) });
    expect(bs[0].recipients.variables[i]).toEqual({ '1': gb(0), '2': 'N0', '5': 'GB', '6': 'Europe/London', [tier]: 'gold' });
  });

  it('removes duplicates across lists and segments unless sendDuplicates, which sends one copy per list', async () => {
    const once = await ask({ contactListIds: [listA, listB, segment] });
    expect(phones(once)).toEqual([0, 2, 4, ...Array.from({ length: 10 }, (_, i) => 5 + i)].map(gb).sort());
    // gb(6) and gb(8) are in A, B and the gold segment; gb(5), gb(7), gb(9) in A and B; gb(0), gb(2), gb(4) in A and gold; 10, 12, 14 in B and gold
    expect(once[once.length - 1].totals).toMatchObject({ recipients: 13, contacts: 13, duplicatesRemoved: 2 * 2 + 3 + 3 + 3 });
    const dup = await ask({ contactListIds: [listA, listB, segment], sendDuplicates: true });
    const all = dup.flatMap((b) => b.recipients.phone.map((p, k) => `${p}#${b.recipients.occurrence[k]}`));
    expect(all.filter((x) => x.startsWith(gb(6)))).toEqual([`${gb(6)}#0`, `${gb(6)}#1`, `${gb(6)}#2`]);
    expect(all.filter((x) => x.startsWith(gb(11)))).toEqual([`${gb(11)}#0`]);
    expect(dup[dup.length - 1].totals).toMatchObject({ recipients: 13 + 13, contacts: 13, duplicatesRemoved: 0 });
  });

  it('sends only the variables the campaign uses', async () => {
    const bs = await ask({ variableIds: [tier] });
    expect(bs[0].recipients.variables[0]).toEqual({ [tier]: expect.any(String) });
  });

  it("builds a campaign's variables as the whole set would, for any number of them (more than one call's 40 pairs)", async () => {
    // the values of every variable (variableIds null) restricted to the wanted ones are what a campaign asking for them
    // gets: the contact's own variables over the standard fields, no empty values; ids nobody has are left out
    const wanted = ['1', '2', '3', '4', '5', '6', tier, ...Array.from({ length: 60 }, (_, i) => String(900_000 + i))];
    for (const format of ['columns', 'copy'] as const) {
      const all = format === 'copy' ? recipientsOf(await askCopy({ contactListIds: [listA, listB, segment] })) : recipientsOfBatches(await ask({ contactListIds: [listA, listB, segment] }));
      const some = format === 'copy' ? recipientsOf(await askCopy({ contactListIds: [listA, listB, segment], variableIds: wanted })) : recipientsOfBatches(await ask({ contactListIds: [listA, listB, segment], variableIds: wanted }));
      expect(some).toEqual(all);
      expect(some[0].variables).toEqual({ '1': expect.any(String), '2': expect.any(String), '5': 'GB', '6': expect.any(String), [tier]: expect.any(String) });
      const only = { contactListIds: [listA, listB, segment], variableIds: ['2'] };
      const firstOnly = format === 'copy' ? recipientsOf(await askCopy(only)) : recipientsOfBatches(await ask(only));
      expect(firstOnly.map((r) => r.variables)).toEqual(all.map((r) => ({ '2': r.variables['2'] })));
    }
  });

  it('answers a redelivered request once, and a list of another account with an error and no one', async () => {
    const id = randomUUID();
    const requestId = randomUUID();
    expect(await ask({ requestId }, id)).toHaveLength(1);
    expect(await ask({ requestId }, id)).toHaveLength(1);
    const other = await ask({ accountId: '2' });
    expect(other).toEqual([expect.objectContaining({ last: true, error: 'contact list not found', totals: expect.objectContaining({ recipients: 0 }) })]);
    expect(other[0].recipients.phone).toEqual([]);
  });

  it('counts the audience per country and time zone without handing it over (mode count)', async () => {
    const requestId = randomUUID();
    await a.t.bus.publish([
      createEnvelope(AudienceRequestedV1, { requestId, accountId: '1', campaignId: '42', contactListIds: [listA, listB, segment], sendDuplicates: true, variableIds: null, mode: 'count' }, { accountId: '1', source: 'campaigns' }),
    ]);
    await (a.t.bus as InMemoryEventBus).drain();
    const events = await a.events();
    expect(events.filter((e) => e.type === AudienceBatchPreparedV1.type && (e.data as Batch).requestId === requestId)).toHaveLength(0);
    const counted = events.filter((e) => e.type === AudienceCountedV1.type).map((e) => AudienceCountedV1.schema.parse(e.data));
    expect(counted).toEqual([{ requestId, accountId: '1', campaignId: '42', total: 26, byCountry: { GB: 26 }, byTimezone: { 'Europe/London': 26 }, error: null }]);
  });

  it('answers an empty audience with one empty last batch', async () => {
    const s = await a.call<{ id: number }>('POST', '/contact_lists', { token, body: { name: 'None', filter: { groups: [{ type: 'country', values: ['FR'] }] } } });
    const bs = await ask({ contactListIds: [String(s.body.id)] });
    expect(bs).toEqual([expect.objectContaining({ seq: 0, last: true, totals: { batches: 1, recipients: 0, contacts: 0, excluded: 0, duplicatesRemoved: 0 } })]);
  });

  it('hands over the same snapshot as COPY text chunks (format copy): exclusions, duplicates, variables, escaped values and the totals', async () => {
    for (const o of [{}, { contactListIds: [listA, listB, segment] }, { contactListIds: [listA, listB, segment], sendDuplicates: true }, { variableIds: [tier] }]) {
      const chunks = await askCopy(o);
      const batches = await ask(o);
      expect(chunks.map((c) => c.last)).toEqual([...chunks.slice(1).map(() => false), true]);
      expect(recipientsOf(chunks)).toEqual(recipientsOfBatches(batches));
      expect(chunks[chunks.length - 1].totals).toEqual({ ...batches[batches.length - 1].totals, batches: chunks.length });
      expect(chunks.every((c) => c.columns.join() === AUDIENCE_COPY_COLUMNS.join() && c.error === null)).toBe(true);
    }
    // values with tabs, line breaks, backslashes and quotes come back as they were
    const odd = await a.call<{ id: number }>('POST', '/contact_lists', { token, body: { name: 'Odd values' } });
    const name = 'Tab\there\r\nnew line \\ back "quoted"';
    const added = await a.call('POST', '/contacts', { token, body: { phone: gb(40), firstName: name, contactLists: [odd.body.id] } });
    expect(added.status).toBe(201);
    const [only] = recipientsOf(await askCopy({ contactListIds: [String(odd.body.id)] }));
    expect(only).toMatchObject({ phone: gb(40), variables: expect.objectContaining({ '2': name }) });
    // a list of another account: one last chunk with the error and no one
    const other = await askCopy({ accountId: '2' });
    expect(other).toEqual([expect.objectContaining({ seq: 0, rows: 0, data: '', last: true, error: 'contact list not found' })]);
  });

  it('reads the copy lines in the snapshot of the totals: a contact committed to the list meanwhile is in neither, and in the next snapshot', async () => {
    const list = String((await a.call<{ id: number }>('POST', '/contact_lists', { token, body: { name: 'Growing' } })).body.id);
    for (const n of [60, 61]) expect((await a.call('POST', '/contacts', { token, body: { phone: gb(n), contactLists: [Number(list)] } })).status).toBe(201);
    // the lines are read on a connection of their own: a contact committed just before it opens is not in the snapshot
    const consumer = a.t.app.get(AudienceConsumer) as unknown as { readers: () => Pool };
    const readers = consumer.readers();
    const spy = jest.spyOn(consumer, 'readers').mockImplementationOnce(
      () =>
        ({
          connect: async () => {
            expect((await a.call('POST', '/contacts', { token, body: { phone: gb(62), contactLists: [Number(list)] } })).status).toBe(201);
            return readers.connect();
          },
        }) as unknown as Pool,
    );
    const first = await askCopy({ contactListIds: [list] });
    expect(spy).toHaveBeenCalled();
    spy.mockRestore();
    expect(recipientsOf(first).map((r) => r.phone)).toEqual([gb(60), gb(61)]);
    expect(first[first.length - 1].totals).toMatchObject({ recipients: 2, contacts: 2 });
    const next = await askCopy({ contactListIds: [list] });
    expect(recipientsOf(next).map((r) => r.phone)).toEqual([gb(60), gb(61), gb(62)]);
    expect(next[next.length - 1].totals).toMatchObject({ recipients: 3, contacts: 3 });
  });

  it('cuts a large copy snapshot into chunks under the bus limit, numbered in order', async () => {
    const n = 9000;
    const text = `phone,name\n${Array.from({ length: n }, (_, i) => `${gb(1000 + i)},${'x'.repeat(60)}${i}`).join('\n')}\n`;
    const imported = await a.importFile(token, text, 'big.csv', [{ column: 0, variable: 'phone' }, { column: 1, variable: 'firstName' }]);
    const chunks = await askCopy({ contactListIds: [String(imported.contactList)] });
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.map((c) => c.seq)).toEqual(chunks.map((_c, i) => i));
    expect(chunks.every((c) => Buffer.byteLength(c.data) <= AUDIENCE_CHUNK_MAX_BYTES)).toBe(true);
    expect(recipientsOf(chunks)).toHaveLength(n);
    expect(chunks[chunks.length - 1].totals).toMatchObject({ recipients: n, batches: chunks.length });
  });

  it('halves a chunk whose event would be over the bus limit once JSON escapes its quotes and backslashes, numbered in order', async () => {
    const n = 2000;
    const name = '"\\'.repeat(300);
    const [{ id: list }] = await a.sql<{ id: string }>(`INSERT INTO contacts.contact_list (account_id, name, type, status, num_of_contacts) VALUES (1, 'Quotes', 'list', 2, $1) RETURNING id::text`, [n]);
    await a.sql(
      `INSERT INTO contacts.contact (account_id, phone, normalized_phone, country, timezone, first_name, list_ids)
       SELECT 1, p, p, 'GB', 'Europe/London', $3 || i, ARRAY[$1::bigint] FROM generate_series(0, $2 - 1) AS i, LATERAL (SELECT '+4478' || lpad((40000000 + i)::text, 8, '0') AS p) x`,
      [list, n, name],
    );
    const chunks = await askCopy({ contactListIds: [list], variableIds: ['2'] });
    // 800 KB of these lines is about 1.6 MB of JSON: every chunk was halved to stay under the relay's 1,000,000-byte event cap
    expect(chunks.map((c) => c.seq)).toEqual(chunks.map((_c, i) => i));
    expect(chunks.map((c) => c.last)).toEqual([...chunks.slice(1).map(() => false), true]);
    const sizes = chunks.map((c) => Buffer.byteLength(JSON.stringify(c)));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(990_000);
    expect(Math.max(...chunks.map((c) => Buffer.byteLength(c.data)))).toBeLessThan(AUDIENCE_CHUNK_MAX_BYTES / 2 + 10_000);
    expect(recipientsOf(chunks).map((r) => r.variables['2'])).toEqual(Array.from({ length: n }, (_, i) => `${name}${i}`));
    expect(chunks[chunks.length - 1].totals).toMatchObject({ recipients: n, batches: chunks.length });
  });

  it('cuts a snapshot of long lines (more than a chunk in one read) line by line, under the bus limit and in order', async () => {
    const n = 1200;
    // names longer than an import takes: 1,500 bytes a line, so one read of the snapshot holds more than a chunk
    const [{ id: list }] = await a.sql<{ id: string }>(`INSERT INTO contacts.contact_list (account_id, name, type, status, num_of_contacts) VALUES (1, 'Long names', 'list', 2, $1) RETURNING id::text`, [n]);
    await a.sql(
      `INSERT INTO contacts.contact (account_id, phone, normalized_phone, country, timezone, first_name, list_ids)
       SELECT 1, p, p, 'GB', 'Europe/London', repeat('y', 1500) || i, ARRAY[$1::bigint] FROM generate_series(0, $2 - 1) AS i, LATERAL (SELECT '+4477' || lpad((30000000 + i)::text, 8, '0') AS p) x`,
      [list, n],
    );
    const chunks = await askCopy({ contactListIds: [list], variableIds: ['2'] });
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.map((c) => c.seq)).toEqual(chunks.map((_c, i) => i));
    expect(chunks.every((c) => Buffer.byteLength(c.data) <= AUDIENCE_CHUNK_MAX_BYTES && c.rows === c.data.split('\n').length - 1)).toBe(true);
    const rs = recipientsOf(chunks);
    expect(rs.map((r) => r.variables['2'])).toEqual(Array.from({ length: n }, (_, i) => `${'y'.repeat(1500)}${i}`));
    expect(chunks[chunks.length - 1].totals).toMatchObject({ recipients: n, batches: chunks.length });
  });

  it('publishes the chunks before the last as it reads them, a bounded number unacknowledged, with its attempt; the last only with the commit; a snapshot that broke off is answered by a later attempt', async () => {
    const n = 6000;
    const [{ id: list }] = await a.sql<{ id: string }>(`INSERT INTO contacts.contact_list (account_id, name, type, status, num_of_contacts) VALUES (1, 'Attempts', 'list', 2, $1) RETURNING id::text`, [n]);
    await a.sql(
      `INSERT INTO contacts.contact (account_id, phone, normalized_phone, country, timezone, first_name, list_ids)
       SELECT 1, p, p, 'GB', 'Europe/London', repeat('z', 500) || i, ARRAY[$1::bigint] FROM generate_series(0, $2 - 1) AS i, LATERAL (SELECT '+4476' || lpad((50000000 + i)::text, 8, '0') AS p) x`,
      [list, n],
    );
    const requestId = randomUUID();
    const eventId = randomUUID();
    const bus = a.t.bus;
    const publish = bus.publish.bind(bus);
    const seen: Array<{ seq: number; attempt: number; last: boolean; committed: boolean }> = [];
    let out = 0;
    let most = 0;
    let failed = false;
    let asked: Promise<Array<{ claimed: number }>> = Promise.resolve([]);
    // the bus as a slow requester sees it: each chunk is acknowledged 30 ms after it was published; the third chunk of
    // the first attempt cannot be published (the broker unreachable), which fails the snapshot's transaction
    const spy = jest.spyOn(bus, 'publish').mockImplementation(async (events: OutgoingEvent[]) => {
      const mine = events.filter((e) => e.type === AudienceChunkPreparedV1.type && (e.data as Chunk).requestId === requestId);
      if (!mine.length) return publish(events);
      const c = mine[0].data as Chunk;
      // one look at a time on the test's connection (publishes overlap)
      const look = (asked = asked.then(() => a.sql<{ claimed: number }>(`SELECT count(*)::int AS claimed FROM contacts.processed_events WHERE consumer = 'contacts.audience' AND event_id = $1`, [eventId])));
      const [{ claimed }] = await look;
      seen.push({ seq: c.seq, attempt: c.attempt ?? 0, last: c.last, committed: claimed > 0 });
      if (!failed && c.seq === 2) {
        failed = true;
        throw new Error('the broker is unreachable');
      }
      most = Math.max(most, ++out);
      await new Promise((r) => setTimeout(r, 30));
      out--;
      return publish(events);
    });
    try {
      const req = { requestId, accountId: '1', campaignId: '42', contactListIds: [list], sendDuplicates: false, variableIds: ['2'], format: 'copy' as const };
      await bus.publish([createEnvelope(AudienceRequestedV1, req, { accountId: req.accountId, source: 'campaigns', id: eventId })]);
      await (bus as InMemoryEventBus).drain();
      const chunks = (await a.events()).filter((e) => e.type === AudienceChunkPreparedV1.type && (e.data as Chunk).requestId === requestId).map((e) => AudienceChunkPreparedV1.schema.parse(e.data));
      const [first, second] = [...new Set(seen.map((x) => x.attempt))];
      expect(second).toBeGreaterThan(first);
      // the first attempt: its chunks up to the one that failed (and perhaps the next, cut meanwhile) out before any
      // commit, none last
      const broken = seen.filter((x) => x.attempt === first);
      expect(broken.slice(0, 3)).toEqual([0, 1, 2].map((seq) => ({ seq, attempt: first, last: false, committed: false })));
      expect(broken.every((x, i) => x.seq === i && !x.last && !x.committed)).toBe(true);
      // the second: every chunk but the last out before the commit, the last (from the outbox) after it
      const again = seen.filter((x) => x.attempt === second);
      expect(again.length).toBeGreaterThan(3);
      expect(again.map((x) => x.seq)).toEqual(again.map((_x, i) => i));
      expect(again.map((x) => [x.last, x.committed])).toEqual(again.map((_x, i) => (i === again.length - 1 ? [true, true] : [false, false])));
      expect(most).toBe(AUDIENCE_CHUNKS_IN_FLIGHT);
      // what a requester keeping the highest attempt stores: the whole snapshot once
      const kept = chunks.filter((c) => c.attempt === second).sort((x, y) => x.seq - y.seq);
      expect(recipientsOf(kept).map((r) => r.variables['2'])).toEqual(Array.from({ length: n }, (_, i) => `${'z'.repeat(500)}${i}`));
      expect(kept[kept.length - 1].totals).toMatchObject({ recipients: n, batches: kept.length });
      expect(chunks.filter((c) => c.last)).toHaveLength(1);
    } finally {
      spy.mockRestore();
    }
  });
});
