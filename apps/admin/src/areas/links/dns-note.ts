import type { DnsRecord } from './types';

/**
 * The note under the DNS instructions: the choice between the CNAME and the A record only when the platform offers an
 * A record (`LINKS_DNS_A_TARGET`); without one, the records listed are all to create (naming an A record the table
 * does not show sent newcomers looking for it).
 */
export function dnsNoteKey(domains: ReadonlyArray<{ dns: ReadonlyArray<Pick<DnsRecord, 'type'>> }>): 'links.dns.either' | 'links.dns.all' {
  return domains.some((d) => d.dns.some((r) => r.type === 'A')) ? 'links.dns.either' : 'links.dns.all';
}
