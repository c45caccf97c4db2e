import type { ConversationDto, ConversationStatus } from './types';

/** Initials for an avatar: the first letters of the first two words, or the last two digits of a phone. */
export function initials(name: string | null | undefined, phone?: string | null): string {
  const words = (name ?? '').trim().split(/\s+/).filter(Boolean);
  if (words.length) return words.slice(0, 2).map((w) => [...w][0]?.toUpperCase() ?? '').join('');
  return (phone ?? '').replace(/\D/g, '').slice(-2) || '?';
}

const PALETTE = ['#4f46e5', '#0891b2', '#059669', '#d97706', '#db2777', '#7c3aed', '#2563eb', '#dc2626'];
export function avatarColour(seed: string): string {
  let h = 0;
  for (const ch of seed) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return PALETTE[h % PALETTE.length];
}

/** The name of a conversation's contact, or its phone (masked without INBOX_SHOW_PHONE). */
export function contactTitle(c: ConversationDto, showPhone: boolean): string {
  return c.contact_name?.trim() || phoneText(c.contact_phone_number, showPhone) || '—';
}

export function phoneText(phone: string | null | undefined, showPhone: boolean): string {
  if (!phone) return '';
  if (showPhone) return phone;
  return phone.length > 4 ? `${phone.slice(0, 3)}${'•'.repeat(Math.max(3, phone.length - 5))}${phone.slice(-2)}` : '••••';
}

/** A short time for the list: the time today, the weekday this week, else the date. */
export function shortTime(iso: string | null | undefined, locale: string, now = new Date()): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  if (d.toDateString() === now.toDateString()) return d.toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit' });
  if (now.getTime() - d.getTime() < 6 * 86_400_000) return d.toLocaleDateString(locale, { weekday: 'short' });
  return d.toLocaleDateString(locale, { day: 'numeric', month: 'short' });
}

export const dayKey = (iso: string) => {
  const d = new Date(iso);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
};

export function dayLabel(day: string, locale: string, today: string, yesterday: string, now = new Date()): string {
  if (day === dayKey(now.toISOString())) return today;
  if (day === dayKey(new Date(now.getTime() - 86_400_000).toISOString())) return yesterday;
  const [y, m, d] = day.split('-').map(Number);
  return new Date(y, m - 1, d).toLocaleDateString(locale, { weekday: 'long', day: 'numeric', month: 'long', ...(y !== now.getFullYear() ? { year: 'numeric' } : {}) });
}

export const STATUS_COLOUR: Record<ConversationStatus, string> = { active: '#16a34a', unanswered: '#d97706', closed: '#98a2b3' };

/** The channel of a stream type, for its icon and label. */
export function channelOf(streamType: number | string | null | undefined, channel?: string | null): 'whatsapp' | 'telegram' | 'sms' {
  const t = `${channel ?? ''} ${streamType ?? ''}`.toLowerCase();
  if (t.includes('whatsapp') || streamType === 5 || t.trim() === '5') return 'whatsapp';
  if (t.includes('telegram') || streamType === 7 || streamType === 8) return 'telegram';
  return 'sms';
}

/**
 * A filter's total as the tab shows it (docs/decisions/0058, 0068). A total the server stopped counting is exactly one
 * past its cap: shown `1000+`. Any other figure is exact, also above the cap (the whole space's totals come from
 * counters: 1205 is shown as 1205).
 */
export function totalText(n: number | undefined, cap: number): string {
  if (n === undefined) return '';
  return n === cap + 1 ? `${cap}+` : String(n);
}
