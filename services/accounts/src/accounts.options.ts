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
  /**
   * The reconciliation of charges with streams (docs/decisions/0114), in processes with the schedulers role: accounts
   * asks streams for the sums of each account's closed windows of acceptance time, lists the windows not verified yet
   * or whose sums changed, and books the charges and refunds its ledger never got.
   */
  chargeReconcile?: {
    /** How often a pass runs. Default 60 000 ms. */
    intervalMs?: number;
    /** A window is closed (asked about) this long after its end; an unanswered question is asked again after as long. Default 900 000 ms (15 minutes). */
    afterMs?: number;
    /** The windows' length, aligned on the Unix epoch. Default 60 000 ms (a minute). */
    windowMs?: number;
    /** Messages per listed page (at most 1000). Default 1000. */
    batch?: number;
    /** Questions of each kind (sums of new windows, sums again, pages of windows) per pass. Default 10. */
    requestsPerPass?: number;
    /** A verified window is summed again (at doubling ages) until it is this old, for late refunds. Default 259 200 000 ms (72 hours). */
    recheckWithinMs?: number;
  };
}

export interface ChargeReconcileOptions {
  intervalMs: number;
  afterMs: number;
  windowMs: number;
  batch: number;
  requestsPerPass: number;
  recheckWithinMs: number;
}

export interface ResolvedAccountsOptions {
  migrationsRun: boolean;
  syncCountries: boolean;
  featureRequestRecipients: string[];
  defaultTps: number;
  defaultCurrency: string;
  defaultAvailability: Availability;
  chargeReconcile: ChargeReconcileOptions;
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
    chargeReconcile: resolveChargeReconcile(o.chargeReconcile ?? {}),
  };
}

function bounded(name: string, v: number | undefined, def: number, min: number, max: number): number {
  const n = v ?? def;
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`AccountsModule: chargeReconcile.${name} must be an integer from ${min} to ${max}`);
  return n;
}

function resolveChargeReconcile(o: NonNullable<AccountsModuleOptions['chargeReconcile']>): ChargeReconcileOptions {
  const windowMs = bounded('windowMs', o.windowMs, 60_000, 1000, 3_600_000);
  return {
    intervalMs: bounded('intervalMs', o.intervalMs, 60_000, 100, 86_400_000),
    afterMs: bounded('afterMs', o.afterMs, 900_000, 1000, 86_400_000),
    windowMs,
    batch: bounded('batch', o.batch, 1000, 1, 1000),
    requestsPerPass: bounded('requestsPerPass', o.requestsPerPass, 10, 1, 1000),
    recheckWithinMs: bounded('recheckWithinMs', o.recheckWithinMs, 259_200_000, 0, 31 * 86_400_000),
  };
}
