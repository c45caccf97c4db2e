import type { AuthProvider, UserIdentity } from 'react-admin';
import { CAPTCHA_PLACEHOLDER, TOKEN_REFRESH_MARGIN_MS } from '../constants';
import { ApiError, apiFetch, isApiError, refreshTokens } from './http';
import {
  clearLoginAsOrigin,
  clearTokens,
  getRememberMe,
  isExpiring,
  readLoginAsOrigin,
  readTokens,
  saveLoginAsOrigin,
  saveTokens,
  setRememberMe,
} from './token-store';
import type { LoginChallenge, Profile, TokenPair } from './types';

export interface LoginParams {
  username: string;
  password: string;
  pin: string;
  rememberMe?: boolean;
}

let profileCache: Profile | null = null;
let profileRequest: Promise<Profile> | null = null;

/** Step 1 of the login: checks the credentials and has the PIN sent (also used by "resend"). */
export function requestLoginCode(username: string, password: string): Promise<LoginChallenge> {
  return apiFetch<LoginChallenge>('/login_check', {
    method: 'POST',
    body: { username, password, gCaptchaToken: CAPTCHA_PLACEHOLDER },
    auth: false,
  });
}

/** GET /api/users/connected, cached until the account changes or the user logs out. */
export function fetchProfile(force = false): Promise<Profile> {
  if (profileCache && !force) return Promise.resolve(profileCache);
  if (!profileRequest || force) {
    profileRequest = apiFetch<Profile>('/users/connected')
      .then((p) => {
        profileCache = p;
        return p;
      })
      .finally(() => {
        profileRequest = null;
      });
  }
  return profileRequest;
}

export const cachedProfile = (): Profile | null => profileCache;

/** PUT /api/users/connected_update {customer}: the answer is the new profile plus tokens scoped to that account. */
export async function switchAccount(customerId: number): Promise<Profile> {
  const answer = await apiFetch<Profile & Partial<TokenPair>>('/users/connected_update', {
    method: 'PUT',
    body: { customer: customerId },
  });
  const { token, refresh_token, ...profile } = answer;
  if (token) saveTokens({ token, refresh_token: refresh_token ?? readTokens()?.refresh_token ?? '' }, readTokens()?.remember);
  profileCache = profile;
  return profile;
}

function forget(): void {
  clearTokens();
  clearLoginAsOrigin();
  profileCache = null;
  profileRequest = null;
}

/**
 * Login-as (spec 2, 4, 6): POST /api/login-as {email} answers tokens of a session as that user. The admin's own
 * tokens and email are kept aside; the caller reloads the console so nothing of the admin's view stays cached.
 */
export async function startLoginAs(email: string): Promise<string> {
  const current = readTokens();
  if (!current) throw new ApiError('Not authenticated', 401, null);
  const admin = (profileCache ?? (await fetchProfile())).email;
  const answer = await apiFetch<TokenPair & { email: string }>('/login-as', { method: 'POST', body: { email } });
  saveLoginAsOrigin({ token: current.token, refresh_token: current.refresh_token, remember: current.remember, email: admin, impersonatedEmail: answer.email });
  saveTokens({ token: answer.token, refresh_token: answer.refresh_token }, current.remember);
  profileCache = null;
  profileRequest = null;
  return answer.email;
}

/**
 * Single sign-on (/inbox-login, docs/decisions/0042): a pair obtained outside the login form becomes this tab's
 * session, replacing whatever session (and login-as state) was here.
 */
export function adoptTokens(pair: TokenPair): void {
  forget();
  saveTokens(pair, getRememberMe());
}

/** Ends the login-as session (POST /api/login-as/exit) and puts the admin's own tokens back. */
export async function exitLoginAs(): Promise<void> {
  const origin = readLoginAsOrigin();
  // the session may already be gone (expired, revoked): the admin's tokens come back either way
  await apiFetch('/login-as/exit', { method: 'POST', notifyUnauthorized: false }).catch(() => undefined);
  clearLoginAsOrigin();
  if (origin) saveTokens({ token: origin.token, refresh_token: origin.refresh_token }, origin.remember);
  else clearTokens();
  profileCache = null;
  profileRequest = null;
}

/** The login-as state for the strip: the impersonated email and the admin's, or null when not impersonating. */
export function loginAsState(): { email: string; adminEmail: string } | null {
  const origin = readLoginAsOrigin();
  return origin && readTokens() ? { email: origin.impersonatedEmail, adminEmail: origin.email } : null;
}

/**
 * react-admin's authProvider. login() is the PIN step (POST /api/login/manual); the credential step is
 * requestLoginCode(). checkAuth() is what the shell calls every second: it refreshes a token about to expire and
 * fails (so react-admin logs out to /login) when there is no token or the refresh fails.
 */
export const authProvider: AuthProvider = {
  async login(params: LoginParams) {
    const remember = params.rememberMe ?? getRememberMe();
    const pair = await apiFetch<TokenPair>('/login/manual', {
      method: 'POST',
      body: { username: params.username, password: params.password, pin: params.pin, gCaptchaToken: CAPTCHA_PLACEHOLDER },
      auth: false,
    });
    setRememberMe(remember);
    profileCache = null;
    saveTokens(pair, remember);
    // the page decides where to go (select-account or home) once it has the profile
    return { redirectTo: false };
  },

  async logout() {
    const current = readTokens();
    forget();
    // ends the session on the server too: every service refuses its tokens within a second (decision 0029). Best
    // effort: signing out on this device never waits for nor depends on the answer.
    if (current) {
      await fetch('/api/logout', { method: 'POST', headers: { Accept: 'application/json', Authorization: `Bearer ${current.token}` }, keepalive: true }).catch(
        () => undefined,
      );
    }
    return '/login';
  },

  async checkAuth() {
    const current = readTokens();
    if (!current) throw new ApiError('Not authenticated', 401, null);
    if (isExpiring(current.token, TOKEN_REFRESH_MARGIN_MS)) {
      try {
        await refreshTokens();
      } catch (_e) {
        forget();
        throw new ApiError('Session expired', 401, null);
      }
    }
  },

  async checkError(error: unknown) {
    if (isApiError(error) && error.status === 401) {
      forget();
      throw error;
    }
    // 403 and the rest are shown to the user but keep the session
  },

  async getIdentity(): Promise<UserIdentity> {
    if (!readTokens()) throw new ApiError('Not authenticated', 401, null);
    const p = await fetchProfile();
    return { ...p, id: p.id, fullName: [p.firstName, p.lastName].filter(Boolean).join(' ') || p.email };
  },

  async getPermissions() {
    if (!readTokens()) return { roles: [], permissions: [] };
    const p = await fetchProfile();
    return { roles: p.roles, permissions: p.userPermissions };
  },
};
