/**
 * IANA time zones by the runtime's ICU, once for every service: whether a name is a zone, and a zone's offset from UTC
 * at an instant. Campaigns' sending hours (spec 3 `activityTime`) and stats' hour and day buckets (docs/decisions/0218)
 * both read zones through these, so a zone is valid, and a wall clock falls in an hour, the same way in both.
 */

/** The longest zone name taken (IANA's longest is about 30 characters). */
const MAX_ZONE_LENGTH = 64;

/** Per zone, Intl's local calendar fields (h23: midnight is hour 0, never 24; the era for years before 1). */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric', era: 'short' });
    formatters.set(zone, f);
  }
  return f;
}

/** Whether the value names a time zone the runtime knows ("Europe/Berlin", "Asia/Kolkata", "UTC"). */
export function isTimeZone(zone: unknown): zone is string {
  if (typeof zone !== 'string' || zone.length === 0 || zone.length > MAX_ZONE_LENGTH) return false;
  try {
    formatterOf(zone);
    return true;
  } catch {
    return false;
  }
}

/**
 * The zone's offset from UTC (ms, whole seconds; east positive) at an instant (ms since the epoch; its own
 * milliseconds are dropped). Throws a RangeError for a zone the runtime does not know (check with isTimeZone).
 */
export function zoneOffsetAt(zone: string, ms: number): number {
  const whole = Math.floor(ms / 1000) * 1000;
  let year = 0;
  let month = 0;
  let day = 0;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let bc = false;
  for (const p of formatterOf(zone).formatToParts(whole)) {
    switch (p.type) {
      case 'year':
        year = Number(p.value);
        break;
      case 'month':
        month = Number(p.value);
        break;
      case 'day':
        day = Number(p.value);
        break;
      case 'hour':
        hour = Number(p.value);
        break;
      case 'minute':
        minute = Number(p.value);
        break;
      case 'second':
        second = Number(p.value);
        break;
      case 'era':
        bc = p.value === 'BC' || p.value === 'B';
        break;
      default:
    }
  }
  // setUTCFullYear, not Date.UTC: Date.UTC maps years 0 to 99 to 1900 to 1999
  const d = new Date(0);
  d.setUTCFullYear(bc ? 1 - year : year, month - 1, day);
  d.setUTCHours(hour, minute, second, 0);
  return d.getTime() - whole;
}
