import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** What the links routes answer, for the OpenAPI document (/api/docs.json). Types: libs/contracts/src/links.ts. */
const AT = '2026-11-25T16:39:53.829Z';

export class DnsRecordResponse {
  @ApiProperty({ enum: ['CNAME', 'A', 'TXT'], example: 'CNAME' })
  type!: string;

  @ApiProperty({ type: String, example: 'go.example.com' })
  host!: string;

  @ApiProperty({ type: String, example: 'links.switchboard.example.com' })
  value!: string;

  @ApiProperty({ enum: ['routing', 'ownership'], description: 'routing: sends the domain to the redirect server; ownership: proves the account owns it', example: 'routing' })
  purpose!: string;
}

export class DomainResponse {
  @ApiProperty({ type: Number, example: 1 })
  id!: number;

  @ApiProperty({ type: String, example: 'go.example.com' })
  name!: string;

  @ApiProperty({ enum: ['CNAME', 'A'], example: 'CNAME' })
  type!: string;

  @ApiProperty({ type: String, nullable: true, example: '203.0.113.10' })
  ip!: string | null;

  @ApiProperty({ type: Number, description: '0 not configured, 1 configured, 2 pending, 3 valid-pending, 4 declined, 5 archived, 6 reached limit, 7 blocked', example: 1 })
  state!: number;

  @ApiProperty({ type: Number, description: 'clicks per usage, percent', example: 3.25 })
  ctr!: number;

  @ApiProperty({ type: String, example: AT })
  createdAt!: string;

  @ApiProperty({ type: String, nullable: true, example: AT })
  lastUsedAt!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'the last DNS check', example: AT })
  checkedAt!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'dns_points_elsewhere: ..., or claimed_by_another_account', example: null })
  declinedReason!: string | null;

  @ApiProperty({ type: Number, example: 1200 })
  totalUsages!: number;

  @ApiProperty({ type: Number, example: 39 })
  totalClicks!: number;

  @ApiProperty({ type: Boolean, example: false })
  archived!: boolean;

  @ApiProperty({ type: Number, nullable: true, description: 'links the domain may carry before it reaches its limit (state 6)', example: 10000 })
  messagesLimit!: number | null;

  @ApiProperty({ type: [DnsRecordResponse], description: 'the records to create: the CNAME (or A) and the ownership TXT' })
  dns!: DnsRecordResponse[];
}

export class DomainBulkResponse {
  @ApiProperty({ type: [DomainResponse], description: 'the domains added' })
  data!: DomainResponse[];

  @ApiProperty({ type: [String], description: 'names the account already has (duplicateDomainsFound); nothing is added while any are present unless skipDuplicates', example: ['old.example.com'] })
  duplicates!: string[];
}

export class DomainBulkActionResponse {
  @ApiProperty({ type: Number, example: 2 })
  affected!: number;

  @ApiProperty({ type: [DomainResponse], description: 'the domains after the action (none after delete)' })
  items!: DomainResponse[];
}

export class DomainOptionResponse {
  @ApiProperty({ type: Number, example: 1 })
  id!: number;

  @ApiProperty({ type: String, example: 'go.example.com' })
  name!: string;

  @ApiProperty({ type: Number, example: 1200 })
  totalUsages!: number;

  @ApiProperty({ type: Number, example: 1 })
  state!: number;
}

export class MessagesLimitResponse {
  @ApiProperty({ type: Number, nullable: true, description: 'the account-wide messages limit of its domains; null: none', example: 10000 })
  limit!: number | null;

  @ApiPropertyOptional({ type: Number, description: 'domains changed (on set)', example: 12 })
  affected?: number;
}

export class DomainsDashboardResponse {
  @ApiProperty({ type: Number, example: 12 })
  total!: number;

  @ApiProperty({ type: 'object', additionalProperties: { type: 'integer' }, description: 'domains per state (0 to 7)', example: { '0': 1, '1': 9, '2': 0, '3': 1, '4': 0, '5': 1, '6': 0, '7': 0 } })
  byState!: Record<string, number>;

  @ApiProperty({ type: Number, example: 120000 })
  totalUsages!: number;

  @ApiProperty({ type: Number, example: 3900 })
  totalClicks!: number;

  @ApiProperty({ type: Number, example: 3.25 })
  ctr!: number;

  @ApiProperty({ type: Number, nullable: true, example: 10000 })
  messagesLimit!: number | null;
}

export class DomainPoolResponse {
  @ApiProperty({ type: Number, example: 1 })
  id!: number;

  @ApiProperty({ type: String, example: 'Spring sale' })
  name!: string;

  @ApiProperty({ type: String, example: 'domains for the spring campaigns' })
  description!: string;

  @ApiProperty({ enum: [10, 1], description: '10 spread evenly, 1 one by one', example: 10 })
  distribution!: number;

  @ApiProperty({ type: Number, example: 3 })
  totalDomains!: number;

  @ApiProperty({ type: Number, description: 'domains a link can use now', example: 2 })
  validDomains!: number;

  @ApiProperty({ type: Number, example: 3.25 })
  ctr!: number;

  @ApiProperty({ type: Number, example: 5400 })
  usages!: number;

  @ApiProperty({ type: Number, example: 175 })
  clicks!: number;

  @ApiProperty({ type: [DomainOptionResponse] })
  domains!: DomainOptionResponse[];

  @ApiProperty({ type: String, example: AT })
  createdAt!: string;
}

export class DomainPoolOptionResponse {
  @ApiProperty({ type: Number, example: 1 })
  id!: number;

  @ApiProperty({ type: String, example: 'Spring sale' })
  name!: string;

  @ApiProperty({ type: Number, example: 3 })
  totalDomains!: number;

  @ApiProperty({ type: Number, example: 5400 })
  usages!: number;
}

export class DomainPoolsDashboardResponse {
  @ApiProperty({ type: Number, example: 4 })
  total!: number;

  @ApiProperty({ type: Number, example: 11 })
  totalDomains!: number;

  @ApiProperty({ type: Number, example: 5400 })
  usages!: number;

  @ApiProperty({ type: Number, example: 175 })
  clicks!: number;

  @ApiProperty({ type: Number, example: 3.25 })
  ctr!: number;

  @ApiProperty({ type: Number, description: 'pools with no domain a link can use', example: 1 })
  withoutValidDomains!: number;

  @ApiProperty({ type: Number, example: 100 })
  maxDomainsPerPool!: number;
}

export class PoolSettingsResponse {
  @ApiProperty({ type: Number, example: 100 })
  maxDomainsPerPool!: number;
}

export class OfferResponse {
  @ApiProperty({ type: Number, example: 1 })
  id!: number;

  @ApiProperty({ type: String, example: 'Spring sale landing' })
  name!: string;

  @ApiProperty({ type: String, example: 'https://shop.example.com/spring?name={firstName}' })
  originalUrl!: string;

  @ApiProperty({ type: Number, nullable: true, example: 30 })
  expireInDays!: number | null;

  @ApiProperty({ enum: ['offer_creation', 'link_creation', 'never'], example: 'offer_creation' })
  expireMethod!: string;

  @ApiProperty({ enum: ['disabled', 'active', 'expired', 'about_to_expire'], example: 'active' })
  state!: string;

  @ApiProperty({ type: Boolean, example: false })
  disabled!: boolean;

  @ApiProperty({ type: [String], example: ['firstName'] })
  variables!: string[];

  @ApiProperty({ type: String, example: '' })
  description!: string;

  @ApiProperty({ type: String, example: AT })
  createdAt!: string;

  @ApiProperty({ type: String, nullable: true, example: AT })
  expiresAt!: string | null;
}

export class OfferOptionResponse {
  @ApiProperty({ type: Number, example: 1 })
  id!: number;

  @ApiProperty({ type: String, example: 'Spring sale landing' })
  name!: string;

  @ApiProperty({ type: String, example: 'https://shop.example.com/spring?name={firstName}' })
  originalUrl!: string;

  @ApiProperty({ enum: ['active', 'about_to_expire'], example: 'active' })
  state!: string;
}

export class CampaignAddDomainResponse extends DomainBulkResponse {
  @ApiPropertyOptional({ type: DomainPoolResponse, nullable: true, description: 'the pool the new domains joined (existing or new), or null' })
  pool!: DomainPoolResponse | null;
}
