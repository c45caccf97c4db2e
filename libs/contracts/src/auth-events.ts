import { z } from 'zod';
import { defineEvent, Topics } from './events';

/**
 * Events of the auth service (topic `switchboard.auth`). Ids travel as decimal strings, like the `sub` and `acc`
 * claims of the access token. Add fields freely (consumers ignore unknown ones); a breaking change is a V2.
 */

const id = z.string().regex(/^\d+$/, 'a decimal id');

/** A user completed the PIN step and received a session. `accountId` is the account the session opened in, if any. */
export const UserSignedInV1 = defineEvent({
  type: 'auth.user.signed_in',
  version: 1,
  topic: Topics.Auth,
  key: (d) => d.userId,
  schema: z.object({
    userId: id,
    accountId: id.nullable(),
    familyId: z.string().uuid(),
    ip: z.string().nullable(),
    impersonatorId: id.nullable().optional(),
  }),
});

export const SessionRevocationReason = {
  /** A used refresh token was presented again: the family is treated as stolen. */
  Reuse: 'refresh_token_reuse',
  Logout: 'logout',
  PasswordChanged: 'password_changed',
  Admin: 'admin',
} as const;
export type SessionRevocationReasonValue = (typeof SessionRevocationReason)[keyof typeof SessionRevocationReason];

/** A session family was ended: none of its refresh tokens works any more; its access tokens lapse within their TTL. */
export const SessionRevokedV1 = defineEvent({
  type: 'auth.session.revoked',
  version: 1,
  topic: Topics.Auth,
  key: (d) => d.familyId,
  schema: z.object({
    familyId: z.string().uuid(),
    userId: id,
    reason: z.enum([SessionRevocationReason.Reuse, SessionRevocationReason.Logout, SessionRevocationReason.PasswordChanged, SessionRevocationReason.Admin]),
  }),
});

/** A user switched the account of their session (PUT /users/connected_update with `customer`). */
export const AccountSwitchedV1 = defineEvent({
  type: 'auth.session.account_switched',
  version: 1,
  topic: Topics.Auth,
  key: (d) => d.familyId,
  schema: z.object({ familyId: z.string().uuid(), userId: id, accountId: id }),
});

/** Team member status of spec 4: no role -1, owner 0, pending 1, active 2, disabled 3. */
export const TeamMemberStatus = { NoRole: -1, Owner: 0, Pending: 1, Active: 2, Disabled: 3 } as const;
export type TeamMemberStatusValue = (typeof TeamMemberStatus)[keyof typeof TeamMemberStatus];

const roleRef = z.object({ id, name: z.string() }).nullable();

/**
 * A user's place in an account changed: joined (invite accepted, seeding), roles or status changed, or removed
 * (`removed: true`). The whole snapshot, so a consumer's read model of team members (the inbox's agents) is an
 * upsert keyed by `(accountId, userId)`. `permissions` are those of the two roles together, as a token would carry.
 */
export const MemberChangedV1 = defineEvent({
  type: 'auth.member.changed',
  version: 1,
  topic: Topics.Auth,
  key: (d) => `${d.accountId}:${d.userId}`,
  schema: z.object({
    accountId: id,
    userId: id,
    email: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    status: z.number().int().min(-1).max(3),
    platformRole: roleRef,
    inboxRole: roleRef,
    permissions: z.array(z.string()),
    removed: z.boolean(),
  }),
});

/**
 * A role was created, edited or deleted (`isDeleted: true`). `accountId` is null for the read-only system roles
 * shared by every account. Members holding it are not re-sent: join on the role id.
 */
export const RoleChangedV1 = defineEvent({
  type: 'auth.role.changed',
  version: 1,
  topic: Topics.Auth,
  key: (d) => d.roleId,
  schema: z.object({
    roleId: id,
    accountId: id.nullable(),
    name: z.string(),
    roleType: z.enum(['platform', 'inbox']),
    permissions: z.array(z.string()),
    readOnly: z.boolean(),
    isDeleted: z.boolean(),
  }),
});

export const AccessRevocationReason = {
  RolesChanged: 'roles_changed',
  Disabled: 'disabled',
  Removed: 'removed',
} as const;
export type AccessRevocationReasonValue = (typeof AccessRevocationReason)[keyof typeof AccessRevocationReason];

/**
 * Access tokens of a user issued before `notBefore` are refused by every service (docs/decisions/0029): in
 * `accountId` only (tokens whose `acc` is that account), or everywhere when `accountId` is null (the user disabled
 * globally). The user signs in or refreshes for a token that carries what holds now (new roles, or nothing).
 */
export const UserAccessRevokedV1 = defineEvent({
  type: 'auth.user.access_revoked',
  version: 1,
  topic: Topics.Auth,
  key: (d) => d.userId,
  schema: z.object({
    userId: id,
    accountId: id.nullable(),
    /** ISO time with milliseconds, compared with the token's `iat` (signed with millisecond precision). */
    notBefore: z.string().datetime(),
    reason: z.enum([AccessRevocationReason.RolesChanged, AccessRevocationReason.Disabled, AccessRevocationReason.Removed]),
  }),
});

/** An API key was deleted: the access tokens it was exchanged for (`sub` `apikey:<id>`) are refused at once. */
export const ApiKeyDeletedV1 = defineEvent({
  type: 'auth.api_key.deleted',
  version: 1,
  topic: Topics.Auth,
  key: (d) => d.apiKeyId,
  schema: z.object({ apiKeyId: id, accountId: id, deletedAt: z.string().datetime() }),
});

/**
 * An API key was deactivated, regenerated or had its permissions changed: the access tokens it was exchanged for
 * before `notBefore` are refused at once; a new exchange (if the key still works) carries what holds now.
 */
export const ApiKeyRevokedV1 = defineEvent({
  type: 'auth.api_key.revoked',
  version: 1,
  topic: Topics.Auth,
  key: (d) => d.apiKeyId,
  schema: z.object({
    apiKeyId: id,
    accountId: id,
    notBefore: z.string().datetime(),
    reason: z.enum(['deactivated', 'regenerated', 'permissions_changed']),
  }),
});

/**
 * CRM users auth made (or kept) inbox agents of the account from one `integrations.agents.imported` event, by user id:
 * the inbox puts them in the space `spaceName` and, with `importTeams: profiles`, in a team per CRM profile (one team
 * named after the space otherwise). Disabled members are not in it. docs/decisions/0063.
 */
export const ImportedAgentsAdmittedV1 = defineEvent({
  type: 'auth.imported_agents.admitted',
  version: 1,
  topic: Topics.Auth,
  key: (d) => d.accountId,
  schema: z.object({
    accountId: id,
    integrationKey: z.string(),
    /** The vendor (`hubspot`, ...). */
    type: z.string(),
    /** The `integrations.agents.imported` event this one answers. */
    sourceEventId: z.string(),
    spaceName: z.string().nullable(),
    importTeams: z.enum(['profiles', 'none']),
    agents: z.array(z.object({ userId: id, profiles: z.array(z.object({ id: z.string(), name: z.string() })) })),
    /** Members the integration no longer imports: they leave the teams it put them in (decision 0064). Absent from older senders. */
    removed: z.array(id).optional(),
  }),
});

export const AuthEvents = [UserSignedInV1, SessionRevokedV1, AccountSwitchedV1, MemberChangedV1, RoleChangedV1, UserAccessRevokedV1, ApiKeyDeletedV1, ApiKeyRevokedV1, ImportedAgentsAdmittedV1] as const;
