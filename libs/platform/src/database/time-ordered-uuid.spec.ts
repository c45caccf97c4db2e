import { timeOrderedUuid } from './time-ordered-uuid';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('timeOrderedUuid (docs/decisions/0155)', () => {
  it('is a version 7 uuid whose first 48 bits are the time in ms', () => {
    const at = Date.parse('2026-11-27T23:40:00.123Z');
    const u = timeOrderedUuid(at + 10_000_000);
    expect(u).toMatch(V7);
    expect(parseInt(u.replace(/-/g, '').slice(0, 12), 16)).toBe(at + 10_000_000);
  });

  it('ascends over many calls within one ms, borrowing the next ms when the ms runs out, and never repeats', () => {
    const at = Date.now() + 20_000_000;
    const us = Array.from({ length: 10_000 }, () => timeOrderedUuid(at));
    expect(new Set(us).size).toBe(us.length);
    expect(us.every((u, i) => u.match(V7) && (i === 0 || us[i - 1] < u))).toBe(true);
    // 10,000 in one ms cannot fit 12 bits of counter: the later ones carry later times, still ascending
    expect(parseInt(us[us.length - 1].replace(/-/g, '').slice(0, 12), 16)).toBeGreaterThan(at);
  });

  it('keeps ascending when the clock steps back', () => {
    const at = Date.now() + 30_000_000;
    const a = timeOrderedUuid(at);
    const b = timeOrderedUuid(at - 5_000);
    expect(a < b).toBe(true);
  });

  it('differs in its random bits between calls of the same ms', () => {
    const at = Date.now() + 40_000_000;
    const [a, b] = [timeOrderedUuid(at), timeOrderedUuid(at)];
    expect(a.slice(19)).not.toBe(b.slice(19));
  });
});
