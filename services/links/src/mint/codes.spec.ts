import { createHash } from 'node:crypto';
import { CODE_ALPHABET, CODE_LENGTH, CODE_SPACE, CodeCipher, decodeCode, encodeCode, encodeCodes } from './codes';

const SECRET = 'a-test-secret-of-enough-length';

describe('short-link codes', () => {
  it('mints 10 million distinct 7-character codes from 10 million sequence numbers, with no retry', () => {
    const cipher = new CodeCipher(SECRET);
    const n = 10_000_000;
    const values = cipher.encryptRange(0, n);
    for (let i = 0; i < n; i += 99_991) {
      const code = encodeCode(values[i]);
      expect(code).toMatch(/^[0-9A-Za-z]{7}$/);
      expect(decodeCode(code)).toBe(values[i]);
    }
    let outside = 0;
    for (let i = 0; i < n; i++) if (!(values[i] >= 0 && values[i] < CODE_SPACE && Number.isInteger(values[i]))) outside++;
    expect(outside).toBe(0);
    values.sort();
    let duplicates = 0;
    for (let i = 1; i < n; i++) if (values[i] === values[i - 1]) duplicates++;
    expect(duplicates).toBe(0);
  });

  it('writes a run of codes as the same text as each code written alone, in order', () => {
    const large = 62 ** 4;
    const values = [0, 1, 61, 62, 3843, 3844, large - 1, large, large + 1, 61 * large, 62 ** 6, CODE_SPACE - large, CODE_SPACE - 1, CODE_SPACE - 62, ...new CodeCipher(SECRET).encryptRange(5_000, 1000)];
    const text = encodeCodes(values);
    expect(text).toBe(values.map(encodeCode).join(''));
    expect(text.length).toBe(values.length * CODE_LENGTH);
    expect(encodeCodes([])).toBe('');
  });

  it('mints the codes it always minted from a key and sequence numbers, and maps a million back', () => {
    // a stored batch is answered again by minting its blocks' codes afresh (docs/decisions/0123), and a code resolves
    // through the inverse: the arithmetic may change (0147), the codes may not. Figures from the implementation before
    const cipher = new CodeCipher(SECRET);
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    expect(encodeCodes(cipher.encryptRange(0, 3))).toBe('LoBXGGUxDdsXK1JC5l12U');
    expect(encodeCodes(cipher.encryptRange(CODE_SPACE - 3, 3))).toBe('wwsumwVb8cXog3vtPYLzg');
    const million = cipher.encryptRange(0, 1_000_000);
    expect(sha(encodeCodes(million))).toBe('2f7e133de2eb283c8c90dccd98e9fcf974e6056465bfeb07bd95076514dd322e');
    expect(sha(encodeCodes(cipher.encryptRange(CODE_SPACE - 1000, 1000)))).toBe('f9f039cb0ef51c09e7d142318848dc9c3533204d9cfda34ea6bf634e8c1c0a11');
    cipher.decryptInPlace(million);
    let wrong = 0;
    for (let i = 0; i < million.length; i++) if (million[i] !== i) wrong++;
    expect(wrong).toBe(0);
  });

  it('maps a code back to its sequence number only with the key', () => {
    const cipher = new CodeCipher(SECRET);
    for (const seq of [0, 1, 2, 61, 62, 123_456_789, CODE_SPACE - 1]) expect(cipher.decrypt(cipher.encrypt(seq))).toBe(seq);
    const other = new CodeCipher('another-secret-of-enough-length');
    const a = cipher.encryptRange(0, 1000);
    const b = other.encryptRange(0, 1000);
    let same = 0;
    for (let i = 0; i < 1000; i++) if (a[i] === b[i]) same++;
    expect(same).toBe(0);
  });

  it('does not reveal the sequence: consecutive numbers give unrelated codes, every position uniformly spread', () => {
    const cipher = new CodeCipher(SECRET);
    const n = 124_000;
    const values = cipher.encryptRange(5_000_000, n);
    const codes = Array.from(values, encodeCode);

    // each position's characters are spread over the alphabet as a random code's would be (chi-square, 61 degrees of
    // freedom: 99.9 % of random samples stay under 100.9)
    for (let pos = 0; pos < CODE_LENGTH; pos++) {
      const counts = new Array<number>(62).fill(0);
      for (const c of codes) counts[CODE_ALPHABET.indexOf(c[pos])]++;
      const expected = n / 62;
      const chi = counts.reduce((s, k) => s + (k - expected) ** 2 / expected, 0);
      expect(chi).toBeLessThan(100.9);
    }

    // neighbours share about 7/62 of their positions, as two random codes do; a counter would share 6 of 7
    let shared = 0;
    for (let i = 1; i < n; i++) for (let p = 0; p < CODE_LENGTH; p++) if (codes[i][p] === codes[i - 1][p]) shared++;
    expect(shared / (n - 1)).toBeLessThan(0.2);

    // the codes do not grow with the sequence: about half of the neighbours go down
    let down = 0;
    for (let i = 1; i < n; i++) if (values[i] < values[i - 1]) down++;
    expect(down / (n - 1)).toBeGreaterThan(0.45);
    expect(down / (n - 1)).toBeLessThan(0.55);

    // no constant or small step between neighbours to extrapolate from
    const steps = new Set<number>();
    for (let i = 1; i < 1000; i++) steps.add(values[i] - values[i - 1]);
    expect(steps.size).toBeGreaterThan(990);
  });

  it('refuses what is not a code', () => {
    expect(decodeCode('abc')).toBe(-1);
    expect(decodeCode('abcdefgh')).toBe(-1);
    expect(decodeCode('abc-efg')).toBe(-1);
    expect(decodeCode('abcdéfg')).toBe(-1);
    expect(() => new CodeCipher('short')).toThrow(/16 characters/);
    expect(() => new CodeCipher(SECRET).encrypt(CODE_SPACE)).toThrow(RangeError);
  });
});
