import { passwordViolations } from './password-policy';

describe('password policy', () => {
  it('accepts 8 characters and refuses 7', () => {
    expect(passwordViolations('abcdefgh')).toEqual([]);
    expect(passwordViolations('abcdefg').map((v) => v.code)).toEqual(['min']);
  });

  it('refuses what bcrypt would cut (over 72 bytes), counting bytes not characters', () => {
    expect(passwordViolations('a'.repeat(72))).toEqual([]);
    expect(passwordViolations('é'.repeat(37)).map((v) => v.code)).toEqual(['max']);
  });

  it('refuses blanks and the email address itself', () => {
    expect(passwordViolations('         ').map((v) => v.code)).toContain('required');
    expect(passwordViolations('Jane@Example.com', 'password', 'jane@example.com').map((v) => v.code)).toEqual(['sameAsEmail']);
  });
});
