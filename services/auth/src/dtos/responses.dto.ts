import { ApiProperty } from '@nestjs/swagger';

/**
 * What this service's routes answer, for the OpenAPI document (/api/docs.json). The shapes mirror the services'
 * return types; examples are what a caller sees.
 */
export class ApiKeyTokenResponse {
  @ApiProperty({ type: String, example: 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln' })
  token!: string;

  @ApiProperty({ type: String, enum: ['Bearer'], example: 'Bearer' })
  token_type!: string;

  @ApiProperty({ type: Number })
  expires_in!: number;
}

export class ApiKeyResponse {
  @ApiProperty({ type: Number, example: 1 })
  id!: number;

  @ApiProperty({ type: String, example: 'carrier integration' })
  name!: string;

  @ApiProperty({ type: String, description: 'The whole key only in the answer that created or regenerated it; otherwise its first characters and an ellipsis.' })
  apiKey!: string;

  @ApiProperty({ type: String })
  ipAcl!: string;

  @ApiProperty({ type: [String], example: ['STREAM_VIEW', 'STREAM_ADD_EDIT', 'STREAM_TOKEN', 'SENDER_VIEW', 'COST_VIEW'] })
  permissions!: string[];

  @ApiProperty({ type: Number, enum: [0,1], example: 1 })
  active!: number;

  @ApiProperty({ type: String, example: '2026-11-25T16:39:53.955Z' })
  createdAt!: string;

  @ApiProperty({ type: String, nullable: true, example: '2026-11-25T16:39:54.230Z' })
  lastUsedAt!: string;
}

export class InviteCheckCustomerResponse {
  @ApiProperty({ type: Number, example: 42 })
  id!: number;

  @ApiProperty({ type: String, example: 'Acme' })
  name!: string;
}

export class InviteCheckResponse {
  @ApiProperty({ type: Number, enum: [1], example: 1 })
  status!: number;

  @ApiProperty({ type: Number, enum: [1,2], example: 1 })
  action!: number;

  @ApiProperty({ type: String, example: 'jane@example.com' })
  email!: string;

  @ApiProperty({ type: String, example: 'Jane' })
  firstname!: string;

  @ApiProperty({ type: String, example: 'Doe' })
  lastname!: string;

  @ApiProperty({ type: () => InviteCheckCustomerResponse })
  customer!: InviteCheckCustomerResponse;
}

export class InviteAcceptedCustomerResponse {
  @ApiProperty({ type: Number, example: 42 })
  id!: number;

  @ApiProperty({ type: String, example: 'Acme' })
  name!: string;
}

export class InviteAcceptedResponse {
  @ApiProperty({ type: Number, enum: [1], example: 1 })
  status!: number;

  @ApiProperty({ type: String, enum: ['newly-registered', 'registered'], example: 'newly-registered', description: 'Spec 4: the console\'s user type after the invite.' })
  userType!: string;

  @ApiProperty({ type: () => InviteAcceptedCustomerResponse })
  customer!: InviteAcceptedCustomerResponse;
}

export class InviteResponse {
  @ApiProperty({ type: Number, example: 42 })
  id!: number;

  @ApiProperty({ type: Number, enum: [1,2], example: 1 })
  status!: number;

  @ApiProperty({ type: String, example: 'Jane' })
  firstname!: string;

  @ApiProperty({ type: String, example: 'Doe' })
  lastname!: string;

  @ApiProperty({ type: String, example: 'jane@example.com' })
  email!: string;

  @ApiProperty({ type: [Number], example: [42] })
  user_roles_ids!: number[];

  @ApiProperty({ type: String, example: '2026-11-25T16:00:00.000Z' })
  createdAt!: string;

  @ApiProperty({ type: String, example: '2026-11-25T16:00:00.000Z' })
  expiresAt!: string;

  @ApiProperty({ type: Boolean, description: 'A pending invite past its expiry: it can be sent again, not accepted.' })
  expired!: boolean;

  @ApiProperty({ type: String, nullable: true, example: '2026-11-25T16:00:00.000Z' })
  acceptedAt!: string;
}

export class LoginAsResponse {
  @ApiProperty({ type: String, example: 'jane@example.com', description: 'The impersonated address, for the console\'s \"login as {email}\" strip.' })
  email!: string;

  @ApiProperty({ type: String, example: 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln' })
  token!: string;

  @ApiProperty({ type: String, example: 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln' })
  refresh_token!: string;
}

export class LoginAsExitResponse {
  @ApiProperty({ type: Number, enum: [1], example: 1 })
  status!: number;
}

export class ResetResponse {
  @ApiProperty({ type: Number, enum: [1], example: 1 })
  status!: number;
}

export class PasswordChangeResponse {
  @ApiProperty({ type: Number, enum: [1], example: 1 })
  status!: number;

  @ApiProperty({ type: String, example: 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln' })
  token!: string;

  @ApiProperty({ type: String, example: 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln' })
  refresh_token!: string;
}

export class RoleResponse {
  @ApiProperty({ type: Number, example: 1 })
  id!: number;

  @ApiProperty({ type: String, example: 'Tenant owner' })
  name!: string;

  @ApiProperty({ type: String, example: 'Owns the account: every permission' })
  description!: string;

  @ApiProperty({ type: [String], example: ['GENERAL_VIEW', 'PHONE_VIEW', 'EMAIL_VIEW', 'COST_VIEW', 'DASHBOARD_VIEW', 'REALTIME_VIEW', 'ANALYTICS_VIEW', 'API_KEY_ADD', 'API_KEY_VIEW', 'API_KEY_EDIT', 'API_KEY_DELETE', 'CAMPAIGN_VIEW', 'CAMPAIGN_ADD_EDIT', 'CAMPAIGN_REMOVE', 'CAMPAIGN_TESTER', 'DOMAIN_VIEW', 'DOMAIN_ADD_EDIT', 'DOMAIN_REMOVE', 'MESSAGE_VIEW', 'MESSAGE_READ_CONTENT', 'MESSAGE_INCOMING_VIEW', 'MESSAGE_INCOMING_RESPONSE', 'MESSAGE_EXPORT', 'STREAM_VIEW', 'STREAM_ADD_EDIT', 'STREAM_REMOVE', 'STREAM_TOKEN', 'STREAM_TESTER', 'STREAM_RESET_TOKEN', 'USER_INVITE_VIEW', 'USER_INVITE_ADD', 'USER_INVITE_EDIT', 'USER_INVITE_DELETE', 'USER_ROLE_VIEW', 'USER_ROLE_ADD', 'USER_ROLE_EDIT', 'USER_ROLE_DELETE', 'TEMPLATE_VIEW', 'TEMPLATE_ADD_EDIT', 'TEMPLATE_REMOVE', 'URL_OFFER_VIEW', 'URL_OFFER_ADD_EDIT', 'URL_OFFER_REMOVE', 'CONTACT_VIEW', 'CONTACT_ADD_EDIT', 'CONTACT_REMOVE', 'CONTACT_LIST_SEGMENT_VIEW', 'CONTACT_LIST_SEGMENT_ADD', 'CONTACT_LIST_SEGMENT_EDIT', 'CONTACT_LIST_SEGMENT_REMOVE', 'CONTACT_LIST_SEGMENT_EXPORT', 'CONTACT_FIELD_VIEW', 'CONTACT_FIELD_ADD_EDIT', 'CONTACT_FIELD_REMOVE', 'SETTINGS_VIEW', 'SETTINGS_EDIT', 'SENDING_HOURS_VIEW', 'SENDING_HOURS_EDIT', 'SENDER_VIEW', 'SENDER_ADD_EDIT', 'SENDER_REMOVE', 'BLOCK_DESTINATION_VIEW', 'BLOCK_DESTINATION_ADD_EDIT', 'BLOCK_DESTINATION_REMOVE', 'WEBHOOK_VIEW', 'WEBHOOK_ADD_EDIT', 'WEBHOOK_REMOVE', 'WEBHOOK_REQUEST_VIEW', 'INTEGRATION_VIEW', 'INBOX_ADMIN', 'INBOX_VIEW', 'INBOX_SHOW_PHONE', 'INBOX_ASSIGN', 'INBOX_NEW_CONVERSATION', 'INBOX_TEAM_VIEW', 'INBOX_ASSIGN_TAGS', 'INBOX_INTERNAL_NOTES', 'INBOX_AGENT_STATISTICS', 'INBOX_AI_ASSISTANT', 'INBOX_MANAGER_SETTINGS', 'INBOX_SENDER_PROFILE', 'INBOX_INCOMING_ROUTING', 'INBOX_CONVERSATION_TAGS', 'INBOX_TEAM_MANAGEMENT', 'INBOX_CANNED_TEMPLATES', 'INBOX_STATISTICS', 'INBOX_CONVERSATION_GOALS', 'TENANT_OWNER'] })
  permissions!: string[];

  @ApiProperty({ type: Number, enum: [1,2], example: 1 })
  roleType!: number;

  @ApiProperty({ type: Boolean, example: true })
  readOnly!: boolean;

  @ApiProperty({ type: Boolean, example: false })
  isDeleted!: boolean;

  @ApiProperty({ type: Number, nullable: true, description: 'null for the system roles every account shares.' })
  customer!: number;
}

export class PermissionGroupResponse {
  @ApiProperty({ type: String })
  key!: string;

  @ApiProperty({ type: String, example: 'General, phone, email, cost and dashboard views' })
  label!: string;

  @ApiProperty({ type: String, enum: ['platform', 'inbox'], example: 'platform' })
  roleType!: string;

  @ApiProperty({ type: [String], enum: ['GENERAL_VIEW', 'PHONE_VIEW', 'EMAIL_VIEW', 'COST_VIEW', 'DASHBOARD_VIEW', 'REALTIME_VIEW', 'ANALYTICS_VIEW', 'API_KEY_ADD', 'API_KEY_VIEW', 'API_KEY_EDIT', 'API_KEY_DELETE', 'CAMPAIGN_VIEW', 'CAMPAIGN_ADD_EDIT', 'CAMPAIGN_REMOVE', 'CAMPAIGN_TESTER', 'DOMAIN_VIEW', 'DOMAIN_ADD_EDIT', 'DOMAIN_REMOVE', 'MESSAGE_VIEW', 'MESSAGE_READ_CONTENT', 'MESSAGE_INCOMING_VIEW', 'MESSAGE_INCOMING_RESPONSE', 'MESSAGE_EXPORT', 'STREAM_VIEW', 'STREAM_ADD_EDIT', 'STREAM_REMOVE', 'STREAM_TOKEN', 'STREAM_TESTER', 'STREAM_RESET_TOKEN', 'USER_INVITE_VIEW', 'USER_INVITE_ADD', 'USER_INVITE_EDIT', 'USER_INVITE_DELETE', 'USER_ROLE_VIEW', 'USER_ROLE_ADD', 'USER_ROLE_EDIT', 'USER_ROLE_DELETE', 'TEMPLATE_VIEW', 'TEMPLATE_ADD_EDIT', 'TEMPLATE_REMOVE', 'URL_OFFER_VIEW', 'URL_OFFER_ADD_EDIT', 'URL_OFFER_REMOVE', 'CONTACT_VIEW', 'CONTACT_ADD_EDIT', 'CONTACT_REMOVE', 'CONTACT_LIST_SEGMENT_VIEW', 'CONTACT_LIST_SEGMENT_ADD', 'CONTACT_LIST_SEGMENT_EDIT', 'CONTACT_LIST_SEGMENT_REMOVE', 'CONTACT_LIST_SEGMENT_EXPORT', 'CONTACT_FIELD_VIEW', 'CONTACT_FIELD_ADD_EDIT', 'CONTACT_FIELD_REMOVE', 'SETTINGS_VIEW', 'SETTINGS_EDIT', 'SENDING_HOURS_VIEW', 'SENDING_HOURS_EDIT', 'SENDER_VIEW', 'SENDER_ADD_EDIT', 'SENDER_REMOVE', 'BLOCK_DESTINATION_VIEW', 'BLOCK_DESTINATION_ADD_EDIT', 'BLOCK_DESTINATION_REMOVE', 'WEBHOOK_VIEW', 'WEBHOOK_ADD_EDIT', 'WEBHOOK_REMOVE', 'WEBHOOK_REQUEST_VIEW', 'INTEGRATION_VIEW', 'INBOX_ADMIN', 'INBOX_VIEW', 'INBOX_SHOW_PHONE', 'INBOX_ASSIGN', 'INBOX_NEW_CONVERSATION', 'INBOX_TEAM_VIEW', 'INBOX_ASSIGN_TAGS', 'INBOX_INTERNAL_NOTES', 'INBOX_AGENT_STATISTICS', 'INBOX_AI_ASSISTANT', 'INBOX_MANAGER_SETTINGS', 'INBOX_SENDER_PROFILE', 'INBOX_INCOMING_ROUTING', 'INBOX_CONVERSATION_TAGS', 'INBOX_TEAM_MANAGEMENT', 'INBOX_CANNED_TEMPLATES', 'INBOX_STATISTICS', 'INBOX_CONVERSATION_GOALS', 'TENANT_OWNER'], example: ['GENERAL_VIEW', 'PHONE_VIEW', 'EMAIL_VIEW', 'COST_VIEW', 'DASHBOARD_VIEW'] })
  permissions!: string[];
}

export class MemberPlatformRoleResponse {
  @ApiProperty({ type: Number, example: 42 })
  id!: number;

  @ApiProperty({ type: String, example: 'Acme' })
  name!: string;
}

export class MemberInboxRoleResponse {
  @ApiProperty({ type: Number, example: 42 })
  id!: number;

  @ApiProperty({ type: String, example: 'Acme' })
  name!: string;
}

export class MemberResponse {
  @ApiProperty({ type: Number, example: 1 })
  id!: number;

  @ApiProperty({ type: String, example: 'admin@switchboard.local' })
  email!: string;

  @ApiProperty({ type: String, example: 'Admin' })
  firstName!: string;

  @ApiProperty({ type: String, example: 'Doe' })
  lastName!: string;

  @ApiProperty({ type: Number, enum: [0,1,2,-1,3], example: 0 })
  status!: number;

  @ApiProperty({ type: () => MemberPlatformRoleResponse, nullable: true })
  platformRole!: MemberPlatformRoleResponse;

  @ApiProperty({ type: () => MemberInboxRoleResponse, nullable: true })
  inboxRole!: MemberInboxRoleResponse;

  @ApiProperty({ type: [Number], example: [1] })
  user_roles_ids!: number[];

  @ApiProperty({ type: [String], example: ['ANALYTICS_VIEW', 'API_KEY_ADD', 'API_KEY_DELETE', 'API_KEY_EDIT', 'API_KEY_VIEW', 'BLOCK_DESTINATION_ADD_EDIT', 'BLOCK_DESTINATION_REMOVE', 'BLOCK_DESTINATION_VIEW', 'CAMPAIGN_ADD_EDIT', 'CAMPAIGN_REMOVE', 'CAMPAIGN_TESTER', 'CAMPAIGN_VIEW', 'CONTACT_ADD_EDIT', 'CONTACT_FIELD_ADD_EDIT', 'CONTACT_FIELD_REMOVE', 'CONTACT_FIELD_VIEW', 'CONTACT_LIST_SEGMENT_ADD', 'CONTACT_LIST_SEGMENT_EDIT', 'CONTACT_LIST_SEGMENT_EXPORT', 'CONTACT_LIST_SEGMENT_REMOVE', 'CONTACT_LIST_SEGMENT_VIEW', 'CONTACT_REMOVE', 'CONTACT_VIEW', 'COST_VIEW', 'DASHBOARD_VIEW', 'DOMAIN_ADD_EDIT', 'DOMAIN_REMOVE', 'DOMAIN_VIEW', 'EMAIL_VIEW', 'GENERAL_VIEW', 'INBOX_ADMIN', 'INBOX_AGENT_STATISTICS', 'INBOX_AI_ASSISTANT', 'INBOX_ASSIGN', 'INBOX_ASSIGN_TAGS', 'INBOX_CANNED_TEMPLATES', 'INBOX_CONVERSATION_GOALS', 'INBOX_CONVERSATION_TAGS', 'INBOX_INCOMING_ROUTING', 'INBOX_INTERNAL_NOTES', 'INBOX_MANAGER_SETTINGS', 'INBOX_NEW_CONVERSATION', 'INBOX_SENDER_PROFILE', 'INBOX_SHOW_PHONE', 'INBOX_STATISTICS', 'INBOX_TEAM_MANAGEMENT', 'INBOX_TEAM_VIEW', 'INBOX_VIEW', 'INTEGRATION_VIEW', 'MESSAGE_EXPORT', 'MESSAGE_INCOMING_RESPONSE', 'MESSAGE_INCOMING_VIEW', 'MESSAGE_READ_CONTENT', 'MESSAGE_VIEW', 'PHONE_VIEW', 'REALTIME_VIEW', 'SENDER_ADD_EDIT', 'SENDER_REMOVE', 'SENDER_VIEW', 'SENDING_HOURS_EDIT', 'SENDING_HOURS_VIEW', 'SETTINGS_EDIT', 'SETTINGS_VIEW', 'STREAM_ADD_EDIT', 'STREAM_REMOVE', 'STREAM_RESET_TOKEN', 'STREAM_TESTER', 'STREAM_TOKEN', 'STREAM_VIEW', 'TEMPLATE_ADD_EDIT', 'TEMPLATE_REMOVE', 'TEMPLATE_VIEW', 'TENANT_OWNER', 'URL_OFFER_ADD_EDIT', 'URL_OFFER_REMOVE', 'URL_OFFER_VIEW', 'USER_INVITE_ADD', 'USER_INVITE_DELETE', 'USER_INVITE_EDIT', 'USER_INVITE_VIEW', 'USER_ROLE_ADD', 'USER_ROLE_DELETE', 'USER_ROLE_EDIT', 'USER_ROLE_VIEW', 'WEBHOOK_ADD_EDIT', 'WEBHOOK_REMOVE', 'WEBHOOK_REQUEST_VIEW', 'WEBHOOK_VIEW'] })
  userPermissions!: string[];

  @ApiProperty({ type: Boolean, description: 'Spec 2: a crown marks the global admin.', example: true })
  superAdmin!: boolean;

  @ApiProperty({ type: String, example: '2026-11-25T16:39:40.401Z' })
  createdAt!: string;
}

export class CurrentAccountResponse {
  @ApiProperty({ type: String, example: 'EUR' })
  currency!: string;

  @ApiProperty({ type: Number, example: 42 })
  id!: number;

  @ApiProperty({ type: String, example: 'Acme' })
  name!: string;

  @ApiProperty({ type: String, example: 'Acme' })
  shortName!: string;

  @ApiProperty({ type: String, example: 'active' })
  status!: string;

  @ApiProperty({ type: Number, enum: [0,1], example: 0, description: '1 when the account can be worked in (not disabled or deleted), else 0 (spec 3: active 0/1).' })
  active!: number;
}

export class AccountSummaryResponse {
  @ApiProperty({ type: Number, example: 42 })
  id!: number;

  @ApiProperty({ type: String, example: 'Acme' })
  name!: string;

  @ApiProperty({ type: String, example: 'Acme' })
  shortName!: string;

  @ApiProperty({ type: String, example: 'active' })
  status!: string;

  @ApiProperty({ type: Number, enum: [0,1], example: 0, description: '1 when the account can be worked in (not disabled or deleted), else 0 (spec 3: active 0/1).' })
  active!: number;
}

export class ProfileResponse {
  @ApiProperty({ type: Number, example: 1 })
  id!: number;

  @ApiProperty({ type: String, example: 'admin@switchboard.local' })
  email!: string;

  @ApiProperty({ type: String, example: 'Admin' })
  firstName!: string;

  @ApiProperty({ type: String, example: 'Doe' })
  lastName!: string;

  @ApiProperty({ type: String, example: 'Europe/London' })
  timezone!: string;

  @ApiProperty({ type: String, description: 'The preferences object as a JSON string.', example: '{}' })
  preferences!: string;

  @ApiProperty({ type: [String], example: ['ROLE_USER', 'ROLE_SUPER_ADMIN'] })
  roles!: string[];

  @ApiProperty({ type: [String], example: ['GENERAL_VIEW', 'PHONE_VIEW', 'EMAIL_VIEW', 'COST_VIEW', 'DASHBOARD_VIEW', 'REALTIME_VIEW', 'ANALYTICS_VIEW', 'API_KEY_ADD', 'API_KEY_VIEW', 'API_KEY_EDIT', 'API_KEY_DELETE', 'CAMPAIGN_VIEW', 'CAMPAIGN_ADD_EDIT', 'CAMPAIGN_REMOVE', 'CAMPAIGN_TESTER', 'DOMAIN_VIEW', 'DOMAIN_ADD_EDIT', 'DOMAIN_REMOVE', 'MESSAGE_VIEW', 'MESSAGE_READ_CONTENT', 'MESSAGE_INCOMING_VIEW', 'MESSAGE_INCOMING_RESPONSE', 'MESSAGE_EXPORT', 'STREAM_VIEW', 'STREAM_ADD_EDIT', 'STREAM_REMOVE', 'STREAM_TOKEN', 'STREAM_TESTER', 'STREAM_RESET_TOKEN', 'USER_INVITE_VIEW', 'USER_INVITE_ADD', 'USER_INVITE_EDIT', 'USER_INVITE_DELETE', 'USER_ROLE_VIEW', 'USER_ROLE_ADD', 'USER_ROLE_EDIT', 'USER_ROLE_DELETE', 'TEMPLATE_VIEW', 'TEMPLATE_ADD_EDIT', 'TEMPLATE_REMOVE', 'URL_OFFER_VIEW', 'URL_OFFER_ADD_EDIT', 'URL_OFFER_REMOVE', 'CONTACT_VIEW', 'CONTACT_ADD_EDIT', 'CONTACT_REMOVE', 'CONTACT_LIST_SEGMENT_VIEW', 'CONTACT_LIST_SEGMENT_ADD', 'CONTACT_LIST_SEGMENT_EDIT', 'CONTACT_LIST_SEGMENT_REMOVE', 'CONTACT_LIST_SEGMENT_EXPORT', 'CONTACT_FIELD_VIEW', 'CONTACT_FIELD_ADD_EDIT', 'CONTACT_FIELD_REMOVE', 'SETTINGS_VIEW', 'SETTINGS_EDIT', 'SENDING_HOURS_VIEW', 'SENDING_HOURS_EDIT', 'SENDER_VIEW', 'SENDER_ADD_EDIT', 'SENDER_REMOVE', 'BLOCK_DESTINATION_VIEW', 'BLOCK_DESTINATION_ADD_EDIT', 'BLOCK_DESTINATION_REMOVE', 'WEBHOOK_VIEW', 'WEBHOOK_ADD_EDIT', 'WEBHOOK_REMOVE', 'WEBHOOK_REQUEST_VIEW', 'INTEGRATION_VIEW', 'INBOX_ADMIN', 'INBOX_VIEW', 'INBOX_SHOW_PHONE', 'INBOX_ASSIGN', 'INBOX_NEW_CONVERSATION', 'INBOX_TEAM_VIEW', 'INBOX_ASSIGN_TAGS', 'INBOX_INTERNAL_NOTES', 'INBOX_AGENT_STATISTICS', 'INBOX_AI_ASSISTANT', 'INBOX_MANAGER_SETTINGS', 'INBOX_SENDER_PROFILE', 'INBOX_INCOMING_ROUTING', 'INBOX_CONVERSATION_TAGS', 'INBOX_TEAM_MANAGEMENT', 'INBOX_CANNED_TEMPLATES', 'INBOX_STATISTICS', 'INBOX_CONVERSATION_GOALS', 'TENANT_OWNER'] })
  userPermissions!: string[];

  @ApiProperty({ type: () => CurrentAccountResponse, nullable: true })
  customer!: CurrentAccountResponse;

  @ApiProperty({ type: () => [AccountSummaryResponse] })
  customers!: AccountSummaryResponse[];

  @ApiProperty({ type: String, nullable: true, example: null, description: 'always null: no chat-widget integration' })
  intercomToken!: string | null;
}

export class LiveChannelResponse {
  @ApiProperty({ type: String, example: '/realtime', description: 'Where to open the server-sent event stream (the gateway\'s /realtime, same origin by default).' })
  url!: string;

  @ApiProperty({ type: String, example: 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln', description: 'Bearer token for it (or `access_token` in the query, since EventSource cannot set headers).' })
  token!: string;

  @ApiProperty({ type: Number, example: 300 })
  expires_in!: number;

  @ApiProperty({ type: Number, example: 1 })
  accountId!: number;
}

export class UserUpdateResponse {
  @ApiProperty({ type: Number, example: 42 })
  id!: number;

  @ApiProperty({ type: String, example: 'jane@example.com' })
  email!: string;

  @ApiProperty({ type: String, example: 'Jane' })
  firstName!: string;

  @ApiProperty({ type: String, example: 'Doe' })
  lastName!: string;

  @ApiProperty({ type: String, example: 'Europe/London' })
  timezone!: string;

  @ApiProperty({ type: String, description: 'The preferences object as a JSON string.' })
  preferences!: string;

  @ApiProperty({ type: [String] })
  roles!: string[];

  @ApiProperty({ type: [String] })
  userPermissions!: string[];

  @ApiProperty({ type: () => CurrentAccountResponse, nullable: true })
  customer!: CurrentAccountResponse;

  @ApiProperty({ type: () => [AccountSummaryResponse] })
  customers!: AccountSummaryResponse[];

  @ApiProperty({ type: String, nullable: true, example: 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln', required: false })
  token?: string;

  @ApiProperty({ type: String, nullable: true, example: 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln', required: false })
  refresh_token?: string;
}

/** `PUT /users/{id}/disable` and `/enable`: the user and whether they may sign in. */
export class UserActiveResponse {
  @ApiProperty({ example: 42 })
  id!: number;

  @ApiProperty({ example: false, description: 'false: disabled everywhere (no sign-in, every token refused)' })
  active!: boolean;
}
