import { createTestDatabase, type TestDatabase } from '@switchboard/platform/testing';
import { Client } from 'pg';
import { ArrayWriter, arrayBodyValues, binaryArray } from '../src/redirect/pg-binary-array';

/**
 * The click group statement's arrays in the binary format (docs/decisions/0223): PostgreSQL must read each element as
 * the text it replaced would have been read, NULLs, the edges of each type and arrays joined from several chunks (a
 * cluster's workers) included.
 */
describe('binary arrays for the click group statement', () => {
  let db: TestDatabase;
  let c: Client;
  beforeAll(async () => {
    db = await createTestDatabase('binarr');
    c = new Client({ connectionString: db.url });
    await c.connect();
  });
  afterAll(async () => {
    await c.end();
    await db.drop();
  });

  const asText = async (sqlType: string, param: Buffer): Promise<string> => (await c.query<{ t: string }>(`SELECT $1::${sqlType}::text AS t`, [param])).rows[0].t;

  it('reads int8 from decimal text (beyond 2^53 and negative too) and from numbers, with NULLs', async () => {
    const w = new ArrayWriter('int8', 1);
    for (const v of ['0', '1', '42', '-7', '9007199254740991', '9007199254740993', '-9223372036854775808', '9223372036854775807', null]) w.int8Text(v);
    w.int8(3_521_614_606_207);
    w.int8(4294967296);
    expect(await asText('bigint[]', binaryArray('int8', [w.body()]))).toBe(
      '{0,1,42,-7,9007199254740991,9007199254740993,-9223372036854775808,9223372036854775807,NULL,3521614606207,4294967296}',
    );
    for (const bad of ['12x', '', '1.5']) expect(() => new ArrayWriter('int8', 1).int8Text(bad)).toThrow('not an integer');
  });

  it('reads uuids with or without dashes, upper or lower case, and refuses malformed ones', async () => {
    const w = new ArrayWriter('uuid', 1);
    w.uuid('00000000-03e8-8000-8000-00000000a000');
    w.uuid('A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11');
    w.uuid(null);
    w.uuid('a0eebc999c0b4ef8bb6d6bb9bd380a11');
    expect(await asText('uuid[]', binaryArray('uuid', [w.body()]))).toBe(
      '{00000000-03e8-8000-8000-00000000a000,a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11,NULL,a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}',
    );
    for (const bad of ['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a111', 'g0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'])
      expect(() => new ArrayWriter('uuid', 1).uuid(bad)).toThrow('invalid uuid');
  });

  it('reads float8 (ms since the epoch, fractions), int2, int4, bool and text (quotes, backslashes, commas, braces, UTF-8, empty, NULL)', async () => {
    const f = new ArrayWriter('float8', 1);
    for (const v of [1764428400123, 0.5, -1, 1e300]) f.float8(v);
    expect(await asText('float8[]', binaryArray('float8', [f.body()]))).toBe('{1764428400123,0.5,-1,1e+300}');
    const s = new ArrayWriter('int2', 1);
    for (const v of [0, 2, -1, 32767]) s.int2(v);
    expect(await asText('smallint[]', binaryArray('int2', [s.body()]))).toBe('{0,2,-1,32767}');
    const i = new ArrayWriter('int4', 1);
    for (const v of [0, 1, -2147483648, 2147483647]) i.int4(v);
    expect(await asText('int[]', binaryArray('int4', [i.body()]))).toBe('{0,1,-2147483648,2147483647}');
    const b = new ArrayWriter('bool', 1);
    for (const v of [true, false, true]) b.bool(v);
    expect(await asText('boolean[]', binaryArray('bool', [b.body()]))).toBe('{t,f,t}');
    const texts = ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)', 'a "quoted" \\ back,slash {brace}', 'ü € 𝄞', '', null, 'NULL', '::ffff:127.0.0.1'];
    const t = new ArrayWriter('text', 1);
    for (const v of texts) t.text(v);
    const { rows } = await c.query<{ v: string | null }>(`SELECT v FROM unnest($1::text[]) WITH ORDINALITY u(v, o) ORDER BY o`, [binaryArray('text', [t.body()])]);
    expect(rows.map((r) => r.v)).toEqual(texts);
    expect(arrayBodyValues(t.body())).toEqual(texts);
  });

  it('joins the bodies of several chunks into one array in order, NULLs of any of them kept; no elements is an empty array', async () => {
    const parts = [['1', null], [], ['3'], [null, '5']].map((vs) => {
      const w = new ArrayWriter('int8', 1);
      for (const v of vs) w.int8Text(v);
      return w.body();
    });
    const { rows } = await c.query<{ t: string; n: number }>(`SELECT $1::bigint[]::text AS t, cardinality($1::bigint[]) AS n`, [binaryArray('int8', parts)]);
    expect(rows[0]).toEqual({ t: '{1,NULL,3,NULL,5}', n: 5 });
    expect(await asText('bigint[]', binaryArray('int8', [new ArrayWriter('int8', 1).body()]))).toBe('{}');
    expect(() => binaryArray('int8', [new ArrayWriter('int4', 1).body()])).toThrow('array of int8 given a body of int4');
  });

  it('grows past its first capacity without losing what was written', async () => {
    const w = new ArrayWriter('text', 1);
    const texts = Array.from({ length: 500 }, (_, k) => `agent ${k} ${'x'.repeat(k % 97)}`);
    for (const v of texts) w.text(v);
    const { rows } = await c.query<{ v: string }>(`SELECT v FROM unnest($1::text[]) WITH ORDINALITY u(v, o) ORDER BY o`, [binaryArray('text', [w.body()])]);
    expect(rows.map((r) => r.v)).toEqual(texts);
  });
});
