import { CsvRecordTooLongError, MAX_QUOTED_LINE_BREAKS, MAX_RECORD_CHARS } from './csv-parser';

const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;

const FIELD_START = 0;
const UNQUOTED = 1;
const QUOTED = 2;
const QUOTE_IN_QUOTED = 3;

/**
 * Finds where the records of UTF-8 CSV bytes end, without decoding them, following exactly the reading rules of
 * CsvParser (a quote opens a quoted field only at the start of a field; `""` inside one is a quote; CRLF, LF and
 * a lone CR end a record outside quotes). The import sends whole records as raw bytes to its worker threads,
 * which decode and parse them: the main thread makes no string per cell.
 *
 * `buf` starts at the start of a record. Returns the end offset (exclusive) of each complete record; without
 * `final`, a record whose end is not in `buf` yet is left for the next call (with the following bytes appended).
 * In UTF-8 the bytes of '"', CR, LF and the delimiters never occur inside a multi-byte character.
 */
export function recordEnds(buf: Buffer, delimiter: number, final: boolean, firstLine: number, maxQuotedLineBreaks = MAX_QUOTED_LINE_BREAKS): number[] {
  const ends: number[] = [];
  const n = buf.length;
  let state = FIELD_START;
  let recordStart = 0;
  // the quoted field being read: where its first line break ends, how many it holds
  let firstBreakEnd = -1;
  let breaks = 0;
  /** The quoted field is a stray quote's (CsvParser's rule): its record is its first line; reading resumes after. */
  const stray = (): number => {
    ends.push(firstBreakEnd);
    recordStart = firstBreakEnd;
    state = FIELD_START;
    return firstBreakEnd - 1;
  };
  for (let i = 0; i < n; i++) {
    const c = buf[i];
    if (state === QUOTED) {
      if (c === QUOTE) state = QUOTE_IN_QUOTED;
      else if (c === LF || (c === CR && (i + 1 < n ? buf[i + 1] !== LF : final))) {
        breaks++;
        if (firstBreakEnd < 0) firstBreakEnd = i + 1;
        if (breaks > maxQuotedLineBreaks) i = stray();
      }
      if (final && i === n - 1 && state === QUOTED && firstBreakEnd >= 0) i = stray();
      continue;
    }
    if (state === QUOTE_IN_QUOTED) {
      if (c === QUOTE) {
        state = QUOTED;
        if (final && i === n - 1 && firstBreakEnd >= 0) i = stray();
        continue;
      }
      // the quote closed the field; across lines, only the delimiter or a line end may follow it
      if (breaks > 0 && c !== delimiter && c !== CR && c !== LF) {
        i = stray();
        continue;
      }
      // what follows reads like an unquoted field
      state = UNQUOTED;
    }
    if (c === delimiter) {
      state = FIELD_START;
    } else if (c === LF) {
      ends.push(i + 1);
      recordStart = i + 1;
      state = FIELD_START;
    } else if (c === CR) {
      if (i + 1 < n) {
        const end = buf[i + 1] === LF ? i + 2 : i + 1;
        ends.push(end);
        recordStart = end;
        i = end - 1;
        state = FIELD_START;
      } else if (final) {
        ends.push(n);
        recordStart = n;
      } else {
        // a CRLF may be split by the chunk boundary: decided with the next bytes
        break;
      }
    } else if (c === QUOTE && state === FIELD_START) {
      state = QUOTED;
      firstBreakEnd = -1;
      breaks = 0;
    } else if (state === FIELD_START) {
      state = UNQUOTED;
    }
    if (i - recordStart > MAX_RECORD_CHARS * 3) throw new CsvRecordTooLongError(firstLine + ends.length);
  }
  if (final && recordStart < n) ends.push(n);
  else if (!final && n - recordStart > MAX_RECORD_CHARS * 3) throw new CsvRecordTooLongError(firstLine + ends.length);
  return ends;
}
