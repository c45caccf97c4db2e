/**
 * Permission strings of spec section 6, held by roles and carried in the access token (`perms`).
 * Routes check them with `@Permissions(Permission.StreamView)`.
 *
 * The names follow the spec's named examples (STREAM_VIEW, CONTACT_LIST_SEGMENT_EDIT, ...): `<RESOURCE>_<ACTION>`.
 * Where the spec lists a resource without its actions (domains, templates, ...) the resource gets VIEW, ADD_EDIT and
 * REMOVE (docs/decisions/0004-authentication.md). The strings are stored in roles: never rename one, only add.
 */
export const Permission = {
  // General, phone, email, cost and dashboard views
  GeneralView: 'GENERAL_VIEW',
  PhoneView: 'PHONE_VIEW',
  EmailView: 'EMAIL_VIEW',
  CostView: 'COST_VIEW',
  DashboardView: 'DASHBOARD_VIEW',
  // Realtime and analytics
  RealtimeView: 'REALTIME_VIEW',
  AnalyticsView: 'ANALYTICS_VIEW',
  // API keys
  ApiKeyAdd: 'API_KEY_ADD',
  ApiKeyView: 'API_KEY_VIEW',
  ApiKeyEdit: 'API_KEY_EDIT',
  ApiKeyDelete: 'API_KEY_DELETE',
  // Campaigns
  CampaignView: 'CAMPAIGN_VIEW',
  CampaignAddEdit: 'CAMPAIGN_ADD_EDIT',
  CampaignRemove: 'CAMPAIGN_REMOVE',
  CampaignTester: 'CAMPAIGN_TESTER',
  // Domains
  DomainView: 'DOMAIN_VIEW',
  DomainAddEdit: 'DOMAIN_ADD_EDIT',
  DomainRemove: 'DOMAIN_REMOVE',
  // Messages
  MessageView: 'MESSAGE_VIEW',
  MessageReadContent: 'MESSAGE_READ_CONTENT',
  MessageIncomingView: 'MESSAGE_INCOMING_VIEW',
  MessageIncomingResponse: 'MESSAGE_INCOMING_RESPONSE',
  MessageExport: 'MESSAGE_EXPORT',
  // Streams
  StreamView: 'STREAM_VIEW',
  StreamAddEdit: 'STREAM_ADD_EDIT',
  StreamRemove: 'STREAM_REMOVE',
  StreamToken: 'STREAM_TOKEN',
  StreamTester: 'STREAM_TESTER',
  StreamResetToken: 'STREAM_RESET_TOKEN',
  // User invites and roles
  UserInviteView: 'USER_INVITE_VIEW',
  UserInviteAdd: 'USER_INVITE_ADD',
  UserInviteEdit: 'USER_INVITE_EDIT',
  UserInviteDelete: 'USER_INVITE_DELETE',
  UserRoleView: 'USER_ROLE_VIEW',
  UserRoleAdd: 'USER_ROLE_ADD',
  UserRoleEdit: 'USER_ROLE_EDIT',
  UserRoleDelete: 'USER_ROLE_DELETE',
  // Templates
  TemplateView: 'TEMPLATE_VIEW',
  TemplateAddEdit: 'TEMPLATE_ADD_EDIT',
  TemplateRemove: 'TEMPLATE_REMOVE',
  // URL offers
  UrlOfferView: 'URL_OFFER_VIEW',
  UrlOfferAddEdit: 'URL_OFFER_ADD_EDIT',
  UrlOfferRemove: 'URL_OFFER_REMOVE',
  // Contacts
  ContactView: 'CONTACT_VIEW',
  ContactAddEdit: 'CONTACT_ADD_EDIT',
  ContactRemove: 'CONTACT_REMOVE',
  // Contact lists and segments
  ContactListSegmentView: 'CONTACT_LIST_SEGMENT_VIEW',
  ContactListSegmentAdd: 'CONTACT_LIST_SEGMENT_ADD',
  ContactListSegmentEdit: 'CONTACT_LIST_SEGMENT_EDIT',
  ContactListSegmentRemove: 'CONTACT_LIST_SEGMENT_REMOVE',
  ContactListSegmentExport: 'CONTACT_LIST_SEGMENT_EXPORT',
  // Contact fields (variables)
  ContactFieldView: 'CONTACT_FIELD_VIEW',
  ContactFieldAddEdit: 'CONTACT_FIELD_ADD_EDIT',
  ContactFieldRemove: 'CONTACT_FIELD_REMOVE',
  // Settings
  SettingsView: 'SETTINGS_VIEW',
  SettingsEdit: 'SETTINGS_EDIT',
  // Sending hours
  SendingHoursView: 'SENDING_HOURS_VIEW',
  SendingHoursEdit: 'SENDING_HOURS_EDIT',
  // Senders
  SenderView: 'SENDER_VIEW',
  SenderAddEdit: 'SENDER_ADD_EDIT',
  SenderRemove: 'SENDER_REMOVE',
  // Blocked destinations (blacklist)
  BlockDestinationView: 'BLOCK_DESTINATION_VIEW',
  BlockDestinationAddEdit: 'BLOCK_DESTINATION_ADD_EDIT',
  BlockDestinationRemove: 'BLOCK_DESTINATION_REMOVE',
  // Webhooks and their request log
  WebhookView: 'WEBHOOK_VIEW',
  WebhookAddEdit: 'WEBHOOK_ADD_EDIT',
  WebhookRemove: 'WEBHOOK_REMOVE',
  WebhookRequestView: 'WEBHOOK_REQUEST_VIEW',
  // Integrations
  IntegrationView: 'INTEGRATION_VIEW',
  // Inbox
  InboxAdmin: 'INBOX_ADMIN',
  InboxView: 'INBOX_VIEW',
  InboxShowPhone: 'INBOX_SHOW_PHONE',
  InboxAssign: 'INBOX_ASSIGN',
  InboxNewConversation: 'INBOX_NEW_CONVERSATION',
  InboxTeamView: 'INBOX_TEAM_VIEW',
  InboxAssignTags: 'INBOX_ASSIGN_TAGS',
  InboxInternalNotes: 'INBOX_INTERNAL_NOTES',
  InboxAgentStatistics: 'INBOX_AGENT_STATISTICS',
  InboxAiAssistant: 'INBOX_AI_ASSISTANT',
  InboxManagerSettings: 'INBOX_MANAGER_SETTINGS',
  InboxSenderProfile: 'INBOX_SENDER_PROFILE',
  InboxIncomingRouting: 'INBOX_INCOMING_ROUTING',
  InboxConversationTags: 'INBOX_CONVERSATION_TAGS',
  InboxTeamManagement: 'INBOX_TEAM_MANAGEMENT',
  InboxCannedTemplates: 'INBOX_CANNED_TEMPLATES',
  InboxStatistics: 'INBOX_STATISTICS',
  InboxConversationGoals: 'INBOX_CONVERSATION_GOALS',
  // Tenant owner
  TenantOwner: 'TENANT_OWNER',
} as const;

export type PermissionName = (typeof Permission)[keyof typeof Permission];

/** Which kind of role may hold a group's permissions (spec 3, Role.roleType). */
export type RoleType = 'platform' | 'inbox';

export interface PermissionGroup {
  key: string;
  label: string;
  roleType: RoleType;
  permissions: readonly PermissionName[];
}

const P = Permission;

/** The permissions as spec section 6 groups them, in its order; the role editor shows them this way. */
export const PERMISSION_GROUPS: readonly PermissionGroup[] = Object.freeze([
  { key: 'views', label: 'General, phone, email, cost and dashboard views', roleType: 'platform', permissions: [P.GeneralView, P.PhoneView, P.EmailView, P.CostView, P.DashboardView] },
  { key: 'realtime_analytics', label: 'Realtime and analytics', roleType: 'platform', permissions: [P.RealtimeView, P.AnalyticsView] },
  { key: 'api_keys', label: 'API keys', roleType: 'platform', permissions: [P.ApiKeyAdd, P.ApiKeyView, P.ApiKeyEdit, P.ApiKeyDelete] },
  { key: 'campaigns', label: 'Campaigns', roleType: 'platform', permissions: [P.CampaignView, P.CampaignAddEdit, P.CampaignRemove, P.CampaignTester] },
  { key: 'domains', label: 'Domains', roleType: 'platform', permissions: [P.DomainView, P.DomainAddEdit, P.DomainRemove] },
  {
    key: 'messages',
    label: 'Messages',
    roleType: 'platform',
    permissions: [P.MessageView, P.MessageReadContent, P.MessageIncomingView, P.MessageIncomingResponse, P.MessageExport],
  },
  {
    key: 'streams',
    label: 'Streams',
    roleType: 'platform',
    permissions: [P.StreamView, P.StreamAddEdit, P.StreamRemove, P.StreamToken, P.StreamTester, P.StreamResetToken],
  },
  {
    key: 'users',
    label: 'User invites and roles',
    roleType: 'platform',
    permissions: [P.UserInviteView, P.UserInviteAdd, P.UserInviteEdit, P.UserInviteDelete, P.UserRoleView, P.UserRoleAdd, P.UserRoleEdit, P.UserRoleDelete],
  },
  { key: 'templates', label: 'Templates', roleType: 'platform', permissions: [P.TemplateView, P.TemplateAddEdit, P.TemplateRemove] },
  { key: 'url_offers', label: 'URL offers', roleType: 'platform', permissions: [P.UrlOfferView, P.UrlOfferAddEdit, P.UrlOfferRemove] },
  { key: 'contacts', label: 'Contacts', roleType: 'platform', permissions: [P.ContactView, P.ContactAddEdit, P.ContactRemove] },
  {
    key: 'contact_lists',
    label: 'Contact lists and segments',
    roleType: 'platform',
    permissions: [P.ContactListSegmentView, P.ContactListSegmentAdd, P.ContactListSegmentEdit, P.ContactListSegmentRemove, P.ContactListSegmentExport],
  },
  { key: 'contact_fields', label: 'Contact fields', roleType: 'platform', permissions: [P.ContactFieldView, P.ContactFieldAddEdit, P.ContactFieldRemove] },
  { key: 'settings', label: 'Settings', roleType: 'platform', permissions: [P.SettingsView, P.SettingsEdit] },
  { key: 'sending_hours', label: 'Sending hours', roleType: 'platform', permissions: [P.SendingHoursView, P.SendingHoursEdit] },
  { key: 'senders', label: 'Senders', roleType: 'platform', permissions: [P.SenderView, P.SenderAddEdit, P.SenderRemove] },
  {
    key: 'blocked_destinations',
    label: 'Blocked destinations',
    roleType: 'platform',
    permissions: [P.BlockDestinationView, P.BlockDestinationAddEdit, P.BlockDestinationRemove],
  },
  { key: 'webhooks', label: 'Webhooks and requests', roleType: 'platform', permissions: [P.WebhookView, P.WebhookAddEdit, P.WebhookRemove, P.WebhookRequestView] },
  { key: 'integrations', label: 'Integrations', roleType: 'platform', permissions: [P.IntegrationView] },
  {
    key: 'inbox',
    label: 'Inbox',
    roleType: 'inbox',
    permissions: [
      P.InboxAdmin,
      P.InboxView,
      P.InboxShowPhone,
      P.InboxAssign,
      P.InboxNewConversation,
      P.InboxTeamView,
      P.InboxAssignTags,
      P.InboxInternalNotes,
      P.InboxAgentStatistics,
      P.InboxAiAssistant,
      P.InboxManagerSettings,
      P.InboxSenderProfile,
      P.InboxIncomingRouting,
      P.InboxConversationTags,
      P.InboxTeamManagement,
      P.InboxCannedTemplates,
      P.InboxStatistics,
      P.InboxConversationGoals,
    ],
  },
  { key: 'tenant_owner', label: 'Tenant owner', roleType: 'platform', permissions: [P.TenantOwner] },
]);

/** Every permission string, each once, in group order. */
export const ALL_PERMISSIONS: readonly PermissionName[] = Object.freeze(PERMISSION_GROUPS.flatMap((g) => g.permissions));

const known = new Set<string>(ALL_PERMISSIONS);
export const isPermission = (s: string): s is PermissionName => known.has(s);

/**
 * Role types as numbers on the wire (spec 5: a new role defaults to "type platform (1)"); the database and the
 * contracts use the names.
 */
export const RoleTypeCode: Readonly<Record<RoleType, 1 | 2>> = Object.freeze({ platform: 1, inbox: 2 });

/** `1`, `2`, `'1'`, `'2'`, `'platform'` or `'inbox'` -> the role type; anything else -> null. */
export function parseRoleType(v: unknown): RoleType | null {
  if (v === 1 || v === '1' || v === 'platform') return 'platform';
  if (v === 2 || v === '2' || v === 'inbox') return 'inbox';
  return null;
}

const roleTypeOf = new Map<string, RoleType>(PERMISSION_GROUPS.flatMap((g) => g.permissions.map((p) => [p, g.roleType] as const)));

/** The kind of role that may hold a permission (its group's role type), or undefined for an unknown string. */
export const permissionRoleType = (p: string): RoleType | undefined => roleTypeOf.get(p);

/** Every permission a role of this type may hold, in group order. */
export const permissionsOfRoleType = (type: RoleType): PermissionName[] => ALL_PERMISSIONS.filter((p) => roleTypeOf.get(p) === type);
