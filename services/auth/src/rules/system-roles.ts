import { ALL_PERMISSIONS, Permission, permissionsOfRoleType, type PermissionName, type RoleType } from '@switchboard/contracts';

export const TENANT_OWNER_ROLE = 'Tenant owner';
export const INBOX_ADMIN_ROLE = 'Inbox Admin';
export const INBOX_MANAGER_ROLE = 'Inbox Manager';
export const INBOX_AGENT_ROLE = 'Inbox Agent';

export interface SystemRoleDefinition {
  name: string;
  description: string;
  roleType: RoleType;
  permissions: PermissionName[];
  /** Order among the read-only roles (spec 6: read-only first, then Inbox Admin, Inbox Manager, Inbox Agent). */
  sortRank: number;
}

const INBOX = permissionsOfRoleType('inbox');
const P = Permission;

/**
 * The read-only roles every account has. Their permission lists follow this code on every start (the seeding
 * upserts them). An agent answers conversations (spec 6: inbox view and nothing of streams, messages, domains or
 * campaigns); a manager runs the inbox without administering it; an admin holds every inbox permission.
 */
export const SYSTEM_ROLES: readonly SystemRoleDefinition[] = Object.freeze([
  { name: TENANT_OWNER_ROLE, description: 'Owns the account: every permission', roleType: 'platform', permissions: [...ALL_PERMISSIONS], sortRank: 0 },
  { name: INBOX_ADMIN_ROLE, description: 'Every inbox permission', roleType: 'inbox', permissions: INBOX, sortRank: 1 },
  { name: INBOX_MANAGER_ROLE, description: 'Runs the inbox: teams, routing, templates, statistics', roleType: 'inbox', permissions: INBOX.filter((p) => p !== P.InboxAdmin), sortRank: 2 },
  {
    name: INBOX_AGENT_ROLE,
    description: 'Answers conversations of their teams',
    roleType: 'inbox',
    permissions: [P.InboxView, P.InboxShowPhone, P.InboxNewConversation, P.InboxAssignTags, P.InboxInternalNotes, P.InboxAiAssistant],
    sortRank: 3,
  },
]);

export const SYSTEM_ROLE_NAMES: readonly string[] = SYSTEM_ROLES.map((r) => r.name);
