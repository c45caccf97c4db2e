import { BlockList, isIPv4, isIPv6 } from 'node:net';
import type { Violation } from '@switchboard/contracts';
import { normalizeIp } from './throttle-window';

/** Spec 5: "IPv4 with optional mask, or IPv6" (an IPv6 prefix length is accepted too). */
export const IP_ACL_MESSAGE = 'errors.client.ips';
export const MAX_ACL_ENTRIES = 100;

/** `10.0.0.0/8` -> `{ address: '10.0.0.0', prefix: 8, family: 'ipv4' }`; null when it is neither form. */
export function parseAclEntry(raw: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | null {
  const m = /^([^/\s]+)(?:\/(\d{1,3}))?$/.exec(raw.trim());
  if (!m) return null;
  const address = m[1].toLowerCase();
  const family = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : null;
  if (!family) return null;
  const max = family === 'ipv4' ? 32 : 128;
  if (m[2] !== undefined && (m[2].length > 1 && m[2].startsWith('0'))) return null;
  const prefix = m[2] === undefined ? max : Number(m[2]);
  if (prefix > max) return null;
  return { address, prefix, family };
}

/**
 * The comma-joined list the console sends (`"10.0.0.0/8, 2001:db8::1"`), or an array of entries. Answers the
 * normalised CIDRs (deduplicated, in order) or one violation per bad entry under `propertyPath`.
 */
export function parseIpAcl(input: unknown, propertyPath = 'ipAcl'): { value: string[]; violations: Violation[] } {
  if (input === null || input === undefined || input === '') return { value: [], violations: [] };
  const parts = typeof input === 'string' ? input.split(',') : Array.isArray(input) ? input : null;
  if (!parts) return { value: [], violations: [{ propertyPath, message: IP_ACL_MESSAGE, code: 'ips' }] };
  const value: string[] = [];
  const violations: Violation[] = [];
  parts.forEach((p, i) => {
    if (typeof p !== 'string') {
      violations.push({ propertyPath: `${propertyPath}[${i}]`, message: IP_ACL_MESSAGE, code: 'ips' });
      return;
    }
    if (p.trim() === '' && typeof input === 'string') return; // "a, b," : a trailing comma is not an entry
    const e = parseAclEntry(p);
    if (!e) violations.push({ propertyPath: `${propertyPath}[${i}]`, message: IP_ACL_MESSAGE, code: 'ips' });
    else {
      const cidr = `${e.address}/${e.prefix}`;
      if (!value.includes(cidr)) value.push(cidr);
    }
  });
  if (value.length > MAX_ACL_ENTRIES) violations.push({ propertyPath, message: `at most ${MAX_ACL_ENTRIES} entries`, code: 'max' });
  return { value, violations };
}

/** The list as the API shows it: single addresses without their full-length prefix, comma-joined. */
export function formatIpAcl(cidrs: readonly string[]): string {
  return cidrs
    .map((c) => {
      const e = parseAclEntry(c);
      return e && e.prefix === (e.family === 'ipv4' ? 32 : 128) ? e.address : c;
    })
    .join(',');
}

/**
 * Whether `ip` (the client address as the HTTP layer determined it: the socket's, or the trusted proxy's
 * X-Forwarded-For) is allowed. An empty ACL allows every address; an unknown address is refused by a non-empty one.
 */
export function ipAllowed(cidrs: readonly string[], ip: string | null | undefined): boolean {
  if (cidrs.length === 0) return true;
  const client = normalizeIp(ip);
  if (!client) return false;
  const family = isIPv4(client) ? 'ipv4' : isIPv6(client) ? 'ipv6' : null;
  if (!family) return false;
  const list = new BlockList();
  for (const c of cidrs) {
    const e = parseAclEntry(c);
    if (e) list.addSubnet(e.address, e.prefix, e.family);
  }
  return list.check(client, family);
}
