/** An id as the console sends it: a number, digits, or an IRI `/api/<resource>/<id>`. Null when it is none of these. */
export function parseRef(v: unknown, resource?: string): string | null {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) return String(v);
  if (typeof v !== 'string') return null;
  const t = v.trim();
  if (/^[1-9]\d{0,17}$/.test(t)) return t;
  if (resource) {
    const m = new RegExp(`^/api/${resource}/([1-9]\\d{0,17})$`).exec(t);
    if (m) return m[1];
  }
  return null;
}
