import { analyzeSms, type SmsAnalysis } from '@switchboard/contracts/src/sms/encoding';

/** Spec 5: ratios default to an even split of 100, the remainder to the last item. */
export function evenRatios(n: number): number[] {
  if (n <= 0) return [];
  const base = Math.floor(100 / n);
  return Array.from({ length: n }, (_, i) => (i === n - 1 ? 100 - base * (n - 1) : base));
}

/** A ratio as typed: a whole number 0..100, or NaN. */
export function parseRatio(text: string): number {
  return /^\s*\d{1,3}\s*$/.test(text) ? Number(text) : Number.NaN;
}

/**
 * Spec 5 variant rules, answered as translation keys: at least one variant (errors.client.oneVariant), every variant
 * with text (errors.client.allVariants), whole-number ratios totalling 100 (errors.client.totalRatio).
 */
export function variantsError(variants: ReadonlyArray<{ text: string; ratio: number }>): string | undefined {
  if (variants.length === 0) return 'errors.client.oneVariant';
  if (variants.some((v) => !v.text.trim())) return 'errors.client.allVariants';
  return ratiosError(variants.map((v) => v.ratio));
}

/** Whole numbers 0..100 summing to 100 (senders share the variants' ratio rule). */
export function ratiosError(ratios: readonly number[]): string | undefined {
  if (ratios.length === 0) return 'errors.client.oneVariant';
  if (ratios.some((r) => !Number.isInteger(r) || r < 0 || r > 100)) return 'errors.client.totalRatio';
  return ratios.reduce((a, b) => a + b, 0) === 100 ? undefined : 'errors.client.totalRatio';
}

/** Spec 5: an unnamed variant is "name N" (N from 1). */
export const defaultVariantName = (index: number, word: string): string => `${word} ${index + 1}`;

/** Spec 5 sending hours: from and to differ (notSameTime). */
export function hoursError(start: string, end: string): string | undefined {
  if (!/^\d{2}:\d{2}$/.test(start) || !/^\d{2}:\d{2}$/.test(end)) return 'errors.client.required';
  return start === end ? 'errors.client.notSameTime' : undefined;
}

/** Spec 5: ctr_indicators are numbers 0..100 and the good one is not below the bad one (badMoreThanGood). */
export function ctrError(bad: number, good: number): string | undefined {
  if (![bad, good].every((n) => Number.isFinite(n) && n >= 0 && n <= 100)) return 'errors.client.ctrRange';
  return good < bad ? 'errors.client.badMoreThanGood' : undefined;
}

/** Spec 9: bad at or below bad, good at or above good, else mid. */
export function ctrLevel(ctr: number, [bad, good]: readonly [number, number]): 'bad' | 'mid' | 'good' {
  if (ctr <= bad) return 'bad';
  if (ctr >= good) return 'good';
  return 'mid';
}

/** A positive whole number or empty (auto-pause fields): errors.client.onlyPositive. */
export function positiveOrEmpty(text: string): string | undefined {
  if (text.trim() === '') return undefined;
  return /^\s*[1-9]\d*\s*$/.test(text) ? undefined : 'errors.client.onlyPositive';
}

// --- spintax, variables and the longest text --------------------------------------------------------------------

/** `{{name}}` placeholders (contact variables, short URL and opt-out). */
export const VARIABLE_RE = /\{\{\s*([A-Za-z_][\w.]*)\s*\}\}/g;

export function variablesIn(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(VARIABLE_RE)) out.add(m[1]);
  return [...out];
}

type Node = string | Node[][];

/** Word lists by lower-cased name: `[[name]]` picks one of the words. */
export type WordLists = Record<string, string[]>;

const ESCAPABLE = new Set(['{', '}', '|', '[', ']', '\\']);

/**
 * Parses spintax as the campaigns service does (docs/decisions/0031): `{a|b|{c|d}}` alternatives, nested;
 * `{{var}}` placeholders are text; `[[list]]` one word of a word list (text when the list is not known here);
 * `\{` and the like the character itself. Answers the tree or the 0-based position of the first syntax error (an
 * unclosed or stray brace).
 */
export function parseSpintax(text: string, words: WordLists = {}): { ok: true; tree: Node[] } | { ok: false; position: number } {
  let i = 0;
  const seq = (depth: number): Node[] | number => {
    const out: Node[] = [];
    let buf = '';
    while (i < text.length) {
      const ch = text[i];
      if (ch === '\\' && ESCAPABLE.has(text[i + 1])) {
        buf += text[i + 1];
        i += 2;
        continue;
      }
      if (ch === '[' && text[i + 1] === '[') {
        const close = text.indexOf(']]', i + 2);
        const list = close < 0 ? undefined : words[text.slice(i + 2, close).trim().toLowerCase()];
        if (close >= 0 && list?.length) {
          if (buf) out.push(buf);
          buf = '';
          out.push(list.map((w) => [w]));
          i = close + 2;
          continue;
        }
        buf += ch;
        i++;
        continue;
      }
      if (ch === '{' && text[i + 1] === '{') {
        const close = text.indexOf('}}', i + 2);
        if (close < 0) return i;
        buf += text.slice(i, close + 2);
        i = close + 2;
        continue;
      }
      if (ch === '{') {
        const open = i;
        i++;
        if (buf) out.push(buf);
        buf = '';
        const alts: Node[][] = [];
        for (;;) {
          const alt = seq(depth + 1);
          if (typeof alt === 'number') return alt;
          alts.push(alt);
          if (text[i] === '|') {
            i++;
            continue;
          }
          if (text[i] === '}') {
            i++;
            break;
          }
          return open;
        }
        out.push(alts);
        continue;
      }
      if (depth > 0 && (ch === '|' || ch === '}')) break;
      if (depth === 0 && ch === '}') return i;
      buf += ch;
      i++;
    }
    if (buf) out.push(buf);
    return out;
  };
  const tree = seq(0);
  return typeof tree === 'number' ? { ok: false, position: tree } : { ok: true, tree };
}

/** Every expansion would be too many; the longest one (by SMS units) is what segment counting needs. */
function longest(nodes: Node[], measure: (s: string) => number): string {
  let out = '';
  for (const n of nodes) {
    if (typeof n === 'string') out += n;
    else {
      let best = '';
      let bestLen = -1;
      for (const alt of n) {
        const s = longest(alt, measure);
        const len = measure(s);
        if (len > bestLen) {
          best = s;
          bestLen = len;
        }
      }
      out += best;
    }
  }
  return out;
}

/** A deterministic sample: alternative `pick(count)` at each choice. */
/**
 * The live count of a variant: its longest expansion with every `{{variable}}` replaced by that variable's longest
 * value (`maxLengths`, from get_vars_max_length; unknown ones by their example or 10 characters), then GSM-7 / UCS-2
 * units and parts as the shared encoder counts them (160/153, 70/67).
 */
export function variantCount(text: string, maxLengths: Record<string, number> = {}, words: WordLists = {}): SmsAnalysis & { longest: string; error?: number } {
  const fill = (s: string) => s.replace(VARIABLE_RE, (_m, name: string) => 'x'.repeat(maxLengths[name] ?? 10));
  const parsed = parseSpintax(text, words);
  if (!parsed.ok) return { ...analyzeSms(fill(text)), longest: fill(text), error: parsed.position };
  const long = longest(parsed.tree, (s) => analyzeSms(fill(s)).units);
  const filled = fill(long);
  return { ...analyzeSms(filled), longest: filled };
}
