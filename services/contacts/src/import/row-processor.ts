import { TextDecoder } from 'node:util';
import { CsvParser, isEmptyRow, type Delimiter, type FileRow } from './csv-parser';
import { normalizePhone, PhoneState } from './phone';

/**
 * Runs in the import worker threads (and in tests directly): turns file rows into COPY text for the staging table.
 * Imports only the phone module and the CSV parser, so the worker stays small.
 */

/** Where each standard field and custom variable is in a row (column indexes). */
export interface RowMapping {
  /** Contacts need a mobile number; the blacklist takes any valid number. */
  requireMobile: boolean;
  phone: number;
  firstName?: number;
  lastName?: number;
  email?: number;
  /** An ISO 3166 alpha-2 column: the default region of that row's national numbers. */
  country?: number;
  timezone?: number;
  /** [column, variable id] of custom variables. */
  custom: Array<[number, string]>;
  /** The import's default region for national numbers; a country column overrides it per row. */
  defaultCountry: string | null;
}

/** Staging columns, in COPY order. */
export const STAGE_COLUMNS = ['row_no', 'phone', 'normalized_phone', 'country', 'timezone', 'state', 'error', 'first_name', 'last_name', 'email', 'variables'] as const;

const NEEDS_ESCAPE = /[\\\t\n\r]/;
const ESCAPES = /[\\\t\n\r]/g;
const escapeChar = (c: string): string => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r');

/** A value for COPY's text format; null is `\N`. NUL characters cannot be stored in PostgreSQL text and are dropped. */
export function copyValue(v: string | null): string {
  if (v === null) return '\\N';
  if (v.indexOf('\u0000') >= 0) v = v.replace(/\u0000/g, '');
  return NEEDS_ESCAPE.test(v) ? v.replace(ESCAPES, escapeChar) : v;
}

/** A cell trimmed to its first `max` characters; empty is null. */
function cell(cells: readonly string[], index: number | undefined, max: number): string | null {
  if (index === undefined) return null;
  const v = cells[index];
  if (v === undefined) return null;
  const t = v.trim();
  if (!t) return null;
  return t.length > max ? t.slice(0, max) : t;
}

// Not @switchboard/platform's isTimeZone: this file runs in import worker threads that load it alone, without the
// platform's barrel (and, in tests, without the path aliases); invalid names are remembered too, as files repeat them.
const validZones = new Map<string, boolean>();
function isTimeZone(tz: string): boolean {
  let ok = validZones.get(tz);
  if (ok === undefined) {
    try {
      new Intl.DateTimeFormat('en', { timeZone: tz });
      ok = true;
    } catch {
      ok = false;
    }
    if (validZones.size < 10_000) validZones.set(tz, ok);
  }
  return ok;
}

const ISO2 = /^[A-Za-z]{2}$/;

/** Rows to COPY lines (tab-separated, newline-terminated) of the staging table. */
export function processRows(rows: readonly FileRow[], m: RowMapping): string {
  const out: string[] = [];
  for (const row of rows) {
    const cells = row.cells;
    const rawPhone = cell(cells, m.phone, 64) ?? '';
    let state: number;
    let e164: string | null = null;
    let country: string | null = null;
    let timezone: string | null = null;
    let error: string | null;
    if (row.error) {
      state = PhoneState.Invalid;
      error = row.error;
    } else {
      const rowCountry = cell(cells, m.country, 8);
      const region = rowCountry && ISO2.test(rowCountry) ? rowCountry.toUpperCase() : m.defaultCountry;
      const p = normalizePhone(rawPhone, region, m.requireMobile);
      state = p.state;
      e164 = p.e164;
      country = p.country;
      timezone = p.timezone;
      error = p.error;
      const tz = cell(cells, m.timezone, 64);
      if (tz && isTimeZone(tz)) timezone = tz;
    }
    let variables = '{}';
    if (m.custom.length) {
      // built by hand: ids are digits, values go through JSON.stringify one by one (faster than an object per row)
      let json = '';
      for (const [col, id] of m.custom) {
        const v = cell(cells, col, 1000);
        if (v !== null) json += `${json ? ',' : ''}"${id}":${JSON.stringify(v)}`;
      }
      if (json) variables = `{${json}}`;
    }
    // E.164 numbers, ISO codes, zone names, numbers and our own messages need no COPY escaping
    out.push(
      `${row.line}\t${copyValue(rawPhone)}\t${e164 ?? '\\N'}\t${country ?? '\\N'}\t${copyValue(timezone)}\t${state}\t${copyValue(error)}\t` +
      `${copyValue(cell(cells, m.firstName, 255))}\t${copyValue(cell(cells, m.lastName, 255))}\t${copyValue(cell(cells, m.email, 320))}\t${copyValue(variables)}\n`,
    );
  }
  return out.join('');
}

export interface BatchResult {
  copy: string;
  /** Rows read (empty lines and a skipped header not counted). */
  rows: number;
  /** Whether the first non-empty row was dropped as the header. */
  skipped: boolean;
}

/** Rows already read by the main thread (XLSX, UTF-16 text). */
export function processRowBatch(rows: readonly FileRow[], m: RowMapping): BatchResult {
  return { copy: processRows(rows, m), rows: rows.length, skipped: false };
}

/**
 * Whole records of a UTF-8 CSV as raw bytes (cut by recordEnds): decoded, parsed and processed here, in the
 * worker. `firstLine` numbers them as in the file; with `skipFirst` the first non-empty row is the header.
 */
export function processCsvChunk(bytes: Uint8Array, firstLine: number, delimiter: Delimiter, m: RowMapping, skipFirst: boolean): BatchResult {
  const parser = new CsvParser(delimiter, firstLine);
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
  // chunks hold whole records; only the file's last one may end without a newline, or inside a quoted field
  const rows = parser.push(text).concat(parser.end());
  let kept = rows.filter((r) => r.error || !isEmptyRow(r.cells));
  let skipped = false;
  if (skipFirst && kept.length) {
    kept = kept.slice(1);
    skipped = true;
  }
  return { copy: processRows(kept, m), rows: kept.length, skipped };
}
