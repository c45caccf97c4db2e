import { toEnvelope } from '../bus/delivery';
import type { OutgoingEvent } from '../bus/event-bus';

/** The bytes of an event's envelope as the bus sends it: its JSON, without its topic, in UTF-8. */
export const eventBytes = (event: OutgoingEvent): number => Buffer.byteLength(JSON.stringify(toEnvelope(event)));

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * Where each top-level element of a JSON array text starts and ends (`[start, end)` pairs, flat), or undefined when
 * the text is not an array written as JSON.stringify writes one (no whitespace between tokens). Strings are skipped
 * with their escapes, so brackets and commas inside them do not count.
 */
export function arrayElementSpans(text: string): number[] | undefined {
  const n = text.length;
  if (n < 2 || text.charCodeAt(0) !== OPEN_BRACKET) return undefined;
  const spans: number[] = [];
  if (n === 2) return text.charCodeAt(1) === CLOSE_BRACKET ? spans : undefined;
  let depth = 0;
  let start = 1;
  for (let i = 1; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // to the closing quote: the next one not escaped by an odd number of backslashes (indexOf, not a loop in JS:
      // most of an event's text is inside its strings)
      let j = text.indexOf('"', i + 1);
      for (;;) {
        if (j < 0) return undefined;
        let b = j - 1;
        while (text.charCodeAt(b) === BACKSLASH) b--;
        if ((j - 1 - b) % 2 === 0) break;
        j = text.indexOf('"', j + 1);
      }
      i = j;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (depth > 0) {
        depth--;
        continue;
      }
      // the array's own end: it must close the text, after a non-empty element
      if (c !== CLOSE_BRACKET || i !== n - 1 || i === start) return undefined;
      spans.push(start, i);
      return spans;
    } else if (c === COMMA && depth === 0) {
      if (i === start) return undefined;
      spans.push(start, i);
      start = i + 1;
    }
  }
  return undefined;
}

/**
 * The envelope bytes (eventBytes) of each event of a `$packed` outbox row, from the row's text instead of serialising
 * every event again: `events` must be `JSON.parse(text)` itself, and the text what JSON.stringify wrote (Outbox.addPacked
 * writes it so). An element's text is then its event's JSON exactly; its envelope is that without the `"topic":…`
 * member and one comma (toEnvelope drops the topic). `textBytes` is Buffer.byteLength(text): when it equals the
 * text's length every character is one byte. An element that is not an object with a string topic is measured by
 * eventBytes, as is every event when the text is not an array of as many elements.
 */
export function packedEnvelopeBytes(text: string, textBytes: number, events: OutgoingEvent[]): number[] {
  const spans = arrayElementSpans(text);
  if (!spans || spans.length !== 2 * events.length) return events.map(eventBytes);
  const oneByte = textBytes === text.length;
  const sizes: number[] = [];
  let lastTopic: string | undefined;
  let lastMember = 0;
  for (let k = 0; k < events.length; k++) {
    const event = events[k];
    const start = spans[2 * k];
    const end = spans[2 * k + 1];
    const topic = event !== null && typeof event === 'object' ? (event as { topic?: unknown }).topic : undefined;
    if (typeof topic !== 'string' || text.charCodeAt(start) !== OPEN_BRACE) {
      sizes.push(eventBytes(event));
      continue;
    }
    const bytes = oneByte ? end - start : Buffer.byteLength(text.slice(start, end));
    // `"topic":` is 8 bytes, then the topic's JSON string (a row's events share a few topics: the last one is kept)
    if (topic !== lastTopic) {
      lastTopic = topic;
      lastMember = 8 + Buffer.byteLength(JSON.stringify(topic));
    }
    const member = lastMember;
    // `{"topic":"…"}` alone becomes `{}`; otherwise a comma goes with the member
    sizes.push(bytes === 2 + member ? 2 : bytes - member - 1);
  }
  return sizes;
}
