import { abbreviateNumber, currencySign, microsToAmount, type MoneyDto } from '@switchboard/contracts/src/stats-reports';

export { abbreviateNumber };

/** Spec 9: 10 000 and up as K, M, B; below that the number in full, grouped as the language writes it. */
export function formatCount(n: number, locale: string): string {
  return Math.abs(n) >= 10_000 ? abbreviateNumber(n) : n.toLocaleString(locale);
}

/** Spec 1: a cost with its currency sign, exact to the micro-unit (trailing zeros beyond the cents dropped). */
export function formatMoney(m: Pick<MoneyDto, 'currency' | 'micros'>, locale: string): string {
  const [whole, frac] = microsToAmount(m.micros).split('.');
  const neg = whole.startsWith('-');
  const grouped = BigInt(neg ? whole.slice(1) : whole).toLocaleString(locale);
  const sep = (1.5).toLocaleString(locale).charAt(1);
  const sign = currencySign(m.currency);
  return `${neg ? '-' : ''}${sign}${grouped}${sep}${frac}`;
}

/** A cost for an axis: abbreviated like counts (spec 9), with the currency sign. */
export function formatMoneyShort(micros: number, currency: string, locale: string): string {
  const v = micros / 1_000_000;
  const s = Math.abs(v) >= 10_000 ? abbreviateNumber(Math.round(v)) : v.toLocaleString(locale, { maximumFractionDigits: 2 });
  return `${currencySign(currency)}${s}`;
}
