import { apiFetch } from '../../providers/http';
import type { Profile, TokenPair } from '../../providers/types';
import { TEAM_USERS_PER_PAGE, TIMEZONES_PER_PAGE, type RoleTypeValue } from './constants';
import type { ApiKey, Invite, InviteAccepted, InviteCheck, InviteLink, ListResult, Member, PermissionGroup, Role, Timezone } from './types';

const all = (perPage: number, extra = '') => `?page=1&itemsPerPage=${perPage}&order[id]=asc${extra}`;

/** The calls of spec 7 ("Users and accounts", "Integrations and users", "Organisation: api_keys") the team screens make. */
export const teamApi = {
  members: () => apiFetch<ListResult<Member>>(`/users${all(TEAM_USERS_PER_PAGE)}`),
  setMemberStatus: (id: number, status: 2 | 3) => apiFetch<Member>(`/users/${id}`, { method: 'PUT', body: { status } }),
  setMemberRoles: (userId: number, roleIds: number[]) =>
    apiFetch<Member>('/users/roles', { method: 'POST', body: { userId, user_roles_ids: roleIds } }),
  removeMember: (id: number) => apiFetch<void>(`/users/${id}`, { method: 'DELETE' }),

  invites: () => apiFetch<ListResult<Invite>>(`/user_invites${all(TEAM_USERS_PER_PAGE, '&status=1')}`),
  createInvite: (body: { email: string; firstname: string; lastname: string; user_roles_ids: number[] }) =>
    apiFetch<Invite>('/user_invites', { method: 'POST', body }),
  updateInvite: (id: number, body: { firstname?: string; lastname?: string; user_roles_ids?: number[] }) =>
    apiFetch<Invite>(`/user_invites/${id}`, { method: 'PUT', body }),
  resendInvite: (id: number) => apiFetch<Invite>(`/user_invites/${id}/resend`, { method: 'POST' }),
  deleteInvite: (id: number) => apiFetch<void>(`/user_invites/${id}`, { method: 'DELETE' }),

  roles: (type?: RoleTypeValue) => apiFetch<ListResult<Role>>(`/user_roles${all(TEAM_USERS_PER_PAGE, type ? `&roleType=${type}` : '')}`),
  permissionGroups: () => apiFetch<PermissionGroup[]>('/user_roles/permissions'),
  createRole: (body: { name?: string; description?: string; roleType?: RoleTypeValue; permissions?: string[]; copyOf?: number }) =>
    apiFetch<Role>('/user_roles', { method: 'POST', body }),
  updateRole: (id: number, body: { name?: string; description?: string; permissions?: string[] }) =>
    apiFetch<Role>(`/user_roles/${id}`, { method: 'PUT', body }),
  deleteRole: (id: number) => apiFetch<void>(`/user_roles/${id}`, { method: 'DELETE' }),
  updateInboxRoles: (roles: Array<{ id: number; permissions: string[] }>) =>
    apiFetch<ListResult<Role>>('/user_roles/inbox/update', { method: 'POST', body: { roles } }),

  apiKeys: () => apiFetch<ListResult<ApiKey>>(`/api_keys${all(TEAM_USERS_PER_PAGE)}`),
  createApiKey: (body: { name: string; ipAcl: string; permissions: string[]; active: 0 | 1 }) =>
    apiFetch<ApiKey>('/api_keys', { method: 'POST', body }),
  updateApiKey: (id: number, body: Partial<{ name: string; ipAcl: string; permissions: string[]; active: 0 | 1 }>) =>
    apiFetch<ApiKey>(`/api_keys/${id}`, { method: 'PUT', body }),
  regenerateApiKey: (id: number) => apiFetch<ApiKey>(`/api_keys/${id}/regenerate`, { method: 'POST' }),
  deleteApiKey: (id: number) => apiFetch<void>(`/api_keys/${id}`, { method: 'DELETE' }),

  timezones: () => apiFetch<ListResult<Timezone>>(`/timezones?page=1&itemsPerPage=${TIMEZONES_PER_PAGE}`),
  updateProfile: (body: { firstName?: string; lastName?: string; timezone?: string | null; preferences?: string }) =>
    apiFetch<Profile>('/users/connected_update', { method: 'PUT', body }),
  changePassword: (oldPassword: string, password: string) =>
    apiFetch<{ status: number } & TokenPair>('/users/reset_password/logged_in_update_password', { method: 'POST', body: { oldPassword, password } }),

  // public: the invite link and the password reset link
  checkInvite: (link: InviteLink) => apiFetch<InviteCheck>('/user_invites/check', { method: 'POST', body: link, auth: false }),
  register: (body: InviteLink & { password: string; confirmPassword: string; firstname: string; lastname: string }) =>
    apiFetch<InviteAccepted>('/user_invites/register', { method: 'POST', body, auth: false }),
  acceptInvite: (link: InviteLink) => apiFetch<InviteAccepted>('/user_invites/accept', { method: 'POST', body: link }),
  sendResetEmail: (email: string) => apiFetch<{ status: number }>('/users/reset_password/send_email', { method: 'POST', body: { email }, auth: false }),
  checkResetToken: (email: string, token: string) =>
    apiFetch<{ status: number }>('/users/reset_password/check_token', { method: 'POST', body: { email, token }, auth: false }),
  resetPassword: (email: string, token: string, password: string) =>
    apiFetch<{ status: number }>('/users/reset_password/update_password', { method: 'POST', body: { email, token, password }, auth: false }),
};
