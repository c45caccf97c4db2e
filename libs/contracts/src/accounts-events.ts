import { z } from 'zod';
import { defineEvent, Topics } from './events';

/**
 * Events of the accounts service (topic `switchboard.accounts`). Customer events carry the whole snapshot so a
 * consumer's read model is an upsert (auth keeps accounts for sign-in and membership; streams keeps settings and limits).
 */
const id = z.string().regex(/^\d+$/, 'a decimal id');

export const AccountStatus = { Active: 'active', Restrict: 'restrict', Disable: 'disable', Delete: 'delete' } as const;
export type AccountStatusValue = (typeof AccountStatus)[keyof typeof AccountStatus];
const status = z.enum([AccountStatus.Active, AccountStatus.Restrict, AccountStatus.Disable, AccountStatus.Delete]);

export const CustomerSnapshot = z.object({
  accountId: id,
  name: z.string(),
  shortName: z.string().nullable(),
  status,
  /** 0/1 as in the spec: 0 until a super admin approves a new account. */
  active: z.number().int().min(0).max(1),
  currency: z.string().length(3),
  tps: z.number().int().nonnegative(),
  /** Daily message limit of the account's streams (customSettings.streams_max_messages_per_day); null = none. */
  dailyLimit: z.number().int().nonnegative().nullable(),
  customSettings: z.record(z.unknown()),
  genSettings: z.record(z.unknown()),
  createdAt: z.string(),
});
export type CustomerSnapshot = z.infer<typeof CustomerSnapshot>;

/** A customer was created (registration, super admin, seeding). */
export const CustomerCreatedV1 = defineEvent({
  type: 'accounts.customer.created',
  version: 1,
  topic: Topics.Accounts,
  key: (d) => d.accountId,
  schema: CustomerSnapshot,
});

/** Any change of a customer: settings, limits, status, approval. Carries the new snapshot. */
export const CustomerUpdatedV1 = defineEvent({
  type: 'accounts.customer.updated',
  version: 1,
  topic: Topics.Accounts,
  key: (d) => d.accountId,
  schema: CustomerSnapshot.extend({ previousStatus: status.optional() }),
});

/** Money put on (or taken off by a super admin) the account's balance, in micro-units of `currency` (1e-6), like every amount on the bus. */
export const BalanceAdjustedV1 = defineEvent({
  type: 'accounts.balance.adjusted',
  version: 1,
  topic: Topics.Accounts,
  key: (d) => d.accountId,
  schema: z.object({
    accountId: id,
    adjustmentId: z.string().uuid(),
    amountMicros: z.number().int(),
    currency: z.string().length(3),
    reason: z.string(),
  }),
});

/** Sell price of one SMS segment to a country for an account (or the global price when accountId is null), minor units. */
export const PriceChangedV1 = defineEvent({
  type: 'accounts.price.changed',
  version: 1,
  topic: Topics.Accounts,
  key: (d) => `${d.accountId ?? 'global'}:${d.iso2}`,
  schema: z.object({
    accountId: id.nullable(),
    iso2: z.string().length(2),
    /** Price per segment in micro-units of the currency (1e-6), so prices below a cent stay exact. */
    pricePerSegmentMicros: z.number().int().nonnegative(),
    currency: z.string().length(3),
  }),
});


/*
 * Added with the accounts service (compatible extensions: new events only; the declarations above are unchanged).
 */

/** Working days (ISO weekday 1 = Monday .. 7 = Sunday, inclusive range) and hours (`HH:MM`, 24 h, end exclusive; an end before the start crosses midnight). */
export const Availability = z.object({
  working_days: z.object({ start: z.number().int().min(1).max(7), end: z.number().int().min(1).max(7) }),
  working_hours: z.object({ start: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/), end: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/) }),
});
export type Availability = z.infer<typeof Availability>;

/** A price was removed: the global price of a country (accountId null), or an account's override, which falls back to the global price. */
export const PriceRemovedV1 = defineEvent({
  type: 'accounts.price.removed',
  version: 1,
  topic: Topics.Accounts,
  key: (d) => `${d.accountId ?? 'global'}:${d.iso2}`,
  schema: z.object({ accountId: id.nullable(), iso2: z.string().length(2) }),
});

/**
 * A country's sending hours or default time zone changed: the global values (accountId null; both fields set), or one
 * account's override (a null field follows the global value; both null: the override was removed).
 * Campaigns use them for recipients' sending windows.
 */
export const SendingHoursChangedV1 = defineEvent({
  type: 'accounts.sending_hours.changed',
  version: 1,
  topic: Topics.Accounts,
  key: (d) => `${d.accountId ?? 'global'}:${d.iso2}`,
  schema: z.object({
    accountId: id.nullable(),
    iso2: z.string().length(2),
    availability: Availability.nullable(),
    /** IANA zone id. */
    defaultTimezone: z.string().nullable(),
  }),
});

/** A member asked for a feature (spec: feature access request). For whoever notifies the super admins. */
export const FeatureAccessRequestedV1 = defineEvent({
  type: 'accounts.feature_access.requested',
  version: 1,
  topic: Topics.Accounts,
  key: (d) => d.accountId,
  schema: z.object({ requestId: id, accountId: id, userId: id.nullable(), email: z.string().nullable(), feature: z.string(), message: z.string() }),
});

export const AccountsEvents = [
  CustomerCreatedV1,
  CustomerUpdatedV1,
  BalanceAdjustedV1,
  PriceChangedV1,
  PriceRemovedV1,
  SendingHoursChangedV1,
  FeatureAccessRequestedV1,
] as const;
