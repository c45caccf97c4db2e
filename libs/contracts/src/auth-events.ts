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

export const AuthEvents = [UserSignedInV1, SessionRevokedV1, AccountSwitchedV1] as const;
