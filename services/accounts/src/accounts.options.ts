import type { Availability } from '@switchboard/contracts';

export interface AccountsModuleOptions {
  /** Run the accounts migrations when the module starts (embedded mode, tests). Distributed mode runs them in a Job. Default true. */
  migrationsRun?: boolean;
  /** Load and refresh every country and time zone from the packages at start. Default true. */
  syncCountries?: boolean;
  /** Where feature access requests are mailed (the operators' mailbox); none by default: they are recorded and published. */
  featureRequestRecipients?: string[];
  /** TPS of a new account when the creator gives none. Default 10. */
  defaultTps?: number;
  /** Currency of a new account when the creator gives none. Default EUR. */
  defaultCurrency?: string;
  /** Sending hours every country starts with. Default Monday to Sunday, 09:00 to 20:00. */
  defaultAvailability?: Availability;
}

export interface ResolvedAccountsOptions {
  migrationsRun: boolean;
  syncCountries: boolean;
  featureRequestRecipients: string[];
  defaultTps: number;
  defaultCurrency: string;
  defaultAvailability: Availability;
}

export const ACCOUNTS_OPTIONS = Symbol('ACCOUNTS_OPTIONS');
export const ACCOUNTS_CONNECTION = 'accounts';
export const ACCOUNTS_SCHEMA = 'accounts';

export const DEFAULT_AVAILABILITY: Availability = Object.freeze({
  working_days: Object.freeze({ start: 1, end: 7 }),
  working_hours: Object.freeze({ start: '09:00', end: '20:00' }),
}) as Availability;

export function resolveAccountsOptions(o: AccountsModuleOptions = {}): ResolvedAccountsOptions {
  const tps = o.defaultTps ?? 10;
  if (!Number.isInteger(tps) || tps < 0) throw new Error('AccountsModule: defaultTps must be a non-negative integer');
  const currency = o.defaultCurrency ?? 'EUR';
  if (!/^[A-Z]{3}$/.test(currency)) throw new Error('AccountsModule: defaultCurrency must be an ISO 4217 code');
  return {
    migrationsRun: o.migrationsRun ?? true,
    syncCountries: o.syncCountries ?? true,
    featureRequestRecipients: [...(o.featureRequestRecipients ?? [])],
    defaultTps: tps,
    defaultCurrency: currency,
    defaultAvailability: o.defaultAvailability ?? DEFAULT_AVAILABILITY,
  };
}
