import { maskEmail, normalizeEmail } from './email';

describe('email masking', () => {
  it('keeps the first letter and the domain', () => {
    expect(maskEmail('john@example.com')).toBe('j***@example.com');
  });

  it('hides the length of the local part', () => {
    expect(maskEmail('a@example.com')).toBe('a***@example.com');
    expect(maskEmail('averyveryverylongname@example.com')).toBe('a***@example.com');
  });

  it('uses the last @ (quoted local parts may contain one)', () => {
    expect(maskEmail('"a@b"@example.com')).toBe('"***@example.com');
  });

  it('shows nothing of something that is not an address', () => {
    expect(maskEmail('no-at-sign')).toBe('***');
    expect(maskEmail('@example.com')).toBe('***');
  });

  it('normalises case and surrounding spaces', () => {
    expect(normalizeEmail('  Jane.Doe@Example.COM ')).toBe('jane.doe@example.com');
  });
});
