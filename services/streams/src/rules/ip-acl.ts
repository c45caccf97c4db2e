import { BlockList, isIP } from 'node:net';

/** Spec 5: an IP list holds IPv4 addresses with an optional mask, or IPv6 addresses (with an optional prefix). */
export function isIpAclEntry(entry: string): boolean {
  const [addr, mask, ...rest] = entry.trim().split('/');
  if (rest.length) return false;
  const family = isIP(addr);
  if (!family) return false;
  if (mask === undefined) return true;
  if (!/^\d{1,3}$/.test(mask)) return false;
  return Number(mask) <= (family === 4 ? 32 : 128);
}

/** Accepts an array or the comma-joined form the console sends (spec 3: API key ipAcl sent comma-joined). */
export function splitIpAcl(value: unknown): string[] | null {
  if (value === undefined || value === null || value === '') return [];
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : null;
  if (!items || items.some((i) => typeof i !== 'string')) return null;
  return (items as string[]).map((i) => i.trim()).filter(Boolean);
}

/** An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`, how a dual-stack socket reports IPv4 clients) as plain IPv4. */
export function plainIp(ip: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return m ? m[1] : ip;
}

export class IpAcl {
  private readonly list = new BlockList();
  readonly empty: boolean;

  constructor(entries: readonly string[]) {
    this.empty = entries.length === 0;
    for (const e of entries) {
      const [addr, mask] = e.split('/');
      const type = isIP(addr) === 6 ? 'ipv6' : 'ipv4';
      if (mask === undefined) this.list.addAddress(addr, type);
      else this.list.addSubnet(addr, Number(mask), type);
    }
  }

  allows(ip: string | null | undefined): boolean {
    if (this.empty) return true;
    if (!ip) return false;
    const addr = plainIp(ip);
    const family = isIP(addr);
    if (!family) return false;
    return this.list.check(addr, family === 6 ? 'ipv6' : 'ipv4');
  }
}
