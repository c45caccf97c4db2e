import { rngOf } from '@switchboard/contracts';
import examples from 'libphonenumber-js/examples.mobile.json';
import minMetadata from 'libphonenumber-js/metadata.min.json';
import { fastE164, normalizeByLibrary, normalizePhone } from './phone';

// Decision 0198: normalizePhone answers "+<digits>" without libphonenumber-js when it can; its answer must be the
// library's for every input (normalizeByLibrary is the rule as it was, the library's parse and isValid).

const rng = rngOf(198);
const digit = (): string => String(Math.floor(rng() * 10));
const digits = (n: number): string => Array.from({ length: n }, digit).join('');

const callingCodes = [...new Set([...Object.keys(minMetadata.country_calling_codes), ...Object.keys(minMetadata.nonGeographic ?? {})])];
const countryCode = (iso2: string): string => (minMetadata.countries as Record<string, unknown[]>)[iso2][0] as string;

/** "+<calling code><rest>" numbers: the countries' example mobiles and their neighbours, random rests of every length. */
function e164s(): string[] {
  const out: string[] = [];
  for (const [iso2, national] of Object.entries(examples as Record<string, string>)) {
    const cc = countryCode(iso2);
    out.push(`+${cc}${national}`);
    for (let k = 0; k < 12; k++) {
      const cut = Math.max(0, national.length - 1 - Math.floor(rng() * 4));
      out.push(`+${cc}${national.slice(0, cut)}${digits(national.length - cut)}`); // same length, other last digits
    }
    out.push(`+${cc}${national}${digit()}`, `+${cc}${national.slice(0, -1)}`, `+${cc}0${national}`, `+${cc}${national.slice(1)}`);
  }
  for (const cc of callingCodes) {
    for (let len = 1; len <= 18 - cc.length; len++) {
      for (let k = 0; k < 6; k++) out.push(`+${cc}${digits(len)}`);
      out.push(`+${cc}0${digits(len)}`, `+${cc}1${digits(len)}`, `+${cc}8${digits(len)}`, `+${cc}9${digits(len)}`);
    }
  }
  for (let k = 0; k < 3000; k++) out.push(`+${digits(1 + Math.floor(rng() * 19))}`); // unknown and partial calling codes, +0…
  return out;
}

/** The same numbers as users write them: separators, 00, no plus, letters, plus signs, other digits, numbers. */
function dressed(e164: string): unknown[] {
  const d = e164.slice(1);
  const spaced = d.replace(/(\d{3})/g, '$1 ').trim();
  return [
    d,
    `00${d}`,
    `+${spaced}`,
    ` ${e164} `,
    `+${d.slice(0, 2)} (${d.slice(2, 5)}) ${d.slice(5, 8)}-${d.slice(8)}`,
    `++${d}`,
    `+0${d}`,
    `${e164}a`,
    `+${d.slice(0, 3)}x${d.slice(3)}`,
    `${e164}#`,
    `+${d.slice(0, 4)}.${d.slice(4)}`,
    `+${d.replace(/\d/g, (c) => String.fromCharCode(0xff10 + Number(c)))}`, // full-width digits
    `+${d}\t`,
    `+${d.slice(0, -1)}\u00a0${d.slice(-1)}`,
    Number(d),
    e164.replace(/^\+/, '0'),
  ];
}

describe('normalizePhone: the fast path gives the library\'s answer (0198)', () => {
  const numbers = e164s();

  it('answers every "+<digits>" number as libphonenumber-js does, and answers most of them without it', () => {
    let fast = 0;
    let fastValid = 0;
    const countries = new Set<string>();
    const mismatches: string[] = [];
    for (const n of numbers) {
      const f = fastE164(n);
      const lib = normalizeByLibrary(n);
      if (f !== undefined) {
        fast++;
        if (f) {
          fastValid++;
          countries.add(f.iso2 ?? '');
        }
        if (JSON.stringify(f) !== JSON.stringify(lib)) mismatches.push(`${n}: fast ${JSON.stringify(f)} library ${JSON.stringify(lib)}`);
      }
      if (JSON.stringify(normalizePhone(n)) !== JSON.stringify(lib)) mismatches.push(`${n}: normalizePhone differs`);
    }
    expect(mismatches.slice(0, 20)).toEqual([]);
    expect(numbers.length).toBeGreaterThan(30_000);
    expect(fast).toBeGreaterThan(numbers.length * 0.6); // the fast path is not a no-op…
    expect(fastValid).toBeGreaterThan(1_500); // …and answers valid numbers…
    expect(fast - fastValid).toBeGreaterThan(10_000); // …and invalid ones
    expect(countries.size).toBeGreaterThan(150);
  });

  it('answers the same numbers dressed as users write them (separators, 00, no plus, letters, other digits) as the library', () => {
    const mismatches: string[] = [];
    let n = 0;
    for (const e164 of numbers.filter((_, i) => i % 3 === 0)) {
      for (const raw of dressed(e164)) {
        n++;
        if (JSON.stringify(normalizePhone(raw)) !== JSON.stringify(normalizeByLibrary(raw))) mismatches.push(JSON.stringify(raw));
      }
    }
    for (const raw of [null, undefined, '', '+', 'abc', {}, ['+4915112345678'], 4915112345678n, NaN, Infinity, 4.9151123e12, true]) {
      n++;
      if (JSON.stringify(normalizePhone(raw)) !== JSON.stringify(normalizeByLibrary(raw))) mismatches.push(String(raw));
    }
    expect(mismatches.slice(0, 20)).toEqual([]);
    expect(n).toBeGreaterThan(100_000);
  });

  it('gives campaign destinations their number and country without the library, and refuses impossible ones', () => {
    expect(fastE164('+4915112345678')).toEqual({ e164: '+4915112345678', iso2: 'DE' });
    expect(fastE164('+33612345678')).toEqual({ e164: '+33612345678', iso2: 'FR' });
    expect(fastE164('+84912345678')).toEqual({ e164: '+84912345678', iso2: 'VN' });
    expect(fastE164('+491')).toBeUndefined(); // too short for the shape: the library's rule
    expect(fastE164('+4909123456')).toBeUndefined(); // the national prefix (0) after +49: the library decides
    expect(fastE164('+14155552671')).toBeUndefined(); // +1 is shared by 25 countries: the library decides
    expect(normalizePhone('+14155552671')).toEqual({ e164: '+14155552671', iso2: 'US' });
    expect(fastE164('+3361234567')).toBeNull(); // a digit short for France
    expect(normalizePhone('+3361234567')).toBeNull();
  });
});
