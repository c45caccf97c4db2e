import { rngOf } from '@switchboard/contracts';
import type { OutgoingEvent } from '../bus/event-bus';
import { arrayElementSpans, eventBytes, packedEnvelopeBytes } from './packed-sizes';

/** A row's text as Outbox.addPacked writes it, and the events the relay parses from it. */
function row(events: unknown[]): { text: string; textBytes: number; parsed: OutgoingEvent[] } {
  const text = JSON.stringify(events);
  return { text, textBytes: Buffer.byteLength(text), parsed: JSON.parse(text) as OutgoingEvent[] };
}

const sizes = (events: unknown[]) => {
  const { text, textBytes, parsed } = row(events);
  return { got: packedEnvelopeBytes(text, textBytes, parsed), want: parsed.map(eventBytes) };
};

// characters that JSON escapes, that take 2–4 UTF-8 bytes, and the array's and objects' own punctuation
const ALPHABET = ['a', 'Z', '0', ' ', '"', '\\', '/', ',', '[', ']', '{', '}', ':', '\n', '\t', '\u0001', '\u007f', 'é', 'ß', 'Ж', '€', '中', '😀', '\u2028', '\ud800', '\udfff'];

describe('packedEnvelopeBytes (the relay measuring a packed row over the publish cap)', () => {
  const random = rngOf(200);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
  const str = (max: number) => Array.from({ length: Math.floor(random() * max) }, () => pick(ALPHABET)).join('');
  const value = (depth: number): unknown => {
    const kind = Math.floor(random() * (depth > 2 ? 5 : 7));
    if (kind === 0) return str(12);
    if (kind === 1) return pick([0, -1, 1.5, 1e21, -2e-7, 123456789012, Number.MAX_SAFE_INTEGER]);
    if (kind === 2) return pick([true, false, null]);
    if (kind === 3) return str(3);
    if (kind === 4) return null;
    if (kind === 5) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
    return Object.fromEntries(Array.from({ length: Math.floor(random() * 4) }, () => [str(5), value(depth + 1)]));
  };
  const event = (): Record<string, unknown> => {
    const e: Record<string, unknown> = {
      id: `00000000-0000-4000-8000-${String(Math.floor(random() * 1e12)).padStart(12, '0')}`,
      type: pick(['dispatch.message.statuses_changed', 'dispatch.message.edr', 'x']),
      version: 1,
      occurredAt: new Date(1_900_000_000_000 + Math.floor(random() * 1e9)).toISOString(),
      source: 'dispatch',
      accountId: pick([null, '1', '42']),
      traceId: null,
      key: str(8),
      data: value(0),
      topic: pick(['dispatch.messages', 'dispatch.edr', str(6)]),
    };
    if (random() < 0.3) e.traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    if (random() < 0.2) e.extra = undefined; // dropped by JSON, as a writer's undefined member is
    if (random() < 0.2) {
      // the topic first, or in the middle: toEnvelope drops it wherever it is
      const { topic, ...rest } = e;
      return random() < 0.5 ? { topic, ...rest } : { ...rest, topic, after: str(4) };
    }
    return e;
  };

  it('gives every event exactly the size the bus would serialise (2,000 random rows, every kind of character)', () => {
    let measured = 0;
    for (let r = 0; r < 2000; r++) {
      const events = Array.from({ length: 1 + Math.floor(random() * 6) }, event);
      const { got, want } = sizes(events);
      expect(got).toEqual(want);
      measured += events.length;
    }
    expect(measured).toBeGreaterThan(5000);
  });

  it('measures ASCII rows and rows with multi-byte characters alike', () => {
    const ascii = [event(), event()].map((e) => ({ ...e, data: { text: 'plain [ascii], "quoted" {braces}' } }));
    const wide = [event(), event()].map((e) => ({ ...e, data: { text: 'Привет, 中文 😀 €' }, topic: 'tópico' }));
    for (const events of [ascii, wide, [...ascii, ...wide]]) {
      const { got, want } = sizes(events);
      expect(got).toEqual(want);
    }
  });

  it('measures by serialising the elements it cannot read as an event with its topic', () => {
    const odd: unknown[] = [
      { topic: 'only' }, // becomes {}
      { topic: 7, id: 'a' }, // a topic that is not a string
      { id: 'no topic' },
      'a string',
      12,
      ['an', 'array'],
      {},
      event(),
    ];
    const { got, want } = sizes(odd);
    expect(got).toEqual(want);
    expect(got[0]).toBe(2);
    // a null element fails the pass as serialising it did
    const nulls = row([event(), null]);
    expect(() => packedEnvelopeBytes(nulls.text, nulls.textBytes, nulls.parsed)).toThrow(TypeError);
  });

  it('falls back to serialising every event when the text is not the array of those events', () => {
    const events = [event(), event(), event()];
    const { text, textBytes, parsed } = row(events);
    const want = parsed.map(eventBytes);
    // a text with whitespace (not JSON.stringify's), fewer elements than events, and broken texts
    expect(packedEnvelopeBytes(JSON.stringify(events, null, 1), textBytes, parsed)).toEqual(want);
    expect(packedEnvelopeBytes(JSON.stringify(events.slice(0, 2)), textBytes, parsed)).toEqual(want);
    expect(packedEnvelopeBytes(text.slice(0, -1), textBytes, parsed)).toEqual(want);
    expect(packedEnvelopeBytes('', 0, parsed)).toEqual(want);
  });
});

describe('arrayElementSpans', () => {
  const pieces = (text: string) => {
    const spans = arrayElementSpans(text);
    if (!spans) return undefined;
    const out: string[] = [];
    for (let i = 0; i < spans.length; i += 2) out.push(text.slice(spans[i], spans[i + 1]));
    return out;
  };

  it("cuts a JSON.stringify array at its own commas only, never inside strings, objects or arrays", () => {
    const elements = [{ a: '],[{"x":1},', b: [1, [2, { c: '\\"' }]] }, 'x\\', '"', [], {}, null, 1.5, ['a,b']];
    expect(pieces(JSON.stringify(elements))).toEqual(elements.map((e) => JSON.stringify(e)));
    expect(pieces('[]')).toEqual([]);
    expect(pieces('[{}]')).toEqual(['{}']);
  });

  it('refuses what is not an array written by JSON.stringify', () => {
    for (const text of ['', '[', ']', '{}', '[1,]', '[,1]', '[1,,2]', '[1]x', '[1] ', '["a]', '[{"a":1}', '[1]]', '[}', 'null']) {
      expect(arrayElementSpans(text)).toBeUndefined();
    }
  });
});
