import { CampaignsInit1796600000000 } from './1796600000000-init';

/** In order; a new migration is appended, never edited once released. */
export const CAMPAIGNS_MIGRATIONS = [CampaignsInit1796600000000];
