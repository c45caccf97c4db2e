import * as crypto from 'node:crypto';

/** The namespaces' 16 bytes, by their text (a process uses a handful). */
const namespaces = new Map<string, Buffer>();

/** SHA-1 of one buffer: the one-shot `crypto.hash` where the runtime has it (Node 20.12+), else a Hash object. */
const sha1: (data: Buffer) => Buffer =
  typeof (crypto as { hash?: unknown }).hash === 'function'
    ? (data) => (crypto as unknown as { hash(alg: string, data: Buffer, enc: 'buffer'): Buffer }).hash('sha1', data, 'buffer')
    : (data) => crypto.createHash('sha1').update(data).digest();

/**
 * A name-based UUID (RFC 9562 version 5: SHA-1 of the namespace's 16 bytes and the name, version and variant bits
 * set). The same namespace and name give the same UUID in every process: an event rebuilt later from stored data
 * (docs/decisions/0087) carries the id of the first one, so consumers that take an event once by id take it once.
 */
export function uuidV5(name: string, namespace: string): string {
  let ns = namespaces.get(namespace);
  if (!ns) {
    ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
    if (ns.length !== 16) throw new Error(`uuidV5: ${namespace} is not a UUID`);
    if (namespaces.size < 64) namespaces.set(namespace, ns);
  }
  const input = Buffer.allocUnsafe(16 + Buffer.byteLength(name, 'utf8'));
  ns.copy(input, 0);
  input.write(name, 16, 'utf8');
  const h = sha1(input);
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.toString('hex', 0, 16);
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}
