
import { PgBinaryArray, PgType } from './pg-binary-array';

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
 * `RangePages` collects a batch's recipients as one array a field over all its links (variable by variable, in batch
 * order), each range row as the bounds of its slice: PostgreSQL receives each field's array once for the batch and
 * cuts a row's 16 elements out of it (`d[lo:hi]`, docs/decisions/0109). The arrays travel in PostgreSQL's binary format
 * (docs/decisions/0141, `pg-binary-array.ts`): written straight into one buffer a field, with no string a field and
 * batch built in Node and no array literal parsed by PostgreSQL; the rows stored are the same.
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
  private readonly d: PgBinaryArray;
  private readonly v: PgBinaryArray;
  private readonly c: PgBinaryArray;
  private readonly m: PgBinaryArray;
  private readonly x: PgBinaryArray;
  private readonly j: PgBinaryArray;

  /** `links`: about how many links the batch has (the buffers' first size). */
  constructor(links = 1000) {
    this.d = new PgBinaryArray(PgType.int8, 12 * links + 64);
    this.v = new PgBinaryArray(PgType.int8, 12 * links + 64);
    this.c = new PgBinaryArray(PgType.int8, 12 * links + 64);
    this.m = new PgBinaryArray(PgType.uuid, 20 * links + 64);
    this.x = new PgBinaryArray(PgType.text, 24 * links + 64);
    this.j = new PgBinaryArray(PgType.text, 64 * links + 64);
  }

  /**
   * The pages of one variable: its block's first `n` numbers, the recipients in batch order. `domainAt(i)` is the
   * domain id of item i; `vars` the variables the target uses (its `varsKeys` alongside), or null when it uses none.
   */
  add(
    block: number,
    target: string,
    expiresAt: string | null,
    items: ReadonlyArray<{ messageUuid: string; contactId: string | null; variantId: string | null; destination: string; vars: Record<string, string> }>,
    domainAt: (i: number) => string,
    vars: { used: readonly string[]; keys: readonly string[] } | null,
  ): void {
    const n = items.length;
    const first = this.d.length;
    const { d, v, c, m, x, j } = this;
    for (let i = 0; i < n; i++) {
      const item = items[i];
      d.int8(domainAt(i));
      v.int8(item.variantId ?? null);
      c.int8(item.contactId ?? null);
      m.uuid(item.messageUuid);
      x.text(item.destination);
      if (vars) writeVars(j, vars.used, vars.keys, item.vars);
      else j.null();
    }
    for (let from = 0; from < n; from += PAGE) {
      this.page.push(block * (CODE_BLOCK / PAGE) + from / PAGE);
      this.target.push(target);
      this.expires.push(expiresAt);
      this.lo.push(first + from + 1);
      this.hi.push(first + Math.min(n, from + PAGE));
      this.hasVars.push(vars !== null);
    }
  }

  /** The batch's arrays, each one binary parameter: domains, variants, contacts, messages, destinations, vars. */
  get arrays(): [Buffer, Buffer, Buffer, Buffer, Buffer, Buffer] {
    return [this.d.value, this.v.value, this.c.value, this.m.value, this.x.value, this.j.value];
  }
}

/** The keys of a target's variables as they open a member of `writeVars`' text: `"name":` (the JSON key). Built once a target. */
export function varsKeys(used: readonly string[]): string[] {
  return used.map((name) => `${JSON.stringify(name)}:`);
}

/**
 * The variables a target uses (each one the item has, in the target's order) as the JSON text `JSON.stringify` would
 * write for the object of them, written as one text element of `into` piece by piece (no string of the element). A
 * value with a quote, a backslash, a control character or a surrogate takes `JSON.stringify`; any other value is
 * copied as it is. `keys` is `varsKeys(used)`.
 */
export function writeVars(into: PgBinaryArray, used: readonly string[], keys: readonly string[], vars: Record<string, string>): void {
  into.open();
  let any = false;
  for (let u = 0; u < used.length; u++) {
    if (!Object.hasOwn(vars, used[u])) continue;
    const value = vars[used[u]];
    into.append(any ? ',' : '{');
    any = true;
    into.append(keys[u]);
    if (plainJson(value)) {
      into.append('"');
      into.append(value);
      into.append('"');
    } else into.append(JSON.stringify(value));
  }
  into.append(any ? '}' : '{}');
  into.close();
}

/** A string JSON.stringify writes as it is between its quotes: no quote, backslash, control character or surrogate. */
function plainJson(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return false;
  }
  return true;
}

/** The number of sequence numbers in a code block: a batch variable's links are one block (a batch has at most 1000 items). */
export const CODE_BLOCK = 1024;
/** Links a range row at most: 16 recipients stay well under a heap page, so a row is read inline from the page its key found. */
export const PAGE = 16;
