/**
 * The JSON text of an object that is not changed once built (a realtime payload), made once however many times it is
 * asked for: in embedded mode the inbox's room log and the gateway's `/ws` frames of the same event share one
 * serialisation. Keyed by the object itself (a WeakMap), so it goes when the object goes; anything but an object is
 * serialised each time. Never for an object that is changed after it was first asked for.
 */
const texts = new WeakMap<object, string>();

export function jsonOnce(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  let text = texts.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    texts.set(value, text);
  }
  return text;
}

/** The value of a JSON text made elsewhere (by a statement), remembered with that text: `jsonOnce` answers it as is. */
export function parsedJsonOnce(text: string): unknown {
  const value: unknown = JSON.parse(text);
  if (value !== null && typeof value === 'object') texts.set(value, text);
  return value;
}
