import { isIP } from 'node:net';

/**
 * Which destination addresses an outgoing call to a customer-given URL may reach (webhooks, CRM vendor base URLs, AI
 * provider base URLs; docs/decisions/0027-webhooks.md, 0040): public unicast only. Refused:
 * loopback, private (RFC 1918, ULA), link-local, CGNAT, multicast, reserved and documentation ranges, the cloud
 * metadata addresses (169.254.169.254 is link-local, fd00:ec2::254 a ULA), and IPv6 forms that carry an IPv4
 * address a gateway would reach for us (IPv4-mapped and -compatible, NAT64, 6to4, Teredo).
 */
type Range = { bytes: number[]; bits: number; why: string };

const V4: Array<[string, number, string]> = [
  ['0.0.0.0', 8, 'this network'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

const V6: Array<[string, number, string]> = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::', 96, 'IPv4-compatible'],
  ['::ffff:0:0', 96, 'IPv4-mapped'],
  ['64:ff9b::', 96, 'NAT64'],
  ['64:ff9b:1::', 48, 'NAT64 (local)'],
  ['100::', 64, 'discard'],
  ['2001::', 32, 'Teredo'],
  ['2001:db8::', 32, 'documentation'],
  ['2002::', 16, '6to4'],
  ['fc00::', 7, 'unique local (private, cloud metadata)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

export function ipv4Bytes(ip: string): number[] | null {
  const parts = ip.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null;
  return parts.map(Number);
}

/** The 16 bytes of an IPv6 address (with `::` and a trailing dotted IPv4 part), or null. */
export function ipv6Bytes(input: string): number[] | null {
  let ip = input.replace(/^\[|\]$/g, '');
  const zone = ip.indexOf('%');
  if (zone >= 0) ip = ip.slice(0, zone);
  if (isIP(ip) !== 6) return null;
  let tail: number[] = [];
  const lastColon = ip.lastIndexOf(':');
  if (ip.slice(lastColon + 1).includes('.')) {
    const v4 = ipv4Bytes(ip.slice(lastColon + 1));
    if (!v4) return null;
    tail = v4;
    ip = ip.slice(0, lastColon + 1) + '0:0';
  }
  const [head, rest] = ip.includes('::') ? ip.split('::') : [ip, undefined];
  const hs = head ? head.split(':') : [];
  const rs = rest !== undefined && rest !== '' ? rest.split(':') : [];
  const fill = rest === undefined ? 0 : 8 - hs.length - rs.length;
  const groups = [...hs, ...Array<string>(fill).fill('0'), ...rs].map((g) => parseInt(g, 16));
  if (groups.length !== 8 || groups.some((g) => Number.isNaN(g))) return null;
  const bytes = groups.flatMap((g) => [g >> 8, g & 0xff]);
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}

const ranges = (list: Array<[string, number, string]>, parse: (s: string) => number[] | null): Range[] =>
  list.map(([a, bits, why]) => ({ bytes: parse(a) as number[], bits, why }));
const V4_RANGES = ranges(V4, ipv4Bytes);
const V6_RANGES = ranges(V6, ipv6Bytes);

function inRange(bytes: number[], r: Range): boolean {
  for (let bit = 0; bit < r.bits; bit++) {
    const i = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    if ((bytes[i] & mask) !== (r.bytes[i] & mask)) return false;
  }
  return true;
}

export interface AddressVerdict {
  allowed: boolean;
  /** Why it is refused (or 'loopback' when allowed by the loopback setting). */
  reason: string | null;
}

/** Is `ip` (a literal address) a destination an outgoing call may connect to? */
export function classifyAddress(ip: string, opts: { allowLoopback: boolean }): AddressVerdict {
  const v4 = ipv4Bytes(ip);
  if (v4) {
    const hit = V4_RANGES.find((r) => inRange(v4, r));
    if (!hit) return { allowed: true, reason: null };
    if (hit.why === 'loopback' && opts.allowLoopback) return { allowed: true, reason: 'loopback' };
    return { allowed: false, reason: hit.why };
  }
  const v6 = ipv6Bytes(ip);
  if (!v6) return { allowed: false, reason: 'not an IP address' };
  const hit = V6_RANGES.filter((r) => inRange(v6, r)).sort((a, b) => b.bits - a.bits)[0];
  if (!hit) return { allowed: true, reason: null };
  if (hit.why === 'loopback' && opts.allowLoopback) return { allowed: true, reason: 'loopback' };
  return { allowed: false, reason: hit.why };
}
