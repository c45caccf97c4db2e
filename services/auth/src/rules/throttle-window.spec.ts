import { normalizeIp, throttleWait } from './throttle-window';

describe('throttle windows', () => {
  const now = new Date('2026-01-01T12:00:00Z');
  const ago = (s: number) => new Date(now.getTime() - s * 1000);
  const rule = { limit: 3, windowSeconds: 900 };

  it('allows while failures in the window are under the limit', () => {
    expect(throttleWait([], now, rule)).toBe(0);
    expect(throttleWait([ago(10), ago(20)], now, rule)).toBe(0);
  });

  it('refuses at the limit until the limit-th most recent failure leaves the window', () => {
    // the 3rd most recent is 100 s old: it leaves the window in 800 s
    expect(throttleWait([ago(10), ago(50), ago(100)], now, rule)).toBe(800);
  });

  it('ignores failures older than the window', () => {
    expect(throttleWait([ago(10), ago(50), ago(900), ago(1000)], now, rule)).toBe(0);
  });

  it('with more failures than the limit, waits for enough of them to expire', () => {
    expect(throttleWait([ago(100), ago(10), ago(300), ago(50), ago(600)], now, rule)).toBe(800);
  });

  it('rounds the wait up to whole seconds', () => {
    const r = { limit: 1, windowSeconds: 60 };
    expect(throttleWait([new Date(now.getTime() - 59_500)], now, r)).toBe(1);
  });

  it('treats an IPv4-mapped IPv6 address as the IPv4 address', () => {
    expect(normalizeIp('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(normalizeIp('10.1.2.3')).toBe('10.1.2.3');
    expect(normalizeIp('2001:DB8::1')).toBe('2001:db8::1');
    expect(normalizeIp(undefined)).toBeNull();
  });
});
