/**
 * Permission strings of spec 6 that the team and super-admin screens check. They mirror
 * `libs/contracts/src/permissions.ts`: the console's tsconfig does not reach the libraries (and their index pulls in
 * server-only code), so the few strings needed here are repeated; the role editor takes the full grouped list from
 * GET /api/user_roles/permissions.
 */
export const P = {
  UserInviteView: 'USER_INVITE_VIEW',
  UserInviteAdd: 'USER_INVITE_ADD',
  UserInviteEdit: 'USER_INVITE_EDIT',
  UserInviteDelete: 'USER_INVITE_DELETE',
  UserRoleView: 'USER_ROLE_VIEW',
  UserRoleAdd: 'USER_ROLE_ADD',
  UserRoleEdit: 'USER_ROLE_EDIT',
  UserRoleDelete: 'USER_ROLE_DELETE',
  ApiKeyView: 'API_KEY_VIEW',
  ApiKeyAdd: 'API_KEY_ADD',
  ApiKeyEdit: 'API_KEY_EDIT',
  ApiKeyDelete: 'API_KEY_DELETE',
  TenantOwner: 'TENANT_OWNER',
} as const;

/** Permissions an API key never carries (the server refuses them: keys never manage who may do what). */
export const API_KEY_FORBIDDEN: ReadonlySet<string> = new Set([
  P.ApiKeyAdd,
  P.ApiKeyView,
  P.ApiKeyEdit,
  P.ApiKeyDelete,
  P.UserInviteView,
  P.UserInviteAdd,
  P.UserInviteEdit,
  P.UserInviteDelete,
  P.UserRoleView,
  P.UserRoleAdd,
  P.UserRoleEdit,
  P.UserRoleDelete,
  P.TenantOwner,
]);

/** Spec 4: team member status. */
export { MembershipStatus as MemberStatus, type MembershipStatusValue as MemberStatusValue } from '@switchboard/contracts/src/team';

/** Spec 3: roleType on the wire (platform 1, inbox 2). */
export const RoleType = { Platform: 1, Inbox: 2 } as const;
export type RoleTypeValue = (typeof RoleType)[keyof typeof RoleType];

/** Spec 9: items per page for team users and the reference lists. */
export const TEAM_USERS_PER_PAGE = 500;
export const TIMEZONES_PER_PAGE = 1000;



/** Spec 5: the xss rule's forbidden characters. */
export const FORBIDDEN_CHARACTERS = /[`~#$%^&*|=?;:<>{}[\]\\]/;
/** Server rules mirrored for early feedback: role names under 100 characters, passwords of 8+ characters. */
export const ROLE_NAME_LIMIT = 100;
export const PASSWORD_MIN = 8;

/** Where the exit button of the login-as strip goes (spec 2). */
export const LOGIN_AS_EXIT_PATH = '/users/management';
