import { z } from 'zod';
import { env, loadConfig } from '@switchboard/platform';

/**
 * The node flags the redirect process is started with (deploy/compose.yaml, k8s/links-redirect.yaml; the redirect bench
 * starts it with them too): a young generation of 2 x 64 MB semi-spaces instead of V8's 2 x 16 MB, as streams and
 * dispatch run. A redirect's short-lived objects (each request's, each look-up's rows, each click group's encoding) are
 * scavenged a quarter as often, and so is the scavenges' fixed work (the roots, the old-to-new slots of a cache of
 * hundreds of thousands of links): docs/decisions/0190, 2.4 µs less CPU a warm click and ~1.2 a first click (median of
 * 15 interleaved pairs), ~80 MB more memory (k8s limit 896Mi).
 */
export const REDIRECT_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];

/**
 * The redirect process's environment (`node dist/services/links/src/main-redirect.js`, distributed mode): the
 * database and the codes' key. It writes clicks and their events to the links schema; the `links` process's outbox relay publishes them.
 */
export const redirectConfigSchema = z.object({
  PORT: env.port(3011),
  HOST: z.string().default('127.0.0.1'),
  DATABASE_URL: z.string().url(),
  /** The scheme of the short URLs in click events (TLS is terminated in front of the redirect). */
  LINKS_PUBLIC_SCHEME: z.enum(['http', 'https']).default('https'),
  /** The proxies (addresses or CIDRs, comma-separated) whose X-Forwarded-For gives the clicks' client address; `false`: none. */
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform((v) => (v === 'false' || v === '' ? [] : v.split(',').map((s) => s.trim()).filter(Boolean)))
    .refine((l) => l.every((a) => /^[0-9a-fA-F.:]+(\/\d{1,3})?$/.test(a)), 'addresses or CIDRs, or false'),
  /**
   * The key of the short-link codes, the same as the links process's (docs/decisions/0092): a code is decrypted to the
   * sequence number that finds its range row. Unset: only links minted before 0092 resolve (a warning at start).
   */
  LINKS_CODE_SECRET: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(16).optional()),
  /** A link is served from memory this long before its offer is read again, in ms (an offer disabled or changed shows within it; docs/decisions/0117). */
  LINKS_CACHE_TTL_MS: env.int(10_000, 0),
  /** Clicks wait at most this long before their group is written, in ms. */
  LINKS_CLICK_FLUSH_MS: env.int(10, 0),
  /**
   * Click group statements start at most this often, in ms (the cluster primary's, or the single process's): each has a
   * fixed cost in PostgreSQL, paid once for whatever arrived meanwhile (docs/decisions/0130). 0: as soon as possible.
   */
  LINKS_CLICK_COMMIT_INTERVAL_MS: env.int(20, 0),
  /** Clicks answered but not yet committed, at most: the most a SIGKILL can lose (when full, answers wait for room, also while the database is away: 0130). */
  LINKS_CLICK_BUFFER_MAX: env.int(20_000, 1),
  /**
   * Cluster workers serving redirects on the one port, sharing the primary's click group commit (docs/decisions/0057);
   * 1 (default): a single process, which serves and commits its own clicks (docs/decisions/0168: on 2 cores shared with
   * PostgreSQL and the clients, 5 to 7 µs of CPU a redirect less than two workers, and it holds 30,000/s in about half
   * a core); 0: one per core (`os.availableParallelism()`), for a host whose cores the redirect has to itself.
   */
  LINKS_REDIRECT_WORKERS: env.int(1, 0),
  /**
   * Redirects parsed by the redirect's own HTTP/1.1 subset on node:net, every other connection handed to node:http
   * (docs/decisions/0091); false: node:http parses everything.
   */
  LINKS_REDIRECT_FAST_PATH: env.bool(true),
});

export type RedirectConfig = z.infer<typeof redirectConfigSchema>;

export const loadRedirectConfig = (e: NodeJS.ProcessEnv = process.env): RedirectConfig => loadConfig('links-redirect', redirectConfigSchema, e);
