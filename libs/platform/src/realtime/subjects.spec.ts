import { isValidPattern, isValidSubject, parseRealtimeSubject, subjectMatches } from './subjects';

describe('realtime subjects', () => {
  it.each([
    ['rt.10.campaigns', 'rt.10.campaigns', true],
    ['rt.10.campaigns', 'rt.10.campaigns.5', false],
    ['rt.10.campaigns.>', 'rt.10.campaigns.5', true],
    ['rt.10.campaigns.>', 'rt.10.campaigns.5.stats', true],
    ['rt.10.campaigns.>', 'rt.10.campaigns', false],
    ['rt.*.campaigns', 'rt.11.campaigns', true],
    ['rt.*.campaigns', 'rt.11.streams', false],
    ['rt.*', 'rt.11.campaigns', false],
    ['>', 'rt.11.campaigns', true],
    ['rt.10.>', 'rt.100.campaigns', false],
  ])('%s matches %s: %s', (pattern, subject, expected) => {
    expect(subjectMatches(pattern, subject)).toBe(expected);
  });

  it('refuses empty tokens, whitespace and wildcards where they cannot be', () => {
    expect(isValidSubject('rt.10.campaigns')).toBe(true);
    expect(isValidSubject('rt..campaigns')).toBe(false);
    expect(isValidSubject('rt.10.camp aigns')).toBe(false);
    expect(isValidSubject('rt.*.campaigns')).toBe(false);
    expect(isValidPattern('rt.*.campaigns.>')).toBe(true);
    expect(isValidPattern('rt.>.campaigns')).toBe(false);
    expect(isValidPattern('rt.1*.campaigns')).toBe(false);
  });

  it('reads the account and topic of a realtime subject', () => {
    expect(parseRealtimeSubject('rt.10.campaigns.5')).toEqual({ accountId: '10', topic: 'campaigns' });
    expect(parseRealtimeSubject('other.10.campaigns')).toBeNull();
  });
});
