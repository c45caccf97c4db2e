import { z } from 'zod';
import { inboxConfigSchema } from '@switchboard/inbox';
import { streamsConfigSchema } from '@switchboard/streams';
import { accountsConfigSchema } from '@switchboard/accounts';
import { campaignsConfigSchema } from '@switchboard/campaigns';
import { integrationsConfigSchema } from '@switchboard/integrations';
import { env, loadConfig } from '@switchboard/platform';

export const platformConfigSchema = z.object({
  PORT: env.port(3000),
  /** The short links' redirect server listens on its own port (0: a free one, printed at start). */
  SWITCHBOARD_REDIRECT_PORT: env.port(0),
  /** 127.0.0.1 by default: embedded mode is for one machine; set 0.0.0.0 to expose it. */
  HOST: z.string().default('127.0.0.1'),
  SWITCHBOARD_DATA_DIR: z.string().default('./.data'),
  /** Use an external PostgreSQL instead of the embedded one. */
  DATABASE_URL: z.string().url().optional(),
  SWITCHBOARD_ADMIN_EMAIL: z.string().email().default('admin@switchboard.local'),
  /** Unset: a random password is generated on first start and printed once. */
  SWITCHBOARD_ADMIN_PASSWORD: z.string().min(8, 'must be at least 8 characters').optional(),
  /** The dev mailbox's token when HOST is not loopback; unset: a new one each start, printed. */
  SWITCHBOARD_MAILBOX_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  SWITCHBOARD_DEMO_ACCOUNT: z.string().min(1).default('Demo account'),
  /** Where the admin build is; defaults to apps/admin/dist beside the sources. */
  ADMIN_DIST_DIR: z.string().optional(),
  TRUST_PROXY: z.string().default('false'),
  /** Public URL of the console for links in emails; defaults to http://HOST:PORT. */
  APP_URL: z.string().url().optional(),
  /** Short-link domains: the record customers point them at (a CNAME to this host, or an A record to the address). */
  LINKS_DNS_CNAME_TARGET: z.string().default('links.switchboard.local'),
  LINKS_DNS_A_TARGET: z.preprocess((v) => (v === '' ? undefined : v), z.string().ip({ version: 'v4' }).optional()),
  /** DNS servers the domain verification asks (`host` or `host:port`, comma-separated); unset: the system's. */
  LINKS_DNS_SERVERS: env.list([]),
  /** Without LINKS_DNS_SERVERS, a local DNS simulator answers every added domain's records (docs/decisions/0184); false: the system's resolver. */
  LINKS_DNS_SIMULATOR: env.bool(true),
  /** The integrations' OAuth apps and vendor endpoint overrides, as the integrations service reads them (README). */
  INTEGRATIONS_OAUTH_CLIENTS: integrationsConfigSchema.shape.INTEGRATIONS_OAUTH_CLIENTS,
  INTEGRATIONS_ENDPOINTS: integrationsConfigSchema.shape.INTEGRATIONS_ENDPOINTS,
  /** Zoho Inbox single sign-on (docs/decisions/0042): unset, the /zoho-sso popup says it is not configured. */
  ZOHO_CLIENT_ID: z.string().optional(),
  ZOHO_CLIENT_SECRET: z.string().optional(),
  ZOHO_ACCOUNTS_URL: z.string().url().default('https://accounts.zoho.com'),
  ZOHO_REDIRECT_URI: z.string().url().optional(),
  /** The WhatsApp Cloud API and Telegram Bot API streams check credentials against (local peers in tests). */
  WHATSAPP_API_BASE_URL: z.string().url().optional(),
  TELEGRAM_API_BASE_URL: z.string().url().optional(),
  /** The inbox's totals without a counter are counted up to one past this (README). */
  INBOX_TOTALS_CAP: inboxConfigSchema.shape.INBOX_TOTALS_CAP,
  /** The sweeper of accepted messages dispatch never got (README, docs/decisions/0087). */
  STREAMS_UNDISPATCHED_AFTER_MS: streamsConfigSchema.shape.STREAMS_UNDISPATCHED_AFTER_MS,
  STREAMS_UNDISPATCHED_INTERVAL_MS: streamsConfigSchema.shape.STREAMS_UNDISPATCHED_INTERVAL_MS,
  STREAMS_UNDISPATCHED_BATCH: streamsConfigSchema.shape.STREAMS_UNDISPATCHED_BATCH,
  STREAMS_UNDISPATCHED_REQUESTS_PER_SWEEP: streamsConfigSchema.shape.STREAMS_UNDISPATCHED_REQUESTS_PER_SWEEP,
  /** Dispatch's status changes as one event per write batch (docs/decisions/0173); only once every consumer takes that form. */
  DISPATCH_STATUS_BATCHES: env.bool(true),
  /** Dispatch's write batches' events as compact outbox rows (docs/decisions/0217); default true, as dispatch's. */
  DISPATCH_COMPACT_OUTBOX: env.bool(true),
  /** Streams' charges as one event per send batch and account (docs/decisions/0178); default true, as streams'. */
  STREAMS_CHARGE_BATCHES: streamsConfigSchema.shape.STREAMS_CHARGE_BATCHES,
  /** Streams' accepted events as one event per send batch and account (docs/decisions/0181): on in embedded mode, one process runs every consumer. */
  STREAMS_ACCEPT_BATCHES: env.bool(true),
  STREAMS_COMPACT_SEND_ROWS: streamsConfigSchema.shape.STREAMS_COMPACT_SEND_ROWS,
  /** Campaigns' send requests recorded once a batch (docs/decisions/0188); embedded: on. */
  CAMPAIGNS_RUNNER_BATCH_REQUESTS: env.bool(true),
  /** Campaigns asking dispatch for statuses it lost (README, docs/decisions/0093). */
  CAMPAIGNS_STATUSES_AFTER_MS: campaignsConfigSchema.shape.CAMPAIGNS_STATUSES_AFTER_MS,
  CAMPAIGNS_STATUSES_INTERVAL_MS: campaignsConfigSchema.shape.CAMPAIGNS_STATUSES_INTERVAL_MS,
  CAMPAIGNS_STATUSES_BATCH: campaignsConfigSchema.shape.CAMPAIGNS_STATUSES_BATCH,
  CAMPAIGNS_STATUSES_REQUESTS_PER_SWEEP: campaignsConfigSchema.shape.CAMPAIGNS_STATUSES_REQUESTS_PER_SWEEP,
  /** The reconciliation of charges between streams and accounts' ledger (README, docs/decisions/0114). */
  ACCOUNTS_CHARGES_RECONCILE_INTERVAL_MS: accountsConfigSchema.shape.ACCOUNTS_CHARGES_RECONCILE_INTERVAL_MS,
  ACCOUNTS_CHARGES_RECONCILE_AFTER_MS: accountsConfigSchema.shape.ACCOUNTS_CHARGES_RECONCILE_AFTER_MS,
  ACCOUNTS_CHARGES_RECONCILE_WINDOW_MS: accountsConfigSchema.shape.ACCOUNTS_CHARGES_RECONCILE_WINDOW_MS,
  ACCOUNTS_CHARGES_RECONCILE_BATCH: accountsConfigSchema.shape.ACCOUNTS_CHARGES_RECONCILE_BATCH,
  ACCOUNTS_CHARGES_RECONCILE_REQUESTS_PER_PASS: accountsConfigSchema.shape.ACCOUNTS_CHARGES_RECONCILE_REQUESTS_PER_PASS,
  ACCOUNTS_CHARGES_RECONCILE_RECHECK_WITHIN_MS: accountsConfigSchema.shape.ACCOUNTS_CHARGES_RECONCILE_RECHECK_WITHIN_MS,
  /** Print PostgreSQL's own log lines (the embedded server is quiet otherwise). */
  LOG_SQL: env.bool(false),
});

export type PlatformConfig = z.infer<typeof platformConfigSchema>;

export const loadPlatformConfig = (e: NodeJS.ProcessEnv = process.env): PlatformConfig => loadConfig('platform', platformConfigSchema, e);
