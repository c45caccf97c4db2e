/** Polyglot plural forms ("one |||| many") as react-admin's messages carry them; Russian has three. */
export function pluralIndex(locale: string, n: number): number {
  if (locale === 'ru') {
    const mod10 = n % 10;
    const mod100 = n % 100;
    if (mod10 === 1 && mod100 !== 11) return 0;
    if (mod10 >= 2 && mod10 <= 4 && (mod100 < 10 || mod100 >= 20)) return 1;
    return 2;
  }
  return n === 1 ? 0 : 1;
}

/** The form of a "one |||| few |||| many" text for `options.smart_count` (1 when absent). */
export function pickPlural(text: string, locale: string, options: Record<string, unknown> | undefined): string {
  if (!text.includes('||||')) return text;
  const forms = text.split('||||').map((f) => f.trim());
  const count = Number(options?.smart_count ?? 1);
  return forms[Math.min(pluralIndex(locale, count), forms.length - 1)];
}
