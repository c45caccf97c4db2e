import { CsvParser, CsvRecordTooLongError, MAX_RECORD_CHARS } from './csv-parser';
import { recordEnds } from './record-splitter';

/** Splits `text` into byte chunks at record ends, parses each chunk alone, as the import's workers do. */
function splitThenParse(text: string, pieces: number[], max?: number): Array<[number, string[], string | undefined]> {
  const bytes = Buffer.from(text, 'utf8');
  let buf = Buffer.alloc(0);
  let offset = 0;
  let line = 1;
  const out: Array<[number, string[], string | undefined]> = [];
  const flush = (ends: number[]) => {
    let start = 0;
    for (const end of ends) {
      const p = new CsvParser(',', line, max);
      for (const r of p.push(buf.subarray(start, end).toString('utf8')).concat(p.end())) out.push([r.line, r.cells, r.error]);
      line++;
      start = end;
    }
    buf = buf.subarray(start);
  };
  for (const size of pieces) {
    buf = Buffer.concat([buf, bytes.subarray(offset, offset + size)]);
    offset += size;
    flush(recordEnds(buf, 0x2c, false, line, max));
  }
  buf = Buffer.concat([buf, bytes.subarray(offset)]);
  flush(recordEnds(buf, 0x2c, true, line, max));
  return out;
}

function parseWhole(text: string, max?: number): Array<[number, string[], string | undefined]> {
  const p = new CsvParser(',', 1, max);
  return p
    .push(text)
    .concat(p.end())
    .map((r) => [r.line, r.cells, r.error]);
}

function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('record splitter', () => {
  it('cuts bytes exactly where the parser ends records, whatever the chunking', () => {
    const rand = rng(7);
    const alphabet = ['a', 'é', '日', ',', '"', '""', '\n', '\r', '\r\n', ' ', '1', '+'];
    for (let round = 0; round < 300; round++) {
      let text = '';
      const len = Math.floor(rand() * 60);
      for (let i = 0; i < len; i++) text += alphabet[Math.floor(rand() * alphabet.length)];
      const pieces = Array.from({ length: 5 }, () => 1 + Math.floor(rand() * 8));
      expect([text, splitThenParse(text, pieces)]).toEqual([text, parseWhole(text)]);
    }
  });

  it('cuts a stray quote\'s record at its first line, as the parser does, with any line-break limit', () => {
    const rand = rng(11);
    const alphabet = ['a', ',', '"', '"', '""', '\n', '\n', '\r', '\r\n', 'x"', '1'];
    for (let round = 0; round < 600; round++) {
      let text = '';
      const len = Math.floor(rand() * 80);
      for (let i = 0; i < len; i++) text += alphabet[Math.floor(rand() * alphabet.length)];
      const pieces = Array.from({ length: 6 }, () => 1 + Math.floor(rand() * 9));
      const max = Math.floor(rand() * 4);
      expect([text, max, splitThenParse(text, pieces, max)]).toEqual([text, max, parseWhole(text, max)]);
    }
    expect(recordEnds(Buffer.from('+1,"Ann\n+2,Bob\n+3,"Carl"\n'), 0x2c, false, 1)).toEqual([8, 15, 25]);
    expect(recordEnds(Buffer.from('+1,"Ann\r\n+2,Bob'), 0x2c, true, 1)).toEqual([9, 15]);
  });

  it('leaves a record whose end is not there yet, including a CR that may start a CRLF', () => {
    expect(recordEnds(Buffer.from('a,b\nc,"d\ne'), 0x2c, false, 1)).toEqual([4]);
    expect(recordEnds(Buffer.from('a\r'), 0x2c, false, 1)).toEqual([]);
    expect(recordEnds(Buffer.from('a\r'), 0x2c, true, 1)).toEqual([2]);
    expect(recordEnds(Buffer.from('a\r\nb'), 0x2c, true, 1)).toEqual([3, 4]);
  });

  it('refuses a record that never ends instead of holding the file', () => {
    expect(() => recordEnds(Buffer.from(`ok\n"${'x'.repeat(MAX_RECORD_CHARS * 3 + 10)}`), 0x2c, false, 1)).toThrow(CsvRecordTooLongError);
  });
});
