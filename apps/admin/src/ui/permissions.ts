import { useCallback } from 'react';
import { isSuperAdmin } from '../providers/types';
import { useProfile } from './useProfile';

/** `can(...perms)`: the current user holds every one of them in the current account (a super admin holds all). */
export function useCan(): (...permissions: string[]) => boolean {
  const { profile } = useProfile();
  return useCallback(
    (...permissions: string[]) => !!profile && (isSuperAdmin(profile) || permissions.every((p) => profile.userPermissions.includes(p))),
    [profile],
  );
}

export function useIsSuperAdmin(): boolean {
  const { profile } = useProfile();
  return isSuperAdmin(profile);
}
