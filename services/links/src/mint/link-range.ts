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
 * `RangePages` collects the rows of a batch as the text of each array (the insert casts them: `bigint[]` of text is
 * parsed once an element, as a COPY field was).
 */
export class RangePages {
  readonly page: number[] = [];
  readonly target: string[] = [];
  readonly expires: Array<string | null> = [];
  readonly domains: string[] = [];
  readonly variants: string[] = [];
  readonly contacts: string[] = [];
  readonly messages: string[] = [];
  readonly destinations: string[] = [];
  readonly vars: Array<string | null> = [];

  /**
   * The pages of one variable: its block's first `n` numbers, the recipients in batch order. `domainAt(i)` is the
   * domain id of item i, `varsOf(i)` the JSON text of its variables (null when the target uses none).
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
    for (let from = 0; from < n; from += PAGE) {
      const to = Math.min(n, from + PAGE);
      let d = '{';
      let v = '{';
      let c = '{';
      let m = '{';
      let x = '{';
      let j = varsOf ? '{' : null;
      for (let i = from; i < to; i++) {
        const item = items[i];
        const sep = i === from ? '' : ',';
        d += sep + domainAt(i);
        v += sep + (item.variantId ?? 'NULL');
        c += sep + (item.contactId ?? 'NULL');
        m += sep + item.messageUuid;
        x += sep + quoteElement(item.destination);
        if (varsOf) j += sep + quoteElement(varsOf(i));
      }
      this.page.push(block * (CODE_BLOCK / PAGE) + from / PAGE);
      this.target.push(target);
      this.expires.push(expiresAt);
      this.domains.push(d + '}');
      this.variants.push(v + '}');
      this.contacts.push(c + '}');
      this.messages.push(m + '}');
      this.destinations.push(x + '}');
      this.vars.push(j === null ? null : j + '}');
    }
  }
}

/** An element of a PostgreSQL array literal: double-quoted, backslash and quote escaped (plain text needs no scan beyond one regex test). */
function quoteElement(s: string): string {
  return NEEDS_ESCAPE.test(s) ? `"${s.replace(/[\\"]/g, '\\$&')}"` : `"${s}"`;
}
const NEEDS_ESCAPE = /[\\"]/;

/** The number of sequence numbers in a code block: a batch variable's links are one block (a batch has at most 1000 items). */
export const CODE_BLOCK = 1024;
/** Links a range row at most: 16 recipients stay well under a heap page, so a row is read inline from the page its key found. */
export const PAGE = 16;
