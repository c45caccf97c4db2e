import { CaptchaVerifier, NoCaptchaVerifier, RecaptchaVerifier, type RecaptchaOptions } from './captcha';
import { Clock, SystemClock } from './clock';
import type { ThrottleRule } from './rules/throttle-window';

export type CaptchaChoice = 'none' | ({ kind: 'recaptcha' } & RecaptchaOptions) | CaptchaVerifier;

export interface AuthModuleOptions {
  /** ES256 private key (PKCS#8 PEM) that signs access tokens; its public key goes to PlatformModule's TokenVerifier. */
  privateKey: string;
  /** Default `switchboard`, as the platform's TokenVerifier expects. */
  issuer?: string;
  /** Access token lifetime; default 900 s (15 min). */
  accessTokenTtlSeconds?: number;
  /** Refresh token lifetime; default 30 days. Each rotation starts a new lifetime. */
  refreshTokenTtlSeconds?: number;
  /** PIN lifetime; default 600 s (10 min). */
  pinTtlSeconds?: number;
  /** A new PIN is refused this long after the last one (spec 9: resend countdown 30 s). */
  pinResendSeconds?: number;
  /** Wrong PINs that end a challenge; default 5. */
  pinMaxAttempts?: number;
  /** `'none'` (embedded, dev), reCAPTCHA options, or any CaptchaVerifier. */
  captcha: CaptchaChoice;
  /** Failed sign-ins allowed per email and per client IP within a window (defaults: 10 and 30 per 15 min). */
  throttle?: { perEmail?: Partial<ThrottleRule>; perIp?: Partial<ThrottleRule> };
  /** bcrypt cost of new password hashes; at least 10 (default 10). */
  passwordHashCost?: number;
  /** Run the auth migrations when the module starts (embedded mode, tests). Distributed mode runs them in a Job. Default true. */
  migrationsRun?: boolean;
  /** Tests move time with a ManualClock. */
  clock?: Clock;
  /** Public base URL of the console, for the links in invite and reset emails. Default `http://127.0.0.1:3000`. */
  appUrl?: string;
  /** Invite lifetime; default 7 days. */
  inviteTtlSeconds?: number;
  /** Password reset link lifetime; default 1 hour. */
  passwordResetTtlSeconds?: number;
  /** A new reset email is not sent to the same user within this time (the answer stays the same). Default 60 s. */
  passwordResetResendSeconds?: number;
  /** Lifetime of the access token an API key is exchanged for; default 300 s. */
  apiKeyTokenTtlSeconds?: number;
  /** Lifetime of the live-channel token of GET /users/async; default 300 s. */
  realtimeTokenTtlSeconds?: number;
  /** Where browsers open the live channel (GET /users/async answers it). Default `/realtime` (the gateway, same origin). */
  realtimeUrl?: string;
  /**
   * Zoho Inbox single sign-on (docs/decisions/0042): the OAuth client registered in Zoho's API console. Without it
   * `POST /sso/crossdomain_auth` answers 503 saying so; nothing pretends to be Zoho.
   */
  zoho?: ZohoSsoOptions | null;
  /** How long a started sign-on (its cross_key, state and PKCE verifier) stays usable; default 600 s. */
  ssoFlowTtlSeconds?: number;
}

export interface ZohoSsoOptions {
  clientId: string;
  clientSecret: string;
  /** Zoho's accounts server of the client's data centre; default `https://accounts.zoho.com` (tests: a local server). */
  accountsUrl?: string;
  /** Registered redirect URI; default `<appUrl>/api/sso/zohoinbox/callback`. */
  redirectUri?: string;
  /** Default `openid email profile` (the OIDC userinfo with `email_verified`). */
  scope?: string;
}

export interface ResolvedZohoSso {
  clientId: string;
  clientSecret: string;
  accountsUrl: string;
  redirectUri: string;
  scope: string;
}

export interface ResolvedAuthOptions {
  privateKey: string;
  issuer: string;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  pinTtlSeconds: number;
  pinResendSeconds: number;
  pinMaxAttempts: number;
  throttle: { perEmail: ThrottleRule; perIp: ThrottleRule };
  passwordHashCost: number;
  migrationsRun: boolean;
  appUrl: string;
  inviteTtlSeconds: number;
  passwordResetTtlSeconds: number;
  passwordResetResendSeconds: number;
  apiKeyTokenTtlSeconds: number;
  realtimeTokenTtlSeconds: number;
  realtimeUrl: string;
  zoho: ResolvedZohoSso | null;
  ssoFlowTtlSeconds: number;
}

export const AUTH_OPTIONS = Symbol('AUTH_OPTIONS');
export const AUTH_CONNECTION = 'auth';

function positive(name: string, v: number | undefined, def: number): number {
  const n = v ?? def;
  if (!Number.isInteger(n) || n <= 0) throw new Error(`AuthModule: ${name} must be a positive integer (got ${String(v)})`);
  return n;
}

export function resolveAuthOptions(o: AuthModuleOptions): ResolvedAuthOptions {
  if (!o.privateKey || !o.privateKey.includes('PRIVATE KEY')) throw new Error('AuthModule: privateKey must be a PEM private key');
  const cost = o.passwordHashCost ?? 10;
  if (!Number.isInteger(cost) || cost < 10 || cost > 15) throw new Error('AuthModule: passwordHashCost must be from 10 to 15');
  const window = 15 * 60;
  return {
    privateKey: o.privateKey,
    issuer: o.issuer ?? 'switchboard',
    accessTokenTtlSeconds: positive('accessTokenTtlSeconds', o.accessTokenTtlSeconds, 15 * 60),
    refreshTokenTtlSeconds: positive('refreshTokenTtlSeconds', o.refreshTokenTtlSeconds, 30 * 24 * 3600),
    pinTtlSeconds: positive('pinTtlSeconds', o.pinTtlSeconds, 10 * 60),
    pinResendSeconds: positive('pinResendSeconds', o.pinResendSeconds, 30),
    pinMaxAttempts: positive('pinMaxAttempts', o.pinMaxAttempts, 5),
    throttle: {
      perEmail: {
        limit: positive('throttle.perEmail.limit', o.throttle?.perEmail?.limit, 10),
        windowSeconds: positive('throttle.perEmail.windowSeconds', o.throttle?.perEmail?.windowSeconds, window),
      },
      perIp: {
        limit: positive('throttle.perIp.limit', o.throttle?.perIp?.limit, 30),
        windowSeconds: positive('throttle.perIp.windowSeconds', o.throttle?.perIp?.windowSeconds, window),
      },
    },
    passwordHashCost: cost,
    migrationsRun: o.migrationsRun ?? true,
    appUrl: appUrl(o.appUrl),
    inviteTtlSeconds: positive('inviteTtlSeconds', o.inviteTtlSeconds, 7 * 24 * 3600),
    passwordResetTtlSeconds: positive('passwordResetTtlSeconds', o.passwordResetTtlSeconds, 3600),
    passwordResetResendSeconds: positive('passwordResetResendSeconds', o.passwordResetResendSeconds, 60),
    apiKeyTokenTtlSeconds: positive('apiKeyTokenTtlSeconds', o.apiKeyTokenTtlSeconds, 300),
    realtimeTokenTtlSeconds: positive('realtimeTokenTtlSeconds', o.realtimeTokenTtlSeconds, 300),
    realtimeUrl: o.realtimeUrl ?? '/realtime',
    zoho: zoho(o.zoho, appUrl(o.appUrl)),
    ssoFlowTtlSeconds: positive('ssoFlowTtlSeconds', o.ssoFlowTtlSeconds, 600),
  };
}

function zoho(z: ZohoSsoOptions | null | undefined, app: string): ResolvedZohoSso | null {
  if (!z || (!z.clientId && !z.clientSecret)) return null;
  if (!z.clientId || !z.clientSecret) throw new Error('AuthModule: zoho needs both clientId and clientSecret');
  const accountsUrl = (z.accountsUrl ?? 'https://accounts.zoho.com').replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s/]+/.test(accountsUrl)) throw new Error(`AuthModule: zoho.accountsUrl must be an http(s) URL (got ${accountsUrl})`);
  return {
    clientId: z.clientId,
    clientSecret: z.clientSecret,
    accountsUrl,
    redirectUri: z.redirectUri ?? `${app}/api/sso/zohoinbox/callback`,
    scope: z.scope ?? 'openid email profile',
  };
}

function appUrl(v: string | undefined): string {
  const url = (v ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s/]+/.test(url)) throw new Error(`AuthModule: appUrl must be an http(s) URL (got ${String(v)})`);
  return url;
}

export function createCaptchaVerifier(choice: CaptchaChoice): CaptchaVerifier {
  if (choice === 'none') return new NoCaptchaVerifier();
  if (choice instanceof CaptchaVerifier) return choice;
  if (choice && choice.kind === 'recaptcha') return new RecaptchaVerifier(choice);
  throw new Error('AuthModule: captcha must be "none", { kind: "recaptcha", ... } or a CaptchaVerifier');
}

export function createClock(o: AuthModuleOptions): Clock {
  return o.clock ?? new SystemClock();
}
