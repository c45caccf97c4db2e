import { currencySign } from '@switchboard/contracts/src/stats-reports';

export { formatDate, formatNumber, countryName } from '../../contacts/widgets/format';

/** Spec 1: a cost with the account currency sign (EUR shows €, USD shows $). */
export function formatCost(amount: number | string, currency: string | undefined, locale: string): string {
  const value = typeof amount === 'string' ? Number(amount) : amount;
  const n = new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 4 }).format(Number.isFinite(value) ? value : 0);
  return `${currency ? currencySign(currency) : ''}${n}`;
}
