import * as fs from 'node:fs';
import { CsvParser, detectDelimiter, isEmptyRow, type Delimiter, type FileRow } from './csv-parser';
import { StreamTextDecoder } from './text-decoder';
import { readXlsxRows } from './xlsx-reader';

export type FileFormat = 'csv' | 'xlsx';

export interface ReadProgress {
  /** Share of the file read so far, 0 to 1. */
  fraction: number;
}

/** XLSX files are zip archives; anything else is read as delimited text. */
export async function detectFormat(file: string): Promise<FileFormat> {
  const fd = await fs.promises.open(file, 'r');
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await fd.read(head, 0, 4, 0);
    return bytesRead === 4 && head.readUInt32LE(0) === 0x04034b50 ? 'xlsx' : 'csv';
  } finally {
    await fd.close();
  }
}

async function* readCsvRows(file: string, delimiter: Delimiter, progress: ReadProgress): AsyncGenerator<FileRow[]> {
  const size = (await fs.promises.stat(file)).size;
  const parser = new CsvParser(delimiter);
  const decoder = new StreamTextDecoder();
  const stream = fs.createReadStream(file, { highWaterMark: 256 * 1024 });
  let read = 0;
  try {
    for await (const chunk of stream) {
      read += (chunk as Buffer).length;
      progress.fraction = size ? read / size : 1;
      const rows = parser.push(decoder.write(chunk as Buffer));
      if (rows.length) yield rows;
    }
  } finally {
    stream.destroy();
  }
  const tail = parser.push(decoder.end()).concat(parser.end());
  progress.fraction = 1;
  if (tail.length) yield tail;
}

/** The file's records in order, chunk by chunk, empty lines left out (their numbers are kept by the others). */
export async function* readRows(file: string, format: FileFormat, delimiter: Delimiter, progress: ReadProgress = { fraction: 0 }): AsyncGenerator<FileRow[]> {
  const source = format === 'xlsx' ? readXlsxRows(file, progress) : readCsvRows(file, delimiter, progress);
  for await (const rows of source) {
    const kept = rows.filter((r) => r.error || !isEmptyRow(r.cells));
    if (kept.length) yield kept;
  }
}

export interface FilePreview {
  format: FileFormat;
  /** null for XLSX. */
  delimiter: Delimiter | null;
  /** The widest of the preview rows. */
  columns: number;
  rows: FileRow[];
}

/** The first `limit` non-empty rows and, for text files, the delimiter guessed from the first 64 KB. */
export async function previewFile(file: string, limit = 10): Promise<FilePreview> {
  const format = await detectFormat(file);
  let delimiter: Delimiter | null = null;
  if (format === 'csv') {
    const fd = await fs.promises.open(file, 'r');
    try {
      const buf = Buffer.alloc(64 * 1024);
      const { bytesRead } = await fd.read(buf, 0, buf.length, 0);
      const decoder = new StreamTextDecoder();
      delimiter = detectDelimiter(decoder.write(buf.subarray(0, bytesRead)));
    } finally {
      await fd.close();
    }
  }
  const rows: FileRow[] = [];
  const source = readRows(file, format, delimiter ?? ',');
  try {
    for await (const chunk of source) {
      rows.push(...chunk.slice(0, limit - rows.length));
      if (rows.length >= limit) break;
    }
  } finally {
    await source.return(undefined);
  }
  return { format, delimiter, columns: rows.reduce((m, r) => Math.max(m, r.cells.length), 0), rows };
}
