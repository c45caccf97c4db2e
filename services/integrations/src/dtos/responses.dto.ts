import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CONNECTOR_TYPES, INTEGRATION_TYPES } from '@switchboard/contracts';

/** What the integrations routes take and answer, for the OpenAPI document (/api/docs.json). Shapes: libs/contracts/src/integrations.ts. */

const KEY = '3f2b8c1e-5d4a-4e6f-9a10-7b2c3d4e5f60';
const STATUSES = ['pending', 'authorised', 'syncing', 'active', 'paused', 'error', 'disconnected'];
const FIELD_TYPES = ['string', 'number', 'boolean', 'date', 'enum', 'phone', 'email'];

export class OptionBody {
  @ApiProperty({ type: String, example: 'lead' })
  value!: string;

  @ApiProperty({ type: String, example: 'Lead' })
  label!: string;
}

export class SyncStepBody {
  @ApiProperty({ enum: ['users', 'teams', 'contacts', 'changes'], example: 'contacts' })
  name!: string;

  @ApiProperty({ enum: ['waiting', 'running', 'paused', 'done', 'failed'], example: 'running' })
  state!: string;

  @ApiProperty({ type: Number, example: 1500 })
  done!: number;

  @ApiProperty({ type: Number, nullable: true, example: 4000 })
  total!: number | null;

  @ApiProperty({ type: Number, description: 'the step\'s bar, 0..100', example: 37 })
  progress!: number;
}

export class SyncErrorBody {
  @ApiProperty({ type: String, example: 'VENDOR_UNAVAILABLE' })
  code!: string;

  @ApiProperty({ type: String, example: 'HubSpot could not be reached: retrying' })
  message!: string;
}

export class SyncProgressResponse {
  @ApiProperty({ enum: ['idle', 'running', 'paused', 'done', 'failed'], example: 'running' })
  state!: string;

  @ApiProperty({ type: Number, description: 'the whole sync\'s bar, 0..100', example: 68 })
  progress!: number;

  @ApiProperty({ type: [SyncStepBody] })
  steps!: SyncStepBody[];

  @ApiProperty({ type: String, nullable: true, description: 'when paused: the next attempt (Retry-After or outage backoff)', example: null })
  retryAt!: string | null;

  @ApiProperty({ type: SyncErrorBody, nullable: true })
  error!: SyncErrorBody | null;

  @ApiProperty({ type: String, nullable: true, example: '2026-11-25T22:00:00.000Z' })
  startedAt!: string | null;

  @ApiProperty({ type: String, nullable: true, example: null })
  finishedAt!: string | null;
}

export class IntegrationKeyResponse {
  @ApiProperty({ type: Number, example: 1 })
  id!: number;

  @ApiProperty({ type: String, description: 'the integration key', example: KEY })
  key!: string;

  @ApiProperty({ enum: INTEGRATION_TYPES, example: 'hubspot' })
  type!: string;

  @ApiProperty({ type: String, example: 'HubSpot' })
  name!: string;

  @ApiProperty({ enum: STATUSES, example: 'active' })
  status!: string;

  @ApiProperty({ enum: ['oauth', 'api_key'], example: 'oauth' })
  authMode!: string;

  @ApiProperty({ type: Boolean, description: 'Pipedrive: only the account admin (TENANT_OWNER) manages it', example: false })
  adminOnly!: boolean;

  @ApiProperty({ type: String, nullable: true, example: 'Acme Ltd' })
  companyName!: string | null;

  @ApiProperty({ type: String, nullable: true, example: null })
  baseUrl!: string | null;

  @ApiProperty({ type: Boolean, description: 'whether credentials are kept (never the credentials themselves)', example: true })
  credentials!: boolean;

  @ApiProperty({ type: SyncProgressResponse })
  sync!: SyncProgressResponse;

  @ApiProperty({ type: String, nullable: true, example: '2026-11-25T22:10:00.000Z' })
  lastSyncedAt!: string | null;

  @ApiProperty({ type: String, example: '2026-11-25T21:00:00.000Z' })
  createdAt!: string;

  @ApiProperty({ type: String, example: '2026-11-25T22:10:00.000Z' })
  updatedAt!: string;
}

export class OAuthAvailabilityBody {
  @ApiProperty({ type: Boolean, example: false })
  available!: boolean;

  @ApiProperty({ type: String, nullable: true, example: 'no OAuth app is configured for HubSpot on this platform (INTEGRATIONS_OAUTH_CLIENTS): connect it with a key, or ask the operator' })
  reason!: string | null;
}

export class DomainFieldBody {
  @ApiProperty({ type: Boolean, example: true })
  required!: boolean;

  @ApiProperty({ type: String, example: 'shop domain (name.myshopify.com)' })
  label!: string;
}

export class IntegrationOptionResponse {
  @ApiProperty({ enum: CONNECTOR_TYPES, example: 'pipedrive' })
  type!: string;

  @ApiProperty({ type: String, example: 'Pipedrive' })
  name!: string;

  @ApiProperty({ type: Boolean, example: true })
  adminOnly!: boolean;

  @ApiProperty({ type: OAuthAvailabilityBody, nullable: true })
  oauth!: OAuthAvailabilityBody | null;

  @ApiProperty({ type: Boolean, description: 'can be connected with a key the customer pastes', example: true })
  apiKey!: boolean;

  @ApiProperty({ type: DomainFieldBody, nullable: true })
  domain!: DomainFieldBody | null;
}

export class IntegrationInstallBody {
  @ApiProperty({ enum: CONNECTOR_TYPES, example: 'hubspot' })
  type!: string;

  @ApiPropertyOptional({ type: String, example: 'HubSpot (sales)' })
  name?: string;

  @ApiPropertyOptional({ type: String, description: 'a key instead of OAuth (private app token, API token, access token)', example: 'pat-na1-00000000-0000-0000-0000-000000000000' })
  apiKey?: string;

  @ApiPropertyOptional({ type: String, description: 'Shopify shop (required), Pipedrive company, Monday contacts board id', example: 'acme.myshopify.com' })
  domain?: string;

  @ApiPropertyOptional({ type: String, description: 'the vendor API base URL for this integration (https, public host)', example: 'https://api.hubapi.com' })
  baseUrl?: string;
}

export class IntegrationUpdateBody {
  @ApiPropertyOptional({ type: String, minLength: 1, maxLength: 120, example: 'HubSpot (EMEA sales)' })
  name?: string;

  @ApiPropertyOptional({ type: String, description: 'a new key, checked with the vendor before it replaces the stored one (400 0x15 "invalid token" when refused)', example: 'pat-na1-11111111-1111-1111-1111-111111111111' })
  apiKey?: string;

  @ApiPropertyOptional({ type: String, description: 'a new Shopify shop, Pipedrive company or Monday board id: only together with apiKey', example: 'acme-eu.myshopify.com' })
  domain?: string;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'a new vendor API base URL (https, public host), or null for the vendor default: only together with apiKey', example: 'https://api.hubapi.com' })
  baseUrl?: string | null;
}

export class IntegrationInstallResponseBody {
  @ApiProperty({ type: String, example: KEY })
  key!: string;

  @ApiProperty({ type: String, nullable: true, description: 'where the browser goes to authorise (OAuth); null when a key was accepted', example: 'https://app.hubspot.com/oauth/authorize?client_id=...&state=...' })
  authorizeUrl!: string | null;

  @ApiProperty({ type: IntegrationKeyResponse })
  integration!: IntegrationKeyResponse;

  @ApiPropertyOptional({ type: String, description: 'the dialer\'s integration token, answered once', example: 'dk_3q2-example' })
  token?: string;
}

export class IntegrationDropdownItemResponse {
  @ApiProperty({ type: String, example: KEY })
  key!: string;

  @ApiProperty({ enum: INTEGRATION_TYPES, example: 'hubspot' })
  type!: string;

  @ApiProperty({ type: String, example: 'HubSpot' })
  name!: string;
}

export class IntegrationContactFieldResponse {
  @ApiProperty({ type: String, description: 'the vendor\'s field name', example: 'lifecyclestage' })
  name!: string;

  @ApiProperty({ type: String, example: 'Lifecycle Stage' })
  label!: string;

  @ApiProperty({ enum: FIELD_TYPES, example: 'enum' })
  type!: string;

  @ApiProperty({ type: [OptionBody] })
  options!: OptionBody[];
}

export class IntegrationContactFilterResponse {
  @ApiProperty({ type: String, example: 'lifecyclestage' })
  field!: string;

  @ApiProperty({ type: String, example: 'Lifecycle Stage' })
  label!: string;

  @ApiProperty({ enum: FIELD_TYPES, example: 'enum' })
  type!: string;

  @ApiProperty({ type: [String], example: ['eq', 'neq', 'in', 'empty', 'not_empty'] })
  operators!: string[];

  @ApiProperty({ type: [OptionBody] })
  options!: OptionBody[];
}

export class ImportUsersBody {
  @ApiProperty({ enum: ['admins', 'all', 'profiles'], example: 'profiles' })
  type!: string;

  @ApiPropertyOptional({ type: [String], description: 'required, non-empty, when type is profiles', example: ['sales'] })
  profiles?: string[];
}

export class ImportTeamsBody {
  @ApiPropertyOptional({ enum: ['profiles', 'none'], default: 'profiles', example: 'profiles' })
  type?: string;
}

export class IntegrationConfigBody {
  @ApiPropertyOptional({ type: String, example: 'Acme Ltd' })
  company_name?: string;

  @ApiPropertyOptional({ type: String, description: 'the inbox space the imported agents join', example: 'Sales' })
  space_name?: string;

  @ApiProperty({ type: ImportUsersBody })
  import_users!: ImportUsersBody;

  @ApiPropertyOptional({ type: ImportTeamsBody })
  import_teams?: ImportTeamsBody;

  @ApiPropertyOptional({ type: Boolean, default: true, description: 'a note on the CRM contact when an inbox conversation with its number is closed', example: true })
  note_on_close?: boolean;
}

export class ProfileBody {
  @ApiProperty({ type: String, example: 'sales' })
  id!: string;

  @ApiProperty({ type: String, example: 'Sales team' })
  name!: string;
}

export class SavedImportUsersBody {
  @ApiProperty({ enum: ['admins', 'all', 'profiles'], example: 'profiles' })
  type!: string;

  @ApiProperty({ type: [String], example: ['sales'] })
  profiles!: string[];
}

export class SavedImportTeamsBody {
  @ApiProperty({ enum: ['profiles', 'none'], example: 'profiles' })
  type!: string;
}

export class IntegrationConfigData {
  @ApiProperty({ type: String, example: KEY })
  key!: string;

  @ApiProperty({ enum: INTEGRATION_TYPES, example: 'hubspot' })
  type!: string;

  @ApiProperty({ enum: STATUSES, example: 'authorised' })
  status!: string;

  @ApiProperty({ type: String, nullable: true, example: 'Acme Ltd' })
  company_name!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'Sales' })
  space_name!: string | null;

  @ApiProperty({ type: SavedImportUsersBody, nullable: true })
  import_users!: SavedImportUsersBody | null;

  @ApiProperty({ type: SavedImportTeamsBody })
  import_teams!: SavedImportTeamsBody;

  @ApiProperty({ type: Boolean, description: 'a note on the CRM contact when an inbox conversation with its number is closed', example: true })
  note_on_close!: boolean;

  @ApiProperty({ type: [ProfileBody], description: 'the CRM\'s profiles to choose from' })
  profiles!: ProfileBody[];

  @ApiProperty({ type: SyncProgressResponse })
  sync!: SyncProgressResponse;
}

export class IntegrationConfigResponseBody {
  @ApiProperty({ enum: ['success'], example: 'success' })
  status!: string;

  @ApiProperty({ type: IntegrationConfigData })
  data!: IntegrationConfigData;
}

export class DialerConversationBody {
  @ApiProperty({ type: String, example: '+447911123456' })
  phone!: string;

  @ApiPropertyOptional({ type: String, example: 'Jane Caller' })
  name?: string;
}

export class DialerConversationResponseBody {
  @ApiProperty({ type: String, example: 'https://switchboard.example.com/inbox?action=newDialerConv&contact_key=0b6f5c1e-3c4d-4e8f-9a10-1b2c3d4e5f60' })
  url!: string;

  @ApiProperty({ type: String, example: '0b6f5c1e-3c4d-4e8f-9a10-1b2c3d4e5f60' })
  contactKey!: string;
}

export class DialerContactResponse {
  @ApiProperty({ type: String, example: '0b6f5c1e-3c4d-4e8f-9a10-1b2c3d4e5f60' })
  contactKey!: string;

  @ApiProperty({ type: String, example: KEY })
  integrationKey!: string;

  @ApiProperty({ type: String, example: '+447911123456' })
  phone!: string;

  @ApiProperty({ type: String, nullable: true, example: 'Jane Caller' })
  name!: string | null;

  @ApiProperty({ type: String, example: '2026-11-25T22:10:00.000Z' })
  createdAt!: string;
}

export class IntegrationContactResponse {
  @ApiProperty({ type: String, example: KEY })
  integrationKey!: string;

  @ApiProperty({ enum: INTEGRATION_TYPES, example: 'hubspot' })
  type!: string;

  @ApiProperty({ type: String, example: '1001' })
  externalId!: string;

  @ApiProperty({ type: String, nullable: true, example: 'Jane Doe' })
  name!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'jane@example.com' })
  email!: string | null;

  @ApiProperty({ type: String, example: '+447911123456' })
  phone!: string;

  @ApiProperty({ type: String, nullable: true, example: 'https://acme.pipedrive.com/person/1001' })
  url!: string | null;

  @ApiProperty({ type: 'object', additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] }, example: { lifecyclestage: 'customer' } })
  fields!: Record<string, string | number | boolean | null>;
}

export class IntegrationNoteBody {
  @ApiProperty({ type: String, required: false, description: 'the CRM contact\'s id, as the contact lookup answers it (give this or phone, not both)' })
  externalId?: string;

  @ApiProperty({ type: String, required: false, description: 'the conversation\'s number: every CRM contact of this integration with it (up to 20)', example: '+447922000004' })
  phone?: string;

  @ApiProperty({ type: String, maxLength: 4000, example: 'Conversation closed by Ann: "Thanks, see you Tuesday"' })
  text!: string;
}

export class IntegrationNoteResponse {
  @ApiProperty({ type: String, example: KEY })
  integrationKey!: string;

  @ApiProperty({ type: [String], example: ['5004'] })
  externalIds!: string[];
}
