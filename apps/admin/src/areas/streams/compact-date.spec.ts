import { describe, expect, it } from '@jest/globals';
import { compactDate } from './compact-date';

describe('a compact date for the stream’s Messages tab (walkthrough 15)', () => {
  const now = new Date('2026-11-28T16:00:00Z');
  it('leaves the current year out and keeps day, month and time', () => {
    expect(compactDate('2026-11-28T14:05:00Z', 'en-GB', now, 'UTC')).toBe('28 Nov, 14:05');
    expect(compactDate('2026-11-28T14:05:00Z', 'ru-RU', now, 'UTC')).toBe('28 нояб., 14:05');
  });
  it('writes the year of another year, and a dash for none', () => {
    expect(compactDate('2025-12-31T23:59:00Z', 'en-GB', now, 'UTC')).toBe('31 Dec 2025, 23:59');
    expect(compactDate(null, 'en-GB', now)).toBe('—');
  });
});
