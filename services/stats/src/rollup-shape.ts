/**
 * The message rollups' shape (docs/decisions/0131, 0132): one row per key without the status, holding messages, parts
 * and cost over every status and a count per status (`n_accepted` ... `n_rejected`, in STATUSES' order). A status that
 * moves changes two counts of one row; messages, parts and cost stay where they are.
 */
export const STATUSES = ['accepted', 'sent', 'delivered', 'sent_failed', 'undelivered', 'no_routes', 'rejected'] as const;
export type Status = (typeof STATUSES)[number];

/** The count columns, in STATUSES' order. */
export const STATUS_COLUMNS: readonly string[] = STATUSES.map((s) => `n_${s}`);

/**
 * The message rollup tables of the count shape (since 1796500000010; the status-keyed `rollup_*` ones are left to the
 * previous release). A day or month row is per stream and country; the figures per stream are its sums over the
 * countries: `rollup_counts_day_stream` and `rollup_counts_month_stream` are no longer written or read (docs/decisions/0175).
 */
export const COUNT_TABLES = {
  hour: 'rollup_counts_hour',
  dayCountry: 'rollup_counts_day_country',
  monthCountry: 'rollup_counts_month_country',
} as const;
