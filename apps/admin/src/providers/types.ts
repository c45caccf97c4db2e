export type AccountStatus = 'active' | 'restrict' | 'disable' | 'delete';

export interface AccountSummary {
  id: number;
  name: string;
  shortName: string;
  status: AccountStatus;
}

export interface CurrentAccount extends AccountSummary {
  currency: string;
}

/** GET /api/users/connected (spec 3, "User / profile"). */
export interface Profile {
  id: number;
  email: string;
  firstName: string;
  lastName: string;
  timezone: string;
  /** A JSON string of the preference keys of spec 3. */
  preferences: string;
  roles: string[];
  userPermissions: string[];
  customer: CurrentAccount | null;
  customers: AccountSummary[];
}

export interface TokenPair {
  token: string;
  refresh_token: string;
}

/** POST /api/login_check answer: the PIN has been sent. */
export interface LoginChallenge {
  maskedEmail: string;
  pinLength: number;
  resendAfter: number;
}

/** The error body every /api endpoint answers with. */
export interface ApiErrorBody {
  code?: number | string;
  message?: string;
  status?: number;
  violations?: { propertyPath: string; message: string }[];
}

export const ROLE_SUPER_ADMIN = 'ROLE_SUPER_ADMIN';

export const isSuperAdmin = (profile: Pick<Profile, 'roles'> | null | undefined): boolean =>
  !!profile?.roles?.includes(ROLE_SUPER_ADMIN);
