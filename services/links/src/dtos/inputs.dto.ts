import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow } from 'class-validator';

/** Request bodies of the links routes. Fields are checked by the services (spec 5 rules, error 0x1 with violations). */

export class DomainBulkAddInput {
  @ApiProperty({ type: [String], description: 'the chips: domain names without scheme, path or slash', example: ['go.example.com', 'click.example.com'] })
  @Allow()
  domains!: unknown;

  @ApiPropertyOptional({ type: Boolean, description: 'add the others when some are duplicates (after the duplicateDomainsFound confirm)', example: false })
  @Allow()
  skipDuplicates?: unknown;
}

export class DomainCreateInput {
  @ApiProperty({ type: String, example: 'go.example.com' })
  @Allow()
  name!: unknown;

  @ApiPropertyOptional({ type: Number, nullable: true, example: 10000 })
  @Allow()
  messagesLimit?: unknown;
}

export class DomainUpdateInput {
  @ApiPropertyOptional({ type: Number, nullable: true, description: 'links the domain may carry; null: no limit', example: 10000 })
  @Allow()
  messagesLimit?: unknown;

  @ApiPropertyOptional({ type: String, description: 'cannot change (only the same name is accepted)', example: 'go.example.com' })
  @Allow()
  name?: unknown;
}

export class DomainArchiveInput {
  @ApiPropertyOptional({ type: Boolean, description: 'true archives (the default), false restores', example: true })
  @Allow()
  archived?: unknown;
}

export class DomainBulkActionInput {
  @ApiProperty({ enum: ['archive', 'restore', 'delete', 'check', 'set_limit'], example: 'archive' })
  @Allow()
  action!: unknown;

  @ApiProperty({ type: [Number], example: [1, 2] })
  @Allow()
  ids!: unknown;

  @ApiPropertyOptional({ type: Number, nullable: true, description: 'for set_limit', example: 10000 })
  @Allow()
  messagesLimit?: unknown;
}

export class DomainBlockInput {
  @ApiProperty({ type: Boolean, example: true })
  @Allow()
  blocked!: unknown;
}

export class MessagesLimitInput {
  @ApiProperty({ type: Number, nullable: true, description: 'every domain of the account gets this limit, and new ones will; null: none', example: 10000 })
  @Allow()
  limit!: unknown;
}

export class DomainPoolInput {
  @ApiPropertyOptional({ type: String, description: 'required on create', example: 'Spring sale' })
  @Allow()
  name?: unknown;

  @ApiPropertyOptional({ type: String, example: 'domains for the spring campaigns' })
  @Allow()
  description?: unknown;

  @ApiPropertyOptional({ enum: [10, 1], description: '10 spread evenly (default), 1 one by one', example: 10 })
  @Allow()
  distribution?: unknown;

  @ApiPropertyOptional({ type: [Number], description: 'member domains in order (on update: replaces them)', example: [1, 2] })
  @Allow()
  domains?: unknown;
}

export class PoolDomainsInput {
  @ApiProperty({ type: [Number], example: [3, 4] })
  @Allow()
  domains!: unknown;
}

export class PoolSettingsInput {
  @ApiProperty({ type: Number, description: 'campaignSettings max_domains_per_pool for this account', example: 100 })
  @Allow()
  maxDomainsPerPool!: unknown;
}

export class OfferInput {
  @ApiPropertyOptional({ type: String, description: 'required on create', example: 'Spring sale landing' })
  @Allow()
  name?: unknown;

  @ApiPropertyOptional({ type: String, description: 'http(s) URL; recipient variables like {firstName} in the path, query or fragment only', example: 'https://shop.example.com/spring?name={firstName}' })
  @Allow()
  originalUrl?: unknown;

  @ApiPropertyOptional({ type: Number, nullable: true, example: 30 })
  @Allow()
  expireInDays?: unknown;

  @ApiPropertyOptional({ enum: ['offer_creation', 'link_creation', 'never'], example: 'offer_creation' })
  @Allow()
  expireMethod?: unknown;

  @ApiPropertyOptional({ type: String, example: 'landing page of the spring sale' })
  @Allow()
  description?: unknown;

  @ApiPropertyOptional({ type: Boolean, example: false })
  @Allow()
  disabled?: unknown;

  @ApiPropertyOptional({ enum: ['active', 'disabled'], description: 'the same as disabled', example: 'active' })
  @Allow()
  state?: unknown;
}

export class CampaignNewPoolInput {
  @ApiProperty({ type: String, example: 'Spring sale' }) name!: string;
  @ApiProperty({ type: String, example: 'domains for the spring campaigns' }) description!: string;
  @ApiPropertyOptional({ enum: [10, 1], description: '10 spread evenly (default), 1 one by one', example: 10 }) distribution?: number;
}

export class CampaignAddDomainInput {
  @ApiProperty({ type: [String], description: 'the chips: domain names without scheme, path or slash', example: ['go.example.com'] })
  @Allow()
  domains!: unknown;

  @ApiPropertyOptional({ type: Boolean, description: 'add the others when some are duplicates (after the duplicateDomainsFound confirm)', example: false })
  @Allow()
  skipDuplicates?: unknown;

  @ApiPropertyOptional({ type: Number, nullable: true, description: 'an existing pool the new domains join', example: null })
  @Allow()
  pool?: unknown;

  @ApiPropertyOptional({ type: CampaignNewPoolInput, nullable: true, description: 'a new pool made of the new domains (name and description required)' })
  @Allow()
  newPool?: unknown;
}
