import { parseEventData, safeParseEventData, type EventDefinition } from './events';
import { MessageAcceptedV1, MessagesAcceptedV1 } from './messaging-events';
import { CampaignSendBatchRequestedV1, InboxSendRequestedV1, SendBatchProcessedV1 } from './send-requests';
import { rngOf } from './spintax';

/**
 * The hand-written event checks (`EventDefinition.fast`, docs/decisions/0192) against their zod schemas, on generated
 * good and bad data: whatever a check passes, the schema passes with the same answer (values, keys and their order, a
 * new object); what it leaves, the schema decides, so `parseEventData` throws exactly the schema's error.
 */

const uuid = (n: number): string => `0190b3a0-0000-7000-8000-${String(n).padStart(12, '0')}`;

const accepted = (n: number): Record<string, unknown> => ({
  messageUuid: uuid(n),
  accountId: '42',
  streamId: '7',
  streamUid: 'a0e1b2c3-d4e5-4f60-8a1b-2c3d4e5f6a7b',
  streamType: 1,
  channel: 'sms',
  sender: 'Shop',
  destination: '+4915112345678',
  iso2: 'DE',
  text: 'Hello Anna, 20 % off today: https://go.example.com/x1',
  encoding: 'GSM7',
  segments: 1,
  priceMicros: 45_000,
  currency: 'EUR',
  payload: null,
  campaignId: '9',
  notBefore: null,
  acceptedAt: '2026-11-28T17:00:00.000Z',
});

const sendItem = (n: number): Record<string, unknown> => ({
  messageUuid: uuid(n),
  destination: '+4915112345678',
  text: 'Hello Anna',
  sender: 'Shop',
  payload: null,
  notBefore: null,
  ref: String(n),
  variantId: '3',
});

const sendBatch = (): Record<string, unknown> => ({ batchId: uuid(999), accountId: '42', streamId: '7', campaignId: '9', items: [sendItem(1), sendItem(2), sendItem(3)] });

const answerItem = (n: number): Record<string, unknown> =>
  n % 3 === 0
    ? { ref: String(n), messageUuid: uuid(n), outcome: 'refused', refusal: 'blacklisted', code: '0x31', priceMicros: null, currency: null, segments: null }
    : { ref: String(n), messageUuid: uuid(n), outcome: 'accepted', ...(n % 3 === 2 ? { duplicate: true } : {}), refusal: null, code: null, priceMicros: 45_000, currency: 'EUR', segments: 1 };

const answer = (): Record<string, unknown> => ({ batchId: uuid(999), requester: 'campaigns', accountId: '42', streamId: '7', campaignId: '9', items: [answerItem(1), answerItem(2), answerItem(3)] });

const acceptedBatch = (): Record<string, unknown> => ({
  items: [
    { id: uuid(101), traceId: null, data: accepted(1) },
    { id: uuid(102), traceId: 'abc', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', data: accepted(2) },
    { id: uuid(103), data: accepted(3) },
  ],
});

class Thing {
  a = 1;
}
const nullProto = (): unknown => Object.assign(Object.create(null) as object, { template: 'x' });

/** Values a field may be given: right and wrong types, edge numbers and lengths, look-alikes of the contract's values. */
const POOL: Array<() => unknown> = [
  () => undefined,
  () => null,
  () => '',
  () => 'x',
  () => '12',
  () => '-1',
  () => '1.5',
  () => ' 12',
  () => 7,
  () => 0,
  () => -0,
  () => -3,
  () => 1.5,
  () => NaN,
  () => Infinity,
  () => 2 ** 60,
  () => true,
  () => false,
  () => ({}),
  () => [],
  () => ({ template: 'x' }),
  nullProto,
  () => new Date(0),
  () => new Thing(),
  () => new Map(),
  () => 'GSM7',
  () => 'UCS2',
  () => 'gsm7',
  () => 'sms',
  () => 'telegram_private',
  () => 'accepted',
  () => 'refused',
  () => 'campaigns',
  () => 'inbox',
  () => 'DE',
  () => 'EUR',
  () => 'EURO',
  () => uuid(5),
  () => uuid(5).toUpperCase(),
  () => uuid(5).replace(/-/g, ''),
  () => `${uuid(5)}\n`,
  () => 'x'.repeat(64),
  () => 'x'.repeat(65),
  () => 'x'.repeat(4096),
  () => 'x'.repeat(4097),
  () => '\u{1F600}'.repeat(32),
  () => '\u{1F600}'.repeat(33),
];

/** A seeded generator (spintax's mulberry32), so a failure names a round that fails again. */
const random = rngOf;

type Doc = Record<string, unknown>;

/** The objects of a document (itself, nested objects, arrays' elements), where a mutation can land. */
function objectsOf(v: unknown, out: Doc[] = []): Doc[] {
  if (Array.isArray(v)) v.forEach((x) => objectsOf(x, out));
  else if (typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype) {
    out.push(v as Doc);
    Object.values(v).forEach((x) => objectsOf(x, out));
  }
  return out;
}

/** A deep copy of plain objects and arrays (structuredClone's objects come from another realm under jest). */
function clone(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(clone);
  if (typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, clone(x)]));
  return v;
}

/** One to three changes: a field given a pool value, a field removed, an extra key, an array emptied or grown. */
function mutate(doc: Doc, rnd: () => number): Doc {
  const copy = clone(doc) as Doc;
  const n = 1 + Math.floor(rnd() * 3);
  for (let i = 0; i < n; i++) {
    const objects = objectsOf(copy);
    const target = objects[Math.floor(rnd() * objects.length)];
    const keys = Object.keys(target);
    const key = keys[Math.floor(rnd() * keys.length)];
    const r = rnd();
    if (r < 0.7) target[key] = POOL[Math.floor(rnd() * POOL.length)]();
    else if (r < 0.8) delete target[key];
    else if (r < 0.9) target[rnd() < 0.5 ? 'extra' : 'duplicate'] = POOL[Math.floor(rnd() * POOL.length)]();
    else if (Array.isArray(target.items)) target.items = rnd() < 0.5 ? [] : [...(target.items as unknown[]), ...(target.items as unknown[])];
    else target[key] = POOL[Math.floor(rnd() * POOL.length)]();
  }
  return copy;
}

/**
 * Every single change of a document: each field of each of its objects given each pool value, or removed, and an extra
 * key on each object.
 */
function singleChanges(good: () => Doc): Doc[] {
  const out: Doc[] = [];
  const count = objectsOf(good()).length;
  for (let o = 0; o < count; o++) {
    for (const key of [...Object.keys(objectsOf(good())[o]), 'extra', 'duplicate', 'variantId', 'traceparent']) {
      for (const value of [...POOL, 'gone' as const]) {
        const doc = good();
        const target = objectsOf(doc)[o];
        if (value === 'gone') delete target[key];
        else target[key] = value();
        out.push(doc);
      }
    }
  }
  return out;
}

/** The invariants of a hand-written check on one document; answers whether the check took it. */
function agrees(def: EventDefinition<unknown>, data: unknown): boolean {
  const fast = def.fast!(data);
  const schema = def.schema.safeParse(data);
  if (fast !== undefined) {
    // never more permissive than the schema, and the same answer: values, keys in the schema's order, a new object
    expect(schema.success).toBe(true);
    expect(fast).toStrictEqual(schema.success ? schema.data : undefined);
    expect(JSON.stringify(fast)).toBe(JSON.stringify(schema.success ? schema.data : undefined));
    expect(fast).not.toBe(data);
  }
  // through either path, parseEventData and safeParseEventData answer as the schema does, errors included
  if (schema.success) {
    expect(parseEventData(def, data)).toStrictEqual(schema.data);
    expect(safeParseEventData(def, data)).toStrictEqual({ success: true, data: schema.data });
  } else {
    expect(() => parseEventData(def, data)).toThrow(schema.error.message);
    const safe = safeParseEventData(def, data);
    expect(safe.success).toBe(false);
    expect(safe.success ? '' : safe.error.message).toBe(schema.error.message);
  }
  return fast !== undefined;
}

const CASES: Array<[string, EventDefinition<unknown>, () => Doc]> = [
  ['streams.message.accepted', MessageAcceptedV1 as EventDefinition<unknown>, () => accepted(1)],
  // a campaign message's, with the variant streams passes through from its request (docs/decisions/0205)
  ['streams.message.accepted (a campaign variant)', MessageAcceptedV1 as EventDefinition<unknown>, () => ({ ...accepted(1), variantId: '7' })],
  ['streams.messages.accepted', MessagesAcceptedV1 as EventDefinition<unknown>, acceptedBatch],
  ['campaigns.send_batch.requested', CampaignSendBatchRequestedV1 as EventDefinition<unknown>, sendBatch],
  ['inbox.send_batch.requested', InboxSendRequestedV1 as EventDefinition<unknown>, () => ({ ...sendBatch(), campaignId: null, items: [{ ...sendItem(1), sender: null }] })],
  ['streams.send_batch.processed', SendBatchProcessedV1 as EventDefinition<unknown>, answer],
];

describe('hand-written event checks against their schemas (docs/decisions/0192)', () => {
  it.each(CASES)('%s: the platform\'s own data takes the hand-written path', (_type, def, good) => {
    const data = good();
    expect(agrees(def, data)).toBe(true);
    // the bus delivers a deep-frozen JSON copy: taken the same way
    const frozen = JSON.parse(JSON.stringify(data), (_k, v: unknown) => (typeof v === 'object' && v !== null ? Object.freeze(v) : v)) as unknown;
    expect(agrees(def, frozen)).toBe(true);
  });

  it.each(CASES)('%s: agrees with the schema on every single change of good data', (_type, def, good) => {
    let taken = 0;
    let refused = 0;
    for (const data of singleChanges(good)) {
      try {
        if (agrees(def, data)) taken++;
        if (!def.schema.safeParse(data).success) refused++;
      } catch (error) {
        throw new Error(`data ${JSON.stringify(data)}: ${String(error)}`);
      }
    }
    expect(refused).toBeGreaterThan(100);
    expect(taken).toBeGreaterThan(100);
  });

  it.each(CASES)('%s: agrees with the schema on 1,500 generated variants of good data', (_type, def, good) => {
    const rnd = random(0x0192);
    let taken = 0;
    let refused = 0;
    for (let round = 0; round < 1500; round++) {
      const data = mutate(good(), rnd);
      try {
        if (agrees(def, data)) taken++;
        if (!def.schema.safeParse(data).success) refused++;
      } catch (error) {
        throw new Error(`round ${round}, data ${JSON.stringify(data)}: ${String(error)}`);
      }
    }
    // the generator makes both kinds, and the check takes a fair share of what the schema takes
    expect(refused).toBeGreaterThan(300);
    expect(taken).toBeGreaterThan(50);
  });

  it.each(CASES)('%s: leaves to the schema what is not a plain object', (_type, def, good) => {
    for (const data of [null, undefined, 'x', 1, [good()], new Date(0), new Map(Object.entries(good())), Object.assign(new Thing(), good())]) {
      expect(def.fast!(data)).toBeUndefined();
      agrees(def, data);
    }
  });

  it('keeps the schema\'s answers for what it leaves to it: a WhatsApp payload, an optional key holding undefined', () => {
    const whatsapp = { ...accepted(1), channel: 'whatsapp', encoding: null, payload: { template: 'x' } };
    expect(MessageAcceptedV1.fast!(whatsapp)).toBeUndefined();
    expect(parseEventData(MessageAcceptedV1, whatsapp)).toStrictEqual(MessageAcceptedV1.schema.parse(whatsapp));
    const undefinedVariant = { ...sendBatch(), items: [{ ...sendItem(1), variantId: undefined }] };
    expect(CampaignSendBatchRequestedV1.fast!(undefinedVariant)).toBeUndefined();
    expect(parseEventData(CampaignSendBatchRequestedV1, undefinedVariant)).toStrictEqual(CampaignSendBatchRequestedV1.schema.parse(undefinedVariant));
  });

  it('drops unknown keys and copies, so a consumer may change its data without touching the delivered event', () => {
    const data = Object.freeze({ ...accepted(1), extra: 'dropped' });
    const mine = parseEventData(MessageAcceptedV1, data);
    expect(mine).not.toHaveProperty('extra');
    expect(Object.isFrozen(mine)).toBe(false);
    const batch = sendBatch();
    const parsed = parseEventData(CampaignSendBatchRequestedV1, batch);
    expect(parsed.items[0]).not.toBe((batch.items as unknown[])[0]);
  });
});
