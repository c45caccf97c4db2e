import { lookup as systemLookup } from 'node:dns/promises';
import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import { classifyAddress } from './addresses';

/** A URL checked for a request: the one address the request goes to (no second lookup: DNS rebinding). */
export interface CheckedDestination {
  url: URL;
  host: string;
  address: string;
  family: 4 | 6;
  port: number;
}

export class DestinationRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DestinationRefused';
  }
}

export interface DestinationPolicy {
  allowLoopback: boolean;
  allowedPorts: readonly number[] | 'any';
  dnsServers: readonly string[];
}

/** The URL's shape: http or https, no credentials, a host, an allowed port. Throws DestinationRefused. */
export function checkUrlShape(raw: string, policy: Pick<DestinationPolicy, 'allowedPorts'>): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DestinationRefused('not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new DestinationRefused('only http and https URLs');
  if (url.username || url.password) throw new DestinationRefused('no credentials in the URL (use headers)');
  if (!url.hostname) throw new DestinationRefused('the URL needs a host');
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  if (policy.allowedPorts !== 'any' && !policy.allowedPorts.includes(port)) throw new DestinationRefused(`port ${port} is not allowed (allowed: ${policy.allowedPorts.join(', ')})`);
  return url;
}

/** The literal address in a URL's hostname (`[::1]` -> `::1`), or null for a name. */
export function literalAddress(hostname: string): string | null {
  const h = hostname.replace(/^\[|\]$/g, '');
  return isIP(h) ? h : null;
}

/**
 * Resolves the URL's host once and checks every address it resolves to; the delivery connects to the first (it never
 * asks DNS again, so a name that answers a public address now and 127.0.0.1 later still reaches the public one).
 */
export class DestinationGuard {
  private readonly resolver: Resolver | null;

  constructor(private readonly policy: DestinationPolicy) {
    if (policy.dnsServers.length) {
      this.resolver = new Resolver({ timeout: 2000, tries: 1 });
      this.resolver.setServers([...policy.dnsServers]);
    } else this.resolver = null;
  }

  async check(raw: string): Promise<CheckedDestination> {
    const url = checkUrlShape(raw, this.policy);
    const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const literal = literalAddress(url.hostname);
    const addresses = literal ? [literal] : await this.resolve(host);
    if (!addresses.length) throw new DestinationRefused(`${host} has no address`);
    for (const a of addresses) {
      const v = classifyAddress(a, this.policy);
      if (!v.allowed) throw new DestinationRefused(`${host} resolves to ${a} (${v.reason ?? 'refused'})`);
    }
    const address = addresses[0];
    return { url, host, address, family: isIP(address) === 6 ? 6 : 4, port };
  }

  private async resolve(host: string): Promise<string[]> {
    try {
      if (this.resolver) {
        const [v4, v6] = await Promise.all([this.resolver.resolve4(host).catch(() => [] as string[]), this.resolver.resolve6(host).catch(() => [] as string[])]);
        return [...v4, ...v6];
      }
      return (await systemLookup(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      throw new DestinationRefused(`${host} does not resolve`);
    }
  }
}

/** For a URL whose host is a literal address: why it is refused, or null (names are checked at each delivery). */
export function classifyAddressForUrl(raw: string, policy: Pick<DestinationPolicy, 'allowLoopback'>): string | null {
  const lit = literalAddress(new URL(raw).hostname);
  if (!lit) return null;
  const v = classifyAddress(lit, policy);
  return v.allowed ? null : `${lit} is not a public address (${v.reason ?? 'refused'})`;
}
