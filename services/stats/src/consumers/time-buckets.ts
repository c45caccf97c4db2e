/**
 * An acceptance's hour and day buckets in its account's time zone, computed in node (docs/decisions/0218) as the rollup
 * read computed them in PostgreSQL before: the hour bucket is the instant less its local minutes, seconds and
 * milliseconds (not a truncation in the zone, which would fold the repeated hour of a DST fall-back into one bucket
 * that may start after the message), the day bucket the local date. A zone's offset from UTC is found by Intl once a
 * UTC hour and zone (the offset at the hour's first and last second; an hour holding a change is computed for each
 * instant), so a campaign's acceptances cost a lookup each, not a formatter call.
 */
import { zoneOffsetAt } from '@switchboard/platform';

const HOUR_MS = 3_600_000;

/** Per zone, the UTC hours (their index since the epoch) seen and the offset that holds through each (NaN: it changes within). */
const hourOffsets = new Map<string, Map<number, number>>();
const MAX_HOURS_A_ZONE = 2048;

function offsetOf(zone: string, ms: number): number {
  let hours = hourOffsets.get(zone);
  if (hours === undefined) hourOffsets.set(zone, (hours = new Map()));
  const h = Math.floor(ms / HOUR_MS);
  let off = hours.get(h);
  if (off === undefined) {
    const first = zoneOffsetAt(zone, h * HOUR_MS);
    off = zoneOffsetAt(zone, h * HOUR_MS + HOUR_MS - 1000) === first ? first : NaN;
    if (hours.size >= MAX_HOURS_A_ZONE) hours.clear();
    hours.set(h, off);
  }
  return Number.isNaN(off) ? zoneOffsetAt(zone, ms) : off;
}

/** An acceptance's instant (ISO, ms, Z), its hour bucket's start (the same form) and its local date (YYYY-MM-DD). */
export interface InstantBuckets {
  at: string;
  hour: string;
  day: string;
}

/** An hour bucket's start (ISO, ms, Z) and its local date (YYYY-MM-DD); one object for every instant of the bucket. */
export class HourDay {
  constructor(
    readonly hour: string,
    readonly day: string,
  ) {}
}

/** Per zone, the last bucket asked for: a batch's acceptances mostly share it (one account, one hour). */
const lastBucket = new Map<string, { start: number; value: HourDay }>();

/** The hour bucket and local date of an instant (ms since the epoch) in a zone. */
export function hourDayAt(zone: string, ms: number): HourDay {
  const local = ms + offsetOf(zone, ms);
  const intoHour = ((local % HOUR_MS) + HOUR_MS) % HOUR_MS;
  const start = ms - intoHour;
  const last = lastBucket.get(zone);
  if (last !== undefined && last.start === start) return last.value;
  // the local date is the same through the bucket (a local hour lies in one local date)
  const value = new HourDay(new Date(start).toISOString(), new Date(local).toISOString().slice(0, 10));
  lastBucket.set(zone, { start, value });
  return value;
}

/** The buckets of an instant (ms since the epoch) in a zone, with the instant in the same form. */
export function bucketsAt(zone: string, ms: number): InstantBuckets {
  const b = hourDayAt(zone, ms);
  return { at: new Date(ms).toISOString(), hour: b.hour, day: b.day };
}

/** The decimal number of `len` digits at `at`, or -1 when one is not a digit. */
function digits(t: string, at: number, len: number): number {
  let n = 0;
  for (let i = at; i < at + len; i++) {
    const c = t.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * An acceptance's instant as node reads it exactly as PostgreSQL would (ms since the epoch), or null for a text node
 * leaves to PostgreSQL: only JavaScript's own ISO form (`toISOString`: `YYYY-MM-DDTHH:MM:SS.mmmZ`, years 1000–9999)
 * with every field in its range (a 30 February, a 24:00 or a leap second are PostgreSQL's to read or refuse). Read
 * field by field (a tenth of a parse and a `toISOString` to check it).
 */
export function isoInstant(t: string): number | null {
  if (t.length !== 24 || t.charCodeAt(4) !== 45 || t.charCodeAt(7) !== 45 || t.charCodeAt(10) !== 84 || t.charCodeAt(13) !== 58 || t.charCodeAt(16) !== 58 || t.charCodeAt(19) !== 46 || t.charCodeAt(23) !== 90) {
    return null;
  }
  const y = digits(t, 0, 4);
  const mo = digits(t, 5, 2);
  const d = digits(t, 8, 2);
  const h = digits(t, 11, 2);
  const mi = digits(t, 14, 2);
  const s = digits(t, 17, 2);
  const ms = digits(t, 20, 3);
  if (y < 1000 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59 || ms < 0) return null;
  const leap = mo === 2 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  if (d > DAYS[mo - 1] + (leap ? 1 : 0)) return null;
  return Date.UTC(y, mo - 1, d, h, mi, s, ms);
}
