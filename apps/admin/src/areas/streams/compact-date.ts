/**
 * A date and time in few characters, for a table with many columns: "28 Nov, 14:05" in the current year, "28 Nov 2025,
 * 14:05" in another. The full date (the shared tables' "28 Nov 2026, 14:05") goes in its tooltip.
 */
export function compactDate(iso: string | null | undefined, locale: string, now: Date = new Date(), timeZone?: string): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '—';
  const year = (x: Date) => new Intl.DateTimeFormat('en', { year: 'numeric', timeZone }).format(x);
  return new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', ...(year(d) === year(now) ? {} : { year: 'numeric' }), hour: '2-digit', minute: '2-digit', timeZone }).format(d);
}
