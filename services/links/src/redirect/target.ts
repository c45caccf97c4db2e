/**
 * Filling a link's target with its recipient's variables. Values are URL-encoded (encodeURIComponent), so they land
 * as data inside the path, query or fragment and can never add a scheme, a host, a path separator or a new parameter.
 * A target whose scheme or host would itself come from a variable is refused, and the filled URL must keep the
 * template's origin and be http(s): a variable cannot send the recipient to another site.
 */

const PLACEHOLDER = /\{([A-Za-z0-9_.-]{1,64})\}/g;

/** The variable names a target uses, in order, without repeats. */
export function placeholders(template: string): string[] {
  const names = new Set<string>();
  for (const m of template.matchAll(PLACEHOLDER)) names.add(m[1]);
  return [...names];
}

/** The origin part of a template: everything before the first `/`, `?` or `#` after `scheme://`. */
function originPart(template: string): string {
  const m = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*)/i.exec(template);
  return m ? m[1] : template;
}

/** The filled URL, or null when the template or the filled URL would not be a plain http(s) link to the template's own origin. */
export function fillTarget(template: string, vars: Record<string, string> | null): string | null {
  const origin = originPart(template);
  if (origin.includes('{') || !/^https?:\/\//i.test(origin)) return null;
  const filled = template.replace(PLACEHOLDER, (_, name: string) => encodeURIComponent(vars?.[name] ?? ''));
  let url: URL;
  let base: URL;
  try {
    url = new URL(filled);
    base = new URL(origin);
  } catch {
    return null;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== base.origin || url.username || url.password) return null;
  return url.href;
}
