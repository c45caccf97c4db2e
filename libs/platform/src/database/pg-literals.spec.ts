import { pgArray, pgArrayParameters, pgParameterText, withLiterals } from './pg-literals';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- node-postgres' internal module, no typings
const { prepareValue } = require('pg/lib/utils') as { prepareValue: (value: unknown) => unknown };

describe('pgArray (a batch column as a PostgreSQL array literal)', () => {
  it('quotes every string with its backslashes and double quotes escaped, writes null as NULL and numbers as they are', () => {
    expect(pgArray(['Acme', 'Shop "Nord", {Süd} \\ NULL', '', 'NULL', null])).toBe('{"Acme","Shop \\"Nord\\", {Süd} \\\\ NULL","","NULL",NULL}');
    expect(pgArray([1, -2, 0, 12345678901234567890n, true, false, null])).toBe('{1,-2,0,12345678901234567890,true,false,NULL}');
    expect(pgArray([])).toBe('{}');
    // columns of one kind (joined at once) say the same
    expect(pgArray(['a', 'b c', ''])).toBe('{"a","b c",""}');
    expect(pgArray(['a', 'x"y', 'z\\'])).toBe('{"a","x\\"y","z\\\\"}');
    expect(pgArray([3, 4n, true])).toBe('{3,4,true}');
    expect(pgArray([null, null])).toBe('{NULL,NULL}');
  });

  it('refuses a number that is no safe integer rather than writing it in a form the column would misread', () => {
    expect(() => pgArray([1.5])).toThrow(RangeError);
    expect(() => pgArray([Number.NaN])).toThrow(RangeError);
    expect(() => pgArray([2 ** 60])).toThrow(RangeError);
  });
});

describe('pgParameterText (a parameter as node-postgres sends it)', () => {
  it('writes scalars, arrays and nested arrays (inner dimensions) exactly as the driver does', () => {
    const values: unknown[] = [
      'a "b" \\ c',
      7,
      12345678901234567890n,
      false,
      ['GB', 'a"b', 'c\\d', null, undefined, '', 'NULL', 3, true],
      [
        ['1', '2'],
        ['3', null],
      ],
      [[['x']], [['y"']]],
      [],
    ];
    for (const v of values) expect(pgParameterText(v)).toBe(prepareValue(v));
    expect(pgParameterText([['1', '2'], ['3', '4']])).toBe('{{"1","2"},{"3","4"}}');
  });

  it('writes null and undefined as null, a date as its ISO instant, and refuses any other object', () => {
    expect(pgParameterText(null)).toBeNull();
    expect(pgParameterText(undefined)).toBeNull();
    expect(pgParameterText(new Date(Date.UTC(2026, 2, 29, 1, 30)))).toBe('2026-03-29T01:30:00.000Z');
    expect(pgParameterText([new Date(Date.UTC(2026, 0, 1))])).toBe('{"2026-01-01T00:00:00.000Z"}');
    expect(() => pgParameterText({ a: 1 })).toThrow(/cannot be written as a literal/);
  });
});

describe('withLiterals: parameters written as literals for COPY', () => {
  const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;

  it('writes each $n as its value quoted (arrays as array literals, null as NULL), $10 not taken for $1', () => {
    const values = ['1', "O'Brien", null, ['GB', 'a"b', 'c\\d'], 5, true, 'v7', 'v8', 'v9', 'ten'];
    expect(withLiterals('a = $1 AND b = lower($2) AND c IS $3 AND d = ANY($4::text[]) AND e = $5 AND f = $6 AND g = $10', values, quote)).toBe(
      `a = '1' AND b = lower('O''Brien') AND c IS NULL AND d = ANY('{"GB","a\\"b","c\\\\d"}'::text[]) AND e = '5' AND f = 'true' AND g = 'ten'`,
    );
  });

  it('leaves a regular expression literal alone and refuses a parameter without a value', () => {
    expect(withLiterals(`x ~ '^[0-9]{4}$' AND y = $1`, ['2'], quote)).toBe(`x ~ '^[0-9]{4}$' AND y = '2'`);
    expect(() => withLiterals('y = $2', ['1'], quote)).toThrow(/\$2 has no value/);
  });
});

describe('pgArrayParameters (the hot statements\' unnest columns written here, not by the driver)', () => {
  // a deterministic generator of awkward texts: quotes, backslashes, commas, braces, spaces, NULL, unicode, JSON
  let seed = 12345;
  const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
  const pieces = ['"', '\\', ',', '{', '}', ' ', 'NULL', 'null', 'ü', '😀', "'", '\n', 'a', 'b7', ''];
  const text = () => Array.from({ length: rnd(8) }, () => pieces[rnd(pieces.length)]).join('');
  const json = () => JSON.stringify({ id: text(), n: rnd(1000), nested: { t: text(), list: [text(), null, rnd(9)] } });

  it('sends every array column exactly as node-postgres would (texts, JSON, uuids, integers, booleans, nulls)', () => {
    for (let round = 0; round < 500; round++) {
      const n = rnd(12);
      const columns: unknown[] = [
        Array.from({ length: n }, text),
        Array.from({ length: n }, json),
        Array.from({ length: n }, () => '0190a1b2-c3d4-7e5f-8a9b-' + String(rnd(1e6)).padStart(12, '0')),
        Array.from({ length: n }, () => (rnd(3) === 0 ? null : rnd(2 ** 31) - 2 ** 30)),
        Array.from({ length: n }, () => String(rnd(2 ** 31)) + String(rnd(2 ** 31))),
        Array.from({ length: n }, () => (rnd(3) === 0 ? null : rnd(2) === 0)),
        Array.from({ length: n }, () => (rnd(2) === 0 ? null : text())),
      ];
      const ours = pgArrayParameters(columns);
      columns.forEach((c, i) => expect(prepareValue(ours[i])).toBe(prepareValue(c)));
      // columns of plain values are written here (uuids, ids, integers, booleans, nulls), the rest left to the driver
      [2, 3, 4, 5].forEach((i) => n > 0 && expect(typeof ours[i]).toBe('string'));
    }
  });

  it('leaves scalars, dates and texts that need escaping to the driver', () => {
    const when = [new Date('2026-11-28T17:00:00.123Z'), null];
    const json = ['{"a":"b"}', 'c'];
    const out = pgArrayParameters(['x', 5, when, json, null, ['1', null, 2, true]]);
    expect(out.slice(0, 5)).toEqual(['x', 5, when, json, null]);
    expect(out[5]).toBe('{"1",NULL,"2","true"}');
  });
});
