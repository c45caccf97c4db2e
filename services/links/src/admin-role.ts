import { CampaignDomainsController } from './controllers/campaign-domains.controller';
import { DomainPoolsController } from './controllers/domain-pools.controller';
import { DomainsController } from './controllers/domains.controller';
import { OffersController } from './controllers/offers.controller';
import type { LinksRoleParts } from './role-parts';
import { CampaignDomainsService } from './services/campaign-domains.service';
import { DomainService } from './services/domain.service';
import { DomainVerifier } from './services/domain-verifier';
import { OfferService } from './services/offer.service';
import { PoolService } from './services/pool.service';

/** The console API (domains, pools, offers, DNS verification): mounted when the `admin` role is on. */
export const ADMIN_ROLE: LinksRoleParts = {
  controllers: [DomainsController, DomainPoolsController, OffersController, CampaignDomainsController],
  providers: [DomainService, DomainVerifier, PoolService, OfferService, CampaignDomainsService],
};
