/** Formatting helpers of the contacts screens; the locale comes from the catalogue (`contacts.locale`). */

export function formatBytes(bytes: number, locale: string): string {
  const units = ['B', 'KB', 'MB', 'GB'];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${new Intl.NumberFormat(locale, { maximumFractionDigits: i === 0 ? 0 : 1 }).format(v)} ${units[i]}`;
}

export const formatNumber = (n: number, locale: string): string => new Intl.NumberFormat(locale).format(n);

export function formatDate(iso: string | null | undefined, locale: string, withTime = true): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '—';
  return new Intl.DateTimeFormat(locale, withTime ? { dateStyle: 'medium', timeStyle: 'short' } : { dateStyle: 'medium' }).format(d);
}

/** A country's name in the console language (Intl), falling back to the server's English name or the code. */
export function countryName(iso2: string, locale: string, fallback?: string): string {
  try {
    const names = new Intl.DisplayNames([locale], { type: 'region' });
    return names.of(iso2.toUpperCase()) ?? fallback ?? iso2;
  } catch (_e) {
    return fallback ?? iso2;
  }
}

export const fullName = (c: { firstName: string | null; lastName: string | null }): string => [c.firstName, c.lastName].filter(Boolean).join(' ');
