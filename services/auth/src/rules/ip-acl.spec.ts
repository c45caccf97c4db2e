import { formatIpAcl, ipAllowed, parseIpAcl } from './ip-acl';

describe('API key IP ACL', () => {
  it('reads the comma-joined list: IPv4 with or without a mask, IPv6 with or without a prefix', () => {
    expect(parseIpAcl('10.0.0.0/8, 192.168.1.7 ,2001:DB8::/32,::1,')).toEqual({
      value: ['10.0.0.0/8', '192.168.1.7/32', '2001:db8::/32', '::1/128'],
      violations: [],
    });
    expect(parseIpAcl(['10.0.0.0/8', '10.0.0.0/8']).value).toEqual(['10.0.0.0/8']);
    expect(parseIpAcl('')).toEqual({ value: [], violations: [] });
  });

  it('refuses what is not an address, a mask out of range and a malformed list, one violation per entry', () => {
    const r = parseIpAcl('10.0.0.0/33,example.com,300.1.1.1,2001:db8::/129,1.2.3.4/08');
    expect(r.violations.map((v) => v.propertyPath)).toEqual(['ipAcl[0]', 'ipAcl[1]', 'ipAcl[2]', 'ipAcl[3]', 'ipAcl[4]']);
    expect(r.violations.every((v) => v.message === 'errors.client.ips')).toBe(true);
    expect(parseIpAcl(42).violations).toHaveLength(1);
    expect(parseIpAcl(['10.0.0.1', 7]).violations.map((v) => v.propertyPath)).toEqual(['ipAcl[1]']);
  });

  it('shows single addresses without their full prefix', () => {
    expect(formatIpAcl(['10.0.0.0/8', '192.168.1.7/32', '::1/128', '2001:db8::/32'])).toBe('10.0.0.0/8,192.168.1.7,::1,2001:db8::/32');
  });

  it('allows an address inside a mask and refuses one outside it', () => {
    const acl = parseIpAcl('10.1.0.0/16').value;
    expect(ipAllowed(acl, '10.1.200.3')).toBe(true);
    expect(ipAllowed(acl, '10.2.0.1')).toBe(false);
    // an IPv4 client seen through an IPv6 socket
    expect(ipAllowed(acl, '::ffff:10.1.0.9')).toBe(true);
  });

  it('matches IPv6 prefixes and single IPv6 addresses', () => {
    const acl = parseIpAcl('2001:db8::/32,fe80::1').value;
    expect(ipAllowed(acl, '2001:db8:ffff::1')).toBe(true);
    expect(ipAllowed(acl, '2001:db9::1')).toBe(false);
    expect(ipAllowed(acl, 'fe80::1')).toBe(true);
    expect(ipAllowed(acl, 'fe80::2')).toBe(false);
    expect(ipAllowed(acl, '10.0.0.1')).toBe(false);
  });

  it('lets every address through an empty list, and no unknown address through a non-empty one', () => {
    expect(ipAllowed([], '203.0.113.9')).toBe(true);
    expect(ipAllowed(['10.0.0.0/8'], null)).toBe(false);
    expect(ipAllowed(['10.0.0.0/8'], 'not-an-ip')).toBe(false);
  });
});
