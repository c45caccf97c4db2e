import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { xlsx, xlsxBomb, zip } from '../../test/xlsx-fixture';
import { detectFormat, previewFile, readRows } from './file-source';
import { columnIndex, MAX_CELL_CHARS, numberCellText } from './xlsx-reader';
import { ZIP_LIMITS } from './zip';
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

  /** The most the heap grew above its level before `work`, sampled every millisecond while it ran. */
  const heapGrowth = async (work: () => Promise<unknown>): Promise<{ grew: number; error: unknown }> => {
    (global as { gc?: () => void }).gc?.();
    const base = process.memoryUsage().heapUsed;
    let peak = base;
    const sample = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    }, 1);
    let error: unknown = null;
    try {
      await work();
    } catch (e) {
      error = e;
    } finally {
      clearInterval(sample);
    }
    peak = Math.max(peak, process.memoryUsage().heapUsed);
    return { grew: peak - base, error };
  };

  it('refuses an XLSX zip bomb in the preview, whatever its headers declare, with the heap kept small', async () => {
    for (const declare of ['truth', 'lie'] as const) {
      // 2 GiB of text in one cell from about 2 MB of file (1 GiB for the lie, which the budget would also stop)
      const bomb = xlsxBomb(declare === 'truth' ? 2048 : 1024, { declare });
      expect(bomb.length).toBeLessThan(3 * 1024 * 1024);
      const f = write(`bomb-${declare}.xlsx`, bomb);
      const { grew, error } = await heapGrowth(() => previewFile(f, 10));
      expect(String(error)).toMatch(declare === 'truth' ? /declares 2048 MB, more than the archive may inflate to/ : /inflates to more than the 4096 bytes its header declares/);
      expect(grew).toBeLessThan(64 * 1024 * 1024);
    }
  });

  it('stops a bomb whose header tells the truth within the budget by its compression ratio, and a cell longer than Excel allows', async () => {
    const f = write('bomb-ratio.xlsx', xlsxBomb(900, { declare: 'truth', between: true }));
    const { grew, error } = await heapGrowth(() => all(f));
    expect(String(error)).toMatch(new RegExp(`inflates more than ${ZIP_LIMITS.maxRatio} times its compressed size`));
    expect(grew).toBeLessThan(64 * 1024 * 1024);
    // a ratio real files reach, but one cell longer than Excel allows
    const long = write('long-cell.xlsx', xlsx([['phone', 'x'.repeat(MAX_CELL_CHARS + 1)]], { inline: true }));
    await expect(all(long)).rejects.toThrow(/more than 32767 characters/);
  });

  it('lets the preview of a bomb behind ordinary rows through, and refuses it when the import reads on', async () => {
    const headRows = Array.from({ length: 12 }, (_, i) => [`+4477009001${String(i).padStart(2, '0')}`, `n${i}`]);
    const f = write('bomb-later.xlsx', xlsxBomb(900, { declare: 'truth', headRows, between: true }));
    const p = await previewFile(f, 10);
    expect(p.rows.map((r) => r.cells)).toEqual(headRows.slice(0, 10));
    const { grew, error } = await heapGrowth(() => all(f));
    expect(String(error)).toMatch(/inflates more than 100 times its compressed size/);
    expect(grew).toBeLessThan(64 * 1024 * 1024);
  });

  it('refuses an archive with more entries than a workbook has', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i <= ZIP_LIMITS.maxEntries; i++) files[`xl/worksheets/s${i}.xml`] = '<worksheet/>';
    const f = write('many.xlsx', zip(files));
    await expect(previewFile(f, 10)).rejects.toThrow(`the archive has ${ZIP_LIMITS.maxEntries + 1} entries`);
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
