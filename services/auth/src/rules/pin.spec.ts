import { generatePin, hashPin, judgePin, newPinSalt, pinMatches, resendWait, type PinChallengeState } from './pin';

describe('PIN rules', () => {
  const now = new Date('2026-01-01T12:00:00Z');
  const salt = newPinSalt();
  const challenge = (over: Partial<PinChallengeState> = {}): PinChallengeState => ({
    pinSalt: salt,
    pinHash: hashPin('123456', salt),
    expiresAt: new Date(now.getTime() + 600_000),
    failedAttempts: 0,
    consumedAt: null,
    ...over,
  });

  it('generates 6 digits, leading zeros included, from the whole range', () => {
    const pins = Array.from({ length: 2000 }, () => generatePin());
    expect(pins.every((p) => /^\d{6}$/.test(p))).toBe(true);
    expect(new Set(pins.map((p) => p[0])).size).toBe(10);
    expect(new Set(pins).size).toBeGreaterThan(1990);
  });

  it('stores only a salted hash: the same PIN hashes differently under another salt', () => {
    const h = hashPin('123456', salt);
    expect(h).not.toContain('123456');
    expect(hashPin('123456', newPinSalt())).not.toBe(h);
    expect(pinMatches('123456', salt, h)).toBe(true);
    expect(pinMatches('123457', salt, h)).toBe(false);
  });

  it('accepts the right PIN on an open challenge', () => {
    expect(judgePin(challenge(), '123456', now, 5)).toBe('accepted');
  });

  it('calls a wrong PIN wrong while attempts remain', () => {
    expect(judgePin(challenge({ failedAttempts: 4 }), '000000', now, 5)).toBe('wrong');
  });

  it('rejects a PIN after 5 failures, even the right one', () => {
    expect(judgePin(challenge({ failedAttempts: 5 }), '123456', now, 5)).toBe('exhausted');
  });

  it('rejects a PIN once used', () => {
    expect(judgePin(challenge({ consumedAt: now }), '123456', now, 5)).toBe('used');
  });

  it('rejects a PIN at and after its expiry, accepts it just before', () => {
    const c = challenge({ expiresAt: now });
    expect(judgePin(c, '123456', now, 5)).toBe('expired');
    expect(judgePin(c, '123456', new Date(now.getTime() - 1), 5)).toBe('accepted');
  });

  it('rejects any PIN when none was requested', () => {
    expect(judgePin(null, '123456', now, 5)).toBe('missing');
  });

  it('holds a resend back for 30 s after an open challenge, not after a used one', () => {
    expect(resendWait(null, now, 30)).toBe(0);
    expect(resendWait({ sentAt: new Date(now.getTime() - 10_000), consumedAt: null }, now, 30)).toBe(20);
    expect(resendWait({ sentAt: new Date(now.getTime() - 29_500), consumedAt: null }, now, 30)).toBe(1);
    expect(resendWait({ sentAt: new Date(now.getTime() - 30_000), consumedAt: null }, now, 30)).toBe(0);
    expect(resendWait({ sentAt: new Date(now.getTime() - 10_000), consumedAt: now }, now, 30)).toBe(0);
  });
});
