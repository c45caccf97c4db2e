/**
 * A PostgreSQL array literal (`{"a","b",NULL}`) of the values, for a parameter cast to an array type (`$1::text[]`)
 * and read by `unnest`. Every string is double-quoted with its backslashes and double quotes escaped, so any text
 * (commas, braces, quotes, spaces, the word NULL, the empty string) arrives as it was; null is NULL; numbers, bigints
 * and booleans are written as they are. PostgreSQL parses such a literal several times faster than
 * `json_to_recordset` parses the same rows as JSON objects (docs/decisions/0083), and the driver sends it as one
 * string (it would escape a JavaScript array element by element).
 */
export function pgArray(values: ReadonlyArray<string | number | bigint | boolean | null>): string {
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null) parts[i] = 'NULL';
    else if (typeof v === 'string') parts[i] = NEEDS_ESCAPE.test(v) ? `"${v.replace(ESCAPED, '\\$&')}"` : `"${v}"`;
    else if (typeof v === 'number' && !Number.isSafeInteger(v)) throw new RangeError(`not an integer: ${v}`);
    else parts[i] = String(v);
  }
  return `{${parts.join(',')}}`;
}

const NEEDS_ESCAPE = /[\\"]/;
const ESCAPED = /[\\"]/g;
