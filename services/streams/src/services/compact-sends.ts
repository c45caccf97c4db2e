import { MessageAcceptedV1, MessageChargedV1 } from '@switchboard/contracts';
import { PACKED_OUTBOX_TYPE, type OutgoingEvent } from '@switchboard/platform';
import type { HeadPieces, HeadTrace } from './event-heads';

/**
 * The packed outbox row type of a send batch written compactly (docs/decisions/0210): `accept_messages_compact` stores
 * `{"e":<node's events text>,"i":[...],"a":[...],"b":[...],"c":[...]}` instead of both events' JSON for every accepted
 * send, and streams' relay builds from it the per-message events the row stands for, exactly as JSON.parse gave them
 * from 1798600000167's packed text (same members, same order, same values), then folds them as the row type named in
 * `e.f` says (`$packed`, `$streams.sends`, `$streams.sends.accepted`, `$streams.sends.all`). A relay older than 0210 does not know
 * this type: it fails the pass and retries (the row stays), so every streams process must run this release before
 * such rows can be published; a newer relay publishes them.
 */
export const COMPACT_SENDS_TYPE = '$streams.sends.compact';

/** A head group of a compact row: what its sends' two events share (the fields `headPieces` cuts around). */
export interface CompactGroup {
  /** account id */
  a: string;
  /** stream id */
  s: string;
  /** stream uid */
  u: string;
  /** stream type */
  t: number;
  /** channel */
  c: string;
  /** trace id */
  ti: string | null;
  /** traceparent; absent when the send had none */
  tp?: string;
  /** UTF-8 bytes of the group's head pieces (`HeadPieces`, both events): the relay's size bound */
  b: number;
}

/** One send: its head group's index, its accepted and charged events' ids, its uuid and its accepted event's middle. */
export type CompactSend = [number, string, string, string, Record<string, unknown>];

/** Node's part of a compact row (`p_events`). */
export interface CompactEvents {
  /** the row type whose fold the relay applies to the events (`sendRowType`, or `$packed`) */
  f: string;
  /** the batch's instant: every event's `occurredAt` and the accepted events' `acceptedAt` */
  o: string;
  g: CompactGroup[];
  /** by position in the batch (send i at i - 1) */
  s: CompactSend[];
}

/** A compact row as the relay parses it: node's part and, per accepted send in batch order, what the statement decided. */
export interface CompactRow {
  e: CompactEvents;
  /** the accepted sends' positions (1-based), ascending */
  i: number[];
  /** price (micros) */
  a: number[];
  /** the account's balance after the send (micros) */
  b: number[];
  /** currency */
  c: Array<string | null>;
}

/** A group's entry of `p_events`, from what its heads are cut from. */
export function compactGroup(stream: { id: string; accountId: string; streamUid: string; streamType: number }, channel: string, trace: HeadTrace, pieces: HeadPieces): CompactGroup {
  let b = 0;
  for (const p of [pieces.a1, pieces.a2, pieces.a3, pieces.a4, pieces.a5, pieces.c1, pieces.c2, pieces.c3]) b += Buffer.byteLength(p);
  const g: CompactGroup = { a: stream.accountId, s: stream.id, u: stream.streamUid, t: stream.streamType, c: channel, ti: trace.traceId, b };
  if (trace.traceparent !== undefined) g.tp = trace.traceparent;
  return g;
}

/**
 * `p_events`'s text: `groups` once, then each send as `[group, acceptedId, chargedId, uuid, {middle}]`. The ids and uuids
 * are canonical uuids (nothing to escape) and `middle` is `acceptedMiddle`'s JSON, so the text is written by hand.
 */
export function compactEventsText(fold: string, at: string, groups: CompactGroup[], sends: Array<{ g: number; aid: string; cid: string; uuid: string; middle: string }>): string {
  const parts: string[] = new Array<string>(sends.length);
  for (let n = 0; n < sends.length; n++) {
    const s = sends[n];
    parts[n] = `[${s.g},"${s.aid}","${s.cid}","${s.uuid}",{${s.middle}}]`;
  }
  return `{"f":${JSON.stringify(fold)},"o":${JSON.stringify(at)},"g":${JSON.stringify(groups)},"s":[${parts.join(',')}]}`;
}

/**
 * The per-message events of a compact row, in the order 1798600000167 packed them: per accepted send its
 * `streams.message.accepted` event, then its `streams.message.charged` event when money moved. Each is the object
 * JSON.parse made of that function's text for the same send: the envelope's members in `eventHead`'s order (no
 * `traceparent` member when the send had none), the data's in `AcceptedData`'s order.
 */
export function expandCompactSends(row: CompactRow): OutgoingEvent[] {
  const { e, i: at, a, b, c } = row;
  const out: OutgoingEvent[] = [];
  const occurredAt = e.o;
  for (let k = 0; k < at.length; k++) {
    const send = e.s[at[k] - 1];
    if (!send) throw new Error(`compact send row: no send ${at[k]}`);
    const g = e.g[send[0]];
    if (!g) throw new Error(`compact send row: no head group ${send[0]}`);
    const uuid = send[3];
    const price = a[k];
    const currency = c[k];
    const data = { messageUuid: uuid, accountId: g.a, streamId: g.s, streamUid: g.u, streamType: g.t, channel: g.c, ...send[4], acceptedAt: occurredAt, priceMicros: price, currency };
    out.push(envelope(send[1], MessageAcceptedV1, occurredAt, g, MessageAcceptedV1.key(data as never), data));
    if (price > 0) {
      const charged = { messageUuid: uuid, accountId: g.a, amountMicros: price, currency, balanceAfterMicros: b[k] };
      out.push(envelope(send[2], MessageChargedV1, occurredAt, g, MessageChargedV1.key(charged as never), charged));
    }
  }
  return out;
}

function envelope(id: string, def: { type: string; version: number; topic: string }, occurredAt: string, g: CompactGroup, key: string, data: unknown): OutgoingEvent {
  // eventHead's members in its order; JSON.stringify leaves out an undefined traceparent, so the parse had no such member
  return g.tp === undefined
    ? ({ id, type: def.type, version: def.version, occurredAt, source: 'streams', accountId: g.a, traceId: g.ti, key, topic: def.topic, data } as OutgoingEvent)
    : ({ id, type: def.type, version: def.version, occurredAt, source: 'streams', accountId: g.a, traceId: g.ti, traceparent: g.tp, key, topic: def.topic, data } as OutgoingEvent);
}

/**
 * The UTF-8 bytes 1798600000167's packed text of the same events would have had, at most: the compact text holds each
 * send's ids, uuid and middle once; the full text adds per accepted send its group's head pieces, its uuid twice more,
 * three numbers (at most 20 characters each), the currency twice and the members' names between them (under 200 B).
 */
export function compactFullBytes(textBytes: number, row: CompactRow): number {
  let bytes = textBytes;
  let cur: string | null | undefined;
  let curBytes = 0;
  for (let k = 0; k < row.i.length; k++) {
    const send = row.e.s[row.i[k] - 1];
    const g = send ? row.e.g[send[0]] : undefined;
    if (row.c[k] !== cur) {
      cur = row.c[k];
      curBytes = Buffer.byteLength(JSON.stringify(cur) ?? 'null');
    }
    bytes += (g?.b ?? 0) + 200 + 2 * curBytes;
  }
  return bytes;
}

/** The row each unpacked compact row's events came from (the relay asks `unpackBound` with the events `unpack` gave). */
const rowOf = new WeakMap<OutgoingEvent[], CompactRow>();

/**
 * The relay's `unpack` of a compact row: its per-message events, folded as `e.f` names (a function of the row only: a
 * relay that publishes the row again publishes the same events with the same ids).
 */
export function unpackCompactSends(folds: Record<string, (events: OutgoingEvent[]) => OutgoingEvent[]>, parsed: unknown): OutgoingEvent[] {
  const row = parsed as CompactRow;
  if (!row || typeof row !== 'object' || !row.e || !Array.isArray(row.i)) throw new Error('compact send row: not a compact row');
  const fold = row.e.f === PACKED_OUTBOX_TYPE ? undefined : folds[row.e.f];
  if (row.e.f !== PACKED_OUTBOX_TYPE && !fold) throw new Error(`compact send row: unknown fold ${row.e.f}`);
  const events = expandCompactSends(row);
  const out = fold ? fold(events) : events;
  rowOf.set(out, row);
  return out;
}

/**
 * The bytes a compact row's events serialise to at most (`unpackBound`): what its full text would have had, plus 1 KB
 * for each batch event's own envelope (`sendEventsBytes`'s rule for the full text). Events that did not come from
 * `unpackCompactSends` get no bound (the relay then measures each of them).
 */
export function compactSendsBound(textBytes: number, events: OutgoingEvent[], batchTypes: ReadonlySet<string>): number {
  const row = rowOf.get(events);
  if (!row) return Number.MAX_SAFE_INTEGER;
  let batches = 0;
  for (const e of events) if (batchTypes.has(e.type)) batches++;
  return compactFullBytes(textBytes, row) + 1024 * batches;
}
