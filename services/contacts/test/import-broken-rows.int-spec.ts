import { gb, startContacts, type ContactsTestApp } from './support';

type Row = Record<string, unknown>;

describe('an import of a CSV with a broken quote', () => {
  let a: ContactsTestApp;
  let token: string;
  const batches: number[] = [];

  beforeAll(async () => {
    a = await startContacts({
      batchSize: 300,
      hooks: {
        afterBatch: async () => {
          batches.push(Date.now());
          // the run takes a while, so that its start and its end are visibly apart
          if (batches.length === 1) await new Promise((r) => setTimeout(r, 300));
        },
      },
    });
    token = a.token('1');
  });
  afterAll(async () => a?.close());

  const contact = async (phone: string): Promise<Row | undefined> => {
    const r = await a.call<{ items: Row[] }>('GET', `/contacts?search=${encodeURIComponent(phone)}`, { token });
    return r.body.items[0];
  };

  it('reports the row with the unclosed quote on its line and reads every row after it; a closed multi-line name stays valid', async () => {
    // data row k is on line k + 1; row 500 opens a quote it never closes, row 800's quoted name would close it
    const rows = Array.from({ length: 2000 }, (_, i) => {
      const k = i + 1;
      if (k === 500) return `${gb(20_000 + k)},"Ann`;
      if (k === 800) return `${gb(20_000 + k)},"Carl"`;
      if (k === 1200) return `${gb(20_000 + k)},"Multi\nLine"`;
      return `${gb(20_000 + k)},n${k}`;
    });
    const done = await a.importFile(token, `phone,name\n${rows.join('\n')}\n`, 'broken.csv', [
      { column: 0, variable: 'phone' },
      { column: 1, variable: 'firstName' },
    ]);
    expect(done).toMatchObject({ status: 'parsed', error: null, parsed: 2000, invalid: 1, failed: 1, duplicates: 0, numberOfContacts: 1999 });
    const failed = await a.call<{ items: Row[] }>('GET', `/contacts?importList=${done.id}&state=failed`, { token });
    expect(failed.body.items.map((x) => [x.rowNumber, x.phone, x.firstName, x.error])).toEqual([[501, gb(20_500), 'Ann', 'a quoted field is not closed']]);
    expect(await contact(gb(20_499))).toMatchObject({ firstName: 'n499' });
    expect(await contact(gb(20_500))).toBeUndefined();
    expect(await contact(gb(20_501))).toMatchObject({ firstName: 'n501' });
    expect(await contact(gb(20_800))).toMatchObject({ firstName: 'Carl' });
    expect(await contact(gb(21_200))).toMatchObject({ firstName: 'Multi\nLine' });
    expect(await contact(gb(22_000))).toMatchObject({ firstName: 'n2000' });

  });

  it('records when the import really started and finished', async () => {
    batches.length = 0;
    const started = Date.now();
    const done = await a.importFile(token, `phone\n${Array.from({ length: 1000 }, (_, i) => gb(30_000 + i)).join('\n')}\n`, 'times.csv', [{ column: 0, variable: 'phone' }]);
    expect(done).toMatchObject({ status: 'parsed', numberOfContacts: 1000 });
    // it started before its first batch and finished after its last (300 ms later at least), not when its
    // transaction began
    expect(batches.length).toBeGreaterThan(2);
    const startedAt = Date.parse(done.startedAt as string);
    const finishedAt = Date.parse(done.finishedAt as string);
    expect(startedAt).toBeGreaterThanOrEqual(started - 1000);
    expect(startedAt).toBeLessThanOrEqual(batches[0]);
    expect(finishedAt).toBeGreaterThanOrEqual(batches[batches.length - 1]);
  });
});
