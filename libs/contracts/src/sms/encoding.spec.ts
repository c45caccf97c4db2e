import {
  analyzeSms,
  concatUdh,
  decodeGsm7,
  decodeUcs2,
  encodeGsm7,
  encodeUcs2,
  isGsm7,
  parseConcatUdh,
  splitSms,
} from './encoding';

const EMOJI = '\u{1F600}'; // one surrogate pair: two UCS-2 units

describe('analyzeSms: encoding and segmentation table', () => {
  it.each`
    text                                     | encoding  | units  | segments | perSegment | remaining
    ${''}                                    | ${'GSM7'} | ${0}   | ${1}     | ${160}     | ${160}
    ${'Hello'}                               | ${'GSM7'} | ${5}   | ${1}     | ${160}     | ${155}
    ${'a'.repeat(160)}                       | ${'GSM7'} | ${160} | ${1}     | ${160}     | ${0}
    ${'a'.repeat(161)}                       | ${'GSM7'} | ${161} | ${2}     | ${153}     | ${145}
    ${'a'.repeat(306)}                       | ${'GSM7'} | ${306} | ${2}     | ${153}     | ${0}
    ${'a'.repeat(307)}                       | ${'GSM7'} | ${307} | ${3}     | ${153}     | ${152}
    ${'€'.repeat(80)}                        | ${'GSM7'} | ${160} | ${1}     | ${160}     | ${0}
    ${'€'.repeat(81)}                        | ${'GSM7'} | ${162} | ${2}     | ${153}     | ${143}
    ${'^{}\\[~]|€\f'}                        | ${'GSM7'} | ${20}  | ${1}     | ${160}     | ${140}
    ${'@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ¤¡ÄÖÑÜ§¿äöñüà'} | ${'GSM7'} | ${44} | ${1} | ${160} | ${116}
    ${'Привет'}                              | ${'UCS2'} | ${6}   | ${1}     | ${70}      | ${64}
    ${'я'.repeat(70)}                        | ${'UCS2'} | ${70}  | ${1}     | ${70}      | ${0}
    ${'я'.repeat(71)}                        | ${'UCS2'} | ${71}  | ${2}     | ${67}      | ${63}
    ${'я'.repeat(134)}                       | ${'UCS2'} | ${134} | ${2}     | ${67}      | ${0}
    ${'я'.repeat(135)}                       | ${'UCS2'} | ${135} | ${3}     | ${67}      | ${66}
    ${EMOJI}                                 | ${'UCS2'} | ${2}   | ${1}     | ${70}      | ${68}
    ${EMOJI.repeat(35)}                      | ${'UCS2'} | ${70}  | ${1}     | ${70}      | ${0}
    ${'a' + 'ç'}                             | ${'UCS2'} | ${2}   | ${1}     | ${70}      | ${68}
    ${'`'}                                   | ${'UCS2'} | ${1}   | ${1}     | ${70}      | ${69}
  `('$text.length chars of "$text" -> $encoding, $units units, $segments part(s)', ({ text, encoding, units, segments, perSegment, remaining }) => {
    expect(analyzeSms(text)).toEqual({ encoding, units, segments, perSegment, remaining });
  });

  it('moves an escape sequence whole to the next part instead of splitting it at septet 153', () => {
    const text = 'a'.repeat(152) + '€' + 'b'.repeat(10);
    const parts = splitSms(text);
    expect(parts).toEqual(['a'.repeat(152), '€' + 'b'.repeat(10)]);
    expect(analyzeSms(text)).toMatchObject({ units: 164, segments: 2, remaining: 153 - 12 });
  });

  it('moves a surrogate pair whole to the next part instead of splitting it at unit 67', () => {
    const text = 'я'.repeat(66) + EMOJI + 'я'.repeat(10);
    const parts = splitSms(text);
    expect(parts).toEqual(['я'.repeat(66), EMOJI + 'я'.repeat(10)]);
    expect(parts.join('')).toBe(text);
    expect(analyzeSms(text)).toMatchObject({ encoding: 'UCS2', units: 78, segments: 2, remaining: 67 - 12 });
  });

  it('counts a part that lost a unit to a kept-whole pair, so the part count can exceed ceil(units / 67)', () => {
    // 36 emoji = 72 units; parts of 66 (33 pairs) + 6: still 2 parts. 67 pairs = 134 units: 33+33+1 pairs -> 3 parts.
    expect(analyzeSms(EMOJI.repeat(67)).segments).toBe(3);
    expect(splitSms(EMOJI.repeat(67)).map((p) => p.length)).toEqual([66, 66, 2]);
  });

  it('keeps every GSM7 part within 153 septets and every UCS2 part within 67 units', () => {
    const gsm = 'x€'.repeat(200);
    for (const part of splitSms(gsm)) expect(encodeGsm7(part).length).toBeLessThanOrEqual(153);
    expect(splitSms(gsm).join('')).toBe(gsm);
    const ucs = ('ж' + EMOJI).repeat(100);
    for (const part of splitSms(ucs)) expect(part.length).toBeLessThanOrEqual(67);
    expect(splitSms(ucs).join('')).toBe(ucs);
  });

  it('returns a single-part message whole', () => {
    expect(splitSms('Hello')).toEqual(['Hello']);
    expect(splitSms('')).toEqual(['']);
  });

  it('refuses to split non-GSM text as GSM7', () => {
    expect(() => splitSms('Привет', 'GSM7')).toThrow(RangeError);
  });
});

describe('GSM7 and UCS2 codecs', () => {
  it('encodes the basic set to one septet and the extension table to ESC + code', () => {
    expect([...encodeGsm7('@A€{')]).toEqual([0x00, 0x41, 0x1b, 0x65, 0x1b, 0x28]);
    expect([...encodeGsm7('^}\\[~]|\f')]).toEqual([0x1b, 0x14, 0x1b, 0x29, 0x1b, 0x2f, 0x1b, 0x3c, 0x1b, 0x3d, 0x1b, 0x3e, 0x1b, 0x40, 0x1b, 0x0a]);
    expect([...encodeGsm7('ÄÖÑÜ§¿äöñüà')]).toEqual([0x5b, 0x5c, 0x5d, 0x5e, 0x5f, 0x60, 0x7b, 0x7c, 0x7d, 0x7e, 0x7f]);
  });

  it('round-trips every GSM7 character', () => {
    const all = '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà^{}\\[~]|€\f';
    expect(isGsm7(all)).toBe(true);
    expect(decodeGsm7(encodeGsm7(all))).toBe(all);
  });

  it('shows the basic character for an escape the extension table does not define, and drops a trailing escape', () => {
    expect(decodeGsm7(Uint8Array.from([0x1b, 0x41, 0x42, 0x1b]))).toBe('AB');
  });

  it('refuses a character outside GSM 03.38', () => {
    expect(() => encodeGsm7('ç')).toThrow(RangeError);
  });

  it('encodes UCS2 big-endian with surrogate pairs as two units and round-trips', () => {
    expect([...encodeUcs2('Яa')]).toEqual([0x04, 0x2f, 0x00, 0x61]);
    expect([...encodeUcs2(EMOJI)]).toEqual([0xd8, 0x3d, 0xde, 0x00]);
    const text = 'Привет ' + EMOJI + ' мир';
    expect(decodeUcs2(encodeUcs2(text))).toBe(text);
  });
});

describe('concatenation UDH', () => {
  it('builds the 6-byte 8-bit-reference header and reads it back', () => {
    const udh = concatUdh(0x1a2, 3, 2);
    expect([...udh]).toEqual([0x05, 0x00, 0x03, 0xa2, 3, 2]);
    const msg = Uint8Array.from([...udh, 0x41, 0x42]);
    expect(parseConcatUdh(msg)).toEqual({ reference: 0xa2, total: 3, sequence: 2, body: Uint8Array.from([0x41, 0x42]) });
  });

  it('reads a 16-bit-reference header', () => {
    const msg = Uint8Array.from([0x06, 0x08, 0x04, 0x12, 0x34, 2, 1, 0x41]);
    expect(parseConcatUdh(msg)).toMatchObject({ reference: 0x1234, total: 2, sequence: 1 });
  });

  it('rejects a part number outside the total', () => {
    expect(() => concatUdh(1, 2, 3)).toThrow(RangeError);
  });
});
