import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import maxMetadata from 'libphonenumber-js/max/metadata';
import examples from 'libphonenumber-js/mobile/examples';
import { normalizePhone, parseInternational, parseNational } from './phone';

/** Deterministic pseudo-random numbers (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const reference = (text: string) => {
  const p = parsePhoneNumberFromString(text, { extract: false });
  return p ? { number: p.number as string, country: p.country, type: p.getType() } : undefined;
};

describe('the fast path for international numbers', () => {
  it('reads every number exactly as libphonenumber-js does, or leaves it to it', () => {
    const rand = rng(5);
    const codes = Object.keys((maxMetadata as unknown as { country_calling_codes: Record<string, string[]> }).country_calling_codes);
    const texts: string[] = [];
    // every country's example mobile number, written several ways
    for (const e164 of Object.values(examples as Record<string, string>)) {
      const d = `+${e164}`.replace(/^\+\+/, '+');
      texts.push(d, `${d.slice(0, 3)} ${d.slice(3, 6)} ${d.slice(6)}`, `${d.slice(0, 3)} (${d.slice(3, 6)}) ${d.slice(6, 9)}-${d.slice(9)}`);
    }
    // random digits after every calling code, of every plausible length, mutated from the examples too
    for (const cc of codes) {
      for (let k = 0; k < 200; k++) {
        const len = 1 + Math.floor(rand() * 16);
        let rest = '';
        for (let i = 0; i < len; i++) rest += String(Math.floor(rand() * 10));
        texts.push(`+${cc}${rest}`);
      }
    }
    for (const e164 of Object.values(examples as Record<string, string>)) {
      for (let k = 0; k < 40; k++) {
        const chars = e164.split('');
        const at = 1 + Math.floor(rand() * (chars.length - 1));
        chars[at] = String(Math.floor(rand() * 10));
        if (rand() < 0.2) chars.push(String(Math.floor(rand() * 10)));
        if (rand() < 0.2) chars.pop();
        texts.push(chars.join(''));
      }
    }
    texts.push('+0123456789', '+999123456789', '+1', '+12', '+123', '+7 (916) 123-45-67', '+44.7400.123456', '+49/151/12345678', '+800 1234 5678', '+7 8 916 123 45 67');
    let decided = 0;
    for (const text of texts) {
      const fast = parseInternational(text);
      if (typeof fast === 'symbol') continue;
      decided++;
      const got = fast ? { number: fast.number, country: fast.country, type: fast.getType() } : undefined;
      expect([text, got]).toEqual([text, reference(text)]);
    }
    expect(decided).toBeGreaterThan(texts.length * 0.75);
  });

  it('reads national numbers with a default country exactly as libphonenumber-js does, or leaves them to it', () => {
    const rand = rng(9);
    const md = maxMetadata as unknown as { countries: Record<string, unknown[]> };
    const ex = examples as Record<string, string>;
    let decided = 0;
    let total = 0;
    const check = (text: string, region: string) => {
      total++;
      const fast = parseNational(text, region);
      if (typeof fast === 'symbol') return;
      decided++;
      const got = fast ? { number: fast.number, country: fast.country, type: fast.getType() } : undefined;
      let ref;
      try {
        const p = parsePhoneNumberFromString(text, { defaultCountry: region as never, extract: false });
        ref = p ? { number: p.number as string, country: p.country, type: p.getType() } : undefined;
      } catch {
        ref = undefined;
      }
      expect([text, region, got]).toEqual([text, region, ref]);
    };
    const digits = (n: number) => Array.from({ length: n }, () => String(Math.floor(rand() * 10))).join('');
    for (const region of Object.keys(md.countries)) {
      const e164 = ex[region];
      const trunk = String((md.countries[region] as unknown[])[5] ?? '');
      const cc = String((md.countries[region] as unknown[])[0]);
      const nsn = e164 ? e164.slice(1 + cc.length) : digits(9);
      const forms = [nsn, `${trunk}${nsn}`, `${cc}${nsn}`, `${cc}${trunk}${nsn}`, `${trunk} (${nsn.slice(0, 3)}) ${nsn.slice(3, 6)}-${nsn.slice(6)}`, `00${cc}${nsn}`];
      for (const f of forms) check(f, region);
      for (let k = 0; k < 60; k++) {
        const base = forms[Math.floor(rand() * 4)].split('');
        base[Math.floor(rand() * base.length)] = String(Math.floor(rand() * 10));
        if (rand() < 0.3) base.push(String(Math.floor(rand() * 10)));
        if (rand() < 0.3) base.shift();
        check(base.join(''), region);
        check(digits(3 + Math.floor(rand() * 12)), region);
      }
    }
    expect(decided).toBeGreaterThan(total * 0.75);
  });

  it('normalises as before: E.164, country, time zone and state', () => {
    expect(normalizePhone('+7 (916) 123-45-67', null, true)).toEqual({ state: 0, e164: '+79161234567', country: 'RU', timezone: 'Europe/Moscow', error: null });
    expect(normalizePhone('0084912345678', null, true)).toMatchObject({ state: 0, e164: '+84912345678', country: 'VN' });
    expect(normalizePhone('+7 495 123-45-67', null, true)).toMatchObject({ state: 2, e164: '+74951234567', error: 'not a mobile number (fixed line)' });
    expect(normalizePhone('+999 123456', null, true)).toMatchObject({ state: 1, e164: null, error: 'not a phone number' });
    expect(normalizePhone('+7 916 12', null, true)).toMatchObject({ state: 1, error: 'invalid phone number' });
    expect(normalizePhone('8 916 123-45-67', 'RU', true)).toMatchObject({ state: 0, e164: '+79161234567' });
  });
});
