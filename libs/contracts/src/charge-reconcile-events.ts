import { z } from 'zod';
import { defineEvent, Topics } from './events';

/**
 * The reconciliation of charges between streams (the owner of every message's price: `streams.message.price_micros`,
 * `refunded_micros`) and accounts' balance ledger (docs/decisions/0114). Accounts asks, streams answers; every
 * question and answer names one account, is keyed by it, and is dropped by its receiver when the envelope's account is
 * not the data's. Windows are of acceptance time (`streams.message.created_at`), `windowMs` long, aligned on the Unix
 * epoch.
 *
 * Questions and answers both travel on accounts' topic, a quiet one: an answer group on `switchboard.streams` would
 * fetch, decompress and decode every per-message record of that topic only to skip it by its type header (measured:
 * about 15 µs of node a charge more in `bench/accounts-ledger.ts kafka`, and one more group for the hottest partition to
 * fall behind on).
 */
const id = z.string().regex(/^\d+$/, 'a decimal id');
const instant = z.string().datetime({ offset: true });

/** Most windows one sums question names (its ranges together); most rows one listed answer carries. */
export const CHARGE_RECONCILE_WINDOWS_MAX = 1440;
export const CHARGE_RECONCILE_ROWS_MAX = 1000;

/** Accounts asks streams for the sums of an account's messages per window, over closed ranges of acceptance time. */
export const ChargesReconcileRequestedV1 = defineEvent({
  type: 'accounts.charges.reconcile_requested',
  version: 1,
  topic: Topics.Accounts,
  key: (d) => d.accountId,
  schema: z.object({
    requestId: z.string().uuid(),
    accountId: id,
    windowMs: z.number().int().min(1000).max(3_600_000),
    /** Ranges `[from, to)` of whole windows; at most CHARGE_RECONCILE_WINDOWS_MAX windows in all (checked by streams). */
    ranges: z.array(z.object({ from: instant, to: instant })).min(1).max(CHARGE_RECONCILE_WINDOWS_MAX),
  }),
});

/** Streams' answer: the non-empty windows of the ranges, with their messages' count, prices and refunds. */
export const ChargesSummedV1 = defineEvent({
  type: 'streams.charges.summed',
  version: 1,
  topic: Topics.Accounts,
  key: (d) => d.accountId,
  schema: z.object({
    requestId: z.string().uuid(),
    accountId: id,
    windowMs: z.number().int().min(1000).max(3_600_000),
    ranges: z.array(z.object({ from: instant, to: instant })).max(CHARGE_RECONCILE_WINDOWS_MAX),
    windows: z
      .array(z.object({ from: instant, count: z.number().int().nonnegative(), priceMicros: z.number().int().nonnegative(), refundedMicros: z.number().int().nonnegative() }))
      .max(CHARGE_RECONCILE_WINDOWS_MAX),
  }),
});

/** Keyset position in a window: after this message (acceptance time to the microsecond, then uuid). */
const after = z.object({ at: instant, uuid: z.string().uuid() });

/** Accounts asks streams for a window's messages, a page at a time, in acceptance order. */
export const ChargesListRequestedV1 = defineEvent({
  type: 'accounts.charges.list_requested',
  version: 1,
  topic: Topics.Accounts,
  key: (d) => d.accountId,
  schema: z.object({
    requestId: z.string().uuid(),
    accountId: id,
    from: instant,
    to: instant,
    after: after.nullable(),
    limit: z.number().int().min(1).max(CHARGE_RECONCILE_ROWS_MAX),
  }),
});

/** Streams' answer: a page of the window's messages of the account (price and refund of each), and where the next starts. */
export const ChargesListedV1 = defineEvent({
  type: 'streams.charges.listed',
  version: 1,
  topic: Topics.Accounts,
  key: (d) => d.accountId,
  schema: z.object({
    requestId: z.string().uuid(),
    accountId: id,
    from: instant,
    to: instant,
    rows: z
      .array(z.object({ messageUuid: z.string().uuid(), priceMicros: z.number().int().nonnegative(), refundedMicros: z.number().int().nonnegative(), currency: z.string().length(3) }))
      .max(CHARGE_RECONCILE_ROWS_MAX),
    /** Null on the window's last page. */
    next: after.nullable(),
  }),
});

export const ChargeReconcileEvents = [ChargesReconcileRequestedV1, ChargesSummedV1, ChargesListRequestedV1, ChargesListedV1] as const;
