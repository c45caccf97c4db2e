import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Permission } from '@switchboard/contracts';
import { Permissions } from '@switchboard/platform';
import { CampaignAddDomainInput } from '../dtos/inputs.dto';
import { CampaignAddDomainResponse } from '../dtos/responses.dto';
import { CampaignDomainsService, type CampaignAddDomainResult } from '../services/campaign-domains.service';

/** Spec 7 lists it under Campaigns; it adds domains and pools, so the links service answers it (docs/decisions/0044). */
@ApiTags('campaigns')
@ApiBearerAuth()
@Controller('campaigns/add/domain')
export class CampaignDomainsController {
  constructor(private readonly domains: CampaignDomainsService) {}

  @ApiOkResponse({ type: CampaignAddDomainResponse, description: 'the domains added, the duplicates (nothing added while any are present unless skipDuplicates) and the pool they joined' })
  @Post() @Permissions(Permission.CampaignAddEdit, Permission.DomainAddEdit) @HttpCode(200)
  add(@Body() dto: CampaignAddDomainInput): Promise<CampaignAddDomainResult> { return this.domains.add(dto as unknown as Record<string, unknown>); }
}
