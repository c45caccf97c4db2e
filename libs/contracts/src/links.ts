/**
 * Short-link domains, pools and offers as the links service answers them (spec 3, 4, 9), shared by the service and
 * the console. docs/decisions/0033-links-domains.md.
 */

/** Domain states (spec 4). */
export const DomainState = {
  NotConfigured: 0,
  Configured: 1,
  Pending: 2,
  ValidPending: 3,
  Declined: 4,
  Archived: 5,
  ReachedLimit: 6,
  Blocked: 7,
} as const;
export type DomainStateValue = (typeof DomainState)[keyof typeof DomainState];
export const DOMAIN_STATES: readonly DomainStateValue[] = Object.values(DomainState);

/** Why a domain was declined (`declinedReason`). */
export const DomainDeclinedReason = {
  /** The name's CNAME or A record points somewhere else than the DNS instructions say. */
  PointsElsewhere: 'dns_points_elsewhere',
  /** Another account proved this name first and still holds it. */
  ClaimedByAnotherAccount: 'claimed_by_another_account',
} as const;

/** Domain distribution of a pool (spec 9): spread evenly 10, one by one 1. */
export const DomainDistribution = { SpreadEvenly: 10, OneByOne: 1 } as const;
export type DomainDistributionValue = (typeof DomainDistribution)[keyof typeof DomainDistribution];

/** Offer states (spec 4). */
export const OfferState = { Disabled: 'disabled', Active: 'active', Expired: 'expired', AboutToExpire: 'about_to_expire' } as const;
export type OfferStateValue = (typeof OfferState)[keyof typeof OfferState];

/**
 * How an offer expires: `offer_creation` (the offer itself, `expireInDays` after it was created: the states expired and
 * about to expire), `link_creation` (each short link, `expireInDays` after it was minted), `never`.
 */
export const OFFER_EXPIRE_METHODS = ['offer_creation', 'link_creation', 'never'] as const;
export type OfferExpireMethod = (typeof OFFER_EXPIRE_METHODS)[number];

/** Days before expiry an offer is "about to expire" (spec 4: at ttlDays minus 3 days). */
export const OFFER_ABOUT_TO_EXPIRE_DAYS = 3;
const DAY_MS = 86_400_000;

/**
 * An offer's state at `now` (spec 4): about to expire when its age reaches ttlDays minus 3 days, expired at ttlDays;
 * only offers that expire by offer creation date and are not disabled.
 */
export function offerStateAt(o: { disabled: boolean; expireMethod: OfferExpireMethod; expireInDays: number | null; createdAt: string | Date }, now: Date): OfferStateValue {
  if (o.disabled) return OfferState.Disabled;
  if (o.expireMethod !== 'offer_creation' || !o.expireInDays) return OfferState.Active;
  const age = now.getTime() - new Date(o.createdAt).getTime();
  if (age >= o.expireInDays * DAY_MS) return OfferState.Expired;
  if (age >= (o.expireInDays - OFFER_ABOUT_TO_EXPIRE_DAYS) * DAY_MS) return OfferState.AboutToExpire;
  return OfferState.Active;
}

/** Default CTR indicators (spec 9): good 3, bad 1 (percent). */
export const DEFAULT_CTR_INDICATORS = { bad: 1, good: 3 } as const;

/** A CTR's class (spec 9): bad at or below bad, good at or above good, else mid. */
export function ctrClass(ctr: number, indicators: { bad: number; good: number } = DEFAULT_CTR_INDICATORS): 'bad' | 'mid' | 'good' {
  if (ctr <= indicators.bad) return 'bad';
  if (ctr >= indicators.good) return 'good';
  return 'mid';
}

/**
 * The domain format rule (spec 5: domain check, no slash): a host name of letters, digits and hyphens in dot-separated
 * labels, an alphabetic top-level label, no scheme, path, port, slash or spaces. Compared in lower case.
 */
export const DOMAIN_NAME_PATTERN = /^(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;
export const normalizeDomainName = (s: string): string => s.trim().toLowerCase().replace(/\.$/, '');
export const isDomainName = (s: string): boolean => !/[/\s]/.test(s) && DOMAIN_NAME_PATTERN.test(normalizeDomainName(s));

/** The record a customer creates for a domain (the DNS instructions modal). */
export interface DnsRecordDto {
  type: 'CNAME' | 'A' | 'TXT';
  host: string;
  value: string;
  /** What the record is for: routing the domain to the redirect server, or proving the account owns it. */
  purpose: 'routing' | 'ownership';
}

export interface DomainDto {
  id: number;
  name: string;
  type: 'CNAME' | 'A';
  ip: string | null;
  state: DomainStateValue;
  /** Clicks per usage, percent with two decimals (0 with no usages). */
  ctr: number;
  createdAt: string;
  lastUsedAt: string | null;
  checkedAt: string | null;
  declinedReason: string | null;
  totalUsages: number;
  totalClicks: number;
  archived: boolean;
  /** Links this domain may carry before it reaches its limit (state 6); null: no limit. */
  messagesLimit: number | null;
  /** The records to create (CNAME or A, and the ownership TXT). */
  dns: DnsRecordDto[];
}

/** `POST /domains/bulk`: the domains added, and the names already present (spec: duplicateDomainsFound). */
export interface DomainBulkResultDto {
  data: DomainDto[];
  duplicates: string[];
}

/** `POST /campaigns/add/domain` (the campaign wizard's add domain): the domains added, the duplicates, the pool they joined. */
export interface CampaignAddDomainResultDto extends DomainBulkResultDto {
  pool: DomainPoolDto | null;
}

/** Domain option of dropdowns (spec 3: id, name, totalUsages). */
export interface DomainOptionDto {
  id: number;
  name: string;
  totalUsages: number;
  state: DomainStateValue;
}

export interface DomainsDashboardDto {
  total: number;
  byState: Record<string, number>;
  totalUsages: number;
  totalClicks: number;
  ctr: number;
  /** The account's global messages limit (null: none). */
  messagesLimit: number | null;
}

export interface DomainPoolDto {
  id: number;
  name: string;
  description: string;
  distribution: DomainDistributionValue;
  totalDomains: number;
  /** Domains of the pool a link can use now (configured, not archived, blocked or over their limit). */
  validDomains: number;
  ctr: number;
  usages: number;
  clicks: number;
  domains: DomainOptionDto[];
  createdAt: string;
}

/** Pool option of dropdowns (spec 3: id, name, totalDomains, usages). */
export interface DomainPoolOptionDto {
  id: number;
  name: string;
  totalDomains: number;
  usages: number;
}

export interface DomainPoolsDashboardDto {
  total: number;
  totalDomains: number;
  usages: number;
  clicks: number;
  ctr: number;
  /** Pools with no domain a link can use (a campaign using one halts: "pools without valid options"). */
  withoutValidDomains: number;
  maxDomainsPerPool: number;
}

export interface OfferDto {
  id: number;
  name: string;
  originalUrl: string;
  expireInDays: number | null;
  expireMethod: OfferExpireMethod;
  state: OfferStateValue;
  disabled: boolean;
  /** The recipient variables the URL uses (`{firstName}`), in order of appearance. */
  variables: string[];
  description: string;
  createdAt: string;
  /** When an offer that expires by its creation date expires; null otherwise. */
  expiresAt: string | null;
}

/** Offer option of dropdowns (spec 3: id, name, originalUrl). */
export interface OfferOptionDto {
  id: number;
  name: string;
  originalUrl: string;
  state: OfferStateValue;
}

/** One row of `GET /campaign_domain_statistics`: a campaign's usages and clicks per domain. */
export interface CampaignDomainStatisticsDto {
  campaignId: number | null;
  domainId: number;
  domain: string;
  usages: number;
  clicks: number;
  uniqueClicks: number;
  ctr: number;
}
