import { CsvParser } from '../import/csv-parser';
import { csvCell, csvLine } from './csv-writer';

describe('CSV export cells', () => {
  it('neutralises cells that start like a formula', () => {
    for (const hostile of ['=HYPERLINK("http://x","y")', '+1+cmd|\' /C calc\'!A0', '-2+3', '@SUM(A1)', '\t=1', '\r=1']) {
      const cell = csvCell(hostile);
      const unquoted = cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell;
      expect(unquoted.startsWith("'")).toBe(true);
      expect(unquoted.slice(1)).toBe(hostile);
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
