import { CopyText, copyText } from './copy-text';

/** COPY text format, decoded as PostgreSQL reads it: rows by newline, columns by tab, `\N` null, backslash escapes. */
function parseCopy(text: string): Array<Array<string | null>> {
  return text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((line) =>
      line.split('\t').map((f) => (f === '\\N' ? null : f.replace(/\\(.)/g, (_, c: string) => (c === 't' ? '\t' : c === 'n' ? '\n' : c === 'r' ? '\r' : c)))),
    );
}

describe('COPY rows written into one buffer', () => {
  const awkward = ['plain', '', 'Zoë', 'tab\there', 'line\nbreak\r', 'back\\slash', 'quote "q"', 'emoji 😀', 'lone \ud800 surrogate', 'ctrl \u0001', 'del \u007f', '\u2028'];

  it('reads back every text value as written, escapes and non-ASCII included, and null as \\N', () => {
    const rows = new CopyText(8);
    for (const s of awkward) {
      rows.text(s);
      rows.byte(9);
      rows.text(null);
      rows.byte(9);
      rows.int(3_521_614_606_207);
      rows.byte(10);
    }
    const parsed = parseCopy(rows.bytes().toString('utf8'));
    expect(parsed.map((r) => r[0])).toEqual(awkward.map((s) => Buffer.from(s, 'utf8').toString('utf8')));
    expect(parsed.every((r) => r[1] === null && r[2] === '3521614606207')).toBe(true);
  });

  it('writes a JSON string value that parses back to the string, as JSON.stringify would escape it', () => {
    for (const s of awkward) {
      const rows = new CopyText(4);
      rows.jsonString(s);
      const [[value]] = parseCopy(rows.bytes().toString('utf8') + '\n');
      expect(JSON.parse(value!)).toBe(JSON.parse(JSON.stringify(s)));
      expect(value).toBe(Buffer.from(JSON.stringify(s), 'utf8').toString('utf8'));
    }
  });

  it('writes integers in decimal, 0 and the largest code value included', () => {
    const rows = new CopyText(1);
    for (const v of [0, 7, 10, 61, 62, 1_000_000, 3_521_614_606_207, Number.MAX_SAFE_INTEGER]) {
      rows.int(v);
      rows.byte(10);
    }
    expect(rows.bytes().toString()).toBe('0\n7\n10\n61\n62\n1000000\n3521614606207\n9007199254740991\n');
  });

  it('escapes as the string-built rows did', () => {
    expect(copyText('a\\b\tc\nd\re')).toBe('a\\\\b\\tc\\nd\\re');
    expect(copyText('plain')).toBe('plain');
  });
});
