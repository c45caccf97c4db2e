import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { ProviderSecrets } from '@switchboard/platform';
import { Clock } from '../clock';
import type { ConnectorContext, Connector, Credentials, ResolvedEndpoints, TokenSet } from '../connectors/connector';
import { VendorAuthRejected, VendorHttp, VendorRefused } from '../connectors/http';
import { INTEGRATIONS_CONNECTION, INTEGRATIONS_OPTIONS, type ResolvedIntegrationsOptions } from '../integrations.options';
import { OutboundAddresses } from './outbound';

/** The columns of `integrations.integration` the vault reads. */
export interface IntegrationRow {
  id: string;
  key: string;
  account_id: string;
  type: string;
  name: string;
  status: string;
  auth_mode: 'oauth' | 'api_key';
  base_url: string | null;
  domain: string | null;
  company_name: string | null;
  credentials_sealed: string | null;
  access_expires_at: Date | null;
  config: Record<string, unknown> | null;
  sync: Record<string, unknown>;
  cursor: Record<string, unknown>;
  next_run_at: Date | null;
  failures: number;
  last_synced_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * Credentials at rest: AES-256-GCM (the platform's ProviderSecrets) under INTEGRATIONS_SECRET, bound to the
 * integration's key, so a sealed value copied onto another integration (another account's) does not open. Opened
 * only in the memory of the call that uses them; refreshed before they expire and once more when the vendor
 * answers 401 (a token revoked early).
 */
@Injectable()
export class CredentialVault {
  private readonly secrets: ProviderSecrets;
  readonly http: VendorHttp;

  constructor(
    @Inject(INTEGRATIONS_OPTIONS) private readonly options: ResolvedIntegrationsOptions,
    @InjectDataSource(INTEGRATIONS_CONNECTION) private readonly ds: DataSource,
    private readonly clock: Clock,
    outbound: OutboundAddresses,
  ) {
    this.secrets = new ProviderSecrets(options.secret);
    this.http = new VendorHttp({ timeoutMs: options.requestTimeoutMs, now: () => clock.now().getTime(), pin: (u) => outbound.destination(u) });
  }

  seal(key: string, c: Credentials): string {
    return this.secrets.seal(key, c as Record<string, string | undefined>);
  }

  open(key: string, sealed: string | null): Credentials {
    if (!sealed) return {};
    return this.secrets.open(key, sealed) as Credentials;
  }

  /** The vendor endpoints of an integration: the platform's (env) over the vendor's defaults, `{domain}` filled in, the integration's own base URL last. */
  endpoints(connector: Connector, row: Pick<IntegrationRow, 'domain' | 'base_url'>, c: Credentials = {}): ResolvedEndpoints {
    const env = this.options.endpoints[connector.type] ?? {};
    const fill = (u: string | null | undefined) => (u ? u.replace('{domain}', row.domain ?? '') : null);
    let apiUrl = fill(env.apiUrl ?? connector.defaults.apiUrl) as string;
    // the vendor told us where this account's data lives (Zoho's data centre, Pipedrive's company domain)
    if (!env.apiUrl && c.apiDomain) apiUrl = connector.type === 'zoho' ? `${c.apiDomain.replace(/\/$/, '')}/crm/v2` : connector.type === 'pipedrive' ? `${c.apiDomain.replace(/\/$/, '')}/api/v1` : apiUrl;
    if (row.base_url) apiUrl = row.base_url;
    return { apiUrl, authorizeUrl: fill(env.authorizeUrl ?? connector.defaults.authorizeUrl), tokenUrl: fill(env.tokenUrl ?? connector.defaults.tokenUrl) };
  }

  oauthClient(connector: Connector) {
    return this.options.oauthClients[connector.type] ?? null;
  }

  redirectUri(): string {
    return `${this.options.appUrl}/api/integration_keys/oauth_callback`;
  }

  /** Credentials from a token answer, the refresh token kept when the vendor does not rotate it. */
  fromTokens(t: TokenSet, previous: Credentials = {}): Credentials {
    const expiresAt = t.expiresIn ? new Date(this.clock.now().getTime() + t.expiresIn * 1000).toISOString() : undefined;
    return { accessToken: t.accessToken, refreshToken: t.refreshToken ?? previous.refreshToken, expiresAt, apiDomain: t.apiDomain ?? previous.apiDomain };
  }

  /**
   * Runs `fn` with the integration's opened credentials, refreshed first when they expire within `refreshBeforeMs`,
   * and refreshed and retried once when the vendor answers 401. New tokens are sealed and stored at once.
   */
  async withContext<T>(connector: Connector, row: IntegrationRow, fn: (ctx: ConnectorContext) => Promise<T>): Promise<T> {
    let creds = this.open(row.key, row.credentials_sealed);
    const expiring = creds.expiresAt && Date.parse(creds.expiresAt) - this.clock.now().getTime() <= this.options.refreshBeforeMs;
    if (expiring && creds.refreshToken) creds = await this.refresh(connector, row, creds);
    const ctx = (c: Credentials): ConnectorContext => ({ http: this.http, endpoints: this.endpoints(connector, row, c), credentials: c, domain: row.domain });
    try {
      return await fn(ctx(creds));
    } catch (e) {
      if (!(e instanceof VendorAuthRejected) || !creds.refreshToken || !connector.oauth?.refresh) throw e;
      creds = await this.refresh(connector, row, creds);
      return fn(ctx(creds));
    }
  }

  private async refresh(connector: Connector, row: IntegrationRow, creds: Credentials): Promise<Credentials> {
    const client = this.oauthClient(connector);
    if (!connector.oauth?.refresh || !client || !creds.refreshToken) return creds;
    const endpoints = this.endpoints(connector, row, creds);
    let tokens: TokenSet;
    try {
      tokens = await connector.oauth.refresh({ http: this.http, endpoints, credentials: creds, domain: row.domain }, { refreshToken: creds.refreshToken, clientId: client.clientId, clientSecret: client.clientSecret });
    } catch (e) {
      // the vendor refused the refresh token (revoked, the app uninstalled): the integration must be connected again
      if (e instanceof VendorRefused) throw new VendorAuthRejected(`${connector.name} refused the refresh token`, e.status);
      throw e;
    }
    const next = this.fromTokens(tokens, creds);
    await this.store(this.ds.manager, row, next);
    return next;
  }

  async store(m: EntityManager, row: Pick<IntegrationRow, 'id' | 'key' | 'credentials_sealed'>, c: Credentials): Promise<void> {
    const sealed = this.seal(row.key, c);
    await m.query(`UPDATE integrations.integration SET credentials_sealed = $2, access_expires_at = $3, updated_at = $4 WHERE id = $1`, [row.id, sealed, c.expiresAt ?? null, this.clock.now()]);
    row.credentials_sealed = sealed;
  }
}
