import { createHash } from 'node:crypto';
import { uuidV5 } from './uuid-v5';

describe('uuidV5', () => {
  it('gives the RFC 9562 version 5 UUID of a name (the DNS namespace example of the RFC)', () => {
    expect(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  it('is the same for the same name and different for another name or namespace', () => {
    const ns = '0b8c5f55-4a51-4b5e-9f0c-4a7c9b1f2d11';
    expect(uuidV5('a', ns)).toBe(uuidV5('a', ns));
    expect(uuidV5('a', ns)).not.toBe(uuidV5('b', ns));
    expect(uuidV5('a', ns)).not.toBe(uuidV5('a', '6ba7b810-9dad-11d1-80b4-00c04fd430c8'));
  });

  it('hashes the name as UTF-8 after the namespace bytes, for names of any length and script', () => {
    const ns = '0b8c5f55-4a51-4b5e-9f0c-4a7c9b1f2d11';
    for (const name of ['', 'ünïcødé ✓ 😀', 'x'.repeat(5000), '0193b2a0-7c00-7000-8000-000000000001']) {
      const h = createHash('sha1').update(Buffer.from(ns.replace(/-/g, ''), 'hex')).update(name, 'utf8').digest();
      h[6] = (h[6] & 0x0f) | 0x50;
      h[8] = (h[8] & 0x3f) | 0x80;
      const x = h.toString('hex', 0, 16);
      expect(uuidV5(name, ns)).toBe(`${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`);
    }
  });

  it('refuses a namespace that is not a UUID', () => {
    expect(() => uuidV5('a', 'not-a-uuid')).toThrow(/not a UUID/);
  });
});
