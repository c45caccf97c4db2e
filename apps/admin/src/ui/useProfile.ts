import { useGetIdentity } from 'react-admin';
import type { Profile } from '../providers/types';

/** The connected user's profile (GET /api/users/connected) as react-admin's identity; refetch() after a change. */
export function useProfile(): { profile: Profile | undefined; isPending: boolean; refetch: () => Promise<unknown> } {
  const { identity, isPending, refetch } = useGetIdentity();
  return { profile: identity as Profile | undefined, isPending, refetch };
}
