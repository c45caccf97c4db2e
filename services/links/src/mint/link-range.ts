import { pgArrayElement } from '@switchboard/platform';

/**
 * A batch variable's links as range rows of up to `PAGE` links each (docs/decisions/0092, 0105). A row is one page of
 * the variable's code block (`page` = sequence number >> 4) and holds its recipients as fixed-width records in
 * PostgreSQL's own arrays, one array a field, in sequence order: `domains bigint[]`, `variants bigint[]`, `contacts
 * bigint[]`, `messages uuid[]` (each element fixed width: the k-th recipient's value is read at an offset computed from
 * k, no parse), and the two variable-width fields `destinations text[]` and `vars text[]` (the JSON of the variables the
 * target uses; the column is NULL when it uses none). A look-up reads element `(seq & 15) + 1` of each
 * (`links.link_of`), so a link costs one primary-key probe of `links.link_range` and a few array subscripts: no JSON,
 * no bytes decoded.
 *
 * `RangePages` collects a batch's recipients as one array literal a field over all its links (variable by variable, in
 * batch order), built once as text with no array of strings and no second escaping pass, and each range row as the
 * bounds of its slice: PostgreSQL parses each field's array once for the batch and cuts a row's 16 elements out of it
 * (`d[lo:hi]`, docs/decisions/0109), rather than parsing a `text[]` of per-row literals and then each literal again.
 */
export class RangePages {
  readonly page: number[] = [];
  readonly target: string[] = [];
  readonly expires: Array<string | null> = [];
  /** A row's slice of the batch's arrays, 1-based and inclusive. */
  readonly lo: number[] = [];
  readonly hi: number[] = [];
  /** The row's target uses variables (else its `vars` column is NULL). */
  readonly hasVars: boolean[] = [];
  private d = '';
  private v = '';
  private c = '';
  private m = '';
  private x = '';
  private j = '';
  private count = 0;

  /**
   * The pages of one variable: its block's first `n` numbers, the recipients in batch order. `domainAt(i)` is the
   * domain id of item i, `varsOf(i)` the JSON text of its variables already written as a quoted array element
   * (`varsElement`; null when the target uses none).
   */
  add(
    block: number,
    target: string,
    expiresAt: string | null,
    items: ReadonlyArray<{ messageUuid: string; contactId: string | null; variantId: string | null; destination: string }>,
    domainAt: (i: number) => string,
    varsOf: ((i: number) => string) | null,
  ): void {
    const n = items.length;
    const first = this.count;
    let d = this.d;
    let v = this.v;
    let c = this.c;
    let m = this.m;
    let x = this.x;
    let j = this.j;
    for (let i = 0; i < n; i++) {
      const item = items[i];
      const sep = first + i === 0 ? '' : ',';
      d += sep + domainAt(i);
      v += sep + (item.variantId ?? 'NULL');
      c += sep + (item.contactId ?? 'NULL');
      m += sep + item.messageUuid;
      x += sep + pgArrayElement(item.destination);
      j += sep + (varsOf ? varsOf(i) : 'NULL');
    }
    this.d = d;
    this.v = v;
    this.c = c;
    this.m = m;
    this.x = x;
    this.j = j;
    this.count += n;
    for (let from = 0; from < n; from += PAGE) {
      this.page.push(block * (CODE_BLOCK / PAGE) + from / PAGE);
      this.target.push(target);
      this.expires.push(expiresAt);
      this.lo.push(first + from + 1);
      this.hi.push(first + Math.min(n, from + PAGE));
      this.hasVars.push(varsOf !== null);
    }
  }

  /** The batch's arrays, each one literal: domains, variants, contacts, messages, destinations, vars. */
  get arrays(): [string, string, string, string, string, string] {
    return [`{${this.d}}`, `{${this.v}}`, `{${this.c}}`, `{${this.m}}`, `{${this.x}}`, `{${this.j}}`];
  }
}

/**
 * The keys of a target's variables as they open a member of `varsElement`'s text: `\"name\":` (the JSON key, escaped
 * for an array element). Built once a target.
 */
export function varsKeys(used: readonly string[]): string[] {
  return used.map((name) => `${escapeElement(JSON.stringify(name))}:`);
}

/**
 * The variables a target uses (each one the item has, in the target's order) as the JSON text `JSON.stringify` would
 * write for the object of them, written directly as a quoted element of a PostgreSQL array literal (its `"` and `\`
 * escaped): one pass, no JSON string then a second escaping pass. A value with a quote, a backslash, a control
 * character or a lone surrogate takes `JSON.stringify` and the escaping; any other value is copied as it is.
 * `keys` is `varsKeys(used)`.
 */
export function varsElement(used: readonly string[], keys: readonly string[], vars: Record<string, string>): string {
  let out = '';
  for (let u = 0; u < used.length; u++) {
    if (!Object.hasOwn(vars, used[u])) continue;
    const value = vars[used[u]];
    out += (out ? ',' : '"{') + keys[u] + (plainJson(value) ? `\\"${value}\\"` : escapeElement(JSON.stringify(value)));
  }
  return out ? `${out}}"` : '"{}"';
}

/** A string JSON.stringify writes as it is between its quotes: no quote, backslash, control character or surrogate. */
function plainJson(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return false;
  }
  return true;
}

function escapeElement(s: string): string {
  return s.replace(/[\\"]/g, '\\$&');
}

/** The number of sequence numbers in a code block: a batch variable's links are one block (a batch has at most 1000 items). */
export const CODE_BLOCK = 1024;
/** Links a range row at most: 16 recipients stay well under a heap page, so a row is read inline from the page its key found. */
export const PAGE = 16;
