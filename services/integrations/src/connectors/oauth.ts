import type { ConnectorContext, TokenSet } from './connector';
import { VendorRefused } from './http';

/** The standard OAuth 2 authorisation URL (RFC 6749 4.1.1) with the vendor's scope. */
export function standardAuthorizeUrl(base: string, p: { clientId: string; redirectUri: string; state: string; scope?: string; extra?: Record<string, string> }): string {
  const u = new URL(base);
  u.searchParams.set('client_id', p.clientId);
  u.searchParams.set('redirect_uri', p.redirectUri);
  u.searchParams.set('response_type', 'code');
  u.searchParams.set('state', p.state);
  if (p.scope) u.searchParams.set('scope', p.scope);
  for (const [k, v] of Object.entries(p.extra ?? {})) u.searchParams.set(k, v);
  return u.toString();
}

interface TokenAnswer {
  access_token?: string;
  refresh_token?: string;
  expires_in?: number | string;
  api_domain?: string;
}

/**
 * A token request (RFC 6749 4.1.3 / 6): form-encoded, the client's credentials in the body (`body`) or in HTTP Basic
 * (`basic`, Pipedrive). An answer without an access token is a refusal.
 */
export async function tokenRequest(ctx: ConnectorContext, form: Record<string, string>, opts: { clientId: string; clientSecret: string; auth?: 'body' | 'basic'; json?: boolean }): Promise<TokenSet> {
  if (!ctx.endpoints.tokenUrl) throw new VendorRefused('the vendor has no token endpoint', null);
  const headers: Record<string, string> = {};
  const body = { ...form };
  if (opts.auth === 'basic') headers.authorization = `Basic ${Buffer.from(`${opts.clientId}:${opts.clientSecret}`).toString('base64')}`;
  else Object.assign(body, { client_id: opts.clientId, client_secret: opts.clientSecret });
  const t = await ctx.http.json<TokenAnswer>(opts.json ? { method: 'POST', url: ctx.endpoints.tokenUrl, headers, json: body } : { method: 'POST', url: ctx.endpoints.tokenUrl, headers, form: body });
  if (!t || typeof t.access_token !== 'string' || !t.access_token) throw new VendorRefused('the token endpoint answered no access token', 400);
  const expiresIn = t.expires_in === undefined ? undefined : Number(t.expires_in);
  return { accessToken: t.access_token, refreshToken: t.refresh_token, expiresIn: Number.isFinite(expiresIn) ? expiresIn : undefined, apiDomain: t.api_domain };
}

/** The bearer header of an OAuth token or an API key used as one. */
export const bearer = (ctx: ConnectorContext): Record<string, string> => ({ authorization: `Bearer ${ctx.credentials.accessToken ?? ctx.credentials.apiKey ?? ''}` });
