import { copyValue, processRows, STAGE_COLUMNS, type RowMapping } from './row-processor';

const mapping: RowMapping = { requireMobile: true, phone: 0, firstName: 1, email: 2, custom: [[3, '1000']], defaultCountry: null };

const parse = (copy: string) =>
  copy
    .split('\n')
    .filter(Boolean)
    .map((line) => Object.fromEntries(line.split('\t').map((v, i) => [STAGE_COLUMNS[i], v])));

describe('row processor', () => {
  it('writes one staging line per row with the normalised number, country and time zone', () => {
    const [ok, landline, bad] = parse(
      processRows(
        [
          { line: 2, cells: [' +44 7400 000001 ', 'Ann', 'ann@example.com', 'gold'] },
          { line: 3, cells: ['+44 20 7946 0958', '', '', ''] },
          { line: 4, cells: ['hello'] },
        ],
        mapping,
      ),
    );
    expect(ok).toEqual({
      row_no: '2', phone: '+44 7400 000001', normalized_phone: '+447400000001', country: 'GB', timezone: 'Europe/London', state: '0', error: '\\N',
      first_name: 'Ann', last_name: '\\N', email: 'ann@example.com', variables: '{"1000":"gold"}',
    });
    expect(landline).toMatchObject({ state: '2', normalized_phone: '+442079460958', error: 'not a mobile number (fixed line)', first_name: '\\N', variables: '{}' });
    expect(bad).toMatchObject({ row_no: '4', state: '1', normalized_phone: '\\N', error: 'not a phone number' });
  });

  it('escapes tabs, newlines and backslashes for COPY and drops NUL characters', () => {
    expect(copyValue('a\tb\nc\\d\re')).toBe('a\\tb\\nc\\\\d\\re');
    expect(copyValue('nul\u0000byte')).toBe('nulbyte');
    expect(copyValue(null)).toBe('\\N');
    const [row] = parse(processRows([{ line: 7, cells: ['+447400000002', 'two\tcells\nand a line', '', 'x\\y'] }], mapping));
    expect(row.first_name).toBe('two\\tcells\\nand a line');
    expect(row.variables).toBe('{"1000":"x\\\\\\\\y"}');
  });

  it('takes the time zone column when it names a real zone, and reports rows the reader could not read', () => {
    const m: RowMapping = { ...mapping, timezone: 1, custom: [] };
    const [tz, notTz, broken] = parse(
      processRows(
        [
          { line: 2, cells: ['+12015550123', 'America/Chicago'] },
          { line: 3, cells: ['+12015550124', 'Mars/Olympus'] },
          { line: 4, cells: ['"+1201'], error: 'a quoted field is not closed' },
        ],
        m,
      ),
    );
    expect(tz.timezone).toBe('America/Chicago');
    expect(notTz.timezone).toBe('America/New_York');
    expect(broken).toMatchObject({ state: '1', error: 'a quoted field is not closed' });
  });
});
