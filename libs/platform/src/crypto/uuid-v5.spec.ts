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

  it('refuses a namespace that is not a UUID', () => {
    expect(() => uuidV5('a', 'not-a-uuid')).toThrow(/not a UUID/);
  });
});
