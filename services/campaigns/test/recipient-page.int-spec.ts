import { copyTextFields, RunnerDatabase } from '../src';
import { startCampaigns, type CampaignsTestApp } from './support';

/**
 * The send step reads its pages of recipients by COPY into one array of fields, cut chunk by chunk as they arrive
 * (docs/decisions/0156): every value must come back as a query would answer it.
 */
describe('recipient pages read by COPY', () => {
  let a: CampaignsTestApp;
  beforeAll(async () => {
    a = await startCampaigns();
  });
  afterAll(async () => {
    await a.close();
  });

  it('gives every field as the query answers it: nulls, empty texts, escaped characters, multi-byte text across chunks', async () => {
    const db = a.t.app.get(RunnerDatabase);
    // enough rows that the COPY arrives in many chunks, with multi-byte characters and escapes everywhere, so chunk
    // boundaries fall inside rows and inside characters
    const select = `SELECT n, CASE WHEN n % 7 = 0 THEN NULL WHEN n % 7 = 1 THEN '' WHEN n % 7 = 2 THEN '\\N' ELSE
                      'ünï ' || n || E' tab\\there\\nline\\rcr back\\\\slash \\b\\f\\x0b ' || repeat('€😀', n % 5) END AS v,
                      ('{"shorturl": "https://s.io/' || n || '"}')::jsonb AS links
                      FROM generate_series(1, 30000) n ORDER BY n`;
    const expected = (await a.sql<{ n: number; v: string | null; links: Record<string, string> }>(select)).map((r) => [String(r.n), r.v, JSON.stringify(r.links)]);
    const fields = await db.copyOut(select, [], 3);
    expect(fields.length).toBe(3 * 30000);
    const got: Array<[string | null, string | null, string | null]> = [];
    for (let i = 0; i < fields.length; i += 3) got.push([fields[i], fields[i + 1], fields[i + 2] === null ? null : JSON.stringify(JSON.parse(fields[i + 2]!))]);
    expect(got).toEqual(expected);
    expect(got[1]).toEqual(['2', '\\N', expect.any(String)]);
    expect(got[6]).toEqual(['7', null, expect.any(String)]);
  });

  it('cuts whole rows of COPY text and undoes its escapes', () => {
    expect(copyTextFields('1\ta\\tb\\\\c\t\\N\n2\t\t\\\\N\n', 3)).toEqual(['1', 'a\tb\\c', null, '2', '', '\\N']);
    const out = ['x'];
    expect(copyTextFields('3\tö\\n\\r\\b\\f\\v\t€\n', 3, out)).toBe(out);
    expect(out).toEqual(['x', '3', 'ö\n\r\b\f\v', '€']);
    expect(() => copyTextFields('1\t2\n', 3)).toThrow(/fewer than 3 fields/);
  });
});
