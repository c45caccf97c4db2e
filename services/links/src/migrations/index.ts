import { LinksInit1796600000000 } from './1796600000000-init';
import { DomainLimitState1796600000001 } from './1796600000001-domain-limit-state';

/** In order; a new migration is appended, never edited once released. */
export const LINKS_MIGRATIONS = [LinksInit1796600000000, DomainLimitState1796600000001];
