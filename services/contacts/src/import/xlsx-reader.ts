import { TextDecoder } from 'node:util';
import type { FileRow } from './csv-parser';
import { attr, XmlScanner, type XmlHandler } from './xml-scanner';
import { openZipEntry, readZipEntries, readZipEntryText, ZipBudget, ZipFormatError, type ZipEntry } from './zip';

/**
 * Shared strings (the workbook's distinct texts) are held in memory while the sheet streams, since any cell may
 * refer to any of them; beyond this many characters the workbook is refused (saved as CSV, it streams entirely).
 */
const MAX_SHARED_STRING_CHARS = 48 * 1024 * 1024;
/** Each shared string costs this much on top of its text (a `<si/>` flood must not fill the heap with empties). */
const SHARED_STRING_OVERHEAD = 8;
/** Excel's own limit on the text of one cell; a longer cell is not a spreadsheet Excel wrote. */
export const MAX_CELL_CHARS = 32_767;

const cellTooLong = (): ZipFormatError => new ZipFormatError(`a cell holds more than ${MAX_CELL_CHARS} characters, more than Excel allows`);

/** `A` -> 0, `Z` -> 25, `AA` -> 26; -1 when the reference has no column letters. */
export function columnIndex(ref: string): number {
  let n = 0;
  let i = 0;
  for (; i < ref.length; i++) {
    const c = ref.charCodeAt(i);
    if (c >= 65 && c <= 90) n = n * 26 + (c - 64);
    else if (c >= 97 && c <= 122) n = n * 26 + (c - 96);
    else break;
  }
  return i === 0 ? -1 : n - 1;
}

/** A numeric cell as text: a phone stored as a number (`4.47700900123E+11`) reads as its digits. */
export function numberCellText(v: string): string {
  if (!/e/i.test(v)) return v;
  const n = Number(v);
  return Number.isSafeInteger(n) ? String(n) : v;
}

function resolveTarget(target: string): string {
  if (target.startsWith('/')) return target.slice(1);
  const parts = `xl/${target}`.split('/');
  const out: string[] = [];
  for (const p of parts) {
    if (p === '..') out.pop();
    else if (p !== '.' && p !== '') out.push(p);
  }
  return out.join('/');
}

/** The first worksheet of the workbook (workbook order, as Excel opens it). */
async function firstSheet(file: string, entries: Map<string, ZipEntry>, budget: ZipBudget): Promise<ZipEntry> {
  const workbook = entries.get('xl/workbook.xml');
  const rels = entries.get('xl/_rels/workbook.xml.rels');
  if (workbook && rels) {
    const wb = await readZipEntryText(file, workbook, budget);
    const sheetTag = /<(?:\w+:)?sheet\s([^>]*)>/.exec(wb);
    const rid = sheetTag ? attr(sheetTag[1], 'id') : undefined;
    if (rid) {
      const relXml = await readZipEntryText(file, rels, budget);
      for (const m of relXml.matchAll(/<(?:\w+:)?Relationship\s([^>]*)>/g)) {
        if (attr(m[1], 'Id') === rid) {
          const target = attr(m[1], 'Target');
          const entry = target ? entries.get(resolveTarget(target)) : undefined;
          if (entry) return entry;
        }
      }
    }
  }
  const fallback = [...entries.values()].filter((e) => /^xl\/worksheets\/[^/]+\.xml$/.test(e.name)).sort((a, b) => a.name.localeCompare(b.name))[0];
  if (!fallback) throw new ZipFormatError('the workbook has no worksheet');
  return fallback;
}

async function readSharedStrings(file: string, entry: ZipEntry | undefined, budget: ZipBudget): Promise<string[]> {
  if (!entry) return [];
  const strings: string[] = [];
  let inSi = false;
  let inT = false;
  let phonetic = 0;
  let current = '';
  let total = 0;
  const handler: XmlHandler = {
    open(name) {
      if (name === 'si') {
        inSi = true;
        current = '';
      } else if (name === 'rPh') phonetic++;
      else if (name === 't' && inSi && phonetic === 0) inT = true;
    },
    close(name) {
      if (name === 'si') {
        inSi = false;
        total += current.length + SHARED_STRING_OVERHEAD;
        if (total > MAX_SHARED_STRING_CHARS) throw new ZipFormatError('the workbook holds too much distinct text to read; save it as CSV');
        strings.push(current);
      } else if (name === 'rPh') phonetic--;
      else if (name === 't') inT = false;
    },
    text(t) {
      if (!inT) return;
      current += t;
      if (current.length > MAX_CELL_CHARS) throw cellTooLong();
    },
  };
  const scanner = new XmlScanner(handler);
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of await openZipEntry(file, entry, undefined, budget)) scanner.push(decoder.decode(chunk as Buffer, { stream: true }));
  scanner.push(decoder.decode());
  scanner.end();
  return strings;
}

export interface XlsxProgress {
  /** Share of the worksheet read so far, 0 to 1. */
  fraction: number;
}

/**
 * Streams the first worksheet of an XLSX as rows. The archive's central directory locates the sheet; the sheet
 * is inflated and scanned as it streams, so only shared strings (the workbook's distinct texts) stay in memory.
 * Rows carry their spreadsheet row number; cells their text as displayed for strings and numbers.
 */
export async function* readXlsxRows(file: string, progress: XlsxProgress = { fraction: 0 }): AsyncGenerator<FileRow[]> {
  const list = await readZipEntries(file);
  const entries = new Map(list.map((e) => [e.name, e]));
  const budget = new ZipBudget();
  const sheet = await firstSheet(file, entries, budget);
  const shared = await readSharedStrings(file, entries.get('xl/sharedStrings.xml'), budget);

  let out: FileRow[] = [];
  let rowNo = 0;
  let cells: string[] | null = null;
  let col = -1;
  let type = '';
  let value = '';
  let inValue = false;
  let inInline = false;
  let phonetic = 0;
  const handler: XmlHandler = {
    open(name, attrs) {
      switch (name) {
        case 'row': {
          const r = attr(attrs, 'r');
          rowNo = r && /^\d+$/.test(r) ? Number(r) : rowNo + 1;
          cells = [];
          col = -1;
          break;
        }
        case 'c': {
          const ref = attr(attrs, 'r');
          const idx = ref ? columnIndex(ref) : -1;
          col = idx >= 0 ? idx : col + 1;
          type = attr(attrs, 't') ?? 'n';
          value = '';
          break;
        }
        case 'v':
          inValue = true;
          break;
        case 'is':
          inInline = true;
          break;
        case 'rPh':
          phonetic++;
          break;
        case 't':
          if (inInline && phonetic === 0) inValue = true;
          break;
      }
    },
    close(name) {
      switch (name) {
        case 'v':
        case 't':
          inValue = false;
          break;
        case 'is':
          inInline = false;
          break;
        case 'rPh':
          phonetic--;
          break;
        case 'c': {
          if (!cells || col < 0 || col > 16383) break;
          let text: string;
          if (type === 's') text = shared[Number(value)] ?? '';
          else if (type === 'b') text = value === '1' ? 'TRUE' : value === '0' ? 'FALSE' : value;
          else if (type === 'n') text = numberCellText(value);
          else text = value;
          while (cells.length < col) cells.push('');
          cells[col] = text;
          break;
        }
        case 'row':
          if (cells) out.push({ line: rowNo, cells });
          cells = null;
          break;
      }
    },
    text(t) {
      if (!inValue) return;
      value += t;
      if (value.length > MAX_CELL_CHARS) throw cellTooLong();
    },
  };
  const scanner = new XmlScanner(handler);
  const decoder = new TextDecoder('utf-8');
  let read = 0;
  const stream = await openZipEntry(
    file,
    sheet,
    (n) => {
      read += n;
    },
    budget,
  );
  try {
    for await (const chunk of stream) {
      scanner.push(decoder.decode(chunk as Buffer, { stream: true }));
      progress.fraction = sheet.compressedSize ? Math.min(1, read / sheet.compressedSize) : 1;
      if (out.length) {
        const batch = out;
        out = [];
        yield batch;
      }
    }
    scanner.push(decoder.decode());
    scanner.end();
  } finally {
    stream.destroy();
  }
  progress.fraction = 1;
  if (out.length) yield out;
}
