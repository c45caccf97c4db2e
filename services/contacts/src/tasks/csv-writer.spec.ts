import { CsvParser } from '../import/csv-parser';
import { csvCell, csvLine } from '@switchboard/platform';

describe('CSV export cells', () => {
  it('neutralises cells that start like a formula', () => {
    const hostiles = [
      '=HYPERLINK("http://x","y")', '+1+cmd|\' /C calc\'!A0', '-2+3', '@SUM(A1)', '\t=1', '\r=1', '\n=1', '\0=1',
      ';=1+1', ',=1+1', '  =1+1', '\u00a0=1', '\uff1dSUM(A1)', '\uff0b1', '\uff0d1', '\uff20SUM(A1)',
    ];
    for (const hostile of hostiles) {
      const cell = csvCell(hostile);
      const unquoted = cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell;
      expect(unquoted.startsWith("'")).toBe(true);
      expect(unquoted.replace(/'/g, '')).toBe(hostile.replace(/'/g, ''));
    }
  });

  it('keeps plain numbers and phone numbers as they are', () => {
    expect(csvCell('+447911123456')).toBe('+447911123456');
    expect(csvCell('-12.5')).toBe('-12.5');
    expect(csvCell(42)).toBe('42');
  });

  it('quotes delimiters, quotes and line breaks so the file reads back cell for cell', () => {
    const line = csvLine(['a,b', 'say "hi"', 'two\nlines', null, ' padded ', '=1']);
    const rows = new CsvParser(',').push(line);
    expect(rows[0].cells).toEqual(['a,b', 'say "hi"', 'two\nlines', '', ' padded ', "'=1"]);
  });
});

describe('CSV export cells read with another separator', () => {
  it('no cell a ; or tab reader splits off starts like a formula', () => {
    const line = csvLine(['ok', `a;=cmd|' /C calc'!A0`, 'b;  @SUM(1)', 'c\t+HYPERLINK("x")', 'd,-2+3', 'say "=1"']);
    for (const delimiter of [';', '\t', ','] as const) {
      const cells = new CsvParser(delimiter).push(line)[0].cells;
      for (const cell of cells) expect(cell).not.toMatch(/^[\s"]*[=+\-@]/);
    }
  });

  it('leaves plain numbers after a separator alone', () => {
    expect(csvCell('tel; +447911123456, -5')).toBe('"tel; +447911123456, -5"');
  });
});
