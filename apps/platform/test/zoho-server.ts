import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';

export interface ZohoUser {
  sub: string;
  email: string;
  email_verified: boolean;
  name: string;
}

interface Grant {
  user: ZohoUser;
  redirectUri: string;
  challenge: string;
  clientId: string;
  used: boolean;
}

/**
 * A local Zoho accounts server speaking the documented OAuth endpoints
 * (https://www.zoho.com/accounts/protocol/oauth/): `GET /oauth/v2/auth` (here the consent is given at once, as the
 * user chosen with `signInAs`, or refused with `refuseNext`), `POST /oauth/v2/token` (form body; a code works once,
 * only for its client, redirect URI and PKCE verifier; failures answered like Zoho does, HTTP 200 with
 * `{"error":"invalid_code"}`), `GET /oauth/v2/userinfo` (`Authorization: Zoho-oauthtoken …`).
 */
export class LocalZoho {
  readonly clientId = '1000.LOCALZOHOCLIENT';
  readonly clientSecret = randomBytes(16).toString('hex');
  private server!: Server;
  private user: ZohoUser | null = null;
  private refuse = false;
  private failExchange = false;
  private readonly grants = new Map<string, Grant>();
  private readonly tokens = new Map<string, ZohoUser>();
  url = '';
  /** The `accounts-server` the callback names (Zoho's own by default; a test forges another). */
  accountsServerParam: string | null = null;
  /** Token requests seen (form fields), to check what was sent. */
  readonly tokenRequests: Array<Record<string, string>> = [];

  signInAs(user: ZohoUser): void {
    this.user = user;
  }

  refuseNext(): void {
    this.refuse = true;
  }

  /** The next code exchange is answered `{"error":"invalid_code"}` (an expired code at Zoho). */
  failNextExchange(): void {
    this.failExchange = true;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req).then(
      ({ status, headers, body }) => {
        res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8', ...headers });
        res.end(body);
      },
      () => {
        res.writeHead(500);
        res.end();
      },
    ));
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
    return this;
  }

  close(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }

  private async handle(req: IncomingMessage): Promise<{ status: number; headers?: Record<string, string>; body: string }> {
    const url = new URL(req.url ?? '/', this.url);
    const json = (body: unknown, status = 200) => ({ status, body: JSON.stringify(body) });
    if (req.method === 'GET' && url.pathname === '/oauth/v2/auth') {
      const q = url.searchParams;
      const redirect = q.get('redirect_uri') ?? '';
      if (q.get('client_id') !== this.clientId || q.get('response_type') !== 'code' || !redirect) return json({ error: 'invalid_client' }, 400);
      const back = new URL(redirect);
      back.searchParams.set('state', q.get('state') ?? '');
      if (this.refuse || !this.user) {
        this.refuse = false;
        back.searchParams.set('error', 'access_denied');
      } else {
        if (q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge')) return json({ error: 'invalid_request' }, 400);
        const code = `1000.${randomBytes(16).toString('hex')}.${randomBytes(16).toString('hex')}`;
        this.grants.set(code, { user: this.user, redirectUri: redirect, challenge: q.get('code_challenge') as string, clientId: this.clientId, used: false });
        back.searchParams.set('code', code);
        back.searchParams.set('location', 'us');
        back.searchParams.set('accounts-server', this.accountsServerParam ?? this.url);
      }
      return { status: 302, headers: { location: back.toString() }, body: '' };
    }
    if (req.method === 'POST' && url.pathname === '/oauth/v2/token') {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      this.tokenRequests.push(form);
      if (form.client_id !== this.clientId || form.client_secret !== this.clientSecret) return json({ error: 'invalid_client' });
      const grant = this.grants.get(form.code ?? '');
      const verifierOk = grant && createHash('sha256').update(form.code_verifier ?? '', 'ascii').digest('base64url') === grant.challenge;
      // Zoho answers a bad code with HTTP 200 and an error field
      if (this.failExchange) {
        this.failExchange = false;
        return json({ error: 'invalid_code' });
      }
      if (form.grant_type !== 'authorization_code' || !grant || grant.used || grant.redirectUri !== form.redirect_uri || !verifierOk) return json({ error: 'invalid_code' });
      grant.used = true;
      const access = `1000.${randomBytes(16).toString('hex')}.${randomBytes(16).toString('hex')}`;
      this.tokens.set(access, grant.user);
      return json({ access_token: access, scope: 'openid email profile', api_domain: 'https://www.zohoapis.com', token_type: 'Bearer', expires_in: 3600 });
    }
    if (req.method === 'GET' && url.pathname === '/oauth/v2/userinfo') {
      const auth = req.headers.authorization ?? '';
      const user = auth.startsWith('Zoho-oauthtoken ') ? this.tokens.get(auth.slice(16)) : undefined;
      if (!user) return json({ code: 'INVALID_OAUTHTOKEN', message: 'invalid oauth token' }, 401);
      const [given, ...family] = user.name.split(' ');
      return json({ sub: user.sub, email: user.email, email_verified: user.email_verified, name: user.name, given_name: given, family_name: family.join(' '), first_name: given, last_name: family.join(' ') });
    }
    return json({ error: 'not found' }, 404);
  }
}
