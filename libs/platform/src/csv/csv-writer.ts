/**
 * A cell a spreadsheet would read as a formula (OWASP "CSV injection"): it starts, possibly after spaces, with
 * =, +, -, @ or their full-width forms (Excel and LibreOffice fold them), tab, CR, LF or NUL, or with `;` or `,`,
 * which a spreadsheet opened in a locale whose list separator they are reads as an empty cell followed by the
 * rest (`;=cmd|...` becomes a formula in the next cell).
 */
const FORMULA_START = /^[\s\u00a0]*[=+\-@\uff1d\uff0b\uff0d\uff20;,]|^[\t\r\n\0]/;
/** A plain number (an E.164 phone, -3, 1.5) cannot run anything and keeps its form. */
const PLAIN_NUMBER = /^[+-]?\d+(\.\d+)?$/;
/**
 * Quoted: the delimiter, quotes, line breaks, edge spaces, and `;` and tab, the separators of other locales, so a
 * separator inside a cell never starts a new cell with what follows it.
 */
const NEEDS_QUOTES = /[",;\t\r\n]|^\s|\s$/;
/**
 * Inside a cell, a formula character right after a separator or a quote (spaces between allowed). A spreadsheet
 * reading the file with another separator (Excel in a locale whose list separator is `;` opens a comma file with
 * `;`, and ignores the quotes of a cell that does not start with one) starts a cell there, so the apostrophe goes
 * there too; a plain number there is left alone.
 */
const INNER_FORMULA = /([;,\t\r\n"])([\s\u00a0]*)([=+\-@\uff1d\uff0b\uff0d\uff20])(?![+-]?\d+(?:\.\d+)?(?:[;,\t\r\n"\s]|$))/g;

/**
 * One CSV cell. A value that starts like a formula is neutralised with a leading apostrophe, so Excel,
 * LibreOffice and Google Sheets show it as text instead of evaluating it; then it is quoted as RFC 4180 asks.
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let s = value instanceof Date ? value.toISOString() : String(value);
  if (FORMULA_START.test(s) && !PLAIN_NUMBER.test(s)) s = `'${s}`;
  s = s.replace(INNER_FORMULA, "$1$2'$3");
  return NEEDS_QUOTES.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export const csvLine = (cells: readonly unknown[]): string => `${cells.map(csvCell).join(',')}\r\n`;

/** Written first so spreadsheet programs read the file as UTF-8. */
export const UTF8_BOM = '\uFEFF';
