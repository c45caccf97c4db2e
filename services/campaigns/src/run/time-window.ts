/**
 * Sending hours (spec 3 `activityTime`, spec 9 time zone modes; docs/decisions/0032-campaign-runner.md).
 *
 * A campaign sends on its working days between its working hours, in the recipient's own time zone (`recipient`),
 * the account's (`local`) or one chosen zone (`selected`), and only between its start and end dates. All of it is
 * computed from a `now` the caller passes (tests freeze it), with the IANA rules of the runtime's ICU: DST changes and
 * zones such as +05:30 (Asia/Kolkata) or +13:00 (Pacific/Tongatapu) need nothing special. A window whose end is
 * before its start runs overnight (22:00 to 06:00 belongs to the day it starts). A window start that falls in a DST
 * gap (02:30 on a spring-forward night) opens at the first instant after the gap.
 */
import { isTimeZone, zoneOffsetAt } from '@switchboard/platform';

export type TimezoneMode = 'recipient' | 'local' | 'selected';

export interface SendingWindow {
  /** "HH:MM", local time of the zone; null with `end`: all day. */
  start: string | null;
  end: string | null;
  /** ISO weekdays (1 Monday ... 7 Sunday) allowed; empty or null: every day. */
  days: number[] | null;
  mode: TimezoneMode;
  /** The chosen zone (mode `selected`). */
  timezone: string | null;
  /** Not before / not after these instants (ISO); null: open. */
  dateStart: string | null;
  dateEnd: string | null;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric', weekday: 'short' });
    formatters.set(zone, f);
  }
  return f;
}

const WEEKDAY: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };

interface Local {
  y: number;
  m: number;
  d: number;
  h: number;
  mi: number;
  s: number;
  wd: number;
}

/** The wall clock of `zone` at instant `t` (ms). */
export function localParts(t: number, zone: string): Local {
  const out: Local = { y: 0, m: 0, d: 0, h: 0, mi: 0, s: 0, wd: 0 };
  for (const p of formatter(zone).formatToParts(new Date(t))) {
    switch (p.type) {
      case 'year':
        out.y = Number(p.value);
        break;
      case 'month':
        out.m = Number(p.value);
        break;
      case 'day':
        out.d = Number(p.value);
        break;
      case 'hour':
        out.h = Number(p.value) % 24;
        break;
      case 'minute':
        out.mi = Number(p.value);
        break;
      case 'second':
        out.s = Number(p.value);
        break;
      case 'weekday':
        out.wd = WEEKDAY[p.value] ?? 0;
        break;
    }
  }
  return out;
}

/**
 * The instant at which `zone`'s wall clock shows the given local time. In a DST gap (a time that does not exist) the
 * first instant after the gap; in a DST overlap (a time that exists twice) the earlier one.
 */
export function zonedTime(y: number, m: number, d: number, h: number, mi: number, zone: string): number {
  const wall = Date.UTC(y, m - 1, d, h, mi);
  const o1 = zoneOffsetAt(zone, wall);
  const o2 = zoneOffsetAt(zone, wall - o1);
  // candidates: the earlier of the two offsets that reproduce the wall time (overlap), else the gap's end
  const candidates = [wall - Math.max(o1, o2), wall - Math.min(o1, o2)].filter((c) => zoneOffsetAt(zone, c) === wall - c);
  if (candidates.length) return Math.min(...candidates);
  // a gap: the transition instant, found between the two offsets' readings
  let lo = wall - Math.max(o1, o2);
  let hi = wall - Math.min(o1, o2);
  if (lo > hi) [lo, hi] = [hi, lo];
  while (hi - lo > 1000) {
    const mid = Math.floor((lo + hi) / 2);
    if (zoneOffsetAt(zone, mid) === zoneOffsetAt(zone, lo)) lo = mid;
    else hi = mid;
  }
  return hi;
}

const hm = (s: string): [number, number] => {
  const m = /^(\d{1,2}):(\d{2})$/.exec(s.trim());
  if (!m) throw new Error(`a time of day is HH:MM, not ${s}`);
  const h = Number(m[1]);
  const mi = Number(m[2]);
  if (h > 24 || mi > 59 || (h === 24 && mi !== 0)) throw new Error(`a time of day is HH:MM, not ${s}`);
  return [h, mi];
};

/** The zone the window is read in for a recipient: its own (recipient mode, when known and valid), the account's, or the chosen one. */
export function zoneFor(w: SendingWindow, recipientZone: string | null, accountZone: string): string {
  if (w.mode === 'selected' && isTimeZone(w.timezone)) return w.timezone;
  if (w.mode === 'recipient' && isTimeZone(recipientZone)) return recipientZone;
  return isTimeZone(accountZone) ? accountZone : 'UTC';
}

/** Adds `n` days to a calendar date. */
function addDays(y: number, m: number, d: number, n: number): [number, number, number] {
  const t = new Date(Date.UTC(y, m - 1, d + n));
  return [t.getUTCFullYear(), t.getUTCMonth() + 1, t.getUTCDate()];
}

/**
 * The first instant at or after `now` at which the window is open in `zone`, or null when it never opens again
 * (past `dateEnd`, or no allowed day).
 */
export function nextAllowed(now: number, zone: string, w: SendingWindow): number | null {
  return nextWindow(now, zone, w)?.at ?? null;
}

/** The first instant at or after `now` the window is open (`at`) and when that opening closes (`close`); null: never. */
export function nextWindow(now: number, zone: string, w: SendingWindow): { at: number; close: number } | null {
  const startAt = w.dateStart ? Date.parse(w.dateStart) : null;
  const endAt = w.dateEnd ? Date.parse(w.dateEnd) : null;
  const from = startAt !== null && startAt > now ? startAt : now;
  if (endAt !== null && from >= endAt) return null;
  const days = w.days && w.days.length ? new Set(w.days) : null;
  const allDay = !w.start && !w.end;
  const [sh, sm] = w.start ? hm(w.start) : [0, 0];
  const [eh, em] = w.end ? hm(w.end) : [24, 0];
  const overnight = !allDay && eh * 60 + em <= sh * 60 + sm;
  const l = localParts(from, zone);
  // the window of the day before (an overnight window still open), today, and the next week and a bit
  for (let k = -1; k <= 8; k++) {
    const [y, m, d] = addDays(l.y, l.m, l.d, k);
    const wd = ((new Date(Date.UTC(y, m - 1, d)).getUTCDay() + 6) % 7) + 1;
    if (days && !days.has(wd)) continue;
    const open = zonedTime(y, m, d, sh, sm, zone);
    const [ey, emo, ed] = overnight || (eh === 24 && em === 0) ? addDays(y, m, d, 1) : [y, m, d];
    const close = zonedTime(ey, emo, ed, eh === 24 ? 0 : eh, eh === 24 ? 0 : em, zone);
    if (from < close) {
      const at = Math.max(from, open);
      if (endAt !== null && at >= endAt) return null;
      return { at, close: endAt !== null ? Math.min(close, endAt) : close };
    }
  }
  // no allowed day in the next week: the window never opens
  return null;
}

/** Whether the window is open at `now` in `zone`. */
export function isOpen(now: number, zone: string, w: SendingWindow): boolean {
  return nextAllowed(now, zone, w) === now;
}

/**
 * The zones (of the audience, with their recipient counts) in which the window never opens between `now` and the
 * campaign's end: `get_unreachable_timezones`. Unknown zones count as the account's (mode recipient) and are reported
 * under their own name when the account's zone is unreachable too.
 */
export function unreachableTimezones(now: number, w: SendingWindow, audience: Array<{ timezone: string | null; count: number }>, accountZone: string): Array<{ timezone: string; count: number }> {
  const verdict = new Map<string, boolean>();
  const out = new Map<string, number>();
  for (const { timezone, count } of audience) {
    const zone = zoneFor(w, timezone, accountZone);
    let unreachable = verdict.get(zone);
    if (unreachable === undefined) {
      unreachable = nextAllowed(now, zone, w) === null;
      verdict.set(zone, unreachable);
    }
    if (unreachable) {
      const name = timezone ?? zone;
      out.set(name, (out.get(name) ?? 0) + count);
    }
  }
  return [...out.entries()].map(([timezone, count]) => ({ timezone, count })).sort((a, b) => b.count - a.count || a.timezone.localeCompare(b.timezone));
}

/**
 * Next-allowed instants per zone, reused while they hold: a million recipients share a few hundred zones, and a
 * zone's answer stays right until `now` passes it (then it is `now` itself while the window is open).
 */
export class WindowCache {
  private readonly cache = new Map<string, { at: number | null; close: number; until: number }>();

  constructor(private readonly w: SendingWindow) {}

  /** The instant the recipient may be sent to (now when open), or null: never. */
  next(now: number, zone: string): number | null {
    const hit = this.cache.get(zone);
    if (hit && now < hit.until) return hit.at === null ? null : Math.max(hit.at, now);
    const win = nextWindow(now, zone, this.w);
    // the answer holds until the opening closes (or, for "never", a minute: the dates may be edited)
    this.cache.set(zone, win ? { at: win.at, close: win.close, until: win.close } : { at: null, close: 0, until: now + 60_000 });
    return win ? win.at : null;
  }
}
