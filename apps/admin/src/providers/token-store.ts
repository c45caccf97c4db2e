import type { TokenPair } from './types';

/**
 * Where the tokens live: localStorage when "remember me" is on (they survive a browser restart), sessionStorage
 * otherwise (they die with the tab). The remember-me choice itself is always in localStorage (spec 9).
 */
const TOKEN_KEY = 'switchboard.token';
const REFRESH_KEY = 'switchboard.refreshToken';
const REMEMBER_KEY = 'switchboard.rememberMe';

function storages(): Storage[] {
  return [window.localStorage, window.sessionStorage];
}

export function getRememberMe(): boolean {
  return window.localStorage.getItem(REMEMBER_KEY) !== '0';
}

export function setRememberMe(remember: boolean): void {
  window.localStorage.setItem(REMEMBER_KEY, remember ? '1' : '0');
}

export function saveTokens(pair: TokenPair, remember = getRememberMe()): void {
  clearTokens();
  const target = remember ? window.localStorage : window.sessionStorage;
  target.setItem(TOKEN_KEY, pair.token);
  target.setItem(REFRESH_KEY, pair.refresh_token);
}

export function clearTokens(): void {
  for (const s of storages()) {
    s.removeItem(TOKEN_KEY);
    s.removeItem(REFRESH_KEY);
  }
}

/** Tokens are in one storage only; which one tells where a refreshed pair must go. */
export function readTokens(): (TokenPair & { remember: boolean }) | null {
  for (const s of storages()) {
    const token = s.getItem(TOKEN_KEY);
    const refresh = s.getItem(REFRESH_KEY);
    if (token) return { token, refresh_token: refresh ?? '', remember: s === window.localStorage };
  }
  return null;
}

/** Expiry of a JWT in ms since the epoch; null when the token carries none (or is not a JWT). */
export function tokenExpiry(token: string): number | null {
  const part = token.split('.')[1];
  if (!part) return null;
  try {
    const json = atob(part.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(part.length / 4) * 4, '='));
    const payload = JSON.parse(json) as { exp?: unknown };
    return typeof payload.exp === 'number' ? payload.exp * 1000 : null;
  } catch (_e) {
    return null;
  }
}

export function isExpiring(token: string, marginMs: number, now = Date.now()): boolean {
  const exp = tokenExpiry(token);
  return exp !== null && exp - marginMs <= now;
}

/**
 * Login-as (spec 4): while an admin works as another user, their own tokens and email wait here, next to the
 * impersonated session's tokens (same storage), and come back on exit. `clearTokens` leaves this alone because
 * `saveTokens` calls it; logout clears it with `clearLoginAsOrigin`.
 */
const LOGIN_AS_KEY = 'switchboard.loginAs';

export interface LoginAsOrigin {
  /** The admin's own tokens. */
  token: string;
  refresh_token: string;
  remember: boolean;
  /** The admin's email. */
  email: string;
  /** The impersonated user's email, shown in the strip. */
  impersonatedEmail: string;
}

export function saveLoginAsOrigin(origin: LoginAsOrigin): void {
  clearLoginAsOrigin();
  (origin.remember ? window.localStorage : window.sessionStorage).setItem(LOGIN_AS_KEY, JSON.stringify(origin));
}

export function readLoginAsOrigin(): LoginAsOrigin | null {
  for (const s of storages()) {
    const raw = s.getItem(LOGIN_AS_KEY);
    if (!raw) continue;
    try {
      const o = JSON.parse(raw) as Partial<LoginAsOrigin>;
      if (typeof o.token === 'string' && typeof o.refresh_token === 'string' && typeof o.impersonatedEmail === 'string') {
        return { token: o.token, refresh_token: o.refresh_token, remember: o.remember !== false, email: o.email ?? '', impersonatedEmail: o.impersonatedEmail };
      }
    } catch (_e) {
      // a damaged entry is as good as none
    }
  }
  return null;
}

export function clearLoginAsOrigin(): void {
  for (const s of storages()) s.removeItem(LOGIN_AS_KEY);
}
