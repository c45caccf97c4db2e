import { isSuperAdmin, type Profile } from '../providers/types';

export type BlockReason = 'accessDenied' | 'noPermission';

/**
 * Spec 6: a non-super-admin is denied when the current account is missing or disabled, and has nothing to do
 * without any permission. Super admins are never blocked.
 */
export function blockReason(profile: Profile): BlockReason | null {
  if (isSuperAdmin(profile)) return null;
  const account = profile.customer;
  if (!account || account.status === 'disable' || account.status === 'delete') return 'accessDenied';
  if (!profile.userPermissions || profile.userPermissions.length === 0) return 'noPermission';
  return null;
}
