import { StreamStatus } from '@switchboard/contracts';
import { IpAcl, isIpAclEntry, splitIpAcl } from './ip-acl';
import { KeywordMatcher } from './keywords';
import { generateOtpCode, otpCodeHash, renderOtpMessage, sameHash } from './otp';
import { normalizePhone, normalizeTelegramChat } from './phone';
import { maskSecret, newStreamToken, SecretBox } from './secret-box';
import { senderIdViolations } from './sender-id';
import { parseStreamParams, statusAfterConfig } from './stream-params';
import { TokenBuckets } from './token-bucket';

describe('sender ID rules (spec 5)', () => {
  it.each([
    ['Acme', null],
    ['ABC', null],
    ['AB', 'alphaMin'],
    ['Elevenchars', null],
    ['Twelvechars1', 'alphaMax'],
    ['123456789012345', null],
    ['+123456789012345', null],
    ['1234567890123456', 'numericMax'],
    ['Acme;drop', 'xss'],
    ['', 'required'],
    [42, 'required'],
  ])('%p -> %p', (value, code) => {
    const v = senderIdViolations(value);
    expect(v[0]?.code ?? null).toBe(code);
  });
});

describe('phone normalisation', () => {
  it('reads separators, a leading 00 and a missing plus as the flag lookup does', () => {
    expect(normalizePhone('+1 (415) 555-2671')).toEqual({ e164: '+14155552671', iso2: 'US' });
    expect(normalizePhone('0014155552671')).toEqual({ e164: '+14155552671', iso2: 'US' });
    expect(normalizePhone('4915112345678')).toEqual({ e164: '+4915112345678', iso2: 'DE' });
  });
  it('refuses impossible numbers', () => {
    for (const n of ['+1415555', '12', 'abc', '', null, '+999123456789']) expect(normalizePhone(n)).toBeNull();
  });
  it('reads Telegram chat ids and usernames', () => {
    expect(normalizeTelegramChat('-100123')).toBe('-100123');
    expect(normalizeTelegramChat('@test_bot')).toBe('@test_bot');
    expect(normalizeTelegramChat('@ab')).toBeNull();
  });
});

describe('IP ACL', () => {
  it('accepts IPv4 with an optional mask and IPv6, as an array or comma-joined', () => {
    expect(['10.0.0.1', '10.0.0.0/8', '2001:db8::1', '2001:db8::/32'].every(isIpAclEntry)).toBe(true);
    expect(['10.0.0.0/33', '300.1.1.1', 'example.com', '10.0.0.1/8/1', '::1/129'].some(isIpAclEntry)).toBe(false);
    expect(splitIpAcl('10.0.0.1, 10.0.0.2')).toEqual(['10.0.0.1', '10.0.0.2']);
    expect(splitIpAcl([1])).toBeNull();
  });
  it('matches addresses, IPv4-mapped IPv6 included; an empty list allows all', () => {
    const acl = new IpAcl(['10.1.0.0/16', '2001:db8::/32']);
    expect(acl.allows('10.1.2.3')).toBe(true);
    expect(acl.allows('::ffff:10.1.2.3')).toBe(true);
    expect(acl.allows('10.2.0.1')).toBe(false);
    expect(acl.allows('2001:db8::5')).toBe(true);
    expect(acl.allows(null)).toBe(false);
    expect(new IpAcl([]).allows(null)).toBe(true);
  });
});

describe('token buckets', () => {
  it('allows a second of burst, then refills at the rate', () => {
    const b = new TokenBuckets();
    const t0 = 1_000_000;
    expect([1, 2, 3, 4].map(() => b.take('a', 3, t0))).toEqual([true, true, true, false]);
    expect(b.take('a', 3, t0 + 333)).toBe(false);
    expect(b.take('a', 3, t0 + 334)).toBe(true);
    expect(b.take('b', 3, t0)).toBe(true);
    expect(b.take('c', 0, t0)).toBe(false);
  });
  it('gives a token back', () => {
    const b = new TokenBuckets();
    expect(b.take('a', 1, 0)).toBe(true);
    b.refund('a');
    expect(b.take('a', 1, 0)).toBe(true);
  });
});

describe('malicious keywords', () => {
  it('matches whole words (type 1) or anywhere (type 2), case-insensitively', () => {
    const m = new KeywordMatcher([
      { word: 'casino', type: 1 },
      { word: 'xxx', type: 2 },
      { word: 'a.b', type: 1 },
    ]);
    expect(m.find('Best CASINO bonus')).toBe('CASINO');
    expect(m.find('casinos')).toBeNull();
    expect(m.find('abcxxxdef')).toBe('xxx');
    expect(m.find('aXb')).toBeNull();
    expect(new KeywordMatcher([]).find('anything')).toBeNull();
  });
});

describe('OTP', () => {
  it('generates codes of the length from the generator alphabet', () => {
    expect(generateOtpCode(2, 6)).toMatch(/^\d{6}$/);
    expect(generateOtpCode(1, 8)).toMatch(/^[A-HJ-NP-Z2-9]{8}$/);
    expect(generateOtpCode(3, 4)).toMatch(/^[A-HJ-NP-Z]{4}$/);
  });
  it('hashes codes per stream and destination, case-insensitively', () => {
    const h = otpCodeHash('s', '1', '+1', 'abc12');
    expect(sameHash(h, otpCodeHash('s', '1', '+1', 'ABC12'))).toBe(true);
    expect(sameHash(h, otpCodeHash('s', '2', '+1', 'ABC12'))).toBe(false);
    expect(sameHash(h, otpCodeHash('t', '1', '+1', 'ABC12'))).toBe(false);
  });
  it('renders the message', () => {
    expect(renderOtpMessage('Code {{code}}, again {{code}}', '123')).toBe('Code 123, again 123');
  });
});

describe('stream params', () => {
  it('keeps OTP params to OTP streams and provider params to their types', () => {
    expect(parseStreamParams(1, { ttl: 60 }).violations).toHaveLength(1);
    expect(parseStreamParams(3, { ttl: '60', code_length: 6 }).pub).toEqual({ ttl: 60, code_length: 6 });
    expect(parseStreamParams(5, { auth_token: 'x', business_id: '12345', phone_number: '67890' })).toMatchObject({ secret: { auth_token: 'x' }, pub: { business_id: '12345', phone_number: '67890' }, violations: [] });
    expect(parseStreamParams(7, { business_id: '12345' }).violations).toHaveLength(1);
    expect(parseStreamParams(3, { cool_down_time: 61 }).violations).toHaveLength(1);
  });
  it('derives the status from the provider settings (spec 4)', () => {
    expect(statusAfterConfig(5, {}, {}, null)).toBe(StreamStatus.Draft);
    expect(statusAfterConfig(5, { business_id: '1', phone_number: '2' }, { auth_token: 't' }, StreamStatus.Draft)).toBe(StreamStatus.Ready);
    expect(statusAfterConfig(7, {}, { auth_token: 't' }, StreamStatus.Restricted)).toBe(StreamStatus.Restricted);
    expect(statusAfterConfig(1, {}, {}, StreamStatus.Disabled)).toBe(StreamStatus.Disabled);
  });
});

describe('secrets', () => {
  it('seals and opens, and refuses a tampered box', () => {
    const box = new SecretBox('0123456789abcdef');
    const sealed = box.seal('hello');
    expect(sealed).not.toContain('hello');
    expect(box.open(sealed)).toBe('hello');
    const tampered = `v1:${Buffer.from(Buffer.from(sealed.slice(3), 'base64').map((b, i) => (i === 30 ? b ^ 1 : b))).toString('base64')}`;
    expect(() => box.open(tampered)).toThrow();
    expect(() => new SecretBox('short')).toThrow();
  });
  it('makes tokens of the documented shape and masks secrets', () => {
    expect(newStreamToken()).toMatch(/^sbs_[A-Za-z0-9_-]{32}$/);
    expect(maskSecret('EAAGood-WhatsApp-token')).toBe('EAAG…oken');
    expect(maskSecret(null)).toBeNull();
  });
});
