import { CONNECTOR_TYPES, type IntegrationTypeValue } from '@switchboard/contracts';
import { Clock, SystemClock } from './clock';
import type { GenAiModuleOptions } from './genai/genai.options';

/** Where a vendor is reached. Defaults are the vendors' documented production endpoints (connectors/endpoints.ts). */
export interface VendorEndpoints {
  /** REST or GraphQL API base URL. */
  apiUrl?: string;
  /** The browser's OAuth authorisation page. */
  authorizeUrl?: string;
  /** The OAuth token endpoint (code exchange and refresh). */
  tokenUrl?: string;
}

/** The platform's OAuth app at a vendor (its marketplace listing). Without one the vendor cannot be connected by OAuth. */
export interface OAuthClient {
  clientId: string;
  clientSecret: string;
}

export interface IntegrationsModuleOptions {
  /** Seals the integrations' credentials at rest (AES-256-GCM). At least 16 characters; the same on every replica. */
  secret: string;
  /** The console's public URL: OAuth redirect URIs (`{appUrl}/api/integration_keys/oauth_callback`) and the completion screen. */
  appUrl: string;
  /** Endpoint overrides per vendor (tests point them at local servers; a sandbox or a regional host in production). */
  endpoints?: Partial<Record<IntegrationTypeValue, VendorEndpoints>>;
  /** OAuth apps per vendor. A vendor without one says so in `manual_install` (`available: false`) instead of pretending. */
  oauthClients?: Partial<Record<IntegrationTypeValue, OAuthClient>>;
  /**
   * Lets an integration's own base URL (manual install `baseUrl`) and the endpoints be plain http on loopback and private
   * addresses: embedded mode and tests only. Default false (https to public hosts only).
   */
  allowPrivateUrls?: boolean;
  /**
   * DNS servers (`host:port`) that resolve vendor and AI provider hosts for the address check
   * (INTEGRATIONS_DNS_SERVERS); empty: the system resolver. Default empty.
   */
  dnsServers?: readonly string[];
  /** Lets a checked host resolve to a loopback address (tests reaching local servers by name only). Default false. */
  allowLoopback?: boolean;
  /** A vendor call gives up after this long. Default 15 000 ms. */
  requestTimeoutMs?: number;
  /** Access tokens are refreshed this long before they expire. Default 5 minutes. */
  refreshBeforeMs?: number;
  /** How often the sync worker looks for due work; 0 turns the loop off (tests call `runOnce`). Default 1000 ms. */
  pollMs?: number;
  /** How often an active integration asks its vendor for changes. Default 5 minutes. */
  incrementalEveryMs?: number;
  /** Backoff while a vendor is out (5xx, network): doubles from `outageBackoffMs` up to `maxOutageBackoffMs`. */
  outageBackoffMs?: number;
  maxOutageBackoffMs?: number;
  /** Contacts per `integrations.contacts.synced` event (at most MAX_CONTACTS_PER_EVENT). Default 500. */
  contactBatchSize?: number;
  /** Run the migrations when the module starts (embedded mode, tests). Default true. */
  migrationsRun?: boolean;
  clock?: Clock;
  /** The generative-AI module (docs/decisions/0041-generative-ai.md). */
  genai?: GenAiModuleOptions;
}

export interface ResolvedIntegrationsOptions {
  secret: string;
  appUrl: string;
  endpoints: Partial<Record<IntegrationTypeValue, VendorEndpoints>>;
  oauthClients: Partial<Record<IntegrationTypeValue, OAuthClient>>;
  allowPrivateUrls: boolean;
  dnsServers: readonly string[];
  allowLoopback: boolean;
  requestTimeoutMs: number;
  refreshBeforeMs: number;
  pollMs: number;
  incrementalEveryMs: number;
  outageBackoffMs: number;
  maxOutageBackoffMs: number;
  contactBatchSize: number;
  migrationsRun: boolean;
}

export const INTEGRATIONS_OPTIONS = Symbol('INTEGRATIONS_OPTIONS');
export const INTEGRATIONS_CONNECTION = 'integrations';
export const INTEGRATIONS_SCHEMA = 'integrations';

function int(name: string, v: number | undefined, def: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = v ?? def;
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`IntegrationsModule: ${name} must be an integer from ${min} to ${max} (got ${String(v)})`);
  return n;
}

export function resolveIntegrationsOptions(o: IntegrationsModuleOptions): ResolvedIntegrationsOptions {
  if (!o.secret || o.secret.length < 16) throw new Error('IntegrationsModule: secret must be at least 16 characters');
  const appUrl = new URL(o.appUrl).toString().replace(/\/$/, '');
  for (const t of Object.keys(o.endpoints ?? {})) if (!(CONNECTOR_TYPES as readonly string[]).includes(t)) throw new Error(`IntegrationsModule: endpoints for unknown vendor "${t}"`);
  for (const t of Object.keys(o.oauthClients ?? {})) if (!(CONNECTOR_TYPES as readonly string[]).includes(t)) throw new Error(`IntegrationsModule: OAuth client for unknown vendor "${t}"`);
  for (const [t, e] of Object.entries(o.endpoints ?? {})) {
    for (const u of Object.values(e ?? {})) if (u && !URL.canParse(u)) throw new Error(`IntegrationsModule: endpoint "${u}" of ${t} is not a URL`);
  }
  return {
    secret: o.secret,
    appUrl,
    endpoints: o.endpoints ?? {},
    oauthClients: o.oauthClients ?? {},
    allowPrivateUrls: o.allowPrivateUrls ?? false,
    dnsServers: o.dnsServers ?? [],
    allowLoopback: o.allowLoopback ?? false,
    requestTimeoutMs: int('requestTimeoutMs', o.requestTimeoutMs, 15_000, 10),
    refreshBeforeMs: int('refreshBeforeMs', o.refreshBeforeMs, 300_000, 0),
    pollMs: int('pollMs', o.pollMs, 1000, 0),
    incrementalEveryMs: int('incrementalEveryMs', o.incrementalEveryMs, 300_000, 0),
    outageBackoffMs: int('outageBackoffMs', o.outageBackoffMs, 5_000, 0),
    maxOutageBackoffMs: int('maxOutageBackoffMs', o.maxOutageBackoffMs, 600_000, 0),
    contactBatchSize: int('contactBatchSize', o.contactBatchSize, 500, 1, 500),
    migrationsRun: o.migrationsRun ?? true,
  };
}

export function createClock(o: IntegrationsModuleOptions): Clock {
  return o.clock ?? new SystemClock();
}
