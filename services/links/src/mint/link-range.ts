
import { beginArray, endArray, PgBinaryWriter, PgType, writeNull, type Int8Memo } from './pg-binary-array';

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
 * `RangePages` writes a batch's range rows, as they are stored, into one array of `links.link_range_row` in
 * PostgreSQL's binary format (docs/decisions/0141, `pg-binary-array.ts`): each recipient's fields written straight into
 * one buffer, no string a field and batch built in Node; PostgreSQL inserts the rows as it receives them, with no array
 * literal parsed and no slice of a batch-wide text array sought (docs/decisions/0109's slices walked the variable-width
 * arrays from their start for every row).
 */
export class RangePages {
  private readonly w: PgBinaryWriter;
  private rows = 0;

  /** The fields every row of the batch has; `links`: about how many links the batch has (the buffer's first size). */
  constructor(
    private readonly accountId: string,
    private readonly campaignId: string | null,
    private readonly streamId: string | null,
    private readonly createdAt: Date,
    links = 1000,
  ) {
    this.w = new PgBinaryWriter(160 * links + 1024);
    beginArray(this.w, 0);
  }

  /**
   * The pages of one variable: its block's first `n` numbers, the recipients in batch order. `domains[domainOf[i]]` is
   * the domain id of item i; `vars` the variables the target uses (and their `varsKeys`; `values`: written by
   * `writeVarValues`, else by `writeVars`), or null when it uses none.
   */
  add(
    block: number,
    target: string,
    expiresAt: Date | null,
    items: ReadonlyArray<RangeItem>,
    domains: readonly string[],
    domainOf: ArrayLike<number>,
    vars: { used: readonly string[]; keys: readonly string[]; values?: boolean } | null,
  ): void {
    const w = this.w;
    const n = items.length;
    // the values that repeat are written once and copied after (a domain's id, the variant of a run of recipients)
    const domainMemos: Int8Memo[] = domains.map(() => ({ text: undefined, at: 0 }));
    const variantMemo: Int8Memo = { text: undefined, at: 0 };
    for (let from = 0; from < n; from += PAGE) {
      const to = Math.min(n, from + PAGE);
      w.open();
      w.int32(13);
      w.int32(PgType.int8);
      w.int8Number(block * (CODE_BLOCK / PAGE) + from / PAGE);
      column(w, PgType.int8, this.accountId);
      column(w, PgType.int8, target);
      column(w, PgType.int8, this.campaignId);
      column(w, PgType.int8, this.streamId);
      w.int32(PgType.timestamptz);
      if (expiresAt) w.timestamptz(expiresAt);
      else writeNull(w);
      w.int32(PgType.timestamptz);
      w.timestamptz(this.createdAt);
      // domains, variants, contacts (bigint[]), messages (uuid[]), destinations (text[]), vars (text[] or NULL)
      w.int32(PgType.int8Array);
      w.open();
      let h = beginArray(w, PgType.int8);
      for (let i = from; i < to; i++) {
        const k = domainOf[i];
        w.int8Memo(domains[k], domainMemos[k]);
      }
      endArray(w, h, to - from, false);
      w.close();
      writeIds(w, items, from, to, 'variantId', variantMemo);
      writeIds(w, items, from, to, 'contactId', null);
      w.int32(PgType.uuidArray);
      w.open();
      h = beginArray(w, PgType.uuid);
      for (let i = from; i < to; i++) w.uuid(items[i].messageUuid);
      endArray(w, h, to - from, false);
      w.close();
      w.int32(PgType.textArray);
      w.open();
      h = beginArray(w, PgType.text);
      for (let i = from; i < to; i++) w.text(items[i].destination);
      endArray(w, h, to - from, false);
      w.close();
      w.int32(PgType.textArray);
      if (vars) {
        w.open();
        h = beginArray(w, PgType.text);
        if (vars.values) for (let i = from; i < to; i++) writeVarValues(w, vars.used, items[i].vars);
        else for (let i = from; i < to; i++) writeVars(w, vars.used, vars.keys, items[i].vars);
        endArray(w, h, to - from, false);
        w.close();
      } else writeNull(w);
      w.close();
      this.rows++;
    }
  }

  /** The rows as one `links.link_range_row[]` parameter; `rowType` is that type's OID (the database's). */
  value(rowType: number): Buffer {
    endArray(this.w, 0, this.rows, false);
    this.w.patch32(8, rowType);
    return this.w.bytes();
  }
}

/** A nullable bigint column of a row: its type, then its value. */
function column(w: PgBinaryWriter, type: number, value: string | null): void {
  w.int32(type);
  if (value === null) writeNull(w);
  else w.int8(value);
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
export function writeVars(into: PgBinaryWriter, used: readonly string[], keys: readonly string[], vars: Record<string, string>): void {
  into.open();
  let any = false;
  for (let u = 0; u < used.length; u++) {
    if (!Object.hasOwn(vars, used[u])) continue;
    const value = vars[used[u]];
    into.byte(any ? COMMA : OPEN);
    any = true;
    into.append(keys[u]);
    writeJsonString(into, value);
  }
  if (!any) into.byte(OPEN);
  into.byte(CLOSE);
  into.close();
}

/**
 * The variables a target with its own URL uses as the JSON array of their values in `used`'s order (the URL's
 * placeholders, docs/decisions/0150): the text `JSON.stringify` writes for that array, a variable the item lacks as
 * null, the nulls at its end left out (`["C1","Zoë"]`, `[null,"x"]`, `[]`). The redirect names the values by the
 * placeholders of the target's URL again (`storedVars`); the keys are not stored a link.
 */
export function writeVarValues(into: PgBinaryWriter, used: readonly string[], vars: Record<string, string>): void {
  into.open();
  into.byte(ARRAY_OPEN);
  // where the array ends if no later value is present: after the last value written
  let end = into.at;
  for (let u = 0; u < used.length; u++) {
    if (u > 0) into.byte(COMMA);
    if (!Object.hasOwn(vars, used[u])) {
      into.append('null');
      continue;
    }
    writeJsonString(into, vars[used[u]]);
    end = into.at;
  }
  into.at = end;
  into.byte(ARRAY_CLOSE);
  into.close();
}

/** A recipient of a range row, as the mint writer hands it over. */
interface RangeItem {
  messageUuid: string;
  contactId: string | null;
  variantId: string | null;
  destination: string;
  vars: Record<string, string>;
}

/** A value as the JSON string `JSON.stringify` writes, copied as it is unless it has a quote, a backslash, a control character or a surrogate. */
function writeJsonString(into: PgBinaryWriter, value: string): void {
  into.byte(QUOTE);
  if (into.appendPlainJson(value)) into.byte(QUOTE);
  else into.append(JSON.stringify(value).slice(1)); // its opening quote already written
}

/** One bigint[] column of a range row: the items' `field`, null where absent; `memo` copies a value repeated in a run. */
function writeIds(w: PgBinaryWriter, items: ReadonlyArray<Pick<RangeItem, 'variantId' | 'contactId'>>, from: number, to: number, field: 'variantId' | 'contactId', memo: Int8Memo | null): void {
  w.int32(PgType.int8Array);
  w.open();
  const h = beginArray(w, PgType.int8);
  let nulls = false;
  for (let i = from; i < to; i++) {
    const v = items[i][field];
    if (v === null || v === undefined) {
      writeNull(w);
      nulls = true;
    } else if (memo) w.int8Memo(v, memo);
    else w.int8(v);
  }
  endArray(w, h, to - from, nulls);
  w.close();
}

const ARRAY_OPEN = 0x5b;
const ARRAY_CLOSE = 0x5d;
const OPEN = 0x7b;
const CLOSE = 0x7d;
const COMMA = 0x2c;
const QUOTE = 0x22;

/** The number of sequence numbers in a code block: a batch variable's links are one block (a batch has at most 1000 items). */
export const CODE_BLOCK = 1024;
/** Links a range row at most: 16 recipients stay well under a heap page, so a row is read inline from the page its key found. */
export const PAGE = 16;
