import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { z } from 'zod';
import {
  CONNECTOR_TYPES,
  ErrorCode,
  IntegrationChanged,
  IntegrationStatus,
  Permission,
  type IntegrationConfigDto,
  type IntegrationContactFieldDto,
  type IntegrationContactFilterDto,
  type IntegrationDropdownItemDto,
  type IntegrationInstallResponse,
  type IntegrationKeyDto,
  type IntegrationOptionDto,
  type IntegrationStatusValue,
  type SyncProgressDto,
} from '@switchboard/contracts';
import { AppError, parseListQuery, RequestContext, type ListResult, type UnitOfWorkEmit, type UnitOfWorkNotify } from '@switchboard/platform';
import { Clock } from '../clock';
import { rows } from '../db';
import { operatorsFor, type Connector, type ConnectorContext } from '../connectors/connector';
import { VendorError } from '../connectors/http';
import { connectorOf } from '../connectors/registry';
import { INTEGRATIONS_CONNECTION, INTEGRATIONS_OPTIONS, type ResolvedIntegrationsOptions } from '../integrations.options';
import { parse } from '../http/input';
import { CredentialVault, type IntegrationRow } from './credentials';
import { OutboundAddresses } from './outbound';
import { IntegrationsUnitOfWork } from './outbox';
import { emptyProgress, readProgress } from './sync-progress';
import { vendorProblem } from './vendor-problem';

const OAUTH_STATE_TTL_MS = 15 * 60_000;

const InstallBody = z
  .object({
    type: z.enum(CONNECTOR_TYPES as unknown as [string, ...string[]]),
    name: z.string().trim().min(1).max(120).optional(),
    apiKey: z.string().trim().min(1).max(4096).optional(),
    domain: z.string().trim().toLowerCase().min(1).max(255).optional(),
    baseUrl: z.string().trim().url().max(2048).optional(),
  })
  .strict();

/** PUT /integration_keys/{key}: rename; a new key (checked with the vendor first); a new base URL or domain only with a new key. */
const UpdateBody = z
  .object({
    name: z.string().trim().min(1).max(120).optional(),
    apiKey: z.string().trim().min(1).max(4096).optional(),
    domain: z.string().trim().toLowerCase().min(1).max(255).optional(),
    baseUrl: z.string().trim().url().max(2048).nullable().optional(),
  })
  .strict()
  .superRefine((b, ctx) => {
    // the vendor address and the credentials sent to it change together: moving a stored key to another host is refused
    for (const f of ['baseUrl', 'domain'] as const) {
      if (b[f] !== undefined && !b.apiKey) ctx.addIssue({ code: z.ZodIssueCode.custom, path: [f], message: `a new ${f} needs the key to use there (apiKey) in the same call` });
    }
  });

const ConfigBody = z
  .object({
    company_name: z.string().trim().max(255).optional(),
    space_name: z.string().trim().min(1).max(255).optional(),
    import_users: z.object(
      {
        type: z.enum(['admins', 'all', 'profiles'], { errorMap: () => ({ message: 'choose which users to import: admins, all or profiles' }) }),
        profiles: z.array(z.string().trim().min(1).max(255)).max(500).optional(),
      },
      { required_error: 'choose which users to import' },
    ),
    import_teams: z.object({ type: z.enum(['profiles', 'none']).default('profiles') }).strict().optional(),
    note_on_close: z.boolean({ invalid_type_error: 'true or false' }).optional(),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (b.import_users?.type === 'profiles' && !(b.import_users.profiles && b.import_users.profiles.length > 0)) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['import_users', 'profiles'], message: 'choose at least one profile' });
    }
  });

const iso = (d: Date | string | null | undefined): string | null => (d ? new Date(d).toISOString() : null);

/** Statuses an integration can be used in (its credentials work). */
const USABLE: readonly string[] = [IntegrationStatus.Authorised, IntegrationStatus.Syncing, IntegrationStatus.Active, IntegrationStatus.Paused];

/**
 * The account's integrations: connect (OAuth or a key), the completion screen's config, start, remove, and the
 * vendor-backed lookups (fields, filters, profiles). Every query carries the caller's account.
 */
@Injectable()
export class IntegrationsService {
  constructor(
    @InjectDataSource(INTEGRATIONS_CONNECTION) private readonly ds: DataSource,
    @Inject(INTEGRATIONS_OPTIONS) private readonly options: ResolvedIntegrationsOptions,
    private readonly vault: CredentialVault,
    private readonly uow: IntegrationsUnitOfWork,
    private readonly clock: Clock,
    private readonly outbound: OutboundAddresses,
  ) {}

  // ------------------------------------------------------------------ reads

  async list(query: Record<string, unknown>): Promise<ListResult<IntegrationKeyDto>> {
    const q = parseListQuery(query, { sortable: ['id', 'name', 'type', 'createdAt'], defaultOrder: { id: 'DESC' }, defaultItemsPerPage: 500, maxItemsPerPage: 500 });
    const col: Record<string, string> = { id: 'id', name: 'name', type: 'type', createdAt: 'created_at' };
    const order = Object.entries(q.order).map(([f, d]) => `${col[f]} ${d === 'ASC' ? 'ASC' : 'DESC'}`).join(', ') || 'id DESC';
    const account = RequestContext.accountId();
    const params: unknown[] = [account];
    let where = `account_id = $1 AND status <> 'disconnected'`;
    if (typeof query.type === 'string' && query.type) {
      params.push(query.type);
      where += ` AND type = $${params.length}`;
    }
    const [items, count] = await Promise.all([
      rows<IntegrationRow>(this.ds, `SELECT * FROM integrations.integration WHERE ${where} ORDER BY ${order} LIMIT ${q.take} OFFSET ${q.skip}`, params),
      rows<{ n: string }>(this.ds, `SELECT count(*) AS n FROM integrations.integration WHERE ${where}`, params),
    ]);
    return { items: items.map((r) => this.dto(r)), total: Number(count[0].n) };
  }

  async get(key: string): Promise<IntegrationKeyDto> {
    return this.dto(await this.row(key));
  }

  async dropdown(): Promise<IntegrationDropdownItemDto[]> {
    const found = await rows<IntegrationRow>(this.ds, 
      `SELECT key, type, name FROM integrations.integration WHERE account_id = $1 AND status = ANY($2) ORDER BY name, id LIMIT 2000`,
      [RequestContext.accountId(), USABLE],
    );
    return found.map((r) => ({ key: r.key, type: r.type as IntegrationKeyDto['type'], name: r.name }));
  }

  options_(): IntegrationOptionDto[] {
    return CONNECTOR_TYPES.map((t) => connectorOf(t) as Connector).map((c) => {
      const client = this.vault.oauthClient(c);
      return {
        type: c.type,
        name: c.name,
        adminOnly: c.adminOnly,
        oauth: c.oauth ? { available: !!client, reason: client ? null : `no OAuth app is configured for ${c.name} on this platform (INTEGRATIONS_OAUTH_CLIENTS): connect it with a key, or ask the operator` } : null,
        apiKey: !!c.apiKey,
        domain: c.domain ? { required: c.domain.required, label: domainLabel(c.type) } : null,
      };
    });
  }

  // ------------------------------------------------------------------ connect

  async install(body: unknown): Promise<IntegrationInstallResponse> {
    const b = parse(InstallBody, body);
    const connector = connectorOf(b.type) as Connector;
    this.assertMayManage(connector);
    if (connector.domain?.required && !b.domain) throw AppError.validation([{ propertyPath: 'domain', message: `${connector.name} needs its ${domainLabel(connector.type)}` }]);
    if (b.domain && connector.domain && !connector.domain.pattern.test(b.domain)) throw AppError.validation([{ propertyPath: 'domain', message: `not a valid ${domainLabel(connector.type)}` }]);
    if (b.domain && !connector.domain) throw AppError.validation([{ propertyPath: 'domain', message: `${connector.name} takes no domain` }]);
    if (b.baseUrl) await this.assertBaseUrl(b.baseUrl);
    const account = RequestContext.accountId();
    const key = randomUUID();
    const now = this.clock.now();
    const name = b.name ?? connector.name;
    const principal = RequestContext.principal();
    const createdBy = principal?.userId && /^\d+$/.test(principal.userId) ? principal.userId : null;

    // the dialer: we issue the integration token it presents to us (answered once, here)
    if (connector.type === 'dialer') {
      if (b.apiKey) throw AppError.validation([{ propertyPath: 'apiKey', message: 'the dialer token is issued by the platform, not given' }]);
      const token = `dk_${randomBytes(24).toString('base64url')}`;
      const row = await this.insert({ key, account, type: connector.type, name, status: IntegrationStatus.Active, authMode: 'api_key', baseUrl: null, domain: null, companyName: null, createdBy, now }, () => null, tokenHash(token));
      return { key, authorizeUrl: null, integration: this.dto(row), token };
    }

    if (b.apiKey) {
      if (!connector.apiKey) throw AppError.validation([{ propertyPath: 'apiKey', message: `${connector.name} is connected with OAuth only` }]);
      const creds = { apiKey: b.apiKey };
      const probe = { key, domain: b.domain ?? null, base_url: b.baseUrl ?? null } as IntegrationRow;
      let company: string | null;
      try {
        company = (await connector.apiKey.verifyKey({ http: this.vault.http, endpoints: this.vault.endpoints(connector, probe), credentials: creds, domain: b.domain ?? null })).companyName;
      } catch (e) {
        if (e instanceof VendorError) throw invalidIntegrationToken(connector, e);
        throw e;
      }
      const row = await this.insert({ key, account, type: connector.type, name, status: IntegrationStatus.Authorised, authMode: 'api_key', baseUrl: b.baseUrl ?? null, domain: b.domain ?? null, companyName: company, createdBy, now }, (k) => this.vault.seal(k, creds), null);
      return { key, authorizeUrl: null, integration: this.dto(row) };
    }

    if (!connector.oauth) throw AppError.validation([{ propertyPath: 'apiKey', message: `${connector.name} is connected with a key: give apiKey` }]);
    const client = this.vault.oauthClient(connector);
    if (!client) throw AppError.validation([{ propertyPath: 'type', message: `no OAuth app is configured for ${connector.name} on this platform: connect it with a key (apiKey), or ask the operator to set INTEGRATIONS_OAUTH_CLIENTS` }]);
    const state = randomBytes(24).toString('base64url');
    const row = await this.insert({ key, account, type: connector.type, name, status: IntegrationStatus.Pending, authMode: 'oauth', baseUrl: b.baseUrl ?? null, domain: b.domain ?? null, companyName: null, createdBy, now }, () => null, null, { stateHash: tokenHash(state), stateExpires: new Date(now.getTime() + OAUTH_STATE_TTL_MS) });
    const endpoints = this.vault.endpoints(connector, row);
    const authorizeUrl = connector.oauth.authorizeUrl({ endpoints, clientId: client.clientId, redirectUri: this.vault.redirectUri(), state, domain: row.domain });
    return { key, authorizeUrl, integration: this.dto(row) };
  }

  /**
   * `PUT /integration_keys/{key}`: rename, or replace the key (checked with the vendor before anything is stored;
   * a refused key is 400 `0x15` and the integration keeps its old one). A new base URL or domain comes with a new key.
   */
  async update(key: string, body: unknown): Promise<IntegrationKeyDto> {
    const b = parse(UpdateBody, body);
    if (Object.keys(b).length === 0) throw AppError.validation([{ propertyPath: '(body)', message: 'nothing to change: give name, apiKey, domain or baseUrl' }]);
    const row = await this.row(key);
    const connector = connectorOf(row.type) as Connector;
    this.assertMayManage(connector);
    let sealed: ((k: string) => string) | null = null;
    let company: string | null = null;
    const domain = b.domain !== undefined ? b.domain : row.domain;
    const baseUrl = b.baseUrl !== undefined ? b.baseUrl : row.base_url;
    if (b.apiKey) {
      if (connector.type === 'dialer') throw AppError.validation([{ propertyPath: 'apiKey', message: 'the dialer token is issued by the platform, not given' }]);
      if (!connector.apiKey) throw AppError.validation([{ propertyPath: 'apiKey', message: `${connector.name} is connected with OAuth only` }]);
      if (b.domain !== undefined && !connector.domain) throw AppError.validation([{ propertyPath: 'domain', message: `${connector.name} takes no domain` }]);
      if (b.domain !== undefined && connector.domain && !connector.domain.pattern.test(b.domain)) throw AppError.validation([{ propertyPath: 'domain', message: `not a valid ${domainLabel(connector.type)}` }]);
      if (b.baseUrl) await this.assertBaseUrl(b.baseUrl);
      const creds = { apiKey: b.apiKey };
      const probe = { key: row.key, domain, base_url: baseUrl } as IntegrationRow;
      try {
        company = (await connector.apiKey.verifyKey({ http: this.vault.http, endpoints: this.vault.endpoints(connector, probe), credentials: creds, domain })).companyName;
      } catch (e) {
        if (e instanceof VendorError) throw invalidIntegrationToken(connector, e);
        throw e;
      }
      sealed = (k) => this.vault.seal(k, creds);
    }
    return this.uow.run(async (m, emit, notify) => {
      const [r] = await rows<IntegrationRow>(m,
        `UPDATE integrations.integration SET
           name = COALESCE($3, name),
           credentials_sealed = CASE WHEN $4::text IS NULL THEN credentials_sealed ELSE $4 END,
           auth_mode = CASE WHEN $4::text IS NULL THEN auth_mode ELSE 'api_key' END,
           access_expires_at = CASE WHEN $4::text IS NULL THEN access_expires_at ELSE NULL END,
           oauth_state_hash = CASE WHEN $4::text IS NULL THEN oauth_state_hash ELSE NULL END,
           status = CASE WHEN $4::text IS NOT NULL AND status IN ('pending', 'error') THEN 'authorised' ELSE status END,
           domain = CASE WHEN $4::text IS NULL THEN domain ELSE $5 END,
           base_url = CASE WHEN $4::text IS NULL THEN base_url ELSE $6 END,
           company_name = COALESCE($7, company_name),
           updated_at = $8
         WHERE id = $1 AND account_id = $2 AND status <> 'disconnected' RETURNING *`,
        [row.id, row.account_id, b.name ?? null, sealed ? sealed(row.key) : null, domain, baseUrl, company, this.clock.now()],
      );
      if (!r) throw AppError.notFound('integration');
      this.changed(r, emit, notify);
      return this.dto(r);
    });
  }

  /**
   * The vendor's redirect after the customer authorised (public: no session comes with it). The state names the
   * integration (hashed at rest, 15 minutes, once). Answers where the browser goes: the completion screen, or the
   * connections page with an error.
   */
  async oauthCallback(q: Record<string, unknown>): Promise<string> {
    const state = typeof q.state === 'string' ? q.state : '';
    const code = typeof q.code === 'string' ? q.code : '';
    const fail = (reason: string) => `${this.options.appUrl}/integration-connections?error=${encodeURIComponent(reason)}`;
    if (!state) return fail('missing_state');
    const [row] = await rows<IntegrationRow>(this.ds, 
      `UPDATE integrations.integration SET oauth_state_hash = NULL WHERE oauth_state_hash = $1 AND oauth_state_expires_at > $2 AND status = 'pending' RETURNING *`,
      [tokenHash(state), this.clock.now()],
    );
    if (!row) return fail('expired_or_unknown_state');
    const connector = connectorOf(row.type) as Connector;
    if (!code || typeof q.error === 'string') return fail(typeof q.error === 'string' ? q.error.slice(0, 64).replace(/[^a-z0-9_.-]/gi, '') || 'denied' : 'missing_code');
    const client = this.vault.oauthClient(connector);
    if (!client || !connector.oauth) return fail('not_configured');
    // Shopify answers with the shop the customer installed on; it must be the one the integration was created for
    if (connector.type === 'shopify' && typeof q.shop === 'string' && row.domain && q.shop.toLowerCase() !== row.domain) return fail('shop_mismatch');
    try {
      const tokens = await connector.oauth.exchangeCode({ http: this.vault.http, endpoints: this.vault.endpoints(connector, row), credentials: {}, domain: row.domain }, { code, clientId: client.clientId, clientSecret: client.clientSecret, redirectUri: this.vault.redirectUri() });
      const creds = this.vault.fromTokens(tokens);
      const company = connector.company ? await connector.company.company({ http: this.vault.http, endpoints: this.vault.endpoints(connector, row, creds), credentials: creds, domain: row.domain }).catch(() => ({ companyName: null })) : { companyName: null };
      await this.uow.run(async (m, emit, notify) => {
        const [r] = await rows<IntegrationRow>(m, 
          `UPDATE integrations.integration SET credentials_sealed = $2, access_expires_at = $3, status = 'authorised', company_name = COALESCE($4, company_name), updated_at = $5 WHERE id = $1 RETURNING *`,
          [row.id, this.vault.seal(row.key, creds), creds.expiresAt ?? null, company.companyName, this.clock.now()],
        );
        this.changed(r, emit, notify);
      });
    } catch (e) {
      if (e instanceof VendorError) return fail('token_exchange_failed');
      throw e;
    }
    return `${this.options.appUrl}/complete-integration/${row.type}/${row.key}`;
  }

  async remove(key: string): Promise<void> {
    const row = await this.row(key);
    this.assertMayManage(connectorOf(row.type) as Connector);
    await this.uow.run(async (m, emit, notify) => {
      // credentials erased at once; the key stays (its history, and a second DELETE answers 404)
      const [r] = await rows<IntegrationRow>(m, 
        `UPDATE integrations.integration SET status = 'disconnected', credentials_sealed = NULL, token_hash = NULL, access_expires_at = NULL, oauth_state_hash = NULL, next_run_at = NULL, lease_until = NULL, updated_at = $2 WHERE id = $1 RETURNING *`,
        [row.id, this.clock.now()],
      );
      await m.query(`DELETE FROM integrations.crm_contact WHERE integration_id = $1`, [row.id]);
      this.changed(r, emit, notify);
    });
  }

  // ------------------------------------------------------------------ vendor lookups

  async contactFields(key: string): Promise<IntegrationContactFieldDto[]> {
    const row = await this.usable(key);
    const connector = connectorOf(row.type) as Connector;
    if (!connector.contacts) throw AppError.validation([{ propertyPath: 'key', message: `${connector.name} has no contacts to import` }]);
    return this.callVendor(connector, row, (ctx) => (connector.contacts as NonNullable<Connector['contacts']>).contactFields(ctx));
  }

  async contactFilters(key: string): Promise<IntegrationContactFilterDto[]> {
    const fields = await this.contactFields(key);
    return fields.map((f) => ({ field: f.name, label: f.label, type: f.type, operators: operatorsFor(f.type), options: f.options }));
  }

  async syncProgress(key: string): Promise<SyncProgressDto> {
    return readProgress((await this.row(key)).sync);
  }

  // ------------------------------------------------------------------ integration config (completion screen)

  async config(key: string): Promise<IntegrationConfigDto> {
    const row = await this.usable(key);
    const connector = connectorOf(row.type) as Connector;
    const profiles = connector.users ? await this.callVendor(connector, row, (ctx) => (connector.users as NonNullable<Connector['users']>).profiles(ctx)) : [];
    return this.configDto(row, profiles);
  }

  async saveConfig(key: string, body: unknown): Promise<IntegrationConfigDto> {
    const b = parse(ConfigBody, body);
    const row = await this.usable(key);
    const connector = connectorOf(row.type) as Connector;
    this.assertMayManage(connector);
    const profiles = connector.users ? await this.callVendor(connector, row, (ctx) => (connector.users as NonNullable<Connector['users']>).profiles(ctx)) : [];
    if (b.import_users.type === 'profiles') {
      const known = new Set(profiles.map((p) => p.id));
      const unknown = (b.import_users.profiles ?? []).filter((p) => !known.has(p));
      if (unknown.length) throw AppError.validation([{ propertyPath: 'import_users.profiles', message: `unknown profiles: ${unknown.slice(0, 5).join(', ')}` }]);
    }
    const config = {
      space_name: b.space_name ?? null,
      import_users: { type: b.import_users.type, profiles: b.import_users.type === 'profiles' ? [...new Set(b.import_users.profiles)] : [] },
      import_teams: { type: b.import_teams?.type ?? 'profiles' },
      // a note on the CRM contact when an inbox conversation with its number is closed (decision 0065); on unless refused
      note_on_close: b.note_on_close ?? true,
    };
    const updated = await this.uow.run(async (m, emit, notify) => {
      const [r] = await rows<IntegrationRow>(m, 
        `UPDATE integrations.integration SET config = $2, company_name = COALESCE(NULLIF($3, ''), company_name), updated_at = $4 WHERE id = $1 RETURNING *`,
        [row.id, JSON.stringify(config), b.company_name ?? null, this.clock.now()],
      );
      this.changed(r, emit, notify);
      return r;
    });
    return this.configDto(updated, profiles);
  }

  /** `GET /integration_config/{key}/start`: the users import and the contacts' full sync are queued for the worker. */
  async start(key: string): Promise<IntegrationConfigDto> {
    const row = await this.usable(key);
    const connector = connectorOf(row.type) as Connector;
    this.assertMayManage(connector);
    if (!row.config && connector.users) throw AppError.validation([{ propertyPath: 'import_users', message: 'save the integration config first' }]);
    const now = this.clock.now();
    const steps: SyncProgressDto['steps'] = [];
    if (connector.users) steps.push({ name: 'users', state: 'waiting', done: 0, total: null, progress: 0 });
    if (connector.contacts) steps.push({ name: 'contacts', state: 'waiting', done: 0, total: null, progress: 0 });
    const sync: SyncProgressDto = { ...emptyProgress(), state: 'running', steps, startedAt: now.toISOString() };
    const updated = await this.uow.run(async (m, emit, notify) => {
      const [r] = await rows<IntegrationRow>(m, 
        `UPDATE integrations.integration SET status = 'syncing', sync = $2, cursor = jsonb_build_object('full', jsonb_build_object('syncId', $3::text, 'startedAt', $4::text)) || (cursor - 'full'), next_run_at = $5, failures = 0, updated_at = $5 WHERE id = $1 RETURNING *`,
        [row.id, JSON.stringify(sync), randomUUID(), now.toISOString(), now],
      );
      // the lists that exist take part in this full sync; lists created during it get the mirror once it ends
      await m.query(`UPDATE integrations.synced_list SET full_sync_pending = false WHERE integration_id = $1`, [row.id]);
      this.changed(r, emit, notify);
      return r;
    });
    return this.configDto(updated, []);
  }

  // ------------------------------------------------------------------ helpers

  /** The caller's integration by key; 404 for another account's (never 403: no existence leak). */
  async row(key: string, m: EntityManager = this.ds.manager): Promise<IntegrationRow> {
    if (!/^[0-9a-f-]{36}$/i.test(key)) throw AppError.notFound('integration');
    const [r] = await rows<IntegrationRow>(m, `SELECT * FROM integrations.integration WHERE key = $1 AND account_id = $2 AND status <> 'disconnected'`, [key, RequestContext.accountId()]);
    if (!r) throw AppError.notFound('integration');
    return r;
  }

  async usable(key: string): Promise<IntegrationRow> {
    const r = await this.row(key);
    if (!USABLE.includes(r.status)) {
      throw new AppError(400, ErrorCode.InvalidIntegrationToken, r.status === IntegrationStatus.Pending ? 'the integration is not authorised yet' : 'the vendor refused the integration\'s credentials: connect it again');
    }
    return r;
  }

  /** A vendor call from a route: vendor failures become clear errors (0x15 refused credentials; 502/503 outage; 429 with Retry-After). */
  async callVendor<T>(connector: Connector, row: IntegrationRow, fn: (ctx: ConnectorContext) => Promise<T>): Promise<T> {
    try {
      return await this.vault.withContext(connector, row, fn);
    } catch (e) {
      if (e instanceof VendorError) throw vendorProblem(connector, e);
      throw e;
    }
  }

  /** Spec 6: Pipedrive is admin-only: the account's admin (TENANT_OWNER) connects, configures, starts and removes it. */
  private assertMayManage(connector: Connector): void {
    if (!connector.adminOnly) return;
    const p = RequestContext.principal();
    if (p?.superAdmin || p?.permissions.includes(Permission.TenantOwner)) return;
    throw AppError.forbidden(`${connector.name} is managed by the account's admin only`);
  }

  private async assertBaseUrl(u: string): Promise<void> {
    const url = new URL(u);
    if (url.username || url.password || url.search || url.hash) throw AppError.validation([{ propertyPath: 'baseUrl', message: 'a base URL without credentials, query or fragment' }]);
    if (this.options.allowPrivateUrls) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw AppError.validation([{ propertyPath: 'baseUrl', message: 'http or https' }]);
      return;
    }
    if (url.protocol !== 'https:') throw AppError.validation([{ propertyPath: 'baseUrl', message: 'https only' }]);
    if (isPrivateHost(url.hostname)) throw AppError.validation([{ propertyPath: 'baseUrl', message: 'a public host' }]);
    // a public-looking name that resolves to a private address is refused too (and checked again at every request)
    const refused = await this.outbound.refusal(u);
    if (refused) throw AppError.validation([{ propertyPath: 'baseUrl', message: `a public host: ${refused}` }]);
  }

  private async insert(
    v: { key: string; account: string; type: string; name: string; status: IntegrationStatusValue; authMode: 'oauth' | 'api_key'; baseUrl: string | null; domain: string | null; companyName: string | null; createdBy: string | null; now: Date },
    seal: (key: string) => string | null,
    tokenHashValue: string | null,
    oauth?: { stateHash: string; stateExpires: Date },
  ): Promise<IntegrationRow> {
    return this.uow.run(async (m, emit, notify) => {
      const [r] = await rows<IntegrationRow>(m, 
        `INSERT INTO integrations.integration (key, account_id, type, name, status, auth_mode, base_url, domain, company_name, credentials_sealed, oauth_state_hash, oauth_state_expires_at, sync, token_hash, created_by, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $16) RETURNING *`,
        [v.key, v.account, v.type, v.name, v.status, v.authMode, v.baseUrl, v.domain, v.companyName, seal(v.key), oauth?.stateHash ?? null, oauth?.stateExpires ?? null, JSON.stringify(emptyProgress()), tokenHashValue, v.createdBy, v.now],
      );
      this.changed(r, emit, notify);
      return r;
    });
  }

  changed(r: IntegrationRow, emit: UnitOfWorkEmit, notify: UnitOfWorkNotify): void {
    emit(IntegrationChanged, { accountId: String(r.account_id), integrationKey: r.key, type: r.type, name: r.name, status: r.status, companyName: r.company_name, changedAt: iso(r.updated_at) as string }, String(r.account_id));
    notify({ accountId: String(r.account_id), type: 'integration.changed', data: this.dto(r) });
  }

  dto(r: IntegrationRow): IntegrationKeyDto {
    const c = connectorOf(r.type);
    return {
      id: Number(r.id),
      key: r.key,
      type: r.type as IntegrationKeyDto['type'],
      name: r.name,
      status: r.status as IntegrationStatusValue,
      authMode: r.auth_mode,
      adminOnly: c?.adminOnly ?? false,
      companyName: r.company_name,
      baseUrl: r.base_url,
      credentials: !!r.credentials_sealed,
      sync: readProgress(r.sync),
      lastSyncedAt: iso(r.last_synced_at),
      createdAt: iso(r.created_at) as string,
      updatedAt: iso(r.updated_at) as string,
    };
  }

  private configDto(r: IntegrationRow, profiles: Array<{ id: string; name: string }>): IntegrationConfigDto {
    const cfg = (r.config ?? null) as { space_name?: string | null; import_users?: { type: 'admins' | 'all' | 'profiles'; profiles: string[] }; import_teams?: { type: 'profiles' | 'none' }; note_on_close?: boolean } | null;
    return {
      key: r.key,
      type: r.type as IntegrationConfigDto['type'],
      status: r.status as IntegrationStatusValue,
      company_name: r.company_name,
      space_name: cfg?.space_name ?? null,
      import_users: cfg?.import_users ?? null,
      import_teams: cfg?.import_teams ?? { type: 'profiles' },
      note_on_close: cfg?.note_on_close !== false,
      profiles,
      sync: readProgress(r.sync),
    };
  }
}

export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function domainLabel(type: string): string {
  return type === 'shopify' ? 'shop domain (name.myshopify.com)' : type === 'pipedrive' ? 'company domain' : type === 'monday' ? 'contacts board id' : 'domain';
}

function invalidIntegrationToken(connector: Connector, e: VendorError): AppError {
  if (e.status === 401 || e.status === 403) return new AppError(400, ErrorCode.InvalidIntegrationToken, `${connector.name} refused the key: invalid token`);
  return vendorProblem(connector, e);
}

/** Literal loopback, private, link-local and metadata addresses and local names (production refuses them as base URLs). */
export function isPrivateHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost') || h.endsWith('.local') || h.endsWith('.internal') || !h.includes('.') && !h.includes(':')) return true;
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(h);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return a === 0 || a === 10 || a === 127 || (a === 100 && b >= 64 && b < 128) || (a === 169 && b === 254) || (a === 172 && b >= 16 && b < 32) || (a === 192 && b === 168) || a >= 224;
  }
  if (h.includes(':')) return h === '::1' || h === '::' || h.startsWith('fc') || h.startsWith('fd') || h.startsWith('fe80') || h.startsWith('::ffff:');
  return false;
}
