/** The links API's shapes, from their one source (libs/contracts/src/links.ts), under the console's names. */
export type {
  DnsRecordDto as DnsRecord,
  DomainDto as Domain,
  CampaignAddDomainResultDto as CampaignAddDomainResult,
  DomainBulkResultDto as DomainBulkResult,
  DomainOptionDto as DomainOption,
  DomainPoolDto as DomainPool,
  DomainPoolOptionDto as DomainPoolOption,
  DomainPoolsDashboardDto as PoolsDashboard,
  DomainsDashboardDto as DomainsDashboard,
  DomainStateValue,
  OfferDto as Offer,
  OfferExpireMethod,
  OfferOptionDto as OfferOption,
  OfferStateValue,
} from '@switchboard/contracts/src/links';
export { ctrClass, DEFAULT_CTR_INDICATORS, DomainDistribution, DomainState, isDomainName, normalizeDomainName, OFFER_EXPIRE_METHODS } from '@switchboard/contracts/src/links';

export interface ListResult<T> {
  items: T[];
  total: number;
}
