import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import { z } from 'zod';
import { defineEvent, Topics } from './events';

/**
 * Inbound ownership and opt-out (docs/decisions/0021-inbound-ownership-and-provider-secrets.md).
 *
 * An address that receives messages from outside (a two-way number, a WhatsApp phone number id, a Telegram bot) is
 * claimed by exactly one account in streams; dispatch keeps the owners (`streams.inbound_route.changed`) and delivers
 * an inbound message only to the owner of its address. Opt-out keywords received on a two-way channel are announced by
 * dispatch (`dispatch.contact.opted_out` / `opted_in`) for contacts' blacklist, campaigns and webhooks.
 */
const id = z.string().regex(/^\d+$/, 'a decimal id');

/** Channels whose addresses are claimed. */
export const InboundClaimChannel = { Sms: 'sms', WhatsApp: 'whatsapp', Telegram: 'telegram' } as const;
export type InboundClaimChannelValue = (typeof InboundClaimChannel)[keyof typeof InboundClaimChannel];
const claimChannel = z.enum([InboundClaimChannel.Sms, InboundClaimChannel.WhatsApp, InboundClaimChannel.Telegram]);

/**
 * The one spelling of an inbound address, so that the same number written another way is the same claim:
 * - sms: a number becomes E.164 (`+4915112345678` from `4915112345678`, `004915112345678`, `+49 151 1234 5678`, or
 *   the national `015112345678` when `region` says DE); digits that are no valid number (a short code) stay digits;
 *   an alphanumeric sender is lower-cased (it never receives: operators do not route replies to one).
 * - whatsapp: the phone number id (digits); telegram: the bot's numeric id.
 * Null when there is nothing to claim.
 */
export function inboundAddress(channel: string, raw: string | null | undefined, region?: string | null): string | null {
  if (raw === null || raw === undefined) return null;
  const s = String(raw).trim();
  if (!s) return null;
  if (channel !== InboundClaimChannel.Sms) return s.toLowerCase();
  // parsing a number with its metadata is the dear part of every inbound message: the answers are kept (a pure function)
  const key = region ? `${s}|${region}` : s;
  const known = parsedAddresses.get(key);
  if (known !== undefined) return known;
  if (parsedAddresses.size >= PARSED_ADDRESSES_KEPT) parsedAddresses.clear();
  const answer = smsAddress(s, region);
  parsedAddresses.set(key, answer);
  return answer;
}

/** The answers of `inboundAddress` for SMS, at most this many kept (then started afresh). */
const PARSED_ADDRESSES_KEPT = 20_000;
const parsedAddresses = new Map<string, string>();

function smsAddress(s: string, region?: string | null): string {
  let v = s.replace(/[\s\-().]/g, '');
  if (/^00\d/.test(v)) v = `+${v.slice(2)}`;
  if (/^\+\d+$/.test(v)) {
    const p = parsePhoneNumberFromString(v);
    return p?.isValid() ? p.number : v;
  }
  if (/^\d+$/.test(v)) {
    const international = parsePhoneNumberFromString(`+${v}`);
    const asInternational = international?.isValid() ? international : null;
    if (region && /^[A-Za-z]{2}$/.test(region)) {
      const country = region.toUpperCase() as CountryCode;
      // digits that already start with the country's code are international ("4915…" in DE), not a national number
      if (asInternational && asInternational.country === country) return asInternational.number;
      const national = parsePhoneNumberFromString(v, country);
      if (national?.isValid()) return national.number;
    }
    return asInternational ? asInternational.number : v;
  }
  return s.toLowerCase();
}

/** Whether an SMS sender can receive replies (a number or short code), and so is claimed when used two-way. */
export function isReceivingNumber(raw: string | null | undefined): boolean {
  return typeof raw === 'string' && /^(\+|00)?[\d\s\-().]{3,20}$/.test(raw.trim()) && /\d{3,}/.test(raw.replace(/\D/g, ''));
}

/**
 * Who receives what arrives at an address: emitted by streams when a claim is made, moves to another stream of the
 * same account, or is released (`accountId` null). Keyed by the address, so the changes of one address stay in order.
 */
export const InboundRouteChangedV1 = defineEvent({
  type: 'streams.inbound_route.changed',
  version: 1,
  topic: Topics.Streams,
  key: (d) => `${d.channel}:${d.address}`,
  schema: z.object({
    channel: claimChannel,
    /** `inboundAddress()` of the number, phone number id or bot id. */
    address: z.string().min(1),
    /** The owner; null once released. */
    accountId: id.nullable(),
    /** The stream that receives (a two-way, WhatsApp or Telegram bot stream); null when only a sender holds the claim. */
    streamId: id.nullable(),
    occurredAt: z.string(),
  }),
});

/** Spec-free defaults carriers expect (CTIA / GSMA); each account may add its own (`opt_out_keywords`, `opt_in_keywords`). */
export const DEFAULT_OPT_OUT_KEYWORDS = ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'СТОП', 'ОТПИСАТЬСЯ', 'ОТПИСКА'] as const;
export const DEFAULT_OPT_IN_KEYWORDS = ['START', 'UNSTOP', 'СТАРТ'] as const;
/** These stop every sender of the account, not only the one the reply went to. */
export const ACCOUNT_WIDE_OPT_OUT_KEYWORDS = ['STOPALL'] as const;
/** The sender of an account-wide opt-out. */
export const ALL_SENDERS = '*';

/** A whole message as a keyword: case and surrounding whitespace and punctuation ignored (`" stop. "` is STOP). */
export function keywordOf(body: string): string {
  return body
    .normalize('NFKC')
    .trim()
    .replace(/^[\s\p{P}]+|[\s\p{P}]+$/gu, '')
    .replace(/\s+/g, ' ')
    .toUpperCase();
}

const optOutSchema = z.object({
  accountId: id,
  /** The contact, E.164 for SMS and WhatsApp, the chat id for Telegram. */
  phone: z.string(),
  channel: z.enum(['sms', 'whatsapp', 'telegram', 'telegram_private']),
  /** Our address the keyword was sent to (`inboundAddress()`), or `*` for every sender of the account (STOPALL). */
  sender: z.string(),
  streamId: id.nullable(),
  /** The keyword as received (normalised: upper case). */
  keyword: z.string(),
  /** The inbound message that carried it. */
  messageUuid: z.string().uuid(),
  at: z.string(),
});
export type OptOutData = z.infer<typeof optOutSchema>;

/** A contact replied an opt-out keyword: sends from `sender` (or every sender, `*`) to `phone` in the account stop. */
export const InboundOptedOutV1 = defineEvent({ type: 'dispatch.contact.opted_out', version: 1, topic: Topics.Dispatch, key: (d) => `${d.accountId}:${d.phone}`, schema: optOutSchema });
/** A contact replied an opt-in keyword (START): what the matching opt-out blocked is allowed again. */
export const InboundOptedInV1 = defineEvent({ type: 'dispatch.contact.opted_in', version: 1, topic: Topics.Dispatch, key: (d) => `${d.accountId}:${d.phone}`, schema: optOutSchema });

export const InboundEvents = [InboundRouteChangedV1, InboundOptedOutV1, InboundOptedInV1] as const;
