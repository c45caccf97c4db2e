import * as zlib from 'node:zlib';

/** A cell: text goes to shared strings (or inline), a number is written as a numeric cell. */
export type Cell = string | number | null;

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function colName(i: number): string {
  let s = '';
  for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

/** An entry already deflated, with the size its headers declare (true or not) and no CRC. */
export interface PackedEntry {
  deflated: Buffer;
  declaredSize: number;
}

/** A minimal zip writer (deflate, or stored with `store`), enough for an XLSX as Excel writes it. */
export function zip(files: Record<string, string | Buffer | PackedEntry>, store = false): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(files)) {
    const pre = typeof content === 'object' && !Buffer.isBuffer(content) ? content : null;
    const data = pre ? { length: pre.declaredSize } : Buffer.isBuffer(content) ? content : Buffer.from(content as string, 'utf8');
    const packed = pre ? pre.deflated : store ? (data as Buffer) : zlib.deflateRawSync(data as Buffer);
    const crc = pre ? 0 : zlib.crc32(data as Buffer);
    const nameBuf = Buffer.from(name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(store && !pre ? 0 : 8, 8);
    local.writeUInt32LE(crc >>> 0, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBuf.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(store && !pre ? 0 : 8, 10);
    central.writeUInt32LE(crc >>> 0, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBuf.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBuf, packed);
    centrals.push(central, nameBuf);
    offset += local.length + nameBuf.length + packed.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

/**
 * An XLSX workbook whose first sheet (as the workbook lists it, deliberately not named sheet1.xml) holds `rows`.
 * Strings go to shared strings, except with `inline` where they are inline strings; a `null` cell is left out.
 */
export function xlsx(rows: Cell[][], opts: { inline?: boolean; store?: boolean; skipRowNumbers?: number[] } = {}): Buffer {
  const shared: string[] = [];
  const index = new Map<string, number>();
  let r = 0;
  const rowXml = rows
    .map((cells) => {
      r++;
      while (opts.skipRowNumbers?.includes(r)) r++;
      const cs = cells
        .map((v, i) => {
          if (v === null) return '';
          const ref = `${colName(i)}${r}`;
          if (typeof v === 'number') return `<c r="${ref}"><v>${v}</v></c>`;
          if (opts.inline) return `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${esc(v)}</t></is></c>`;
          if (!index.has(v)) {
            index.set(v, shared.length);
            shared.push(v);
          }
          return `<c r="${ref}" t="s"><v>${index.get(v)}</v></c>`;
        })
        .join('');
      return `<row r="${r}">${cs}</row>`;
    })
    .join('');
  const ns = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  const rel = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  return zip(
    {
      '[Content_Types].xml': `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
      'xl/workbook.xml': `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="${ns}" xmlns:r="${rel}"><sheets><sheet name="Contacts" sheetId="1" r:id="rId7"/><sheet name="Other" sheetId="2" r:id="rId8"/></sheets></workbook>`,
      'xl/_rels/workbook.xml.rels': `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId8" Type="${rel}/worksheet" Target="worksheets/a_other.xml"/><Relationship Id="rId7" Type="${rel}/worksheet" Target="worksheets/contacts.xml"/></Relationships>`,
      'xl/worksheets/a_other.xml': `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="${ns}"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>wrong sheet</t></is></c></row></sheetData></worksheet>`,
      'xl/worksheets/contacts.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="${ns}"><dimension ref="A1"/><sheetData>${rowXml}</sheetData></worksheet>`,
      'xl/sharedStrings.xml': `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="${ns}" count="${shared.length}" uniqueCount="${shared.length}">${shared
        .map((s) => `<si><t xml:space="preserve">${esc(s)}</t></si>`)
        .join('')}</sst>`,
    },
    opts.store,
  );
}

/**
 * An XLSX zip bomb: `headRows` ordinary rows, then `mib` MiB of filler: the text of one inline-string cell (what a
 * reader without limits holds in memory), or with `between` spaces between rows (what it only spends time on);
 * then the end of the sheet. The sheet is deflated piece by piece (each MiB is an identical independent deflate
 * run), so building a gigabyte bomb takes milliseconds and about 1 KB per MiB. `declare` is what the headers claim
 * the sheet inflates to: the truth, or a lie.
 */
export function xlsxBomb(mib: number, opts: { declare: 'truth' | 'lie'; headRows?: string[][]; between?: boolean }): Buffer {
  const ns = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  const full = { finishFlush: zlib.constants.Z_FULL_FLUSH };
  const n = (opts.headRows?.length ?? 0) + 1;
  const rows = (opts.headRows ?? []).map((cells, r) => `<row r="${r + 1}">${cells.map((v, c) => `<c r="${colName(c)}${r + 1}" t="inlineStr"><is><t>${esc(v)}</t></is></c>`).join('')}</row>`).join('');
  const head = `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="${ns}"><sheetData>${rows}${opts.between ? '' : `<row r="${n}"><c r="A${n}" t="inlineStr"><is><t>`}`;
  const tail = `${opts.between ? '' : '</t></is></c></row>'}</sheetData></worksheet>`;
  const block = zlib.deflateRawSync(Buffer.alloc(1024 * 1024, opts.between ? 0x20 : 0x41), full);
  const deflated = Buffer.concat([zlib.deflateRawSync(Buffer.from(head), full), ...Array.from({ length: mib }, () => block), zlib.deflateRawSync(Buffer.from(tail))]);
  const size = Buffer.byteLength(head) + mib * 1024 * 1024 + tail.length;
  return zip({
    'xl/worksheets/sheet1.xml': { deflated, declaredSize: opts.declare === 'truth' ? size : 4096 },
  });
}
