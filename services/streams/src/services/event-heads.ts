import { MessageAcceptedV1, MessageChargedV1, type EventDefinition } from '@switchboard/contracts';
import type { ActiveStream } from './lookups.service';

/** The request's trace of a send, as its events carry it. */
export interface HeadTrace {
  traceId: string | null;
  traceparent: string | undefined;
}

/**
 * An event's JSON (an OutgoingEvent, as a packed outbox row holds it) cut before its last data fields, which only the
 * database knows: `accept_messages` appends `<micros>,"currency":"EUR"}}` (and `,"balanceAfterMicros":<micros>` before
 * the braces for the charged event). `data` holds every other field, so the event meets its schema once completed.
 */
export function eventHead<T>(def: EventDefinition<T>, id: string, occurredAt: string, accountId: string, trace: HeadTrace, data: Partial<T>, cut: keyof T & string): string {
  const envelope = { id, type: def.type, version: def.version, occurredAt, source: 'streams', accountId, traceId: trace.traceId, traceparent: trace.traceparent, key: def.key(data as T), topic: def.topic };
  return `${JSON.stringify(envelope).slice(0, -1)},"data":${JSON.stringify(data).slice(0, -1)},${JSON.stringify(cut)}:`;
}

/** The accepted event's data of one send, in the event's order. */
export interface AcceptedData {
  messageUuid: string;
  accountId: string;
  streamId: string;
  streamUid: string;
  streamType: number;
  channel: string;
  sender: string;
  destination: string;
  iso2: string | null;
  text: string;
  encoding: string | null;
  segments: number;
  payload: Record<string, unknown> | null;
  campaignId: string | null;
  notBefore: string | null;
  /** A campaign send's variant, when its request item names one (docs/decisions/0205); absent otherwise. */
  variantId?: string;
  acceptedAt: string;
}

/**
 * What the sends of one head group share in their two events' heads (docs/decisions/0167): the pieces around the
 * accepted event's id, the message uuid (twice: key and data) and the send's own data from `sender` to `notBefore`
 * (`middle`), and the pieces around the charged event's id and the uuid. `accept_messages` joins
 * `a1 || aid || a2 || uuid || a3 || uuid || a4 || v || a5` and `c1 || cid || c2 || uuid || c3`, the same text as
 * `eventHead` gives for the send.
 */
export interface HeadPieces {
  a1: string;
  a2: string;
  a3: string;
  a4: string;
  a5: string;
  c1: string;
  c2: string;
  c3: string;
}

/** Marks that stand for a send's own values while a group's heads are cut; a control character, escaped by JSON. */
const MARK_ID = '\u0001i';
const MARK_UUID = '\u0001u';
const MARK_MIDDLE = '\u0001m';
const ESCAPED_MARK = JSON.stringify('\u0001').slice(1, 4); // `\u0`, how JSON writes any such character

/** `s` cut at `marks` in that order; null unless each is found once, in order, and nothing else looks like one. */
function cut(s: string, marks: string[]): string[] | null {
  const pieces: string[] = [];
  let from = 0;
  for (const m of marks) {
    const at = s.indexOf(m, from);
    if (at < 0) return null;
    pieces.push(s.slice(from, at));
    from = at + m.length;
  }
  pieces.push(s.slice(from));
  return pieces.some((p) => p.includes(ESCAPED_MARK)) ? null : pieces;
}

/** A uuid as PostgreSQL writes one (`uuid::text`): the shared heads put the stored uuid's text in the events. */
export const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The shared pieces of the heads of sends of one stream, account, time and trace; null when they cannot be cut
 * exactly (a value that holds a control character), and then each send carries its own heads.
 */
export function headPieces(stream: Pick<ActiveStream, 'id' | 'accountId' | 'streamUid' | 'streamType'>, channel: string, at: string, trace: HeadTrace): HeadPieces | null {
  const accountId = stream.accountId;
  const accepted = eventHead(
    MessageAcceptedV1,
    MARK_ID,
    at,
    accountId,
    trace,
    // the data's fields in AcceptedData's order; `sender` stands for the whole middle (sender to notBefore)
    { messageUuid: MARK_UUID, accountId, streamId: stream.id, streamUid: stream.streamUid, streamType: stream.streamType, channel, sender: MARK_MIDDLE, acceptedAt: at } as never,
    'priceMicros',
  );
  const charged = eventHead(MessageChargedV1, MARK_ID, at, accountId, trace, { messageUuid: MARK_UUID, accountId }, 'amountMicros');
  const q = (m: string) => JSON.stringify(m);
  const a = cut(accepted, [q(MARK_ID), q(MARK_UUID), q(MARK_UUID), `"sender":${q(MARK_MIDDLE)}`]);
  const c = cut(charged, [q(MARK_ID), q(MARK_UUID)]);
  if (!a || !c) return null;
  return { a1: `${a[0]}"`, a2: `"${a[1]}"`, a3: `"${a[2]}"`, a4: `"${a[3]}`, a5: a[4], c1: `${c[0]}"`, c2: `"${c[1]}"`, c3: `"${c[2]}` };
}

/**
 * The send's own part of its accepted event's data: `"sender":…` to `"notBefore":…` (and a campaign send's
 * `"variantId":…` after it, docs/decisions/0205), as `eventHead` writes them.
 */
export function acceptedMiddle(d: Pick<AcceptedData, 'sender' | 'destination' | 'iso2' | 'text' | 'encoding' | 'segments' | 'payload' | 'campaignId' | 'notBefore' | 'variantId'>): string {
  const s = JSON.stringify({
    sender: d.sender,
    destination: d.destination,
    iso2: d.iso2,
    text: d.text,
    encoding: d.encoding,
    segments: d.segments,
    payload: d.payload,
    campaignId: d.campaignId,
    notBefore: d.notBefore,
    // absent (undefined: not written) unless a campaign item names its variant
    variantId: d.variantId,
  });
  return s.slice(1, -1);
}

/** The heads a group's pieces give for one send (what `accept_messages` joins; for tests and checks). */
export function joinHeads(p: HeadPieces, acceptedId: string, chargedId: string, uuid: string, middle: string): { accepted: string; charged: string } {
  return { accepted: p.a1 + acceptedId + p.a2 + uuid + p.a3 + uuid + p.a4 + middle + p.a5, charged: p.c1 + chargedId + p.c2 + uuid + p.c3 };
}
