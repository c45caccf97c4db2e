/**
 * Spintax (docs/decisions/0031-campaigns.md): a message text with alternatives, nested to any depth, word-list
 * references and personal variables:
 *
 *   `{Hi|Hello|{Good morning|Good day}} {{firstName}}, [[greetings]]!`
 *
 * - `{a|b|c}`: one of the alternatives; alternatives nest; an alternative may be empty (`{a|}`).
 * - `{{name}}`: a variable (contact field, `shorturl`, `optout`, ...); filled by the composer, never spun.
 * - `[[list]]`: one word of the account's word list named `list` (names compare case-insensitively).
 * - `\{`, `\}`, `\|`, `\[`, `\]`, `\\`: the character itself. A `|` outside a group and a single `[` or `]` are text.
 *
 * The choice is deterministic per seed: the composer seeds with the campaign and the recipient, so the same recipient
 * always gets the same text (a retry resends exactly what was composed). Bad syntax throws a SpintaxError naming the
 * 1-based position of the offending character. Pure: no I/O, no framework.
 */

export type SpinNode =
  | { k: 't'; s: string }
  | { k: 'v'; name: string; pos: number }
  | { k: 'w'; list: string; pos: number }
  | { k: 'g'; alts: SpinNode[][]; pos: number };

export type SpintaxErrorKind = 'unclosed_group' | 'unexpected_close' | 'empty_group' | 'invalid_variable' | 'unclosed_word_list' | 'invalid_word_list' | 'unknown_word_list' | 'empty_word_list';

export class SpintaxError extends Error {
  constructor(
    readonly kind: SpintaxErrorKind,
    /** 1-based position of the character the error is about. */
    readonly position: number,
    message: string,
  ) {
    super(`${message} at position ${position}`);
    this.name = 'SpintaxError';
  }
}

const ESCAPABLE = new Set(['{', '}', '|', '[', ']', '\\']);
const VARIABLE = /\{\{([^{}|]*)\}\}/y;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;
const WORD_LIST = /\[\[([^[\]]*)\]\]/y;

interface Frame {
  alts: SpinNode[][];
  pos: number;
}

/** Parses a spintax text; throws SpintaxError on bad syntax. Adjacent text is merged into one node. */
export function parseSpintax(text: string): SpinNode[] {
  const root: SpinNode[] = [];
  const stack: Frame[] = [];
  let seq = root;
  let buf = '';
  const flush = () => {
    if (!buf) return;
    const last = seq[seq.length - 1];
    if (last && last.k === 't') last.s += buf;
    else seq.push({ k: 't', s: buf });
    buf = '';
  };
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '\\' && i + 1 < text.length && ESCAPABLE.has(text[i + 1])) {
      buf += text[i + 1];
      i += 2;
      continue;
    }
    if (ch === '{') {
      if (text[i + 1] === '{') {
        VARIABLE.lastIndex = i;
        const m = VARIABLE.exec(text);
        if (m) {
          const name = m[1].trim();
          if (!VARIABLE_NAME.test(name)) throw new SpintaxError('invalid_variable', i + 1, `invalid variable name "${m[1]}" (letters, digits, _ . -)`);
          flush();
          seq.push({ k: 'v', name, pos: i + 1 });
          i += m[0].length;
          continue;
        }
      }
      flush();
      const frame: Frame = { alts: [[]], pos: i + 1 };
      stack.push(frame);
      seq = frame.alts[0];
      i += 1;
      continue;
    }
    if (ch === '|' && stack.length > 0) {
      flush();
      const frame = stack[stack.length - 1];
      seq = [];
      frame.alts.push(seq);
      i += 1;
      continue;
    }
    if (ch === '}') {
      if (stack.length === 0) throw new SpintaxError('unexpected_close', i + 1, `unexpected "}" with no group open (write \\} for the character)`);
      flush();
      const frame = stack.pop() as Frame;
      if (frame.alts.length === 1 && frame.alts[0].length === 0) throw new SpintaxError('empty_group', frame.pos, 'empty group "{}"');
      seq = stack.length ? stack[stack.length - 1].alts[stack[stack.length - 1].alts.length - 1] : root;
      seq.push({ k: 'g', alts: frame.alts, pos: frame.pos });
      i += 1;
      continue;
    }
    if (ch === '[' && text[i + 1] === '[') {
      WORD_LIST.lastIndex = i;
      const m = WORD_LIST.exec(text);
      if (!m) throw new SpintaxError('unclosed_word_list', i + 1, 'unclosed word list reference "[[" (expected "]]")');
      const list = m[1].trim();
      if (!list || /[{}|]/.test(list)) throw new SpintaxError('invalid_word_list', i + 1, `invalid word list name "${m[1]}"`);
      flush();
      seq.push({ k: 'w', list, pos: i + 1 });
      i += m[0].length;
      continue;
    }
    buf += ch;
    i += 1;
  }
  if (stack.length > 0) throw new SpintaxError('unclosed_group', stack[stack.length - 1].pos, 'unclosed "{" (expected "}")');
  flush();
  return root;
}

/** Word lists by lower-cased name: their words. */
export type WordLists = ReadonlyMap<string, readonly string[]>;

/** The names of the word lists a text refers to, lower-cased, each once. */
export function wordListsOf(nodes: SpinNode[]): string[] {
  const out = new Set<string>();
  const walk = (seq: SpinNode[]) => {
    for (const n of seq) {
      if (n.k === 'w') out.add(n.list.toLowerCase());
      else if (n.k === 'g') n.alts.forEach(walk);
    }
  };
  walk(nodes);
  return [...out];
}

/** The variable names a text uses, each once, in order of first use. */
export function variablesOf(nodes: SpinNode[]): string[] {
  const out = new Set<string>();
  const walk = (seq: SpinNode[]) => {
    for (const n of seq) {
      if (n.k === 'v') out.add(n.name);
      else if (n.k === 'g') n.alts.forEach(walk);
    }
  };
  walk(nodes);
  return [...out];
}

/** Throws SpintaxError (at the reference's position) for a word list the account does not have, or one without words. */
export function checkWordLists(nodes: SpinNode[], lists: WordLists): void {
  const walk = (seq: SpinNode[]) => {
    for (const n of seq) {
      if (n.k === 'w') {
        const words = lists.get(n.list.toLowerCase());
        if (!words) throw new SpintaxError('unknown_word_list', n.pos, `unknown word list "${n.list}"`);
        if (words.length === 0) throw new SpintaxError('empty_word_list', n.pos, `word list "${n.list}" has no words`);
      } else if (n.k === 'g') n.alts.forEach(walk);
    }
  };
  walk(nodes);
}

/** A 32-bit seed from any string (FNV-1a, then a murmur3 finaliser so near strings spread). */
export function seedOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** mulberry32: small, fast, good enough to spread choices evenly; the same seed gives the same sequence everywhere. */
export function rngOf(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A variable's value for one recipient; undefined: the recipient has none (the composer applies the missing rule). */
export type VariableLookup = (name: string) => string | undefined;

export interface SpinResult {
  text: string;
  /** Variables the lookup had no value for (their `{{name}}` stays in the text). */
  missing: string[];
}

/**
 * One expansion: each group and word list picks by the seeded generator, in reading order. Without a lookup the
 * variables stay as `{{name}}` (previews). Word lists must have been checked (checkWordLists).
 */
export function spin(nodes: SpinNode[], seed: number | string, lookup?: VariableLookup, lists: WordLists = new Map()): SpinResult {
  const rng = rngOf(typeof seed === 'number' ? seed : seedOf(seed));
  const missing: string[] = [];
  let out = '';
  const walk = (seq: SpinNode[]) => {
    for (const n of seq) {
      switch (n.k) {
        case 't':
          out += n.s;
          break;
        case 'v': {
          const v = lookup?.(n.name);
          if (v === undefined) {
            if (lookup) missing.push(n.name);
            out += `{{${n.name}}}`;
          } else out += v;
          break;
        }
        case 'w': {
          const words = lists.get(n.list.toLowerCase()) ?? [];
          if (words.length) out += words[Math.floor(rng() * words.length)];
          break;
        }
        case 'g':
          walk(n.alts[Math.floor(rng() * n.alts.length)]);
          break;
      }
    }
  };
  walk(nodes);
  return { text: out, missing };
}

/** How many different texts the spintax gives (variables counted once), capped at Number.MAX_SAFE_INTEGER. */
export function combinations(nodes: SpinNode[], lists: WordLists = new Map()): number {
  const seqCount = (seq: SpinNode[]): number => {
    let n = 1;
    for (const x of seq) {
      if (x.k === 'g') n *= x.alts.reduce((s, a) => Math.min(Number.MAX_SAFE_INTEGER, s + seqCount(a)), 0);
      else if (x.k === 'w') n *= Math.max(1, lists.get(x.list.toLowerCase())?.length ?? 1);
      if (n > Number.MAX_SAFE_INTEGER) return Number.MAX_SAFE_INTEGER;
    }
    return n;
  };
  return seqCount(nodes);
}

/**
 * The longest expansion (for counting characters and segments before sending): each group takes its longest
 * alternative, each word list its longest word, each variable `length(name)` characters (filled with "x").
 */
export function longestExpansion(nodes: SpinNode[], variableLength: (name: string) => number, lists: WordLists = new Map()): string {
  const best = (seq: SpinNode[]): string => {
    let out = '';
    for (const n of seq) {
      if (n.k === 't') out += n.s;
      else if (n.k === 'v') out += 'x'.repeat(Math.max(0, variableLength(n.name)));
      else if (n.k === 'w') out += (lists.get(n.list.toLowerCase()) ?? []).reduce((a, w) => (w.length > a.length ? w : a), '');
      else out += n.alts.map(best).reduce((a, s) => (s.length > a.length ? s : a), '');
    }
    return out;
  };
  return best(nodes);
}

/**
 * Every literal a text may send (all alternatives and words, each alternative and word on a line of its own), to tell
 * whether any expansion needs UCS-2 and to look for keywords inside alternatives.
 */
export function allLiterals(nodes: SpinNode[], lists: WordLists = new Map()): string {
  let out = '';
  const walk = (seq: SpinNode[]) => {
    for (const n of seq) {
      if (n.k === 't') out += n.s;
      else if (n.k === 'w') out += `\n${(lists.get(n.list.toLowerCase()) ?? []).join('\n')}\n`;
      else if (n.k === 'g')
        n.alts.forEach((a) => {
          out += '\n';
          walk(a);
          out += '\n';
        });
    }
  };
  walk(nodes);
  return out;
}

/** `n` previews, seeded 1..n so the same text always previews the same samples. */
export function previewSamples(nodes: SpinNode[], n: number, lists: WordLists = new Map()): string[] {
  return Array.from({ length: n }, (_, i) => spin(nodes, `preview:${i + 1}`, undefined, lists).text);
}
