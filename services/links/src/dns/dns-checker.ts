import { Resolver } from 'node:dns/promises';

/** What DNS answered for a domain: its CNAME targets, A addresses and the ownership TXT strings. */
export interface DnsAnswer {
  cname: string[];
  a: string[];
  txt: string[];
  /** A lookup that failed for another reason than "no such name / no such record" (timeout, SERVFAIL, refused). */
  error: string | null;
}

/** DNS codes that mean the record does not exist (an answer), rather than that the lookup failed. */
const ABSENT = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN', 'ENONAME']);

/**
 * Real DNS lookups through node's c-ares resolver, with the servers of the `dnsServers` option (the system's
 * otherwise) and a per-lookup timeout. A record that does not exist is an empty list; any other failure is kept in
 * `error` so the caller keeps the domain's state and tries again later rather than declining it on a flaky server.
 */
export class DnsChecker {
  private readonly resolver: Resolver;

  constructor(servers: readonly string[], timeoutMs: number) {
    this.resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
    if (servers.length) this.resolver.setServers([...servers]);
  }

  /** The TXT host that proves ownership of `name`. */
  static ownershipHost(name: string): string {
    return `_switchboard.${name}`;
  }

  async lookup(name: string): Promise<DnsAnswer> {
    let error: string | null = null;
    const run = async <T>(f: () => Promise<T[]>): Promise<T[]> => {
      try {
        return await f();
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
        if (!ABSENT.has(code)) error ??= code;
        return [];
      }
    };
    const [cname, a, txt] = await Promise.all([
      run(() => this.resolver.resolveCname(name)),
      run(() => this.resolver.resolve4(name)),
      run(() => this.resolver.resolveTxt(DnsChecker.ownershipHost(name))),
    ]);
    return {
      cname: cname.map((c) => c.toLowerCase().replace(/\.$/, '')),
      a,
      txt: txt.map((chunks) => chunks.join('')),
      error,
    };
  }
}
