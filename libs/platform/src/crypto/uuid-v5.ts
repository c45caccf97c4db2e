import { createHash } from 'node:crypto';

/**
 * A name-based UUID (RFC 9562 version 5: SHA-1 of the namespace's 16 bytes and the name, version and variant bits
 * set). The same namespace and name give the same UUID in every process: an event rebuilt later from stored data
 * (docs/decisions/0087) carries the id of the first one, so consumers that take an event once by id take it once.
 */
export function uuidV5(name: string, namespace: string): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  if (ns.length !== 16) throw new Error(`uuidV5: ${namespace} is not a UUID`);
  const h = createHash('sha1').update(ns).update(name, 'utf8').digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.toString('hex', 0, 16);
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}
