import { CsvParser, CsvRecordTooLongError, detectDelimiter, MAX_RECORD_CHARS, type Delimiter, type FileRow } from './csv-parser';
import { StreamTextDecoder } from './text-decoder';

/** Feeds `text` in pieces of `size` characters, as a stream would. */
function parse(text: string, delimiter: Delimiter = ',', size = text.length || 1, maxQuotedLineBreaks?: number): FileRow[] {
  const p = new CsvParser(delimiter, 1, maxQuotedLineBreaks);
  const out: FileRow[] = [];
  for (let i = 0; i < text.length; i += size) out.push(...p.push(text.slice(i, i + size)));
  out.push(...p.end());
  return out;
}

const cells = (rows: FileRow[]) => rows.map((r) => r.cells);

describe('CSV parser', () => {
  it('reads each delimiter', () => {
    expect(cells(parse('a,b\n1,2\n'))).toEqual([['a', 'b'], ['1', '2']]);
    expect(cells(parse('a;b\n1;2\n', ';'))).toEqual([['a', 'b'], ['1', '2']]);
    expect(cells(parse('a\tb\n1\t2', '\t'))).toEqual([['a', 'b'], ['1', '2']]);
  });

  it('reads quoted fields with delimiters, escaped quotes and newlines, whatever the chunking', () => {
    const text = 'phone,note\r\n"+44 7700 900123","say ""hi"",\r\nthen bye"\r\n+33612345678,plain\r\n';
    for (const size of [1, 2, 3, 7, 1000]) {
      expect(cells(parse(text, ',', size))).toEqual([
        ['phone', 'note'],
        ['+44 7700 900123', 'say "hi",\r\nthen bye'],
        ['+33612345678', 'plain'],
      ]);
    }
  });

  it('numbers records like spreadsheet rows, empty lines and quoted newlines included', () => {
    const rows = parse('a\n\n"x\ny"\nb\r\rc');
    expect(rows.map((r) => [r.line, r.cells])).toEqual([
      [1, ['a']],
      [2, ['']],
      [3, ['x\ny']],
      [4, ['b']],
      [5, ['']],
      [6, ['c']],
    ]);
  });

  it('treats CRLF split across chunks as one line end', () => {
    const p = new CsvParser(',');
    const a = p.push('a,b\r');
    const b = p.push('\nc,d\r\n');
    expect([...a, ...b, ...p.end()].map((r) => r.cells)).toEqual([['a', 'b'], ['c', 'd']]);
  });

  it('keeps text after a closing quote and literal quotes inside unquoted fields', () => {
    expect(cells(parse('"a"b,c"d\n'))).toEqual([['ab', 'c"d']]);
  });

  it('keeps an empty last field and reads a file without a final newline', () => {
    expect(cells(parse('a,b,\n1,,'))).toEqual([['a', 'b', ''], ['1', '', '']]);
  });

  it('reports a quote left open at the end of the file on its record', () => {
    const rows = parse('ok\n"never closed\nmore');
    expect(rows[0]).toEqual({ line: 1, cells: ['ok'] });
    expect(rows[1]).toMatchObject({ line: 2, error: 'a quoted field is not closed' });
  });

  it('reports a quote left open on its own line and reads the lines after it, which a later quote would have swallowed', () => {
    const text = 'phone,name\n+1,ok\n+2,"Ann\n+3,Bob\n+4,"Carl"\n+5,"multi\r\nline",x\n+6,z\n';
    for (const size of [1, 2, 5, 1000]) {
      expect(parse(text, ',', size).map((r) => [r.line, r.cells, r.error])).toEqual([
        [1, ['phone', 'name'], undefined],
        [2, ['+1', 'ok'], undefined],
        [3, ['+2', 'Ann'], 'a quoted field is not closed'],
        [4, ['+3', 'Bob'], undefined],
        [5, ['+4', 'Carl'], undefined],
        [6, ['+5', 'multi\r\nline', 'x'], undefined],
        [7, ['+6', 'z'], undefined],
      ]);
    }
  });

  it('reports a quote never closed on its line, not the rest of the file, however long', () => {
    const rest = Array.from({ length: 300 }, (_, i) => `+${i},n${i}`).join('\n');
    for (const size of [7, 4096, 1 << 20]) {
      const rows = parse(`+0,"Ann\n${rest}`, ',', size);
      expect(rows).toHaveLength(301);
      expect(rows[0]).toEqual({ line: 1, cells: ['+0', 'Ann'], error: 'a quoted field is not closed' });
      expect(rows[300]).toEqual({ line: 301, cells: ['+299', 'n299'] });
    }
  });

  it('takes a quoted field spanning more line breaks than the limit for a stray quote, even when a quote closes it', () => {
    expect(parse('"a\nb\nc",x\nd\n', ',', 3, 1).map((r) => [r.line, r.cells, r.error])).toEqual([
      [1, ['a'], 'a quoted field is not closed'],
      [2, ['b'], undefined],
      [3, ['c"', 'x'], undefined],
      [4, ['d'], undefined],
    ]);
    expect(parse('"a\nb",x\n', ',', 3, 1).map((r) => r.cells)).toEqual([['a\nb', 'x']]);
  });

  it('refuses a record longer than the limit instead of buffering the file', () => {
    const p = new CsvParser(',');
    p.push('a\n"');
    expect(() => {
      for (let i = 0; i < 5; i++) p.push('x'.repeat(MAX_RECORD_CHARS / 4 + 1));
    }).toThrow(CsvRecordTooLongError);
  });
});

describe('delimiter detection', () => {
  it('picks the delimiter that splits lines into the same number of cells', () => {
    expect(detectDelimiter('phone,name\n+1,a\n+2,b\n')).toBe(',');
    expect(detectDelimiter('phone;name;note\n+1;a, b;x\n+2;c;y\n')).toBe(';');
    expect(detectDelimiter('phone\tname\n+1\ta;b\n')).toBe('\t');
    expect(detectDelimiter('"a;b",c\n"d;e",f\n')).toBe(',');
  });

  it('reads a one-column file with a comma', () => {
    expect(detectDelimiter('+447700900123\n+447700900124\n')).toBe(',');
  });
});

describe('stream text decoder', () => {
  it('drops a UTF-8 BOM and keeps characters split across chunks', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('имя,phone\n', 'utf8')]);
    const d = new StreamTextDecoder();
    let s = '';
    for (const b of bytes) s += d.write(Buffer.from([b]));
    s += d.end();
    expect(s).toBe('имя,phone\n');
  });

  it('reads UTF-16LE with its BOM (Excel Unicode text)', () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a\tb\n', 'utf16le')]);
    const d = new StreamTextDecoder();
    expect(d.write(bytes.subarray(0, 3)) + d.write(bytes.subarray(3)) + d.end()).toBe('a\tb\n');
  });
});
