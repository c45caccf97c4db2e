/** The team API's answers come from their one source (libs/contracts/src/team.ts), under the console's names. */
import type { ApiKeyDto as ApiKeyDtoContract, InviteAcceptedDto as InviteAcceptedDtoContract, InviteCheckDto as InviteCheckDtoContract, InviteDto as InviteDtoContract, InviteLink as InviteLinkContract, MemberDto as MemberDtoContract, RoleDto as RoleDtoContract } from '@switchboard/contracts/src/team';
export type Member = MemberDtoContract;
export type Invite = InviteDtoContract;
export type Role = RoleDtoContract;
export type ApiKey = ApiKeyDtoContract;
export type InviteCheck = InviteCheckDtoContract;
export type InviteAccepted = InviteAcceptedDtoContract;
export type InviteLink = InviteLinkContract;


/** The `{items, total}` list contract of every /api list (spec 3). */
export interface ListResult<T> {
  items: T[];
  total: number;
}

export interface RoleRef {
  id: number;
  name: string;
}

/** GET /api/user_roles/permissions: the permissions as spec 6 groups them. */
export interface PermissionGroup {
  key: string;
  label: string;
  roleType: 'platform' | 'inbox';
  permissions: string[];
}

export interface Timezone {
  id: number;
  name: string;
  countryCode: string;
  country: string;
  utcOffset: number;
  dstOffset: number;
}

