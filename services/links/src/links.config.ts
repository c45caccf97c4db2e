import { z } from 'zod';
import { env, loadConfig, pemFromEnv, type ProcessRoles } from '@switchboard/platform';
import type { LinksModuleOptions } from './links.options';

const ROLES = ['http', 'redirect', 'consumers', 'relay', 'schedulers'] as const;

/** The standalone links process's environment (distributed mode); shared names as in deploy/ and k8s/. */
export const linksConfigSchema = z.object({
  PORT: env.port(3007),
  HOST: z.string().default('127.0.0.1'),
  DATABASE_URL: z.string().url(),
  /** ES256 public key that verifies access tokens: PEM, or base64 of it. */
  JWT_PUBLIC_KEY: z.string().min(1, 'the ES256 public key (PEM or base64 PEM) is required').transform(pemFromEnv),
  KAFKA_BROKERS: env.list().refine((l) => l.length > 0, 'at least one Kafka broker'),
  KAFKA_CREATE_TOPICS: env.bool(false),
  KAFKA_IDEMPOTENT_PRODUCER: env.bool(false),
  /** Compression of produced record batches (docs/decisions/0085). */
  KAFKA_COMPRESSION: z.enum(['gzip', 'none']).default('gzip'),
  NATS_URL: env.list(['nats://127.0.0.1:4222']),
  /**
   * Which roles this process runs: `http` (the console API: domains, pools, offers), `redirect` (the redirect
   * server), `consumers`, `relay`, `schedulers` (the DNS re-checks).
   */
  PROCESS_ROLES: env
    .list(['http', 'consumers', 'relay', 'schedulers'])
    .refine((l) => l.every((r) => (ROLES as readonly string[]).includes(r)), `roles are ${ROLES.join(', ')}`),
  /** The host name customers point their domains' CNAME at (the DNS instructions). */
  LINKS_DNS_CNAME_TARGET: z.string().default('links.switchboard.local'),
  /** The IPv4 address of an A record, for apex domains that cannot have a CNAME; unset: CNAME only. */
  LINKS_DNS_A_TARGET: z.preprocess((v) => (v === '' ? undefined : v), z.string().ip({ version: 'v4' }).optional()),
  /** DNS servers the verification asks (`host` or `host:port`, comma-separated); unset: the system resolver's. */
  LINKS_DNS_SERVERS: env.list([]),
  /** Every domain's DNS is checked again this often, in seconds (at least 1). */
  LINKS_DNS_RECHECK_SECONDS: env.int(600, 1),
  /**
   * The key of the short-link codes (at least 16 characters; never change it once links exist). Unset: this process
   * mints no links (the campaign batches wait for a process that has it).
   */
  LINKS_CODE_SECRET: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(16).optional()),
  /** The redirect server's own port when PROCESS_ROLES has `redirect` (main.js); main-redirect.js uses PORT. */
  LINKS_REDIRECT_PORT: env.port(3011),
  /** The scheme of the short URLs minted (TLS is terminated in front of the redirect). */
  LINKS_PUBLIC_SCHEME: z.enum(['http', 'https']).default('https'),
  /** The redirect serves a link from memory this long before reading it again, in ms (an offer disabled shows within it). */
  LINKS_CACHE_TTL_MS: env.int(10_000, 0),
  /** Clicks wait at most this long before their group is written, in ms. */
  LINKS_CLICK_FLUSH_MS: env.int(10, 0),
  /** Clicks answered but not yet committed, at most: the most a SIGKILL can lose (when full, answers wait for room, also while the database is away: 0130). */
  LINKS_CLICK_BUFFER_MAX: env.int(20_000, 1),
  MIGRATIONS_RUN: env.bool(false),
  /** docs/decisions/0150: mint variables as values alone (turn on once every redirect server runs this release). */
  LINKS_MINT_VARS_VALUES: env.bool(false),
  TRUST_PROXY: z.string().default('false'),
});

export type LinksConfig = z.infer<typeof linksConfigSchema>;

export const loadLinksConfig = (e: NodeJS.ProcessEnv = process.env): LinksConfig => loadConfig('links', linksConfigSchema, e);

export const linksMigrateConfigSchema = z.object({ DATABASE_URL: z.string().url() });
export const loadLinksMigrateConfig = (e: NodeJS.ProcessEnv = process.env) => loadConfig('links-migrate', linksMigrateConfigSchema, e);

export function platformRolesFromConfig(c: LinksConfig): ProcessRoles {
  const roles = new Set(c.PROCESS_ROLES);
  return { http: roles.has('http') || roles.has('redirect'), consumers: roles.has('consumers'), relay: roles.has('relay'), schedulers: roles.has('schedulers') };
}

export function linksModuleOptionsFromConfig(c: LinksConfig): LinksModuleOptions {
  const roles = new Set(c.PROCESS_ROLES);
  return {
    roles: { admin: roles.has('http'), redirect: roles.has('redirect') },
    migrationsRun: c.MIGRATIONS_RUN,
    dns: { cnameTarget: c.LINKS_DNS_CNAME_TARGET, aTarget: c.LINKS_DNS_A_TARGET ?? null },
    dnsServers: c.LINKS_DNS_SERVERS,
    dnsRecheckMs: c.LINKS_DNS_RECHECK_SECONDS * 1000,
    codeSecret: c.LINKS_CODE_SECRET,
    mintVarsValues: c.LINKS_MINT_VARS_VALUES,
    redirect: {
      port: c.LINKS_REDIRECT_PORT,
      host: c.HOST,
      publicScheme: c.LINKS_PUBLIC_SCHEME,
      cacheTtlMs: c.LINKS_CACHE_TTL_MS,
      clickFlushMs: c.LINKS_CLICK_FLUSH_MS,
      clickBufferMax: c.LINKS_CLICK_BUFFER_MAX,
    },
  };
}
