import type { MemberStatusValue, RoleTypeValue } from './constants';

/** The `{items, total}` list contract of every /api list (spec 3). */
export interface ListResult<T> {
  items: T[];
  total: number;
}

export interface RoleRef {
  id: number;
  name: string;
}

/** GET /api/users: a team member. */
export interface Member {
  id: number;
  email: string;
  firstName: string;
  lastName: string;
  status: MemberStatusValue;
  platformRole: RoleRef | null;
  inboxRole: RoleRef | null;
  user_roles_ids: number[];
  userPermissions: string[];
  superAdmin: boolean;
  createdAt: string;
}

/** GET /api/user_invites: spec 3, Invite (status 1 pending, 2 accepted). */
export interface Invite {
  id: number;
  status: 1 | 2;
  firstname: string;
  lastname: string;
  email: string;
  user_roles_ids: number[];
  createdAt: string;
  expiresAt: string;
  expired: boolean;
  acceptedAt: string | null;
}

/** GET /api/user_roles: spec 3, Role. */
export interface Role {
  id: number;
  name: string;
  description: string;
  permissions: string[];
  roleType: RoleTypeValue;
  readOnly: boolean;
  isDeleted: boolean;
  customer: number | null;
}

/** GET /api/user_roles/permissions: the permissions as spec 6 groups them. */
export interface PermissionGroup {
  key: string;
  label: string;
  roleType: 'platform' | 'inbox';
  permissions: string[];
}

/** GET /api/api_keys: spec 3, API key. `apiKey` is whole only in the answer that created or regenerated it. */
export interface ApiKey {
  id: number;
  name: string;
  apiKey: string;
  ipAcl: string;
  permissions: string[];
  active: 0 | 1;
  createdAt: string;
  lastUsedAt: string | null;
}

export interface Timezone {
  id: number;
  name: string;
  countryCode: string;
  country: string;
  utcOffset: number;
  dstOffset: number;
}

/** POST /api/user_invites/check. */
export interface InviteCheck {
  status: number;
  action: 1 | 2;
  email: string;
  firstname: string;
  lastname: string;
  customer: { id: number; name: string };
}

/** POST /api/user_invites/register and /accept. */
export interface InviteAccepted {
  status: number;
  userType: 'newly-registered' | 'registered';
  customer: { id: number; name: string };
}

export interface InviteLink {
  customerID: string;
  inviteID: string;
  inviteToken: string;
}
