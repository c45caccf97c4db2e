/**
 * The team API's answers (members, invites, roles, API keys): one source for the auth service and the console
 * (apps/admin imports this file directly). No Nest imports.
 */

/** Invite status: pending until accepted (the team member statuses of spec 4: pending 1, active 2). */
export const InviteStatus = { Pending: 1, Accepted: 2 } as const;
export type InviteStatusValue = (typeof InviteStatus)[keyof typeof InviteStatus];

/** Team member status of spec 4: no role -1, owner 0, pending 1, active 2, disabled 3. */
export const MembershipStatus = {
  NoRole: -1,
  Owner: 0,
  Pending: 1,
  Active: 2,
  Disabled: 3,
} as const;
export type MembershipStatusValue = (typeof MembershipStatus)[keyof typeof MembershipStatus];

/** A team member (GET /users): the user, their status in the account (spec 4) and their two roles. */
export interface MemberDto {
  id: number;
  email: string;
  firstName: string;
  lastName: string;
  status: MembershipStatusValue;
  platformRole: { id: number; name: string } | null;
  inboxRole: { id: number; name: string } | null;
  user_roles_ids: number[];
  userPermissions: string[];
  /** Spec 2: a crown marks the global admin. */
  superAdmin: boolean;
  createdAt: string;
}

/** Spec 3, Invite: id, status, firstname, lastname, email, user_roles_ids. */
export interface InviteDto {
  id: number;
  status: InviteStatusValue;
  firstname: string;
  lastname: string;
  email: string;
  user_roles_ids: number[];
  createdAt: string;
  expiresAt: string;
  /** A pending invite past its expiry: it can be sent again, not accepted. */
  expired: boolean;
  acceptedAt: string | null;
}

export interface InviteLink {
  customerID: string;
  inviteID: string;
  inviteToken: string;
}

export interface InviteCheckDto {
  status: 1;
  action: 1 | 2;
  email: string;
  firstname: string;
  lastname: string;
  customer: { id: number; name: string };
}

export interface InviteAcceptedDto {
  status: 1;
  /** Spec 4: the console's user type after the invite. */
  userType: 'newly-registered' | 'registered';
  customer: { id: number; name: string };
}

/** Spec 3, API key: id, name, apiKey, ipAcl (comma-joined), permissions, active (1/0). */
export interface ApiKeyDto {
  id: number;
  name: string;
  /** The whole key only in the answer that created or regenerated it; otherwise its first characters and an ellipsis. */
  apiKey: string;
  ipAcl: string;
  permissions: string[];
  active: 0 | 1;
  createdAt: string;
  lastUsedAt: string | null;
}

/** Spec 3, Role: `roleType` as its number (platform 1, inbox 2). */
export interface RoleDto {
  id: number;
  name: string;
  description: string;
  permissions: string[];
  roleType: 1 | 2;
  readOnly: boolean;
  isDeleted: boolean;
  /** null for the system roles every account shares. */
  customer: number | null;
}
