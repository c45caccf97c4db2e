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
  /**
   * Reuse a name's checked answer for its TTL (5 s to 60 s) instead of asking DNS at every check: for senders of
   * thousands of requests a second to few hosts (webhooks). Off by default: every check asks DNS (integrations check
   * the host anew at every vendor request).
   */
  reuseAnswers?: boolean;
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

/** How long a checked DNS answer is reused: its TTL, within these bounds (the system resolver gives none: the floor). */
export const DNS_CACHE_MIN_MS = 5_000;
export const DNS_CACHE_MAX_MS = 60_000;

/**
 * Resolves the URL's host once and checks every address it resolves to; the delivery connects to the first (it never
 * asks DNS again, so a name that answers a public address now and 127.0.0.1 later still reaches the public one).
 * With `reuseAnswers`, a name's checked answer is reused for its TTL (5 s to 60 s): at thousands of webhook deliveries
 * a second to one receiver, a lookup per delivery was a resolver round trip (a libuv thread-pool job with the system
 * resolver) each. Reusing it keeps the guarantee: only an answer whose every address passed the check is kept, and it
 * is what is connected to. Refusals are not kept (a receiver fixing its DNS is reached at the next attempt).
 */
export class DestinationGuard {
  private readonly resolver: Resolver | null;
  private readonly answers = new Map<string, { addresses: string[]; until: number }>();

  constructor(
    private readonly policy: DestinationPolicy,
    private readonly now: () => number = () => performance.now(),
  ) {
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
    const addresses = literal ? this.checked(host, [literal]) : await this.resolveChecked(host);
    const address = addresses[0];
    return { url, host, address, family: isIP(address) === 6 ? 6 : 4, port };
  }

  /** Every address must be public (or loopback where allowed); throws DestinationRefused naming the first that is not. */
  private checked(host: string, addresses: string[]): string[] {
    if (!addresses.length) throw new DestinationRefused(`${host} has no address`);
    for (const a of addresses) {
      const v = classifyAddress(a, this.policy);
      if (!v.allowed) throw new DestinationRefused(`${host} resolves to ${a} (${v.reason ?? 'refused'})`);
    }
    return addresses;
  }

  private async resolveChecked(host: string): Promise<string[]> {
    const now = this.now();
    const kept = this.policy.reuseAnswers ? this.answers.get(host) : undefined;
    if (kept && kept.until > now) return kept.addresses;
    const { addresses, ttlMs } = await this.resolve(host);
    this.checked(host, addresses);
    if (!this.policy.reuseAnswers) return addresses;
    if (this.answers.size >= 10_000) this.answers.clear();
    this.answers.set(host, { addresses, until: now + Math.min(DNS_CACHE_MAX_MS, Math.max(DNS_CACHE_MIN_MS, ttlMs)) });
    return addresses;
  }

  private async resolve(host: string): Promise<{ addresses: string[]; ttlMs: number }> {
    try {
      if (this.resolver) {
        const none = [] as Array<{ address: string; ttl: number }>;
        const [v4, v6] = await Promise.all([this.resolver.resolve4(host, { ttl: true }).catch(() => none), this.resolver.resolve6(host, { ttl: true }).catch(() => none)]);
        const all = [...v4, ...v6];
        return { addresses: all.map((a) => a.address), ttlMs: all.length ? Math.min(...all.map((a) => a.ttl)) * 1000 : 0 };
      }
      return { addresses: (await systemLookup(host, { all: true, verbatim: true })).map((a) => a.address), ttlMs: 0 };
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
