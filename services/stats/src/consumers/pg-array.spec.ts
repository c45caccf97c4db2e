import { pgArray } from './pg-array';

describe('pgArray (a batch column as a PostgreSQL array literal)', () => {
  it('quotes every string with its backslashes and double quotes escaped, writes null as NULL and numbers as they are', () => {
    expect(pgArray(['Acme', 'Shop "Nord", {Süd} \\ NULL', '', 'NULL', null])).toBe('{"Acme","Shop \\"Nord\\", {Süd} \\\\ NULL","","NULL",NULL}');
    expect(pgArray([1, -2, 0, 12345678901234567890n, true, false, null])).toBe('{1,-2,0,12345678901234567890,true,false,NULL}');
    expect(pgArray([])).toBe('{}');
  });

  it('refuses a number that is no safe integer rather than writing it in a form the column would misread', () => {
    expect(() => pgArray([1.5])).toThrow(RangeError);
    expect(() => pgArray([Number.NaN])).toThrow(RangeError);
    expect(() => pgArray([2 ** 60])).toThrow(RangeError);
  });
});
