/**
 * PostgreSQL literals written in JavaScript: array literals for parameters read by `unnest` (the fast path of a batch's
 * columns) and parameters written into a statement that takes none (COPY).
 */

/**
 * One array element double-quoted with its backslashes and double quotes escaped, so any text arrives as it was (a
 * plain text is only scanned, char by char: cheaper than a regular expression's test on short texts).
 */
export function pgArrayElement(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 || c === 0x5c) return `"${text.replace(ESCAPED, '\\$&')}"`;
  }
  return `"${text}"`;
}

const NEEDS_ESCAPE = /[\\"]/;
const ESCAPED = /[\\"]/g;

/**
 * A PostgreSQL array literal (`{"a","b",NULL}`) of the values, for a parameter cast to an array type (`$1::text[]`)
 * and read by `unnest`. Every string is double-quoted with its backslashes and double quotes escaped, so any text
 * (commas, braces, quotes, spaces, the word NULL, the empty string) arrives as it was; null is NULL; numbers, bigints
 * and booleans are written as they are, and a number that is no safe integer is refused (an integer column would
 * misread it). PostgreSQL parses such a literal several times faster than `json_to_recordset` parses the same rows as
 * JSON objects (docs/decisions/0083), and the driver sends it as one string (it would escape a JavaScript array element
 * by element). For one flat column of scalars; `pgParameterText` takes any parameter.
 */
export function pgArray(values: ReadonlyArray<string | number | bigint | boolean | null>): string {
  // a column of strings none of which needs escaping, or of numbers, bigints and booleans alone, is joined natively
  let kinds = 0; // 1: a string, 2: a null, 4: a number, bigint or boolean
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v === 'string') kinds |= 1;
    else if (v === null) kinds |= 2;
    else if (typeof v === 'number' && !Number.isSafeInteger(v)) throw new RangeError(`not an integer: ${v}`);
    else kinds |= 4;
  }
  if (kinds === 1 && !NEEDS_ESCAPE.test(values.join(''))) return `{"${values.join('","')}"}`;
  if (kinds === 4 || kinds === 0) return `{${values.join(',')}}`;
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null) parts[i] = 'NULL';
    else if (typeof v === 'string') parts[i] = pgArrayElement(v);
    else if (typeof v === 'number' && !Number.isSafeInteger(v)) throw new RangeError(`not an integer: ${v}`);
    else parts[i] = String(v);
  }
  return `{${parts.join(',')}}`;
}

/**
 * A statement parameter's text as node-postgres sends it: null and undefined are null (SQL NULL), a Date its ISO
 * instant, an array an array literal whose nested arrays are its inner dimensions (`{{"1","2"},{"3","4"}}`, unquoted as
 * the driver writes them) and whose other elements are quoted texts, any other scalar its `String`. Objects other than
 * dates and arrays are refused.
 */
export function pgParameterText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) return arrayText(v);
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  throw new Error(`a statement parameter of type ${typeof v} cannot be written as a literal`);
}

function arrayText(values: readonly unknown[]): string {
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const x = values[i];
    if (Array.isArray(x)) parts[i] = arrayText(x);
    else {
      const t = pgParameterText(x);
      parts[i] = t === null ? 'NULL' : pgArrayElement(t);
    }
  }
  return `{${parts.join(',')}}`;
}

/**
 * `sql` with its `$n` parameters replaced by quoted literals of `values` (quoted by `quote`, node-postgres'
 * escapeLiteral), for COPY, which takes no parameters. A quoted literal is of unknown type until its context or cast
 * types it, as a parameter is, so the statement means the same. Only `$n` outside quotes are parameters: give only
 * statements built by the caller's code, with no `$n` inside literals.
 */
export function withLiterals(sql: string, values: readonly unknown[], quote: (text: string) => string): string {
  return sql.replace(/\$(\d+)(?!\d)/g, (whole, n: string) => {
    const i = Number(n) - 1;
    if (i < 0 || i >= values.length) throw new Error(`statement parameter ${whole} has no value (${values.length} given)`);
    const text = pgParameterText(values[i]);
    return text === null ? 'NULL' : quote(text);
  });
}

/**
 * A statement's parameters with each array column of plain values written as its literal here, the rest as given: for
 * hot statements that pass columns to `unnest`, where node-postgres's own array encoding (`arrayString`: per element a
 * `prepareValue`, an escape of two regular expressions and several concatenations) was a large share of what the
 * platform allocates a message (docs/decisions/0191). A column qualifies when its elements are strings that need no
 * escaping (uuids, ids, statuses, phone numbers), finite numbers, booleans or nulls; it is written exactly as the
 * driver would write it (every value quoted, null as NULL), in one join. Any other array (texts with quotes or
 * backslashes such as JSON, dates, nested arrays) is left to the driver, whose escaping measured no slower than ours.
 */
export function pgArrayParameters(params: readonly unknown[]): unknown[] {
  const out = new Array<unknown>(params.length);
  for (let i = 0; i < params.length; i++) {
    const p = params[i];
    out[i] = Array.isArray(p) ? (plainLiteral(p) ?? p) : p;
  }
  return out;
}

/** The driver's literal of a column of plain values (see pgArrayParameters), or undefined when the column is not one. */
function plainLiteral(values: readonly unknown[]): string | undefined {
  if (values.length === 0) return undefined;
  let nulls = false;
  let strings = false;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v === 'string') strings = true;
    else if (v === null || v === undefined) nulls = true;
    else if (!(typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)))) return undefined;
  }
  // one native join and scan for a quote or backslash (a null joins as nothing): cheaper than a scan of each text here
  if (strings && NEEDS_ESCAPE.test(values.join(''))) return undefined;
  if (!nulls) return `{"${values.join('","')}"}`;
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    parts[i] = v === null || v === undefined ? 'NULL' : `"${String(v)}"`;
  }
  return `{${parts.join(',')}}`;
}
