/** One record of a file: its 1-based line (record) number and its cells; `error` when the record could not be read. */
export interface FileRow {
  line: number;
  cells: string[];
  error?: string;
}

export type Delimiter = ',' | ';' | '\t';
export const DELIMITERS: readonly Delimiter[] = [',', ';', '\t'];

const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;

/** A record longer than this is refused: an unclosed quote would otherwise buffer the rest of the file. */
export const MAX_RECORD_CHARS = 1 << 20;

export class CsvRecordTooLongError extends Error {
  constructor(readonly line: number) {
    super(`line ${line}: a record is longer than ${MAX_RECORD_CHARS} characters (is a quote left open?)`);
    this.name = 'CsvRecordTooLongError';
  }
}

/** Most line breaks one quoted field may hold; past them the quote that opened it is taken as a stray one. */
export const MAX_QUOTED_LINE_BREAKS = 100;

/** Why a record is reported instead of read, when a quote opened on it does not close as a field's quote does. */
export const UNCLOSED_QUOTE = 'a quoted field is not closed';

/** Line breaks (LF, CR, CRLF as one) in text[from, to); a CR at `to` is not counted yet (it may start a CRLF). */
export function countLineBreaks(text: string, from: number, to: number): number {
  let n = 0;
  for (let k = from; k < to; k++) {
    const c = text.charCodeAt(k);
    if (c === LF) n++;
    else if (c === CR && k + 1 < to && text.charCodeAt(k + 1) !== LF) n++;
  }
  return n;
}

/** Where the line after the first line break in text[from, ...) starts (CRLF is one break); -1 without one. */
function afterFirstLineBreak(text: string, from: number): number {
  for (let k = from; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === LF) return k + 1;
    if (c === CR) return k + 1 < text.length && text.charCodeAt(k + 1) === LF ? k + 2 : k + 1;
  }
  return -1;
}

/**
 * A streaming RFC 4180 reader, lenient where spreadsheets are: quoted fields may hold the delimiter, quotes (`""`)
 * and newlines; CRLF, LF and lone CR end records; text after a closing quote is kept (`"a"b` reads `ab`); a quote
 * inside an unquoted field is literal. Only the record in progress is buffered, never more than MAX_RECORD_CHARS.
 * Records are numbered from 1 like spreadsheet rows, empty lines included, so a reported line matches the file.
 *
 * A quoted field may span lines only when it closes as a field does: its closing quote followed by the delimiter,
 * a line end or the end of the file, within MAX_QUOTED_LINE_BREAKS line breaks. Otherwise (a quote left open, so
 * that the next quote in the file, lines further on, "closes" it mid-field, or nothing ever does) the record is
 * reported on its own line with UNCLOSED_QUOTE, holding what its line held, and reading resumes on the next line:
 * no line after a broken quote is ever merged into it.
 */
export class CsvParser {
  private carry = '';
  private line: number;
  /** A CR ended the last record of the previous chunk: a LF opening this one belongs to it. */
  private skipLf = false;
  private readonly delim: number;

  /** `firstLine`: the number of the first record given, when reading from the middle of a file. */
  constructor(
    delimiter: Delimiter,
    firstLine = 1,
    private readonly maxQuotedLineBreaks = MAX_QUOTED_LINE_BREAKS,
  ) {
    this.delim = delimiter.charCodeAt(0);
    this.line = firstLine;
  }

  /** Parses a chunk; returns the records it completed. */
  push(chunk: string): FileRow[] {
    let text = this.carry ? this.carry + chunk : chunk;
    if (this.skipLf) {
      this.skipLf = false;
      if (text.charCodeAt(0) === LF) text = text.slice(1);
    }
    const out: FileRow[] = [];
    const consumed = this.parse(text, false, out);
    this.carry = text.slice(consumed);
    if (this.carry.length > MAX_RECORD_CHARS) throw new CsvRecordTooLongError(this.line);
    return out;
  }

  /** Ends the input: returns the last record, or an error record for a quote left open. */
  end(): FileRow[] {
    const out: FileRow[] = [];
    if (this.carry) this.parse(this.carry, true, out);
    this.carry = '';
    return out;
  }

  /** Reads whole records from `text`; returns how many characters were consumed. */
  private parse(text: string, final: boolean, out: FileRow[]): number {
    const n = text.length;
    const d = this.delim;
    let pos = 0;
    for (;;) {
      if (pos >= n) return pos;
      const start = pos;
      const cells: string[] = [];
      let i = pos;
      let complete = false;
      let unterminated = false;
      let broken = false;
      // one record
      for (;;) {
        if (i >= n) {
          // end of the text inside a record: an empty trailing field after a delimiter, or the last field
          if (!final) break;
          cells.push('');
          complete = true;
          break;
        }
        const c = text.charCodeAt(i);
        if (c === QUOTE) {
          // quoted field
          let value = '';
          let j = i + 1;
          let closed = false;
          for (;;) {
            const q = text.indexOf('"', j);
            if (q < 0) {
              value += text.slice(j);
              j = n;
              break;
            }
            value += text.slice(j, q);
            if (q + 1 < n && text.charCodeAt(q + 1) === QUOTE) {
              value += '"';
              j = q + 2;
              continue;
            }
            if (q + 1 >= n && !final) {
              // cannot tell yet whether this quote is escaped
              j = n;
              break;
            }
            j = q + 1;
            closed = true;
            break;
          }
          // a quote left open: the field runs on over lines it should not
          const spanned = countLineBreaks(text, i + 1, j);
          const stray =
            spanned > this.maxQuotedLineBreaks ||
            (closed && spanned > 0 && j < n && text.charCodeAt(j) !== d && text.charCodeAt(j) !== CR && text.charCodeAt(j) !== LF) ||
            (!closed && final && afterFirstLineBreak(text, i + 1) >= 0);
          if (stray) {
            const resume = afterFirstLineBreak(text, i + 1);
            cells.push(text.slice(i + 1, resume).replace(/[\r\n]+$/, '').replace(/""/g, '"'));
            broken = true;
            complete = true;
            i = resume;
            break;
          }
          if (!closed) {
            if (!final) break;
            cells.push(value);
            unterminated = true;
            complete = true;
            i = n;
            break;
          }
          // text after the closing quote, up to the delimiter or end of line, is kept
          let k = j;
          while (k < n) {
            const e = text.charCodeAt(k);
            if (e === d || e === CR || e === LF) break;
            k++;
          }
          if (k >= n && !final) break;
          cells.push(k > j ? value + text.slice(j, k) : value);
          i = k;
        } else {
          let k = i;
          while (k < n) {
            const e = text.charCodeAt(k);
            if (e === d || e === CR || e === LF) break;
            k++;
          }
          if (k >= n && !final) break;
          cells.push(text.slice(i, k));
          i = k;
        }
        if (i >= n) {
          complete = true;
          break;
        }
        const e = text.charCodeAt(i);
        if (e === d) {
          i++;
          continue;
        }
        // end of line
        if (e === CR) {
          if (i + 1 < n) {
            if (text.charCodeAt(i + 1) === LF) i++;
          } else if (!final) {
            this.skipLf = true;
          }
        }
        i++;
        complete = true;
        break;
      }
      if (!complete) return start;
      const row: FileRow = { line: this.line++, cells };
      if (unterminated || broken) row.error = UNCLOSED_QUOTE;
      out.push(row);
      pos = i;
      if (this.skipLf && pos >= n) return pos;
    }
  }
}

/** Whether a record holds nothing but empty cells (an empty line, or `,,,`). */
export function isEmptyRow(cells: readonly string[]): boolean {
  for (const c of cells) if (c.trim() !== '') return false;
  return true;
}

/**
 * Picks the delimiter from the first lines: the candidate that splits the most lines into the same number (more
 * than one) of cells. A one-column file has none of them and reads with ','.
 */
export function detectDelimiter(sample: string): Delimiter {
  let best: Delimiter = ',';
  let bestScore = -1;
  let bestWidth = 1;
  for (const d of DELIMITERS) {
    const p = new CsvParser(d);
    const rows = p.push(sample).slice(0, 50).filter((r) => !isEmptyRow(r.cells));
    if (!rows.length) continue;
    const widths = new Map<number, number>();
    for (const r of rows) widths.set(r.cells.length, (widths.get(r.cells.length) ?? 0) + 1);
    let modeWidth = 1;
    let modeCount = 0;
    for (const [w, count] of widths) {
      if (count > modeCount || (count === modeCount && w > modeWidth)) {
        modeWidth = w;
        modeCount = count;
      }
    }
    if (modeWidth < 2) continue;
    if (modeCount > bestScore || (modeCount === bestScore && modeWidth > bestWidth)) {
      best = d;
      bestScore = modeCount;
      bestWidth = modeWidth;
    }
  }
  return best;
}
