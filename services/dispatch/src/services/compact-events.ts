import { MessageStatusesChangedV1 } from '@switchboard/contracts';
import type { OutgoingEvent } from '@switchboard/platform';

/**
 * Dispatch's write batches as compact outbox rows (docs/decisions/0217). A write batch's events (status batches, EDRs,
 * refunds) repeat per message nearly everything: the envelope's members, the account, stream, campaign, sender, status,
 * vendor, network, price; an EDR repeats its message's status item. As a `$packed` row that was ~1.6 KB of WAL a
 * message on a carrier's path. A `$dispatch.lifecycle` row holds the same events as tables of columns: a member whose
 * value is the same in every event of its table is written once, one with few values as a dictionary, the rest as a
 * column of values. The relay rebuilds every event exactly: the same members, in the same order, with the same values
 * (ids included, so a relay that dies after publishing publishes the same events again).
 */
export const COMPACT_LIFECYCLE_TYPE = '$dispatch.lifecycle';

/** One leaf member (by its path of keys) of a table's records. */
interface Column {
  /** The path of keys from the record to the member. */
  p: string[];
  /** The value, when every record that has the member has this one. */
  k?: unknown;
  /** Distinct values, when few: `x` then holds each record's index into them. */
  d?: unknown[];
  x?: number[];
  /** Each record's value. */
  v?: unknown[];
  /** The records (indices) without the member, when some lack it. */
  a?: number[];
}

/** Records of one shape family (one event type) as columns, in the members' order. */
interface Table {
  n: number;
  c: Column[];
}

interface CompactRow {
  v: 1;
  /** One table per event type, in the order of its first event. */
  g: Table[];
  /** The table of each event, in the events' order; absent when there is one table. */
  o?: number[];
  /** The items of the status batches, in order (each batch's `data.items` is its count in its table). */
  i?: Table;
}

/** Thrown for events the tables cannot hold exactly (a member order that differs between two of them, a NUL in a key). */
export class NotCompactable extends Error {}

const isNested = (x: unknown): x is Record<string, unknown> => {
  if (x === null || typeof x !== 'object' || Array.isArray(x)) return false;
  for (const _ in x) return true;
  return false;
};

/** A member's values, by record; `ABSENT` where a record lacks it. */
interface Entry {
  col: Column;
  pos: number;
  values: unknown[];
}
const ABSENT = Symbol('absent');

/** Members by key, as the records nest them: a node's own entry when the member is a value, its kids when an object. */
interface Node {
  path: string[];
  kids: Map<string, Node> | null;
  entry: Entry | null;
}

/**
 * Builds a table from records (events: plain data, as JSON would hold them). A member is found by its key in a trie of
 * the members seen, not by a path made per value: most of the cost of this pass is per value.
 */
class TableBuilder {
  private readonly root: Node = { path: [], kids: null, entry: null };
  private readonly order: Entry[] = [];
  private n = 0;
  private last = -1;

  add(record: Record<string, unknown>): void {
    this.last = -1;
    this.walk(record, this.root);
    this.n++;
  }

  private walk(obj: Record<string, unknown>, node: Node): void {
    for (const key in obj) {
      const value = obj[key];
      if (value === undefined) continue; // JSON has no such member
      let kid = node.kids?.get(key);
      if (kid === undefined) {
        kid = { path: [...node.path, key], kids: null, entry: null };
        (node.kids ??= new Map()).set(key, kid);
      }
      if (isNested(value)) {
        this.walk(value, kid);
        continue;
      }
      let e = kid.entry;
      if (e === null) {
        // a member first seen now goes right after the previous member of this record
        e = kid.entry = { col: { p: kid.path }, pos: this.last + 1, values: [] };
        this.order.splice(e.pos, 0, e);
        for (let i = e.pos + 1; i < this.order.length; i++) this.order[i].pos = i;
      } else if (e.pos <= this.last) {
        throw new NotCompactable(`member ${kid.path.join('.')} out of order`);
      }
      this.last = e.pos;
      const values = e.values;
      while (values.length < this.n) values.push(ABSENT);
      values.push(value);
    }
  }

  build(): Table {
    const n = this.n;
    const c: Column[] = [];
    for (const { col, values } of this.order) {
      while (values.length < n) values.push(ABSENT);
      let absent: number[] | null = null;
      let first: unknown = ABSENT;
      let same = true;
      let primitive = true;
      for (let i = 0; i < n; i++) {
        const v = values[i];
        if (v === ABSENT) {
          (absent ??= []).push(i);
          values[i] = null;
        } else {
          if (first === ABSENT) first = v;
          else if (v !== first) same = false;
          if (v !== null && typeof v === 'object') primitive = false;
        }
      }
      if (absent) col.a = absent;
      if (same && primitive) {
        col.k = first;
      } else {
        const dict = primitive ? dictionary(values, absent, n >> 2) : null;
        if (dict) {
          col.d = dict.d;
          col.x = dict.x;
        } else col.v = values;
      }
      c.push(col);
    }
    return { n, c };
  }
}

/** The values as distinct values and indices into them, when there are at most `most` distinct ones. */
function dictionary(values: unknown[], absent: number[] | null, most: number): { d: unknown[]; x: number[] } | null {
  const index = new Map<unknown, number>();
  const x: number[] = new Array<number>(values.length);
  const skip = absent ? new Set(absent) : null;
  for (let i = 0; i < values.length; i++) {
    if (skip?.has(i)) {
      x[i] = 0;
      continue;
    }
    const v = values[i];
    let k = index.get(v);
    if (k === undefined) {
      if (index.size >= most) return null;
      index.set(v, (k = index.size));
    }
    x[i] = k;
  }
  return { d: [...index.keys()], x };
}

function unpackTable(t: Table): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = new Array<Record<string, unknown>>(t.n);
  for (let i = 0; i < t.n; i++) out[i] = {};
  for (const col of t.c) {
    const absent = col.a ? new Set(col.a) : null;
    const path = col.p;
    const depth = path.length - 1;
    const leaf = path[depth];
    for (let i = 0; i < t.n; i++) {
      if (absent?.has(i)) continue;
      const value = col.v ? col.v[i] : col.x ? col.d![col.x[i]] : col.k;
      let obj = out[i];
      for (let j = 0; j < depth; j++) {
        const key = path[j];
        let next = obj[key] as Record<string, unknown> | undefined;
        if (next === undefined) obj[key] = next = {};
        obj = next;
      }
      obj[leaf] = value;
    }
  }
  return out;
}

const STATUSES = MessageStatusesChangedV1.type;

/** The events (in their order) as a compact row. Throws NotCompactable when they cannot be held exactly. */
function compactRow(events: OutgoingEvent[]): CompactRow {
  const groups = new Map<string, { index: number; table: TableBuilder }>();
  const order: number[] = [];
  let items: TableBuilder | undefined;
  for (const e of events) {
    let g = groups.get(e.type);
    if (!g) groups.set(e.type, (g = { index: groups.size, table: new TableBuilder() }));
    order.push(g.index);
    if (e.type === STATUSES) {
      const list = (e.data as { items?: unknown }).items;
      const dataKeys = Object.keys(e.data as object);
      if (!Array.isArray(list) || dataKeys.length !== 1) throw new NotCompactable('a status batch with more than its items');
      items ??= new TableBuilder();
      for (const item of list) {
        if (!isNested(item)) throw new NotCompactable('a status item that is not an object');
        items.add(item);
      }
      g.table.add({ ...(e as unknown as Record<string, unknown>), data: { items: list.length } });
    } else g.table.add(e as unknown as Record<string, unknown>);
  }
  const row: CompactRow = { v: 1, g: [...groups.values()].map((g) => g.table.build()) };
  if (groups.size > 1) row.o = order;
  if (items) row.i = items.build();
  return row;
}

/** The events (in their order) as a compact row's text. Throws NotCompactable when they cannot be held exactly. */
export function compactLifecycleText(events: OutgoingEvent[]): string {
  return JSON.stringify(compactRow(events));
}

/** A compact row's text and the events it holds. */
export interface CompactRowText {
  events: OutgoingEvent[];
  text: string;
}

/** An event's weight when rows are cut: itself and its status items (a status batch carries up to STATUS_BATCH_MAX). */
const unitsOf = (e: OutgoingEvent): number => {
  if (e.type !== STATUSES) return 1;
  const list = (e.data as { items?: unknown }).items;
  return 1 + (Array.isArray(list) ? list.length : 0);
};

/** The bound of a first row's events, per unit, before one is built: above what dispatch's events take (0217: 0.7–1.7 KB). */
const FIRST_GUESS_PER_UNIT = 2048;

/**
 * The events (in their order) as compact rows, each holding events whose JSON is bounded by `maxBound` (the relay's
 * publish cap): the relay publishes a row within the cap as it is, and measures a larger row's events one by one, by
 * serialising each again (docs/decisions/0220; a final write batch of 1,000 messages is bounded at 1.7 MB). Rows are cut
 * between events (a status batch stays whole) by the bound per unit of the row before, the first by a guess above it;
 * a row that still comes out over the cap is cut again, by its own bound. An event alone over the cap is a row of its own (the
 * relay measures it). Throws NotCompactable when the events cannot be held exactly.
 */
export function compactLifecycleRows(events: OutgoingEvent[], maxBound: number): CompactRowText[] {
  const rows: CompactRowText[] = [];
  let perUnit = FIRST_GUESS_PER_UNIT;
  let i = 0;
  while (i < events.length) {
    // as many events as fit the cap at the last bound per unit, less a tenth for the spread of their sizes
    const budget = Math.max(1, Math.floor((0.9 * maxBound) / perUnit));
    let end = i;
    let units = 0;
    while (end < events.length && (end === i || units + unitsOf(events[end]) <= budget)) units += unitsOf(events[end++]);
    for (;;) {
      const chunk = i === 0 && end === events.length ? events : events.slice(i, end);
      const row = compactRow(chunk);
      const text = JSON.stringify(row);
      const bound = rowBound(Buffer.byteLength(text), row);
      let chunkUnits = 0;
      for (const e of chunk) chunkUnits += unitsOf(e);
      perUnit = Math.max(1, bound / chunkUnits);
      if (bound <= maxBound || chunk.length === 1) {
        rows.push({ events: chunk, text });
        i = end;
        break;
      }
      // over the cap: as many of its events as the cap holds at this row's bound per event, less a tenth
      end = i + Math.max(1, Math.min(chunk.length - 1, Math.floor((chunk.length * 0.9 * maxBound) / bound)));
    }
  }
  return rows;
}

/** A table's members as JSON at most, on top of the row's text that holds each value (the bound of 0217's rows). */
function tableExtraBytes(t: Table): number {
  let bytes = t.n * 2;
  for (const col of t.c) {
    const present = t.n - (col.a?.length ?? 0);
    let keys = 0;
    for (const k of col.p) keys += Buffer.byteLength(JSON.stringify(k)) + 4;
    bytes += present * keys;
    if ('k' in col) bytes += present * Buffer.byteLength(JSON.stringify(col.k) ?? 'null');
    else if (col.d && col.x) {
      // each present record's own value (not the longest one's: a long carrier error in a few records of a dictionary
      // column would bound every record by it)
      const sizes = col.d.map((d) => Buffer.byteLength(JSON.stringify(d) ?? 'null'));
      const absent = col.a ? new Set(col.a) : null;
      for (let i = 0; i < col.x.length; i++) if (absent === null || !absent.has(i)) bytes += sizes[col.x[i]];
    }
  }
  return bytes;
}

/** The bound of a row's events' JSON: its text's bytes and what its tables write once (lifecycleBound's sum). */
function rowBound(textBytes: number, row: CompactRow): number {
  let extra = 0;
  for (const t of row.g) extra += tableExtraBytes(t);
  if (row.i) extra += tableExtraBytes(row.i);
  return textBytes + extra;
}

/** What `unpackLifecycle` returned for a row: the bound of its events' JSON, for the relay's publish sizes. */
const bounds = new WeakMap<OutgoingEvent[], number>();

/** A compact row's events, in order, as they were written (the relay's `unpack` of `$dispatch.lifecycle`). */
export function unpackLifecycleRow(row: CompactRow): OutgoingEvent[] {
  if (row === null || typeof row !== 'object' || row.v !== 1 || !Array.isArray(row.g)) throw new Error(`${COMPACT_LIFECYCLE_TYPE} row of an unknown form`);
  const tables = row.g.map(unpackTable);
  const items = row.i ? unpackTable(row.i) : [];
  const at = tables.map(() => 0);
  const n = row.o ? row.o.length : (tables[0]?.length ?? 0);
  const out: OutgoingEvent[] = new Array<OutgoingEvent>(n);
  let taken = 0;
  for (let k = 0; k < n; k++) {
    const g = row.o ? row.o[k] : 0;
    const e = tables[g][at[g]++] as unknown as OutgoingEvent;
    if (e === undefined) throw new Error(`${COMPACT_LIFECYCLE_TYPE} row: table ${g} has fewer events than its order names`);
    if (e.type === STATUSES) {
      const data = e.data as { items: unknown };
      const count = data.items as number;
      data.items = items.slice(taken, taken + count);
      taken += count;
    }
    out[k] = e;
  }
  if (taken !== items.length) throw new Error(`${COMPACT_LIFECYCLE_TYPE} row: ${items.length} status items, its batches hold ${taken}`);
  bounds.set(out, rowBound(0, row));
  return out;
}

/** The relay's `unpack` for the row type: its text is parsed by the relay (an array is not this form: it throws). */
export const unpackLifecycle = (parsed: unknown): OutgoingEvent[] => unpackLifecycleRow(parsed as CompactRow);

/**
 * The relay's `unpackBound`: the row's text (every value that is not written once is in it as its JSON) plus, per
 * event, its members' names and the values written once. At or above the events' JSON; for events this function did
 * not make, their JSON measured.
 */
export function lifecycleBound(textBytes: number, events: OutgoingEvent[]): number {
  const extra = bounds.get(events);
  if (extra === undefined) return events.reduce((s, e) => s + Buffer.byteLength(JSON.stringify(e)), 0);
  return textBytes + extra;
}
