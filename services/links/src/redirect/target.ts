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

interface TemplateCheck {
  /** Scheme and host are literal and http(s). */
  ok: boolean;
  /** The template outside its placeholders is already in normal form, so filling it needs no URL parse. */
  normal: boolean;
  origin: string;
  /** The template split at its placeholders: the literal text around them (one more piece than placeholders). */
  pieces: string[];
  /** Each placeholder's variable name, in order (repeats included). */
  slots: string[];
  /** Each placeholder's variable as its position in `placeholders(template)` (where 0150's array of values has it). */
  slotAt: number[];
}

const checked = new Map<string, TemplateCheck>();

function check(template: string): TemplateCheck {
  let c = checked.get(template);
  if (c) return c;
  const origin = originPart(template);
  const pieces: string[] = [];
  const slots: string[] = [];
  const slotAt: number[] = [];
  const names = new Map<string, number>();
  let last = 0;
  for (const m of template.matchAll(PLACEHOLDER)) {
    pieces.push(template.slice(last, m.index));
    slots.push(m[1]);
    let at = names.get(m[1]);
    if (at === undefined) names.set(m[1], (at = names.size));
    slotAt.push(at);
    last = m.index + m[0].length;
  }
  pieces.push(template.slice(last));
  c = { ok: false, normal: false, origin, pieces, slots, slotAt };
  if (!origin.includes('{') && /^https?:\/\//i.test(origin)) {
    try {
      const base = new URL(origin);
      const bare = template.replace(PLACEHOLDER, 'x');
      const parsed = new URL(bare);
      c = { ok: parsed.origin === base.origin && !parsed.username && !parsed.password, normal: parsed.href === bare, origin: base.origin, pieces, slots, slotAt };
    } catch {
      // not a URL: refused
    }
  }
  if (checked.size >= 10_000) checked.clear();
  checked.set(template, c);
  return c;
}

/**
 * A link's stored variables (`links.link_of`'s `vars` text) as the object `fillTarget` takes. Minted as the JSON object
 * of the variables its target uses, or (docs/decisions/0150, a target with its own URL) as the JSON array of their
 * values in the order of the URL's placeholders (`placeholders(template)`), null for a variable the recipient lacks.
 */
export function storedVars(template: string, text: string | null): Record<string, string> | null {
  if (text === null) return null;
  const parsed = JSON.parse(text) as Record<string, string> | Array<string | null>;
  if (!Array.isArray(parsed)) return parsed;
  const names = placeholders(template);
  // no prototype: a variable named `__proto__` is a value like any other, as in the object JSON.parse reads
  const vars = Object.create(null) as Record<string, string>;
  for (let i = 0; i < names.length && i < parsed.length; i++) {
    const v = parsed[i];
    if (typeof v === 'string') vars[names[i]] = v;
  }
  return vars;
}

/** The filled URL, or null when the template or the filled URL would not be a plain http(s) link to the template's own origin. */
export function fillTarget(template: string, vars: Record<string, string> | null): string | null {
  const c = check(template);
  if (!c.ok) return null;
  // encodeURIComponent leaves only [A-Za-z0-9-_.!~*'()%]: a filled value cannot end the path, query or fragment it
  // sits in, nor reach the literal scheme and host before it
  const filled = template.replace(PLACEHOLDER, (_, name: string) => encodeURIComponent(vars?.[name] ?? ''));
  return checked_(c, filled);
}

/**
 * `fillTarget(template, storedVars(template, text))` without the variables' object: the template split once at its
 * placeholders (cached with its check), the stored values put in its slots (0150's array by position, the object by
 * name). The redirect fills every link it reads this way (docs/decisions/0171).
 */
export function fillStored(template: string, text: string | null): string | null {
  const c = check(template);
  if (!c.ok) return null;
  const { pieces, slots, slotAt } = c;
  let filled = pieces[0];
  if (slots.length > 0) {
    const parsed = text === null ? null : (JSON.parse(text) as Record<string, string> | Array<string | null>);
    if (parsed === null) for (let i = 0; i < slots.length; i++) filled += pieces[i + 1];
    else if (Array.isArray(parsed))
      for (let i = 0; i < slots.length; i++) {
        const v = parsed[slotAt[i]];
        filled += (typeof v === 'string' ? encodeURIComponent(v) : '') + pieces[i + 1];
      }
    else for (let i = 0; i < slots.length; i++) filled += encodeURIComponent(parsed[slots[i]] ?? '') + pieces[i + 1];
  }
  return checked_(c, filled);
}

/** The filled URL as `fillTarget` answers it: as filled when the template is in normal form, else parsed and checked. */
function checked_(c: TemplateCheck, filled: string): string | null {
  if (c.normal) return filled;
  let url: URL;
  try {
    url = new URL(filled);
  } catch {
    return null;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== c.origin || url.username || url.password) return null;
  return url.href;
}
