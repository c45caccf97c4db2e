/**
 * Zoho Inbox single sign-on (spec 2 /zoho-sso, /complete-sso, /inbox-login; spec 4 SSO popup states; spec 7 Auth
 * POST /sso/crossdomain_auth). docs/decisions/0042-zoho-inbox-sso-and-integrations-console.md.
 *
 * 1. The /zoho-sso page asks `POST /api/sso/crossdomain_auth {type:'zohoinbox'}`: `{success, url, cross_key}`, and the
 *    answer sets the browser-binding cookie `SSO_BINDING_COOKIE` (HttpOnly).
 * 2. It opens the socket `SSO_WS_PATH?cross_key=…` (the cookie goes along) and the popup at `url` (Zoho's consent).
 * 3. Zoho sends the popup back to `/api/sso/zohoinbox/callback`; auth exchanges the code (PKCE), reads the user, and
 *    sends the popup to /complete-sso, which closes itself.
 * 4. The socket receives `{type:'complete-sso', data}`: the tokens, or pending (access not approved yet), or an error.
 */

/** Sign-on types `POST /sso/crossdomain_auth` accepts. */
export const SSO_TYPES = ['zohoinbox'] as const;
export type SsoType = (typeof SSO_TYPES)[number];

/** The gateway's socket the /zoho-sso page waits on (`?cross_key=`). */
export const SSO_WS_PATH = '/ws/sso';

/** The HttpOnly cookie that binds a flow to the browser that started it (sent by the popup and the socket). */
export const SSO_BINDING_COOKIE = 'sb_sso';

/** The socket's event name (spec 7). */
export const COMPLETE_SSO_EVENT = 'complete-sso';

/** Realtime topic a finished flow is announced on (account token `0`: a flow has no account yet). */
export const SSO_REALTIME_TOPIC = 'sso';
export const SSO_REALTIME_ACCOUNT = '0';

export interface CrossdomainAuthRequest {
  type: SsoType;
}

export interface CrossdomainAuthAnswer {
  success: true;
  /** Where the popup goes: the provider's consent page. */
  url: string;
  /** The flow's public handle for the socket; single use, short-lived, useless without the binding cookie. */
  cross_key: string;
  /** Seconds the flow stays open. */
  expires_in: number;
}

export type CompleteSsoData =
  | { status: 'success'; token: string; refresh_token: string }
  /** The Zoho user is not mapped to a Switchboard user yet: an admin of the account approves the request. */
  | { status: 'pending'; message: string }
  | { status: 'error'; message: string };

/** What the gateway's SSO socket sends. */
export type SsoWsServerMessage =
  | { type: 'waiting'; expires_in: number }
  | { type: typeof COMPLETE_SSO_EVENT; data: CompleteSsoData }
  | { type: 'error'; code: string; message: string };

/** Auth's answer to the gateway's `POST /api/sso/crossdomain_auth/await` (internal to the socket). */
export type SsoAwaitAnswer = { state: 'waiting'; flow: string; expires_in: number } | { state: 'done'; flow: string; data: CompleteSsoData };

/** A Zoho user asking for access (GET /sso/access_requests), listed to the admins of the account holding their email. */
export interface SsoAccessRequest {
  id: number;
  type: SsoType;
  email: string;
  name: string;
  /** The member of the caller's account the request would be mapped to. */
  user: { id: number; email: string };
  status: 'pending' | 'approved' | 'rejected';
  createdAt: string;
}
