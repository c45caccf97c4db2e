import { Clock, SystemClock } from './clock';

/**
 * The roles of a links process, like immich's workers: one code base, two kinds of process. `admin` mounts the
 * console API (domains, pools, offers) behind the gateway; `redirect` runs the redirect server (GET {domain}/{code}),
 * which a deployment scales on its own. Event consumers, the outbox relay and schedulers follow the platform's
 * PROCESS_ROLES (consumers, relay, schedulers) as in every service.
 */
export interface LinksRoles {
  admin: boolean;
  redirect: boolean;
}

/** The DNS record a customer creates for a domain: a CNAME to `cnameTarget`, or (for apex names) an A record to `aTarget`. */
export interface DnsTargets {
  /** Host name a domain's CNAME must point at, e.g. `links.switchboard.example`. */
  cnameTarget: string;
  /** IPv4 address a domain's A record must point at (spec 9: a fixed address for generic domains); null: CNAME only. */
  aTarget: string | null;
}

export interface LinksModuleOptions {
  /** Which roles this process runs. Default: both (embedded mode). */
  roles?: Partial<LinksRoles>;
  /** Run the migrations at start (embedded mode, tests); distributed mode runs them in a Job. Default true. */
  migrationsRun?: boolean;
  /** The record customers are told to create (the DNS instructions modal). */
  dns?: Partial<DnsTargets>;
  /** DNS servers the verification asks (`host` or `host:port`); default: the system resolver's. */
  dnsServers?: readonly string[];
  /** A lookup gives up after this long (counted as no answer). Default 3000 ms. */
  dnsTimeoutMs?: number;
  /** How often every domain's DNS is checked again. Default 10 min. */
  dnsRecheckMs?: number;
  /** How often the scheduler looks for domains due a check (new ones are due at once); 0 turns it off (tests call `checkDue`). Default 5000 ms. */
  dnsPollMs?: number;
  /** A new domain's messages_limit when the account set no global limit; null: no limit. Default null. */
  defaultMessagesLimit?: number | null;
  /** Domains one pool may hold (campaignSettings max_domains_per_pool) unless the account set its own. Default 100. */
  maxDomainsPerPool?: number;
  clock?: Clock;
  /**
   * The key of the short-link codes' permutation (docs/decisions/0034): at least 16 characters, the same in every
   * process that mints, never changed once links exist (codes already minted stay valid; new ones would follow
   * another permutation and could meet them). Without it, minting is off (the consumer does not subscribe).
   */
  codeSecret?: string;
  /**
   * Mint each link's variables as the JSON array of their values in its URL's placeholder order, not as the object of
   * them (docs/decisions/0150; a target with its own URL only). Turn on once every redirect server reads both forms
   * (from this release). Default false.
   */
  mintVarsValues?: boolean;
  /** The redirect server (the `redirect` role). */
  redirect?: Partial<RedirectOptions>;
}

export interface RedirectOptions {
  /** Its own port (0: a free one, printed at start in embedded mode). Default 0. */
  port: number;
  host: string;
  /** The scheme of the short URLs minted and announced: `https` (TLS is terminated in front of the redirect). */
  publicScheme: 'http' | 'https';
  /** The proxies (addresses or CIDRs) whose X-Forwarded-For gives the clicks' client address; empty: none. */
  trustProxy: readonly string[];
  /** A link is served from memory this long before it is read again (an offer disabled shows within it). Default 10 000 ms. */
  cacheTtlMs: number;
  /** Clicks wait at most this long before their group is written. Default 10 ms. */
  clickFlushMs: number;
  /** Clicks answered but not committed, at most (the most a SIGKILL can lose). Default 20 000. */
  clickBufferMax: number;
}

export interface ResolvedLinksOptions {
  roles: LinksRoles;
  migrationsRun: boolean;
  dns: DnsTargets;
  dnsServers: readonly string[];
  dnsTimeoutMs: number;
  dnsRecheckMs: number;
  dnsPollMs: number;
  defaultMessagesLimit: number | null;
  maxDomainsPerPool: number;
  codeSecret: string | null;
  mintVarsValues: boolean;
  redirect: RedirectOptions;
}

export const LINKS_OPTIONS = Symbol('LINKS_OPTIONS');
export const LINKS_CONNECTION = 'links';
export const LINKS_SCHEMA = 'links';

function int(name: string, v: number | undefined, def: number, min: number): number {
  const n = v ?? def;
  if (!Number.isInteger(n) || n < min) throw new Error(`LinksModule: ${name} must be an integer of at least ${min} (got ${String(v)})`);
  return n;
}

const HOST = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]\.?$/i;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

export function resolveLinksOptions(o: LinksModuleOptions = {}): ResolvedLinksOptions {
  const cnameTarget = (o.dns?.cnameTarget ?? 'links.switchboard.local').toLowerCase().replace(/\.$/, '');
  if (!HOST.test(cnameTarget)) throw new Error(`LinksModule: dns.cnameTarget must be a host name (got ${cnameTarget})`);
  const aTarget = o.dns?.aTarget ?? null;
  if (aTarget !== null && !IPV4.test(aTarget)) throw new Error(`LinksModule: dns.aTarget must be an IPv4 address (got ${aTarget})`);
  const limit = o.defaultMessagesLimit ?? null;
  if (limit !== null && (!Number.isInteger(limit) || limit < 0)) throw new Error('LinksModule: defaultMessagesLimit must be a non-negative integer or null');
  return {
    roles: { admin: o.roles?.admin ?? true, redirect: o.roles?.redirect ?? true },
    migrationsRun: o.migrationsRun ?? true,
    dns: { cnameTarget, aTarget },
    dnsServers: o.dnsServers ?? [],
    dnsTimeoutMs: int('dnsTimeoutMs', o.dnsTimeoutMs, 3000, 1),
    dnsRecheckMs: int('dnsRecheckMs', o.dnsRecheckMs, 600_000, 1000),
    dnsPollMs: int('dnsPollMs', o.dnsPollMs, 5000, 0),
    defaultMessagesLimit: limit,
    maxDomainsPerPool: int('maxDomainsPerPool', o.maxDomainsPerPool, 100, 1),
    codeSecret: resolveCodeSecret(o.codeSecret),
    mintVarsValues: o.mintVarsValues ?? false,
    redirect: {
      port: int('redirect.port', o.redirect?.port, 0, 0),
      host: o.redirect?.host ?? '127.0.0.1',
      publicScheme: o.redirect?.publicScheme ?? 'https',
      trustProxy: o.redirect?.trustProxy ?? [],
      cacheTtlMs: int('redirect.cacheTtlMs', o.redirect?.cacheTtlMs, 10_000, 0),
      clickFlushMs: int('redirect.clickFlushMs', o.redirect?.clickFlushMs, 10, 0),
      clickBufferMax: int('redirect.clickBufferMax', o.redirect?.clickBufferMax, 20_000, 1),
    },
  };
}

function resolveCodeSecret(secret: string | undefined): string | null {
  if (secret === undefined) return null;
  if (secret.length < 16) throw new Error('LinksModule: codeSecret must have at least 16 characters');
  return secret;
}

export function createClock(o: LinksModuleOptions): Clock {
  return o.clock ?? new SystemClock();
}
