import { isTimeZone, zoneOffsetAt } from './zones';

const H = 3_600_000;
const M = 60_000;
const at = (iso: string): number => Date.parse(iso);

describe('time zones', () => {
  it('takes the zone names the runtime knows and nothing else', () => {
    for (const z of ['UTC', 'Europe/Berlin', 'Asia/Kolkata', 'America/Argentina/Buenos_Aires', 'Pacific/Chatham']) expect(isTimeZone(z)).toBe(true);
    for (const z of ['', 'Mars/Olympus', 'Europe/Berlin ', '../etc/passwd', 'x'.repeat(65), null, undefined, 5, {}]) expect(isTimeZone(z)).toBe(false);
  });

  it('gives half-hour and quarter-hour offsets and both sides of a DST change', () => {
    expect(zoneOffsetAt('Asia/Kolkata', at('2026-06-01T00:00:00Z'))).toBe(5.5 * H);
    expect(zoneOffsetAt('Asia/Kathmandu', at('2026-06-01T00:00:00Z'))).toBe(5 * H + 45 * M);
    expect(zoneOffsetAt('America/St_Johns', at('2026-01-15T00:00:00Z'))).toBe(-3.5 * H);
    // New York springs forward at 07:00 UTC on 8 March 2026
    expect(zoneOffsetAt('America/New_York', at('2026-03-08T06:59:59Z'))).toBe(-5 * H);
    expect(zoneOffsetAt('America/New_York', at('2026-03-08T07:00:00Z'))).toBe(-4 * H);
    // Lord Howe's DST is half an hour: +10:30 in winter, +11:00 in summer
    expect(zoneOffsetAt('Australia/Lord_Howe', at('2026-07-01T00:00:00Z'))).toBe(10.5 * H);
    expect(zoneOffsetAt('Australia/Lord_Howe', at('2026-01-01T00:00:00Z'))).toBe(11 * H);
  });

  it('drops the instant’s milliseconds, and reads years before 100 and before year 1 as they are', () => {
    expect(zoneOffsetAt('Asia/Tokyo', at('2026-06-01T00:00:00.999Z'))).toBe(9 * H);
    const year = (y: number): number => new Date(0).setUTCFullYear(y, 5, 1);
    // before 1888 Tokyo kept its local mean time, +09:18:59
    const lmt = 9 * H + 18 * M + 59_000;
    expect(zoneOffsetAt('Asia/Tokyo', year(50))).toBe(lmt);
    expect(zoneOffsetAt('Asia/Tokyo', year(0))).toBe(lmt); // 1 BC
  });

  it('throws for a zone the runtime does not know', () => {
    expect(() => zoneOffsetAt('Mars/Olympus', 0)).toThrow(RangeError);
  });
});
