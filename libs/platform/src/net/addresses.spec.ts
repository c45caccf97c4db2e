import { classifyAddress, ipv6Bytes } from './addresses';

describe('destination addresses (webhooks, CRM vendors, AI providers)', () => {
  const refused = [
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['0.0.0.0', 'this network'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['224.0.0.251', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['198.18.0.1', 'benchmarking'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fd00:ec2::254', 'unique local (private, cloud metadata)'],
    ['fc00::1', 'unique local (private, cloud metadata)'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped'],
    ['::ffff:7f00:1', 'IPv4-mapped'],
    ['::ffff:8.8.8.8', 'IPv4-mapped'],
    ['::127.0.0.1', 'IPv4-compatible'],
    ['64:ff9b::7f00:1', 'NAT64'],
    ['64:ff9b::169.254.169.254', 'NAT64'],
    ['64:ff9b:1::a00:1', 'NAT64 (local)'],
    ['2002:7f00:1::1', '6to4'],
    ['2001:0:4136:e378::1', 'Teredo'],
    ['2001:db8::1', 'documentation'],
  ];
  it.each(refused)('refuses %s (%s)', (ip, why) => {
    expect(classifyAddress(ip, { allowLoopback: false })).toEqual({ allowed: false, reason: why });
  });

  it.each(['93.184.215.14', '8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e'])('allows the public address %s', (ip) => {
    expect(classifyAddress(ip, { allowLoopback: false })).toEqual({ allowed: true, reason: null });
  });

  it('allows loopback only with the embedded/test setting, and nothing else private with it', () => {
    expect(classifyAddress('127.0.0.1', { allowLoopback: true }).allowed).toBe(true);
    expect(classifyAddress('::1', { allowLoopback: true }).allowed).toBe(true);
    for (const ip of ['10.0.0.1', '169.254.169.254', '::ffff:127.0.0.1', 'fd00:ec2::254', '0.0.0.0']) expect([ip, classifyAddress(ip, { allowLoopback: true }).allowed]).toEqual([ip, false]);
  });

  it('reads every IPv6 notation to the same bytes', () => {
    expect(ipv6Bytes('::ffff:127.0.0.1')).toEqual(ipv6Bytes('0:0:0:0:0:ffff:7f00:0001'));
    expect(ipv6Bytes('[fd00:ec2::254]')).toEqual(ipv6Bytes('fd00:0ec2:0000:0000:0000:0000:0000:0254'));
    expect(ipv6Bytes('fe80::1%eth0')).toEqual(ipv6Bytes('fe80::1'));
    expect(classifyAddress('not-an-ip', { allowLoopback: true }).allowed).toBe(false);
  });
});
