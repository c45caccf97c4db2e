import { currencySign } from '@switchboard/contracts/src/stats-reports';

export { formatDate, formatNumber, countryName } from '../../contacts/widgets/format';

/** Spec 1: a cost with the account currency sign (EUR shows €, USD shows $). */
export function formatCost(amount: number, currency: string | undefined, locale: string): string {
  const n = new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 4 }).format(amount);
  return `${currency ? currencySign(currency) : ''}${n}`;
}
