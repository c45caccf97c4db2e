/**
 * Money: stored and carried on the bus as integer micro-units (1e-6) of the currency, shown in the API as decimal
 * currency units. Conversions go through strings so 0.1 + 0.2 never creeps in.
 */
const DECIMAL = /^(-)?(\d{1,12})(?:\.(\d{1,6}))?$/;

/** `"12.5"`, `12.5`, `"-3"` -> micros; null when the value is not a decimal with at most 6 places (and |x| < 1e12). */
export function toMicros(value: unknown): bigint | null {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return null;
    text = String(value);
  } else if (typeof value === 'string') {
    text = value.trim();
  } else {
    return null;
  }
  const m = DECIMAL.exec(text);
  if (!m) return null;
  const micros = BigInt(m[2]) * 1_000_000n + BigInt((m[3] ?? '').padEnd(6, '0'));
  return m[1] ? -micros : micros;
}

/** Micros -> currency units as a JS number (exact up to 2^53 micros, i.e. 9 billion units). */
export function fromMicros(micros: bigint | string | number): number {
  const v = BigInt(micros);
  const sign = v < 0n ? -1 : 1;
  const abs = v < 0n ? -v : v;
  return sign * (Number(abs / 1_000_000n) + Number(abs % 1_000_000n) / 1e6);
}

/** A micros value the bus schemas accept (`z.number().int()`); refuses what a JS number cannot hold exactly. */
export function microsToNumber(micros: bigint): number {
  if (micros > BigInt(Number.MAX_SAFE_INTEGER) || micros < BigInt(Number.MIN_SAFE_INTEGER)) throw new Error(`amount ${micros} micros is out of range`);
  return Number(micros);
}

let currencies: Set<string> | null = null;

/** ISO 4217 codes the runtime knows (ICU's list), not a hand-written one. */
export function isCurrency(code: unknown): code is string {
  if (typeof code !== 'string' || !/^[A-Z]{3}$/.test(code)) return false;
  currencies ??= new Set(Intl.supportedValuesOf('currency'));
  return currencies.has(code);
}

/** Spec 1: EUR shows €, USD shows $. ICU's narrow symbol, which gives those two and a sign for the others. */
export function currencySign(code: string): string {
  try {
    const part = new Intl.NumberFormat('en', { style: 'currency', currency: code, currencyDisplay: 'narrowSymbol' })
      .formatToParts(0)
      .find((p) => p.type === 'currency');
    return part?.value ?? code;
  } catch {
    return code;
  }
}
