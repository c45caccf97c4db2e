import { isOpen, nextAllowed, unreachableTimezones, WindowCache, zonedTime, zoneFor, type SendingWindow } from './time-window';

const at = (iso: string) => Date.parse(iso);
const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

const workdays: SendingWindow = { start: '09:00', end: '18:00', days: [1, 2, 3, 4, 5], mode: 'recipient', timezone: null, dateStart: null, dateEnd: null };

describe('sending hours with a frozen clock', () => {
  it('opens at 09:00 local on both sides of a DST change (Europe/Berlin, 29 March 2026)', () => {
    // Friday 27 March 2026, 18:30 in Berlin (UTC+1): closed until Monday 30 March 09:00, which is UTC+2 by then
    expect(iso(nextAllowed(at('2026-03-27T17:30:00Z'), 'Europe/Berlin', workdays))).toBe('2026-03-30T07:00:00.000Z');
    // the Friday before, 10:00 local (UTC+1) is open
    expect(isOpen(at('2026-03-27T09:00:00Z'), 'Europe/Berlin', workdays)).toBe(true);
    // Monday 30 March 08:30 UTC is 10:30 local (UTC+2): open; 16:30 UTC is 18:30 local: closed until Tuesday 07:00 UTC
    expect(isOpen(at('2026-03-30T08:30:00Z'), 'Europe/Berlin', workdays)).toBe(true);
    expect(iso(nextAllowed(at('2026-03-30T16:30:00Z'), 'Europe/Berlin', workdays))).toBe('2026-03-31T07:00:00.000Z');
  });

  it('follows the autumn change in New York (1 November 2026) and a window starting inside the spring gap', () => {
    const everyDay: SendingWindow = { ...workdays, days: null };
    // Saturday 31 October 23:00 EDT (UTC-4) -> Sunday 1 November 09:00 EST (UTC-5)
    expect(iso(nextAllowed(at('2026-11-01T03:00:00Z'), 'America/New_York', everyDay))).toBe('2026-11-01T14:00:00.000Z');
    // 8 March 2026: 02:00 EST jumps to 03:00 EDT; a 02:30 start opens at the jump, 07:00 UTC
    const gap: SendingWindow = { ...everyDay, start: '02:30', end: '05:00' };
    expect(iso(nextAllowed(at('2026-03-08T05:00:00Z'), 'America/New_York', gap))).toBe('2026-03-08T07:00:00.000Z');
    // 1 November 2026: 01:30 happens twice; the window opens at the first one (EDT, 05:30 UTC)
    expect(iso(zonedTime(2026, 11, 1, 1, 30, 'America/New_York'))).toBe('2026-11-01T05:30:00.000Z');
  });

  it('reads the window in +05:30 (Asia/Kolkata) and +13:00 (Pacific/Tongatapu)', () => {
    // 03:00 UTC on Wednesday 4 March 2026 is 08:30 in Kolkata: opens at 09:00 local = 03:30 UTC
    expect(iso(nextAllowed(at('2026-03-04T03:00:00Z'), 'Asia/Kolkata', workdays))).toBe('2026-03-04T03:30:00.000Z');
    expect(isOpen(at('2026-03-04T12:29:00Z'), 'Asia/Kolkata', workdays)).toBe(true);
    expect(isOpen(at('2026-03-04T12:30:00Z'), 'Asia/Kolkata', workdays)).toBe(false);
    // 20:00 UTC on Thursday 5 March is 09:00 on Friday 6 March in Tonga (+13:00): open already on "Thursday" UTC
    expect(isOpen(at('2026-03-05T20:00:00Z'), 'Pacific/Tongatapu', workdays)).toBe(true);
    // 05:00 UTC Friday is 18:00 Friday in Tonga: next is Monday 9 March 09:00 local = Sunday 8 March 20:00 UTC
    expect(iso(nextAllowed(at('2026-03-06T05:00:00Z'), 'Pacific/Tongatapu', workdays))).toBe('2026-03-08T20:00:00.000Z');
  });

  it('runs an overnight window across midnight', () => {
    const night: SendingWindow = { ...workdays, start: '22:00', end: '06:00', days: null };
    expect(isOpen(at('2026-03-04T23:30:00Z'), 'UTC', night)).toBe(true);
    expect(isOpen(at('2026-03-05T05:59:00Z'), 'UTC', night)).toBe(true);
    expect(iso(nextAllowed(at('2026-03-05T06:00:00Z'), 'UTC', night))).toBe('2026-03-05T22:00:00.000Z');
  });

  it('keeps to the start and end dates, and never opens past the end', () => {
    const dated: SendingWindow = { ...workdays, days: null, dateStart: '2026-03-10T00:00:00Z', dateEnd: '2026-03-12T12:00:00Z' };
    expect(iso(nextAllowed(at('2026-03-01T10:00:00Z'), 'UTC', dated))).toBe('2026-03-10T09:00:00.000Z');
    expect(iso(nextAllowed(at('2026-03-12T11:00:00Z'), 'UTC', dated))).toBe('2026-03-12T11:00:00.000Z');
    expect(nextAllowed(at('2026-03-12T12:00:00Z'), 'UTC', dated)).toBeNull();
  });

  it('chooses the zone by mode: the recipient’s, the account’s, or the selected one', () => {
    expect(zoneFor(workdays, 'Asia/Kolkata', 'Europe/Berlin')).toBe('Asia/Kolkata');
    expect(zoneFor(workdays, null, 'Europe/Berlin')).toBe('Europe/Berlin');
    expect(zoneFor(workdays, 'Not/AZone', 'Europe/Berlin')).toBe('Europe/Berlin');
    expect(zoneFor({ ...workdays, mode: 'local' }, 'Asia/Kolkata', 'Europe/Berlin')).toBe('Europe/Berlin');
    expect(zoneFor({ ...workdays, mode: 'selected', timezone: 'Pacific/Tongatapu' }, 'Asia/Kolkata', 'Europe/Berlin')).toBe('Pacific/Tongatapu');
  });

  it('reports the zones a campaign ending today cannot reach (get_unreachable_timezones)', () => {
    // ends Wednesday 4 March 2026 10:00 UTC: already past 18:00 in Tonga, before 09:00 in New York, open in London
    const w: SendingWindow = { ...workdays, dateEnd: '2026-03-04T10:00:00Z' };
    const audience = [
      { timezone: 'Europe/London', count: 10 },
      { timezone: 'America/New_York', count: 7 },
      { timezone: 'Pacific/Tongatapu', count: 3 },
      { timezone: 'Asia/Kolkata', count: 5 },
    ];
    expect(unreachableTimezones(at('2026-03-04T08:00:00Z'), w, audience, 'Europe/London')).toEqual([
      { timezone: 'America/New_York', count: 7 },
      { timezone: 'Pacific/Tongatapu', count: 3 },
    ]);
  });

  it('caches a zone’s answer only while it holds', () => {
    const cache = new WindowCache(workdays);
    const open = at('2026-03-04T10:00:00Z');
    expect(cache.next(open, 'UTC')).toBe(open);
    expect(cache.next(at('2026-03-04T17:59:00Z'), 'UTC')).toBe(at('2026-03-04T17:59:00Z'));
    expect(iso(cache.next(at('2026-03-04T18:00:00Z'), 'UTC'))).toBe('2026-03-05T09:00:00.000Z');
  });
});
