import { describe, expect, it } from '@jest/globals';
import { dnsNoteKey } from './dns-note';

const domain = (...types: string[]) => ({ dns: types.map((type) => ({ type })) as never });

describe('the note under the DNS instructions', () => {
  it('speaks of an A record only when the instructions list one', () => {
    // embedded mode's default: LINKS_DNS_A_TARGET unset, a CNAME and a TXT per domain
    expect(dnsNoteKey([domain('CNAME', 'TXT')])).toBe('links.dns.all');
    expect(dnsNoteKey([domain('CNAME', 'TXT'), domain('CNAME', 'TXT')])).toBe('links.dns.all');
    expect(dnsNoteKey([domain('CNAME', 'A', 'TXT')])).toBe('links.dns.either');
  });
});
