import type { Campaign } from '../types';

/**
 * The "waiting for sending hours" line of a sending campaign (docs/decisions/0186): the instant the server says its
 * next waiting recipient is due, shown in the campaign's zone (modes local and selected: every recipient shares it),
 * in mode recipient in that next recipient's own zone (`waitingZone`), else in the viewer's. Null when nothing waits for the hours.
 */
export function waitingFor(c: Pick<Campaign, 'waitingUntil' | 'waitingZone' | 'activityTime'>, locale: string): { at: string; zone: string | null; recipient: boolean } | null {
  if (!c.waitingUntil) return null;
  const t = new Date(c.waitingUntil);
  if (Number.isNaN(t.getTime())) return null;
  const a = c.activityTime;
  const recipient = !!a && a.timezone_mode === 'recipient' && !!c.waitingZone;
  const zone = recipient ? c.waitingZone! : a && a.timezone_mode !== 'recipient' && a.timezone ? a.timezone : null;
  let at: string;
  try {
    at = new Intl.DateTimeFormat(locale, { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', ...(zone ? { timeZone: zone } : {}) }).format(t);
  } catch {
    at = new Intl.DateTimeFormat(locale, { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'UTC' }).format(t);
    return { at, zone: 'UTC', recipient: false };
  }
  return { at, zone, recipient };
}
