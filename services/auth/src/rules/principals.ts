import type { Principal } from '@switchboard/platform';

/** Role claim of the tokens an API key is exchanged for (POST /api_keys/token). */
export const API_KEY_ROLE = 'ROLE_API_KEY';
/** Role claim of the live-channel tokens of GET /users/async: they open /realtime and nothing that changes anything. */
export const REALTIME_ROLE = 'ROLE_REALTIME';
/** `sub` of an API key token: `apikey:<id>`, never a user id. */
export const API_KEY_SUBJECT_PREFIX = 'apikey:';

export const isApiKeyPrincipal = (p: Principal): boolean =>
  p.kind === 'apiKey' || p.roles.includes(API_KEY_ROLE) || (p.userId ?? '').startsWith(API_KEY_SUBJECT_PREFIX);

export const isRealtimePrincipal = (p: Principal): boolean => p.roles.includes(REALTIME_ROLE);

/** A person's session token: not an API key, not a live-channel token. */
export const isUserSession = (p: Principal): boolean => !!p.userId && /^\d{1,19}$/.test(p.userId) && !isApiKeyPrincipal(p) && !isRealtimePrincipal(p);
