import { pgArray, pgParameterText, withLiterals } from './pg-literals';

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
