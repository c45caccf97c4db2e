/** A cell a spreadsheet would read as a formula: =, +, -, @, tab or CR first (OWASP "CSV injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A plain number (an E.164 phone, -3, 1.5) cannot run anything and keeps its form. */
const PLAIN_NUMBER = /^[+-]?\d+(\.\d+)?$/;
const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/;

/**
 * One CSV cell. A value that starts like a formula is neutralised with a leading apostrophe, so Excel,
 * LibreOffice and Google Sheets show it as text instead of evaluating it; then it is quoted as RFC 4180 asks.
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let s = value instanceof Date ? value.toISOString() : String(value);
  if (FORMULA_START.test(s) && !PLAIN_NUMBER.test(s)) s = `'${s}`;
  return NEEDS_QUOTES.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export const csvLine = (cells: readonly unknown[]): string => `${cells.map(csvCell).join(',')}\r\n`;

/** Written first so spreadsheet programs read the file as UTF-8. */
export const UTF8_BOM = '\uFEFF';
