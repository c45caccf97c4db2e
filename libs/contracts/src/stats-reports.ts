/**
 * The answers of the stats service's report calls (spec 7: dashboard_statistics main and top_destinations), shared by
 * the service and the console. Money is exact: micro-units (1e-6) of `currency` as a decimal string, never a float.
 * Pure types and functions, no imports: the console imports this file directly.
 */

/** Spec 9: time slices; the numeric preview ids are day 1, week 2, month 3, year 4. */
export const TIME_SLICES = ['day', 'week', 'month', 'year', 'custom', 'all'] as const;
export type TimeSlice = (typeof TIME_SLICES)[number];

export interface StatusCounts {
  total: number;
  accepted: number;
  sent: number;
  delivered: number;
  sent_failed: number;
  undelivered: number;
  no_routes: number;
  rejected: number;
  /** sent_failed + undelivered + no_routes + rejected */
  failed: number;
  /** accepted + sent: not final yet */
  pending: number;
  parts: number;
}

export interface MoneyDto {
  currency: string;
  /** micro-units of the currency, a decimal integer string (exact) */
  micros: string;
  /** the same amount as a decimal string with at least 2 and at most 6 decimals: "12.50", "0.000125" */
  amount: string;
}

export interface SeriesPoint {
  /** an ISO instant (hour grain) or a local date YYYY-MM-DD (day grain) or YYYY-MM (month grain) */
  bucket: string;
  total: number;
  delivered: number;
  failed: number;
  pending: number;
  /** null without the cost permission */
  costMicros: string | null;
}

export interface StreamFigures extends StatusCounts {
  streamId: number;
  name: string;
  streamType: number | null;
  cost: MoneyDto[] | null;
}

export interface ReportRange {
  slice: TimeSlice | 'default';
  /** ISO instants; null: unbounded (slice all) */
  start: string | null;
  /** inclusive (a date-only end is its 23:59:59) */
  end: string | null;
  timeZone: string;
  /** the account(s) the figures are of: one id, or "all" (super administrators) */
  account: string;
  cached: boolean;
}

export interface DashboardMainDto extends ReportRange {
  totals: StatusCounts;
  /** one entry per currency the messages were charged in; null without the cost permission */
  cost: MoneyDto[] | null;
  /** the account's currency (the one a cost shows in first); null across accounts */
  currency: string | null;
  grain: 'hour' | 'day' | 'month';
  series: SeriesPoint[];
  /** per stream; null without the stream view permission */
  streams: StreamFigures[] | null;
  /** recipients who clicked a short link in the range (first clicks); null with a stream filter (clicks are not kept per stream) */
  clicked: number | null;
  waiting: string[];
}

export interface DestinationFigures {
  /** ISO 3166 alpha-2, or "" when the number's country is unknown */
  country: string;
  total: number;
  delivered: number;
  failed: number;
  cost: MoneyDto[] | null;
}

export interface TopDestinationsDto extends ReportRange {
  items: DestinationFigures[];
}

/**
 * A campaign's (or a variant's, or all campaigns') figures from the campaign rollups (docs/decisions/0046): messages per
 * status, cost per currency (null without the cost permission), clicks (every counted click), unique clicks (first
 * clicks: recipients who clicked), opt-outs through the opt-out link, and the CTR as the campaign page shows it:
 * unique clicks over delivered, a percentage with two decimals.
 */
export interface CampaignFigures extends StatusCounts {
  cost: MoneyDto[] | null;
  clicks: number;
  uniqueClicks: number;
  optedOut: number;
  ctr: number;
}

export interface CampaignSeriesPoint {
  bucket: string;
  total: number;
  delivered: number;
  failed: number;
  pending: number;
  clicks: number;
}

export interface CampaignCountryFigures {
  country: string;
  total: number;
  delivered: number;
  failed: number;
}

/** `GET /campaign_reports/delivery_stats/{id}`: totals, delivery over time and per country. */
export interface CampaignDeliveryStatsDto extends ReportRange {
  campaignId: number;
  name: string;
  grain: 'hour' | 'day' | 'month';
  totals: CampaignFigures;
  series: CampaignSeriesPoint[];
  countries: CampaignCountryFigures[];
}

export interface CampaignVariantFigures extends CampaignFigures {
  /** null: messages whose variant is not known (sent before variants were recorded) */
  variantId: number | null;
}

/** `GET /campaign_reports/variant_stats/{id}` and `GET /campaign_stats/per_variant?campaign=`. */
export interface CampaignVariantStatsDto extends ReportRange {
  campaignId: number;
  items: CampaignVariantFigures[];
}

export interface CampaignDomainFigures {
  domainId: number | null;
  domain: string;
  /** links minted on the domain for the campaign */
  usages: number;
  clicks: number;
  uniqueClicks: number;
  /** unique clicks over usages, a percentage with two decimals */
  ctr: number;
}

/** `GET /campaign_reports/domain_stats/{id}`. */
export interface CampaignDomainStatsDto {
  campaignId: number;
  items: CampaignDomainFigures[];
}

export interface CampaignStatsRowDto extends CampaignFigures {
  campaignId: number;
  name: string;
  status: number | null;
  /** the first and last message's local hour, ISO instants */
  firstAt: string | null;
  lastAt: string | null;
}

/** `GET /campaign_stats/dashboard`: every campaign's figures over the slice, a series, and the four latest campaigns. */
export interface CampaignStatsDashboardDto extends ReportRange {
  totals: CampaignFigures;
  grain: 'hour' | 'day' | 'month';
  series: CampaignSeriesPoint[];
  latest: CampaignStatsRowDto[];
}

/** `GET /campaign_stats/ctr`: per campaign. */
export interface CampaignCtrDto {
  campaignId: number;
  name: string;
  delivered: number;
  uniqueClicks: number;
  clicks: number;
  ctr: number;
}

/** Micro-units as a decimal amount string: 12500000 -> "12.50", 125 -> "0.000125", -5 -> "-0.000005". */
export function microsToAmount(micros: string | bigint): string {
  const v = typeof micros === 'bigint' ? micros : BigInt(micros);
  const neg = v < 0n;
  const abs = neg ? -v : v;
  const whole = abs / 1_000_000n;
  let frac = (abs % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '');
  if (frac.length < 2) frac = frac.padEnd(2, '0');
  return `${neg ? '-' : ''}${whole.toString()}.${frac}`;
}

/** Spec 9: numbers of 10 000 and up as K, a million and up M, a billion and up B (one decimal, dropped when .0). */
export function abbreviateNumber(n: number): string {
  const abs = Math.abs(n);
  const fmt = (v: number, unit: string) => `${n < 0 ? '-' : ''}${(Math.floor(v * 10) / 10).toFixed(1).replace(/\.0$/, '')}${unit}`;
  if (abs >= 1e9) return fmt(abs / 1e9, 'B');
  if (abs >= 1e6) return fmt(abs / 1e6, 'M');
  if (abs >= 1e4) return fmt(abs / 1e3, 'K');
  return String(n);
}

const CURRENCY_SIGNS: Record<string, string> = { EUR: '€', USD: '$', GBP: '£', RUB: '₽', JPY: '¥', CNY: '¥', INR: '₹', BRL: 'R$', CLP: '$', UAH: '₴', PLN: 'zł', TRY: '₺', ILS: '₪', KRW: '₩' };

/** Spec 1: a cost with the currency sign (EUR shows €, USD shows $); an unknown currency shows its code. */
export function currencySign(currency: string): string {
  return CURRENCY_SIGNS[currency.toUpperCase()] ?? currency.toUpperCase();
}

/** Messages per status of `GET /streams/statistics` and `POST /streams/subscribe` (the stream pages' figures). */
export interface StreamStatusCountsDto {
  accepted: number;
  sent: number;
  delivered: number;
  sent_failed: number;
  undelivered: number;
  no_routes: number;
  rejected: number;
  total: number;
  parts: number;
  /** Price less refunds, in currency units (the account's currency). */
  cost: number;
}

/** The stream statistics answer (served by stats from the rollups since docs/decisions/0028, same shape as before). */
export interface StreamsStatisticsDto {
  start: string | null;
  end: string | null;
  totals: StreamStatusCountsDto;
  streams: Array<StreamStatusCountsDto & { streamId: number; streamUid: string; name: string; streamType: number }>;
}
