import CampaignRoundedIcon from '@mui/icons-material/CampaignRounded';
import ForumRoundedIcon from '@mui/icons-material/ForumRounded';
import PasswordRoundedIcon from '@mui/icons-material/PasswordRounded';
import ReceiptLongRoundedIcon from '@mui/icons-material/ReceiptLongRounded';
import TelegramIcon from '@mui/icons-material/Telegram';
import WhatsAppIcon from '@mui/icons-material/WhatsApp';
import { Box } from '@mui/material';
import type { ReactNode } from 'react';
import { useTranslate } from 'react-admin';
import { APPROVAL_KEY, STATUS_KEY, StreamStatus, TYPE_KEY } from './constants';
import { StatusChip, type Tone } from '../../ui/StatusChip';

/** The look of each stream type: an icon and a colour pair for its tile. */
export const TYPE_LOOK: Record<number, { icon: ReactNode; fg: string; bg: string }> = {
  1: { icon: <CampaignRoundedIcon fontSize="small" />, fg: '#4f46e5', bg: '#eef2ff' },
  2: { icon: <ReceiptLongRoundedIcon fontSize="small" />, fg: '#0e7490', bg: '#ecfeff' },
  3: { icon: <PasswordRoundedIcon fontSize="small" />, fg: '#b45309', bg: '#fffbeb' },
  4: { icon: <ForumRoundedIcon fontSize="small" />, fg: '#7c3aed', bg: '#f5f3ff' },
  5: { icon: <WhatsAppIcon fontSize="small" />, fg: '#15803d', bg: '#f0fdf4' },
  7: { icon: <TelegramIcon fontSize="small" />, fg: '#0284c7', bg: '#f0f9ff' },
  8: { icon: <TelegramIcon fontSize="small" />, fg: '#334155', bg: '#f1f5f9' },
};

/** A rounded tile with the type's icon. */
export const TypeTile = ({ type, size = 36 }: { type: number; size?: number }) => {
  const look = TYPE_LOOK[type] ?? TYPE_LOOK[1];
  return (
    <Box sx={{ width: size, height: size, borderRadius: `${Math.round(size / 3.6)}px`, display: 'grid', placeItems: 'center', bgcolor: look.bg, color: look.fg, flexShrink: 0, '& svg': { fontSize: size * 0.52 } }}>
      {look.icon}
    </Box>
  );
};

export const useTypeLabel = () => {
  const translate = useTranslate();
  return (type: number) => translate(`streams.types.${TYPE_KEY[type] ?? 'unknown'}.title`, { _: String(type) });
};

const STATUS_TONE: Record<number, Tone> = { [-10]: 'danger', [-1]: 'neutral', 0: 'success', 1: 'info', 2: 'warning' };

/** Spec 4 stream status as a chip; "sending" pulses. */
export const StreamStatusChip = ({ status }: { status: number }) => {
  const translate = useTranslate();
  return (
    <StatusChip tone={STATUS_TONE[status] ?? 'neutral'} pulse={status === StreamStatus.Sending} testId="stream-status">
      {translate(`streams.status.${STATUS_KEY[status] ?? 'unknown'}`, { _: String(status) })}
    </StatusChip>
  );
};

/** Spec 9 status colours: APPROVED success, PENDING secondary, REJECTED danger. */
const APPROVAL_TONE: Record<number, Tone> = { 0: 'secondary', 1: 'success', 2: 'danger' };

export const ApprovalChip = ({ approved }: { approved: number }) => {
  const translate = useTranslate();
  return (
    <StatusChip tone={APPROVAL_TONE[approved] ?? 'neutral'} testId="sender-approval">
      {translate(`streams.approval.${APPROVAL_KEY[approved] ?? 'pending'}`)}
    </StatusChip>
  );
};

export const MESSAGE_TONE: Record<string, Tone> = {
  accepted: 'neutral',
  sent: 'info',
  delivered: 'success',
  sent_failed: 'danger',
  undelivered: 'warning',
  no_routes: 'danger',
  rejected: 'danger',
};

export const MessageStatusChip = ({ status, testId }: { status: string; testId?: string }) => {
  const translate = useTranslate();
  return (
    <StatusChip tone={MESSAGE_TONE[status] ?? 'neutral'} pulse={status === 'accepted' || status === 'sent'} testId={testId}>
      {translate(`streams.messageStatus.${status}`, { _: status })}
    </StatusChip>
  );
};

/** Statuses that end a message without delivery: each shows its reason next to it. */
export const FAILED_STATUSES = new Set(['sent_failed', 'undelivered', 'no_routes', 'rejected']);

/** Why a message failed, as the carrier or the platform said it; "no reason given" when neither did. */
export const FailureReason = ({ status, error, testId }: { status: string; error: string | null | undefined; testId?: string }) => {
  const translate = useTranslate();
  if (!FAILED_STATUSES.has(status)) return null;
  return (
    <Box component="span" sx={{ display: 'block', fontSize: 12, color: 'error.main', mt: 0.25, wordBreak: 'break-word' }} data-testid={testId}>
      {error ? translate('streams.messages.reason', { reason: error }) : translate('streams.messages.noReason')}
    </Box>
  );
};

export const mono = { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace' } as const;

/** Dates in the console's language. */
export const useDateFormat = () => {
  const translate = useTranslate();
  const locale = translate('streams.locale');
  return (iso: string | null | undefined, withTime = true) =>
    iso ? new Date(iso).toLocaleString(locale, withTime ? { dateStyle: 'medium', timeStyle: 'short' } : { dateStyle: 'medium' }) : '—';
};

/** Money with the account currency (EUR shows €, USD shows $; spec 1). */
export const useMoney = () => {
  const translate = useTranslate();
  const locale = translate('streams.locale');
  return (amount: number, currency: string | null | undefined) => {
    if (!currency) return amount.toLocaleString(locale, { maximumFractionDigits: 4 });
    try {
      return amount.toLocaleString(locale, { style: 'currency', currency, minimumFractionDigits: 2, maximumFractionDigits: 4 });
    } catch (_e) {
      return `${amount.toFixed(2)} ${currency}`;
    }
  };
};

/** Spec 9: 10 000 and up shows K, a million M, a billion B. */
export function abbreviate(n: number, locale: string): string {
  const f = (v: number, s: string) => `${v.toLocaleString(locale, { maximumFractionDigits: 1 })}${s}`;
  if (n >= 1e9) return f(n / 1e9, 'B');
  if (n >= 1e6) return f(n / 1e6, 'M');
  if (n >= 1e4) return f(n / 1e3, 'K');
  return n.toLocaleString(locale);
}
