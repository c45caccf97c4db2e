import { Logger } from '@nestjs/common';
import type { ResolvedZohoSso } from '../auth.options';

/** What a provider tells about the user who consented; `emailVerified` is the provider's own `email_verified` claim. */
export interface ProviderUser {
  subject: string;
  email: string;
  emailVerified: boolean;
  name: string;
}

export class ProviderError extends Error {}

const TIMEOUT_MS = 10_000;

/**
 * Zoho's documented OAuth endpoints on the configured accounts server (https://www.zoho.com/accounts/protocol/oauth/):
 * the consent page `GET /oauth/v2/auth`, the code exchange `POST /oauth/v2/token` (form body) and the OIDC user info
 * `GET /oauth/v2/userinfo` (`Authorization: Zoho-oauthtoken <token>`). Zoho answers some failures with 200 and an
 * `error` field (`invalid_code`, `invalid_client`): those are failures too. The authorisation code and tokens never
 * reach a log.
 */
export class ZohoOAuthClient {
  private readonly log = new Logger('ZohoOAuth');

  constructor(private readonly o: ResolvedZohoSso) {}

  authorizeUrl(state: string, codeChallenge: string): string {
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: this.o.clientId,
      scope: this.o.scope,
      redirect_uri: this.o.redirectUri,
      state,
      access_type: 'online',
      prompt: 'consent',
      code_challenge: codeChallenge,
      code_challenge_method: 'S256',
    });
    return `${this.o.accountsUrl}/oauth/v2/auth?${q.toString()}`;
  }

  async exchange(code: string, codeVerifier: string): Promise<string> {
    const body = new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: this.o.clientId,
      client_secret: this.o.clientSecret,
      redirect_uri: this.o.redirectUri,
      code,
      code_verifier: codeVerifier,
    });
    const json = await this.call(`${this.o.accountsUrl}/oauth/v2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body });
    const token = json.access_token;
    if (typeof json.error === 'string' || typeof token !== 'string' || !token) {
      throw new ProviderError(`Zoho refused the authorisation code (${typeof json.error === 'string' ? json.error : 'no access_token'})`);
    }
    return token;
  }

  async user(accessToken: string): Promise<ProviderUser> {
    const json = await this.call(`${this.o.accountsUrl}/oauth/v2/userinfo`, { headers: { authorization: `Zoho-oauthtoken ${accessToken}`, accept: 'application/json' } });
    const subject = json.sub ?? json.ZUID;
    const email = typeof json.email === 'string' ? json.email : typeof json.Email === 'string' ? json.Email : '';
    if ((typeof subject !== 'string' && typeof subject !== 'number') || String(subject) === '') throw new ProviderError('Zoho user info has no subject');
    const name = [json.name, json.Display_Name, [json.given_name, json.family_name].filter(Boolean).join(' ')].find((x) => typeof x === 'string' && x.trim() !== '');
    return {
      subject: String(subject),
      email: email.trim().toLowerCase(),
      // only Zoho's own claim counts, and only a real boolean true (or the string "true" some OIDC providers send)
      emailVerified: json.email_verified === true || json.email_verified === 'true',
      name: typeof name === 'string' ? name.trim().slice(0, 200) : '',
    };
  }

  private async call(url: string, init: RequestInit): Promise<Record<string, unknown>> {
    let res: Response;
    try {
      res = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (e) {
      this.log.warn(`Zoho did not answer ${new URL(url).pathname}: ${(e as Error).name}`);
      throw new ProviderError('Zoho did not answer');
    }
    const text = await res.text();
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
    if (!res.ok || !json || typeof json !== 'object' || Array.isArray(json)) {
      const err = json && typeof json === 'object' && typeof (json as { error?: unknown }).error === 'string' ? (json as { error: string }).error : `HTTP ${res.status}`;
      throw new ProviderError(`Zoho answered ${new URL(url).pathname} with ${err}`);
    }
    return json as Record<string, unknown>;
  }
}
