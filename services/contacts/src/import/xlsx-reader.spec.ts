import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { xlsx, zip } from '../../test/xlsx-fixture';
import { detectFormat, previewFile, readRows } from './file-source';
import { columnIndex, numberCellText } from './xlsx-reader';
import { decodeXmlEntities, XmlScanner } from './xml-scanner';

describe('XLSX reader', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-xlsx-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, data: Buffer): string => {
    const f = path.join(dir, name);
    fs.writeFileSync(f, data);
    return f;
  };
  const all = async (file: string) => {
    const rows = [];
    for await (const chunk of readRows(file, 'xlsx', ',')) rows.push(...chunk);
    return rows;
  };

  it('reads the first sheet of the workbook with shared strings, numbers, gaps and entities', async () => {
    const f = write('a.xlsx', xlsx([['phone', 'name', 'note'], [447700900123, 'Ann & <Bob>', null, 'x'], ['+33 6 12 34 56 78', null, 'é']]));
    expect(await detectFormat(f)).toBe('xlsx');
    expect(await all(f)).toEqual([
      { line: 1, cells: ['phone', 'name', 'note'] },
      { line: 2, cells: ['447700900123', 'Ann & <Bob>', '', 'x'] },
      { line: 3, cells: ['+33 6 12 34 56 78', '', 'é'] },
    ]);
  });

  it('reads inline strings, stored entries and keeps spreadsheet row numbers across missing rows', async () => {
    const f = write('b.xlsx', xlsx([['phone'], ['+447700900123'], ['+447700900124']], { inline: true, store: true, skipRowNumbers: [3] }));
    expect(await all(f)).toEqual([
      { line: 1, cells: ['phone'] },
      { line: 2, cells: ['+447700900123'] },
      { line: 4, cells: ['+447700900124'] },
    ]);
  });

  it('previews the first rows and counts the columns', async () => {
    const f = write('c.xlsx', xlsx(Array.from({ length: 30 }, (_, i) => [`+4477009001${String(i).padStart(2, '0')}`, `n${i}`])));
    const p = await previewFile(f, 5);
    expect(p).toMatchObject({ format: 'xlsx', delimiter: null, columns: 2 });
    expect(p.rows).toHaveLength(5);
  });

  it('refuses a zip that is not a workbook', async () => {
    const f = write('d.xlsx', zip({ 'readme.txt': 'hello' }));
    await expect(all(f)).rejects.toThrow(/no worksheet/);
  });

  it('turns column letters and numbers in scientific notation into what Excel shows', () => {
    expect([columnIndex('A1'), columnIndex('Z9'), columnIndex('AA10'), columnIndex('12')]).toEqual([0, 25, 26, -1]);
    expect(numberCellText('4.47700900123E+11')).toBe('447700900123');
    expect(numberCellText('12.5')).toBe('12.5');
  });
});

describe('XML scanner', () => {
  it('handles markup and entities cut by chunk boundaries', () => {
    const events: string[] = [];
    const s = new XmlScanner({
      open: (n, a, sc) => events.push(`<${n}${a.trim() ? ' ' + a.trim() : ''}${sc ? '/' : ''}>`),
      close: (n) => events.push(`</${n}>`),
      text: (t) => events.push(t),
    });
    const xml = '<?xml version="1.0"?><!-- c --><x:row r="1" a=">"><v>A &amp; B</v><e/><![CDATA[<raw>]]></x:row>';
    for (const ch of xml) s.push(ch);
    s.end();
    expect(events.join('')).toBe('<row r="1" a=">"><v>A & B</v><e/></e><raw></row>');
    expect(decodeXmlEntities('&#65;&#x42;&quot;&unknown;')).toBe('AB"&unknown;');
  });
});
