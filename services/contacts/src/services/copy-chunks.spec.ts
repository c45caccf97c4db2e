import { ChunkCutter, halve, jsonTextBytes, type CopyChunk } from './copy-chunks';

/** Feeds `text` to a cutter in reads of the given sizes (cycled) and answers every chunk, the last included. */
function cut(text: string, max: number, reads: number[]): CopyChunk[] {
  const bytes = Buffer.from(text);
  const cutter = new ChunkCutter(max);
  const chunks: CopyChunk[] = [];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const n = reads[i % reads.length];
    chunks.push(...cutter.add(bytes.subarray(at, at + n)));
    at += n;
  }
  chunks.push(cutter.end());
  return chunks;
}

describe('ChunkCutter: a COPY stream cut into chunks of whole lines', () => {
  const lines = Array.from({ length: 500 }, (_, i) => `${i}\t0\t+44${i}\t${'é'.repeat(i % 7)}\t${'x'.repeat(i % 40)}\n`);
  const text = lines.join('');

  it.each([
    [[1]],
    [[7, 3, 64]],
    [[4096]],
    [[100_000]],
  ])('keeps every line whole, in order, numbered, each chunk at most the limit, whatever the reads (%j)', (reads) => {
    const chunks = cut(text, 300, reads);
    expect(chunks.map((c) => c.data.toString()).join('')).toBe(text);
    let ordinal = 0;
    for (const c of chunks) {
      expect(c.firstOrdinal).toBe(ordinal);
      expect(c.data.length).toBeLessThanOrEqual(300);
      const s = c.data.toString();
      expect(s === '' || s.endsWith('\n')).toBe(true);
      expect(s.split('\n').length - 1).toBe(c.rows);
      ordinal += c.rows;
    }
    expect(ordinal).toBe(lines.length);
    // full chunks leave no room for the next line
    for (let i = 0; i < chunks.length - 1; i++) expect(chunks[i].data.length + Buffer.byteLength(lines[chunks[i].firstOrdinal + chunks[i].rows])).toBeGreaterThan(300);
  });

  it('puts a line longer than a chunk alone, and answers an empty last chunk for an empty stream', () => {
    const long = `1\t0\t${'y'.repeat(1000)}\n`;
    const chunks = cut(`a\n${long}b\n`, 100, [13]);
    expect(chunks.map((c) => [c.firstOrdinal, c.rows, c.data.toString()])).toEqual([
      [0, 1, 'a\n'],
      [1, 1, long],
      [2, 1, 'b\n'],
    ]);
    expect(cut('', 100, [1])).toEqual([{ firstOrdinal: 0, rows: 0, data: Buffer.alloc(0) }]);
  });

  it('refuses a stream that ends in the middle of a line', () => {
    const cutter = new ChunkCutter(100);
    cutter.add(Buffer.from('1\t0\n2\t'));
    expect(() => cutter.end()).toThrow(/middle of a line/);
  });
});

describe('halve: a chunk cut in two at a line end', () => {
  const chunkOf = (lines: string[], firstOrdinal = 10): CopyChunk => ({ firstOrdinal, rows: lines.length, data: Buffer.from(lines.join('')) });

  it.each([
    [['a\n', 'b\n']],
    [['a-long-first-line\n', 'b\n']],
    [['a\n', 'b-long-last-line\n']],
    [['1\n', '22\n', '333\n', '4444\n', '55555\n']],
  ])('keeps every line whole and numbered (%j)', (lines) => {
    const [x, y] = halve(chunkOf(lines));
    expect(x.rows).toBeGreaterThan(0);
    expect(y.rows).toBeGreaterThan(0);
    expect(x.rows + y.rows).toBe(lines.length);
    expect(x.firstOrdinal).toBe(10);
    expect(y.firstOrdinal).toBe(10 + x.rows);
    expect(x.data.toString()).toBe(lines.slice(0, x.rows).join(''));
    expect(y.data.toString()).toBe(lines.slice(x.rows).join(''));
  });

  it('refuses a chunk of one line', () => {
    expect(() => halve(chunkOf(['only\n']))).toThrow(/one line/);
  });
});

describe('jsonTextBytes', () => {
  it('counts the bytes of text as the inside of a JSON string, as JSON.stringify writes it', () => {
    const all = Array.from({ length: 128 }, (_v, i) => String.fromCharCode(i)).join('');
    for (const s of ['', 'plain line\n', '1\t0\t+447400000000\tGB\tEurope/London\t{"2": "Ann \\"A\\""}\n', all, 'Zoë 東京 🙂 \u2028\u2029\x7f', 'a\\b\\\\c"']) {
      expect(jsonTextBytes(Buffer.from(s, 'utf8'))).toBe(Buffer.byteLength(JSON.stringify(s)) - 2);
    }
  });
});
