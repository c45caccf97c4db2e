import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Client } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';
import { WebhookDisabledV1, type WebhookParams, type WebhookRequestLogDto, type WebhookTestResultDto, type WebhookTriggerValue } from '@switchboard/contracts';
import { AppError, createEnvelope, DATABASE_URL, DestinationGuard, DestinationRefused, DNS_CACHE_MIN_MS, type CheckedDestination, Outbox, parseListQuery, PROCESS_ROLES, RequestContext, type ListResult, type ProcessRoles } from '@switchboard/platform';
import { Clock } from '../clock';
import { HostPool } from '../delivery/host-pool';
import { CONNECTION_TIMEOUT, type Outcome, type SentRequest } from '../delivery/http-sender';
import { samplePayload } from '../delivery/payloads';
import { signatureHeaders } from '../delivery/signature';
import { WEBHOOKS_CONNECTION, WEBHOOKS_OPTIONS, WEBHOOKS_SCHEMA, type ResolvedWebhooksOptions } from '../webhooks.options';
import { WebhooksOutboxRelay } from './outbox-relay';
import { paramsOf, returned, WebhookService, type WebhookRow } from './webhook.service';

export const DESTINATION_REFUSED = 'E-DESTINATION_REFUSED';

/** A consumed event the webhooks of its account may follow: what `enqueueMany` queues deliveries for. */
export interface QueuedEvent {
  eventId: string;
  accountId: string;
  trigger: WebhookTriggerValue;
  streamId: string | null;
  eventType: string;
  build: (p: WebhookParams) => Record<string, unknown>;
}

/** The request-log values of one attempt, in the order of its INSERT. */
interface SuccessRow {
  a: string;
  w: string;
  d: string;
  e: string;
  n: number;
  q: LoggedRequest & { address: string | null };
  r: Outcome['response'];
  ms: number;
  t: Date;
}

/**
 * What a delivery attempt's log row keeps of its request: everything but the payload, which the delivery row holds
 * (the log references it by `delivery_id`; a GET's `uri` is the webhook URL before `?payload=` was added).
 */
type LoggedRequest = Omit<SentRequest, 'body'> & { body?: string };

interface Claimed {
  id: string;
  account_id: string;
  webhook_id: string;
  event_id: string;
  payload: string;
  /** The number of this attempt: the row's finished attempts + 1 (the row itself is not written at the claim). */
  attempts: number;
  /** The webhook row's xmin: changes with every update of the row (the webhook cache's freshness check). */
  webhook_version: string;
}

/** Counts requests per destination host in this process; a task waits for a free slot. */
class HostLimiter {
  private readonly hosts = new Map<string, { active: number; waiting: Array<() => void> }>();
  constructor(private readonly limit: number) {}

  async run<T>(host: string, task: () => Promise<T>): Promise<T> {
    let h = this.hosts.get(host);
    if (!h) this.hosts.set(host, (h = { active: 0, waiting: [] }));
    const slot = h;
    if (slot.active >= this.limit) await new Promise<void>((r) => slot.waiting.push(r));
    slot.active++;
    try {
      return await task();
    } finally {
      slot.active--;
      const next = slot.waiting.shift();
      if (next) next();
      else if (slot.active === 0) this.hosts.delete(host);
    }
  }
}

const SELECT_WEBHOOK = `SELECT id::text, uid::text, account_id::text, name, url, http_method, headers, active, trigger, stream_ids::text[] AS stream_ids, params,
  secret_sealed, previous_secret_sealed, previous_secret_until, failing_since, disabled_reason, created_at, updated_at FROM webhooks.webhook`;

/** Advisory-lock class of the delivery buckets ('WHKS'); the key is the bucket, `webhook_id % DELIVERY_BUCKETS`. */
const BUCKET_LOCK_CLASS = 0x57484b53;
/** Webhooks are spread over this many buckets; a bucket is served by one process at a time (its session holds the lock). */
export const DELIVERY_BUCKETS = 64;
/** A worker whose claims keep coming back full looks for buckets with due work nobody serves this often. */
const DISCOVER_EVERY_MS = 1000;

/**
 * The delivery queue (docs/decisions/0027-webhooks.md, 0059): consumers insert one row per webhook and event (batched);
 * the worker serves the webhooks of the buckets its database session holds (session advisory locks: one process per
 * bucket, released by PostgreSQL when the session ends, so a killed worker's deliveries are taken over at once),
 * reads due rows without writing them (a few per webhook at a time, webhooks in round robin, so one slow URL or one
 * busy account cannot hold the queue), signs and sends each once per attempt, and writes the attempt's outcome once:
 * its log row (which references the payload, never copies it) and the row's next state in one statement per batch.
 */
@Injectable()
export class DeliveryService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger('WebhookDelivery');
  private readonly guard: DestinationGuard;
  private readonly hosts: HostLimiter;
  /** Keep-alive connections per checked destination (address, port, TLS name): docs/decisions/0069. */
  private readonly pools = new Map<string, HostPool>();
  private readonly inFlight = new Set<Promise<void>>();
  private timer?: NodeJS.Timeout;
  private ticking = false;
  private again = false;
  private stopped = false;

  constructor(
    @InjectDataSource(WEBHOOKS_CONNECTION) private readonly ds: DataSource,
    @Inject(WEBHOOKS_OPTIONS) private readonly options: ResolvedWebhooksOptions,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly webhooks: WebhookService,
    private readonly clock: Clock,
    private readonly relay: WebhooksOutboxRelay,
    @Inject(DATABASE_URL) private readonly databaseUrl: string,
  ) {
    // thousands of deliveries a second go to few hosts: a checked DNS answer is reused for its TTL (decision 0054)
    this.guard = new DestinationGuard({ ...options, reuseAnswers: true });
    this.hosts = new HostLimiter(options.perHostConcurrency);
  }

  onApplicationBootstrap(): void {
    if (!this.roles.schedulers || this.options.pollMs === 0) return;
    const loop = () => {
      if (this.stopped) return;
      void this.safeTick().finally(() => {
        if (!this.stopped) this.timer = setTimeout(loop, this.options.pollMs);
      });
    };
    this.timer = setTimeout(loop, this.options.pollMs);
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.current;
    await Promise.allSettled([...this.inFlight]);
    // ending the session gives its buckets back (every outcome is written by now)
    if (this.owner) await this.owner.end().catch(() => undefined);
    this.owner = null;
    for (const p of this.pools.values()) p.close();
    this.pools.clear();
  }

  /** New work was queued: look for it now rather than at the next poll. */
  kick(): void {
    if (this.stopped || !this.roles.schedulers || this.options.pollMs === 0) return;
    void this.safeTick();
  }

  private current: Promise<void> = Promise.resolve();

  /** The loop's tick: a failure (the database away) is logged and tried again at the next poll, never thrown. */
  private safeTick(): Promise<void> {
    if (this.ticking) {
      this.again = true;
      return this.current;
    }
    this.current = this.tick().catch((e: unknown) => this.log.warn(`delivery worker: ${e instanceof Error ? e.message : String(e)}; trying again`));
    return this.current;
  }

  /**
   * Queues one delivery per webhook of the event's account that follows its trigger (and its stream, when the webhook
   * filters), for many events at once in the consumer's transaction: one lookup of the events' accounts' active
   * webhooks and one multi-row INSERT (`ON CONFLICT DO NOTHING`: a redelivered event queues nothing twice).
   */
  async enqueueMany(m: EntityManager, events: readonly QueuedEvent[]): Promise<number> {
    if (!events.length) return 0;
    const accounts = [...new Set(events.map((e) => e.accountId))];
    const triggers = [...new Set(events.map((e) => e.trigger))];
    const hooks = await m.query<Array<{ id: string; account_id: string; trigger: string; stream_ids: string[]; params: Partial<WebhookParams> }>>(
      `SELECT id::text, account_id::text, trigger, stream_ids::text[] AS stream_ids, params FROM webhooks.webhook
        WHERE account_id = ANY ($1::bigint[]) AND trigger = ANY ($2::text[]) AND active`,
      [accounts, triggers],
    );
    if (!hooks.length) return 0;
    const byKey = new Map<string, typeof hooks>();
    for (const h of hooks) {
      const k = `${h.account_id}:${h.trigger}`;
      byKey.set(k, [...(byKey.get(k) ?? []), h]);
    }
    const rows = { a: [] as string[], w: [] as string[], e: [] as string[], t: [] as string[], p: [] as string[], b: [] as boolean[] };
    for (const e of events) {
      for (const h of byKey.get(`${e.accountId}:${e.trigger}`) ?? []) {
        if (h.stream_ids.length && (e.streamId === null || !h.stream_ids.includes(String(e.streamId)))) continue;
        const params = paramsOf(h);
        rows.a.push(e.accountId);
        rows.w.push(h.id);
        rows.e.push(e.eventId);
        rows.t.push(e.eventType);
        rows.p.push(JSON.stringify(e.build(params)));
        rows.b.push(params.send_bulk);
      }
    }
    if (!rows.w.length) return 0;
    const now = this.clock.now();
    await m.query(
      `INSERT INTO webhooks.delivery (account_id, webhook_id, event_id, event_type, payload, next_attempt_at, created_at, bulk)
       SELECT a, w, e, t, p, $1, $1, b FROM unnest($2::bigint[], $3::bigint[], $4::uuid[], $5::text[], $6::text[], $7::boolean[]) AS x(a, w, e, t, p, b)
       ON CONFLICT (webhook_id, event_id) DO NOTHING`,
      [now, rows.a, rows.w, rows.e, rows.t, rows.p, rows.b],
    );
    return rows.w.length;
  }

  /** Slots freed before the worker claims again: claims come in batches, not one per finished delivery. */
  private get refill(): number {
    return Math.max(1, Math.floor(this.options.concurrency / 4));
  }

  private roomWaiters: Array<() => void> = [];
  /** runOnce: a claim ran while deliveries of this process were in flight (it skipped them and their webhooks' room). */
  private heldDuringClaim = false;
  private claimedInTick = 0;

  /** Resolves once a refill's worth of slots is free (or nothing is in flight). */
  private room(): Promise<void> {
    if (this.options.concurrency - this.inFlight.size >= this.refill || !this.inFlight.size) return Promise.resolve();
    return new Promise<void>((r) => this.roomWaiters.push(r));
  }

  private refillScheduled = false;

  /** A delivery finished: wake whoever waits for room, and in a running worker claim again once a refill is free. */
  private finished(): void {
    const free = this.options.concurrency - this.inFlight.size;
    if (free < this.refill && this.inFlight.size) return;
    for (const w of this.roomWaiters.splice(0)) w();
    if (this.stopped || !this.roles.schedulers || this.options.pollMs === 0 || this.refillScheduled) return;
    this.refillScheduled = true;
    setImmediate(() => {
      this.refillScheduled = false;
      void this.safeTick();
    });
  }

  /** Claims what is due and starts sending it (up to the concurrency); resolves once the claim is made. */
  async tick(): Promise<void> {
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = true;
    this.claimedInTick = 0;
    try {
      do {
        this.again = false;
        const free = this.options.concurrency - this.inFlight.size;
        if (free <= 0) return;
        await this.gather();
        const claimed = await this.claim(free);
        if (!claimed.length) return;
        this.claimedInTick += claimed.length;
        const hooks = await this.loadWebhooks(claimed);
        for (const c of claimed) {
          this.hold(c);
          const p = this.deliver(c, hooks.get(c.webhook_id)).catch((err: unknown) => this.log.error(`delivery ${c.id}: ${String(err)}`));
          const tracked = p.finally(() => {
            // only once its outcome is written (or failed to be): then a claim no longer sees it due, or may take it again
            this.unhold(c);
            this.inFlight.delete(tracked);
            this.finished();
          });
          this.inFlight.add(tracked);
        }
        if (claimed.length === free) this.again = true;
      } while (this.again && !this.stopped);
    } finally {
      this.ticking = false;
    }
  }

  /** Tests and the bench: claims and sends everything due now (claiming again as slots free up), and waits for it. */
  async runOnce(): Promise<void> {
    for (;;) {
      this.heldDuringClaim = false;
      await this.tick();
      if (!this.inFlight.size) {
        // done, unless the claim skipped rows of this process's that finished meanwhile (their webhooks may have more)
        if (!this.claimedInTick && !this.heldDuringClaim) return;
        continue;
      }
      // nothing more was due: wait for what is in flight (its retries may come due) rather than asking again at once
      if (!this.claimedInTick) await Promise.allSettled([...this.inFlight]);
      else await this.room();
    }
  }

  /**
   * send_bulk: the waiting deliveries of a bulk webhook become one delivery when there are `bulkMaxEvents` of them or
   * the first has waited `bulkWaitMs`: a new row whose payload is the JSON array of theirs and whose event id (the
   * webhook-id header, the same on every retry) is the batch's; they become `batched`, pointing at it.
   */
  private async gather(): Promise<void> {
    const now = this.clock.now();
    const { bulkMaxEvents: max, bulkWaitMs: wait } = this.options;
    const due = await this.ds.query<Array<{ webhook_id: string }>>(
      `SELECT webhook_id::text FROM webhooks.delivery WHERE state = 'pending' AND bulk
        GROUP BY webhook_id HAVING count(*) >= $1 OR min(created_at) <= $2`,
      [max, new Date(now.getTime() - wait)],
    );
    for (const { webhook_id } of due) {
      for (;;) {
        const batch = randomUUID();
        const rows = returned<{ id: string }>(
          await this.ds.query(
            `WITH picked AS (
               SELECT id, account_id, payload FROM webhooks.delivery
                WHERE webhook_id = $1 AND state = 'pending' AND bulk ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED
             ), batch AS (
               INSERT INTO webhooks.delivery (account_id, webhook_id, event_id, event_type, payload, next_attempt_at, created_at)
               SELECT min(account_id), $1, $3, 'batch', '[' || string_agg(payload, ',' ORDER BY id) || ']', $4, $4 FROM picked HAVING count(*) > 0
               RETURNING id
             )
             UPDATE webhooks.delivery d SET state = 'batched', batch_id = $3, finished_at = $4 FROM picked WHERE d.id = picked.id RETURNING d.id::text`,
            [webhook_id, max, batch, now],
          ),
        );
        // a full batch may leave more behind; a partial one took everything waiting
        if (rows.length < max) break;
        const [{ n }] = await this.ds.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM webhooks.delivery WHERE webhook_id = $1 AND state = 'pending' AND bulk`, [webhook_id]);
        if (n < max) break;
      }
    }
  }

  /** Round robin over the webhooks with work: the next claim starts after the last webhook served. */
  private cursor = '0';

  /** This process's claims: delivery ids in flight, and their counts per webhook and per bucket (nothing in the table). */
  private readonly heldIds = new Set<string>();
  private readonly heldPerHook = new Map<string, number>();
  private readonly heldPerBucket = new Map<number, number>();

  private hold(c: Claimed): void {
    this.heldIds.add(c.id);
    this.heldPerHook.set(c.webhook_id, (this.heldPerHook.get(c.webhook_id) ?? 0) + 1);
    const b = bucketOf(c.webhook_id);
    this.heldPerBucket.set(b, (this.heldPerBucket.get(b) ?? 0) + 1);
  }

  private unhold(c: Claimed): void {
    this.heldIds.delete(c.id);
    const n = (this.heldPerHook.get(c.webhook_id) ?? 1) - 1;
    if (n > 0) this.heldPerHook.set(c.webhook_id, n);
    else this.heldPerHook.delete(c.webhook_id);
    const b = bucketOf(c.webhook_id);
    const m = (this.heldPerBucket.get(b) ?? 1) - 1;
    if (m > 0) this.heldPerBucket.set(b, m);
    else this.heldPerBucket.delete(b);
  }

  /**
   * The session whose advisory locks say which buckets this process serves. Its own connection (not the pool's), with
   * TCP keepalives so PostgreSQL notices a vanished host within about 25 s and frees its buckets; a killed process's
   * socket closes at once. Any error on it drops it with every bucket (another process may hold them by then).
   */
  private owner: Client | null = null;
  private readonly owned = new Set<number>();

  private async ownerSession(): Promise<Client> {
    if (this.owner) return this.owner;
    const c = new Client({ connectionString: this.databaseUrl, application_name: 'switchboard-webhooks-delivery' });
    c.on('error', () => this.dropOwner(c));
    await c.connect();
    try {
      await c.query(`SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3`);
    } catch (e) {
      await c.end().catch(() => undefined);
      throw e;
    }
    this.owned.clear();
    this.dueMine = [];
    this.owner = c;
    return c;
  }

  private dropOwner(c: Client): void {
    if (this.owner !== c) return;
    this.owner = null;
    this.owned.clear();
    this.dueMine = [];
    void c.end().catch(() => undefined);
  }

  /**
   * Claims up to `limit` due deliveries without writing them (docs/decisions/0059, 0069). On the owner session, so the
   * buckets are held while the rows are read: (1) the buckets with due work nobody holds are locked (only when this
   * process has no bucket with due work, its last claim came back short, or DISCOVER_EVERY_MS have passed)
   * (`pg_try_advisory_lock`: another process's buckets are skipped, never waited for); buckets with nothing due and
   * nothing in flight here are given back. (2) one statement walks the held buckets' webhooks with due rows in id order
   * from the round-robin cursor (a skip scan over `delivery_claim_idx`, one index probe per webhook), each giving its
   * oldest due rows not already in flight here, up to the per-webhook limit minus what it has in flight (counted in
   * memory: only this process serves the bucket). A row stays `pending` while it is sent; its outcome is written once,
   * fenced on the attempt count, so a duplicate sender's late outcome changes nothing.
   */
  private async claim(limit: number): Promise<Claimed[]> {
    const owner = await this.ownerSession();
    try {
      return await this.claimOn(owner, limit);
    } catch (e) {
      this.dropOwner(owner);
      throw e;
    }
  }

  /**
   * The buckets this process holds that had due work at the last discovery (the bucket statement below walks every
   * webhook with pending rows: a probe per webhook, the costliest statement of a busy worker when run at every claim).
   */
  private dueMine: number[] = [];
  /** When the buckets were last discovered (performance.now()); a saturated worker looks again this often. */
  private discoveredAt = -Infinity;

  private async claimOn(owner: Client, limit: number): Promise<Claimed[]> {
    const now = this.clock.now();
    // a worker whose claims come back full serves its buckets without looking for others, up to DISCOVER_EVERY_MS;
    // a short claim (its buckets ran dry, or rows came due elsewhere) looks again at once
    let fresh = false;
    if (!this.dueMine.length || performance.now() - this.discoveredAt >= DISCOVER_EVERY_MS) {
      await this.discover(owner, now);
      fresh = true;
    }
    let out = await this.claimFrom(owner, now, limit, []);
    if (out.length < limit && !fresh) {
      await this.discover(owner, now);
      out = await this.claimFrom(owner, now, limit, out);
    }
    return out;
  }

  /**
   * (1) The buckets with due work nobody holds are locked (`pg_try_advisory_lock`: another process's buckets are
   * skipped, never waited for); buckets with nothing due and nothing in flight here are given back.
   */
  private async discover(owner: Client, now: Date): Promise<void> {
    this.discoveredAt = performance.now();
    const { rows: due } = await owner.query<{ b: number; mine: boolean }>(
      `WITH RECURSIVE hooks AS (
         (SELECT webhook_id FROM webhooks.delivery WHERE state = 'pending' AND NOT bulk ORDER BY webhook_id LIMIT 1)
         UNION ALL
         SELECT (SELECT d.webhook_id FROM webhooks.delivery d WHERE d.state = 'pending' AND NOT d.bulk AND d.webhook_id > h.webhook_id ORDER BY d.webhook_id LIMIT 1)
           FROM hooks h WHERE h.webhook_id IS NOT NULL
       ), buckets AS (
         SELECT DISTINCT (h.webhook_id % $2)::int AS b FROM hooks h
          WHERE h.webhook_id IS NOT NULL
            AND EXISTS (SELECT 1 FROM webhooks.delivery x WHERE x.webhook_id = h.webhook_id AND x.state = 'pending' AND NOT x.bulk AND x.next_attempt_at <= $1)
       )
       SELECT b, CASE WHEN b = ANY ($3::int[]) THEN true ELSE pg_try_advisory_lock($4, b) END AS mine FROM buckets`,
      [now, DELIVERY_BUCKETS, [...this.owned], BUCKET_LOCK_CLASS],
    );
    const dueBuckets = new Set(due.map((r) => r.b));
    for (const r of due) if (r.mine) this.owned.add(r.b);
    const giveBack = [...this.owned].filter((b) => !dueBuckets.has(b) && !this.heldPerBucket.get(b));
    if (giveBack.length) {
      await owner.query(`SELECT pg_advisory_unlock($1, b) FROM unnest($2::int[]) b`, [BUCKET_LOCK_CLASS, giveBack]);
      for (const b of giveBack) this.owned.delete(b);
    }
    this.dueMine = [...this.owned].filter((b) => dueBuckets.has(b));
  }

  /**
   * (2) One statement walks the held buckets' webhooks with due rows in id order from the round-robin cursor (a skip
   * scan over `delivery_claim_idx`, one index probe per webhook), each giving its oldest due rows not already in flight
   * here, up to the per-webhook limit minus what it has in flight (counted in memory: only this process serves the
   * bucket). Adds to `out` (rows already claimed in this call count as in flight).
   */
  private async claimFrom(owner: Client, now: Date, limit: number, out: Claimed[]): Promise<Claimed[]> {
    const mine = this.dueMine;
    if (!mine.length) return out;
    const heldHooks = [...this.heldPerHook.keys()];
    if (heldHooks.length) this.heldDuringClaim = true;
    for (let pass = 0; pass < 2 && out.length < limit; pass++) {
      const from = this.cursor;
      const { rows } = await owner.query<Claimed>(
        `WITH RECURSIVE hooks AS (
           (SELECT webhook_id FROM webhooks.delivery WHERE state = 'pending' AND NOT bulk AND webhook_id > $5 ORDER BY webhook_id LIMIT 1)
           UNION ALL
           SELECT (SELECT d.webhook_id FROM webhooks.delivery d WHERE d.state = 'pending' AND NOT d.bulk AND d.webhook_id > h.webhook_id ORDER BY d.webhook_id LIMIT 1)
             FROM hooks h WHERE h.webhook_id IS NOT NULL
         ), due AS (
           SELECT x.id FROM hooks h CROSS JOIN LATERAL (
             SELECT x.id FROM webhooks.delivery x
              WHERE x.webhook_id = h.webhook_id AND x.state = 'pending' AND NOT x.bulk AND x.next_attempt_at <= $1 AND x.id <> ALL ($6::bigint[])
              ORDER BY x.next_attempt_at, x.id
              LIMIT greatest(0, $3 - coalesce((SELECT sum(f.n)::int FROM unnest($7::bigint[], $8::int[]) AS f(w, n) WHERE f.w = h.webhook_id), 0))
           ) x
           WHERE h.webhook_id IS NOT NULL AND (h.webhook_id % $9)::int = ANY ($4::int[])
           LIMIT $2
         )
         SELECT d.id::text, d.account_id::text, d.webhook_id::text, d.event_id::text, d.payload, d.attempts + 1 AS attempts, w.xmin::text AS webhook_version
           FROM due JOIN webhooks.delivery d ON d.id = due.id JOIN webhooks.webhook w ON w.id = d.webhook_id`,
        [
          now,
          limit - out.length,
          this.options.perWebhookConcurrency,
          mine,
          from,
          [...this.heldIds, ...out.map((c) => c.id)],
          [...heldHooks, ...out.map((c) => c.webhook_id)],
          [...heldHooks.map((h) => this.heldPerHook.get(h) ?? 0), ...out.map(() => 1)],
          DELIVERY_BUCKETS,
        ],
      );
      out.push(...rows);
      // a short claim walked to the end: the next one starts from the first webhook again
      if (rows.length < limit - (out.length - rows.length)) this.cursor = '0';
      else this.cursor = rows.length ? String(rows.map((r) => BigInt(r.webhook_id)).reduce((m, x) => (x > m ? x : m))) : '0';
      if (from === '0') break;
    }
    return out;
  }

  /** Webhook rows, reused while the row's version (xmin) is the one the claim saw (bounded). */
  private readonly hookCache = new Map<string, { row: WebhookRow; version: string }>();

  private async loadWebhooks(claimed: Claimed[]): Promise<Map<string, WebhookRow>> {
    const out = new Map<string, WebhookRow>();
    const missing = new Set<string>();
    for (const c of claimed) {
      const hit = this.hookCache.get(c.webhook_id);
      if (hit && hit.version === c.webhook_version) out.set(c.webhook_id, hit.row);
      else missing.add(c.webhook_id);
    }
    if (missing.size) {
      const rows = await this.ds.query<Array<WebhookRow & { version: string }>>(`${SELECT_WEBHOOK.replace('SELECT ', 'SELECT xmin::text AS version, ')} WHERE id = ANY ($1::bigint[])`, [[...missing]]);
      if (this.hookCache.size + rows.length > 10_000) this.hookCache.clear();
      for (const r of rows) {
        out.set(r.id, r);
        this.hookCache.set(r.id, { row: r, version: r.version });
      }
    }
    return out;
  }

  /** Opened signing secrets by sealed text (opening is an AES-GCM decryption per delivery otherwise). */
  private readonly opened = new Map<string, string[]>();

  private signingSecrets(hook: WebhookRow, now: Date): string[] {
    const overlap = !!hook.previous_secret_sealed && !!hook.previous_secret_until && new Date(hook.previous_secret_until) > now;
    const key = `${hook.id}:${hook.secret_sealed}:${overlap ? hook.previous_secret_sealed : ''}`;
    let secrets = this.opened.get(key);
    if (!secrets) {
      secrets = this.webhooks.signingSecrets(hook, now);
      if (this.opened.size >= 10_000) this.opened.clear();
      this.opened.set(key, secrets);
    }
    return secrets;
  }

  /** The request a delivery sends: signed over the body (GET: the JSON in `?payload=`, signed the same way). */
  private buildRequest(hook: WebhookRow, eventId: string, body: string, now: Date): SentRequest {
    return withPayload(this.requestWithoutPayload(hook, eventId, body, now), body);
  }

  /** The request as its log row keeps it: signed for `body`, which is left out (the delivery row holds it). */
  private requestWithoutPayload(hook: WebhookRow, eventId: string, body: string, now: Date): LoggedRequest {
    const ts = Math.floor(now.getTime() / 1000);
    const headers = {
      'user-agent': 'Switchboard-Webhooks/1.0',
      ...hook.headers,
      ...(hook.http_method === 'POST' ? { 'content-type': 'application/json' } : {}),
      ...signatureHeaders(this.signingSecrets(hook, now), eventId, ts, body),
    };
    return { uri: hook.url, method: hook.http_method, headers };
  }

  /**
   * A webhook URL's checked destination, reused for DNS_CACHE_MIN_MS (deliveries only; the test button checks anew).
   * The guard reuses a name's checked answer for its TTL anyway (decision 0054); this saves parsing and classifying
   * the same URL at every delivery. Refusals are never kept.
   */
  private readonly checkedUrls = new Map<string, { dest: CheckedDestination; until: number }>();

  private async destination(url: string, reuse: boolean): Promise<CheckedDestination> {
    const now = performance.now();
    const kept = reuse ? this.checkedUrls.get(url) : undefined;
    if (kept && kept.until > now) return kept.dest;
    const dest = await this.guard.check(url);
    if (reuse) {
      if (this.checkedUrls.size >= 10_000) this.checkedUrls.clear();
      this.checkedUrls.set(url, { dest, until: now + DNS_CACHE_MIN_MS });
    }
    return dest;
  }

  private pool(dest: CheckedDestination): HostPool {
    const tls = dest.url.protocol === 'https:';
    const key = `${tls ? 's' : ''}|${dest.address}|${dest.port}|${dest.host}`;
    let p = this.pools.get(key);
    if (!p) {
      const { perHostConcurrency, pipelining, timeoutMs, maxResponseBytes } = this.options;
      p = new HostPool({ address: dest.address, port: dest.port, host: dest.host, tls }, { maxSockets: Math.ceil(perHostConcurrency / pipelining), pipelining, timeoutMs, maxBytes: maxResponseBytes });
      this.pools.set(key, p);
    }
    return p;
  }

  /**
   * One attempt: checked destination, signed request, the outcome. `hookUrl` (deliveries): the webhook's URL, whose
   * check is reused; the request goes to `req.uri` (for a GET, the URL with its `?payload=`) on that destination.
   */
  private async attempt(req: SentRequest, hookUrl?: string): Promise<Outcome & { address: string | null }> {
    let dest;
    try {
      dest = await this.destination(hookUrl ?? req.uri, hookUrl !== undefined);
    } catch (e) {
      if (e instanceof DestinationRefused) return { status: 'failed', error: DESTINATION_REFUSED, response: { status: 0, headers: {}, body: e.message }, durationMs: 0, address: null };
      throw e;
    }
    // a POST goes to the checked URL itself; a GET carries the payload in its query
    const target = req.method === 'POST' || req.uri === hookUrl ? dest.url : new URL(req.uri);
    const path = `${target.pathname}${target.search}`;
    return this.hosts.run(dest.host, async () => {
      const started = performance.now();
      const out = await this.pool(dest).send({ method: req.method, path, headers: req.headers, body: req.method === 'POST' ? req.body : '' });
      return { ...out, durationMs: Math.round(performance.now() - started), address: dest.address };
    });
  }

  private async deliver(c: Claimed, hook: WebhookRow | undefined): Promise<void> {
    if (!hook || !hook.active) {
      await this.ds.query(`UPDATE webhooks.delivery SET state = 'failed', finished_at = $2 WHERE id = $1 AND state = 'pending'`, [c.id, this.clock.now()]);
      return;
    }
    const sentAt = this.clock.now();
    const logged = this.requestWithoutPayload(hook, c.event_id, c.payload, sentAt);
    const out = await this.attempt(withPayload(logged, c.payload), hook.url);
    await this.record(c, hook, logged, out, sentAt);
  }

  private nextDelay(attempts: number): number | null {
    const schedule = this.options.retryScheduleMs;
    if (attempts > schedule.length) return null;
    const base = schedule[attempts - 1];
    return Math.round(base * (0.9 + 0.2 * this.options.random()));
  }

  private successes: Array<{ row: SuccessRow; resolve: () => void; reject: (e: unknown) => void }> = [];
  private flushScheduled = false;

  /**
   * Successes are the bulk of the work: the ones that finish in the same turn, or while the previous group commit is
   * in flight (one at a time: under load the groups grow instead of the statements), are written together, one statement for
   * all (their log rows, the deliveries done and fenced on their attempt, the webhooks' failing clocks stopped).
   */
  private recordSuccess(row: SuccessRow): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.successes.push({ row, resolve, reject });
      this.scheduleFlush();
    });
  }

  /** A group commit in flight: the successes answered meanwhile wait for it and go together in the next one. */
  private flushing = false;

  private scheduleFlush(): void {
    if (this.flushScheduled || this.flushing || !this.successes.length) return;
    this.flushScheduled = true;
    setImmediate(() => void this.flushSuccesses());
  }

  private async flushSuccesses(): Promise<void> {
    this.flushScheduled = false;
    this.flushing = true;
    const batch = this.successes.splice(0, 1000);
    try {
      // one JSON document for the whole batch: serialised natively, read by json_to_recordset (no array literals to escape)
      await this.ds.query(
        `WITH v AS (
           SELECT * FROM json_to_recordset($1::json) AS t(a bigint, w bigint, d bigint, e uuid, n int, q jsonb, r jsonb, ms int, t timestamptz)
         ), log AS (
           INSERT INTO webhooks.request_log (account_id, webhook_id, delivery_id, event_id, attempt, request, response, status, error, duration_ms, sent_at)
           SELECT a, w, d, e, n, q, r, 'success', NULL, ms, t FROM v WHERE EXISTS (SELECT 1 FROM webhooks.webhook x WHERE x.id = v.w)
         ), hook AS (
           UPDATE webhooks.webhook SET failing_since = NULL WHERE id IN (SELECT DISTINCT w FROM v) AND failing_since IS NOT NULL
         )
         UPDATE webhooks.delivery d SET state = 'succeeded', attempts = v.n, finished_at = $2
           FROM v WHERE d.id = v.d AND d.state = 'pending' AND d.attempts = v.n - 1`,
        [JSON.stringify(batch.map((b) => b.row)), this.clock.now()],
      );
      for (const b of batch) b.resolve();
    } catch (e) {
      for (const b of batch) b.reject(e);
    } finally {
      this.flushing = false;
      this.scheduleFlush();
    }
  }

  private async record(c: Claimed, hook: WebhookRow, req: LoggedRequest, out: Outcome & { address: string | null }, sentAt: Date): Promise<void> {
    const now = this.clock.now();
    if (out.status === 'success') {
      await this.recordSuccess({ a: c.account_id, w: c.webhook_id, d: c.id, e: c.event_id, n: c.attempts, q: { ...req, address: out.address }, r: out.response, ms: out.durationMs, t: sentAt });
      return;
    }
    const log = [c.account_id, c.webhook_id, c.id, c.event_id, c.attempts, JSON.stringify({ ...req, address: out.address }), out.response ? JSON.stringify(out.response) : null, out.status, out.error, out.durationMs, sentAt];
    // only while the webhook exists (the log has no foreign key; a deleted webhook's log went with it)
    const insertLog = `INSERT INTO webhooks.request_log (account_id, webhook_id, delivery_id, event_id, attempt, request, response, status, error, duration_ms, sent_at)
         SELECT $1::bigint, $2::bigint, $3::bigint, $4::uuid, $5::int, $6::jsonb, $7::jsonb, $8::text, $9::text, $10::int, $11::timestamptz
          WHERE EXISTS (SELECT 1 FROM webhooks.webhook WHERE id = $2::bigint)`;
    let disabled = false;
    await this.ds.transaction(async (m) => {
      await m.query(insertLog, log);
      // fenced: an attempt another process also made (it took the bucket over) records its log row and nothing else
      const [mine] = await m.query<unknown[]>(`SELECT 1 FROM webhooks.delivery WHERE id = $1 AND state = 'pending' AND attempts = $2 - 1 FOR UPDATE`, [c.id, c.attempts]);
      if (!mine) return;
      if (out.response?.status === 410) {
        disabled = await this.disable(m, c, hook, { reason: 'gone', text: 'the receiver answered 410 Gone', failingSince: null }, now);
        return;
      }
      const delay = this.nextDelay(c.attempts);
      if (delay === null) await m.query(`UPDATE webhooks.delivery SET state = 'failed', attempts = $3, finished_at = $2 WHERE id = $1`, [c.id, now, c.attempts]);
      else await m.query(`UPDATE webhooks.delivery SET attempts = $3, next_attempt_at = $2 WHERE id = $1`, [c.id, new Date(now.getTime() + delay), c.attempts]);
      const [w] = returned<{ failing_since: Date }>(
        await m.query(`UPDATE webhooks.webhook SET failing_since = coalesce(failing_since, $2) WHERE id = $1 RETURNING failing_since`, [c.webhook_id, sentAt]),
      );
      if (w && now.getTime() - new Date(w.failing_since).getTime() >= this.options.disableAfterMs) {
        const since = new Date(w.failing_since);
        disabled = await this.disable(m, c, hook, { reason: 'failing', text: `deliveries failed since ${since.toISOString()}`, failingSince: since }, now);
      }
    });
    if (disabled) this.relay.kick();
  }

  /**
   * Turns the webhook off (410 Gone, or failing for days). Its other queued deliveries end as failed when they come
   * due (`deliver` sees the webhook inactive): touching them here would lock rows other attempts' transactions hold,
   * in the opposite order (delivery, then webhook), a deadlock.
   */
  private async disable(m: EntityManager, c: Claimed, hook: WebhookRow, why: { reason: 'gone' | 'failing'; text: string; failingSince: Date | null }, now: Date): Promise<boolean> {
    await m.query(`UPDATE webhooks.delivery SET state = 'failed', attempts = $3, finished_at = $2 WHERE id = $1`, [c.id, now, c.attempts]);
    const turnedOff = returned<{ id: string }>(
      await m.query(`UPDATE webhooks.webhook SET active = false, disabled_reason = $2, updated_at = $3 WHERE id = $1 AND active RETURNING id::text`, [c.webhook_id, why.text, now]),
    );
    // only the attempt that turned it off tells the account (in the same transaction: the mail exists if the change does)
    if (!turnedOff.length) return false;
    const data = {
      accountId: hook.account_id,
      webhookId: hook.id,
      name: hook.name,
      origin: new URL(hook.url).origin,
      trigger: hook.trigger,
      reason: why.reason,
      failingSince: why.failingSince ? why.failingSince.toISOString() : null,
      disabledAt: now.toISOString(),
    };
    await Outbox.add(m, WEBHOOKS_SCHEMA, [createEnvelope(WebhookDisabledV1, data, { accountId: hook.account_id, source: 'webhooks', occurredAt: now })]);
    this.log.warn(`webhook ${c.webhook_id} disabled: ${why.text}`);
    return true;
  }

  /** `POST /webhooks/test/{id}`: a sample payload of the webhook's trigger, signed and sent now, recorded in the log. */
  async test(id: string): Promise<WebhookTestResultDto> {
    const hook = await this.webhooks.find(id);
    const now = this.clock.now();
    const eventId = randomUUID();
    const body = JSON.stringify(samplePayload(hook.trigger, hook.account_id, paramsOf(hook)));
    const req = this.buildRequest(hook, eventId, body, now);
    const out = await this.attempt(req);
    await this.ds.query(
      `INSERT INTO webhooks.request_log (account_id, webhook_id, delivery_id, event_id, attempt, test, request, response, status, error, duration_ms, sent_at)
       VALUES ($1, $2, NULL, $3, 1, true, $4, $5, $6, $7, $8, $9)`,
      [hook.account_id, hook.id, eventId, JSON.stringify({ ...req, address: out.address }), out.response ? JSON.stringify(out.response) : null, out.status, out.error, out.durationMs, now],
    );
    return { status: out.status, code: out.status === 'timeout' ? CONNECTION_TIMEOUT : out.error, request: req, response: out.response, durationMs: out.durationMs };
  }

  /**
   * `GET /webhook_requests/log`: the account's attempts by id (newest first by default); filters webhook, status,
   * eventId. Keyset paging (docs/decisions/0027-webhooks.md, "Request log paging"): `cursor` (the `nextCursor` of the
   * previous page) continues after its row through the index whatever the depth; `page` without a cursor is served
   * within a bounded window of the first LOG_PAGE_WINDOW rows (an index-only walk, never a deep OFFSET over the log),
   * and `total` counts up to the window (`totalCapped` says there are more).
   */
  async requestLog(query: Record<string, unknown>): Promise<ListResult<WebhookRequestLogDto> & { nextCursor: string | null; totalCapped: boolean }> {
    const q = parseListQuery(query, { sortable: ['id'], defaultOrder: { id: 'DESC' }, defaultItemsPerPage: 30, maxItemsPerPage: 500 });
    const dir = q.order.id ?? 'DESC';
    const values: unknown[] = [RequestContext.accountId()];
    const where = ['account_id = $1'];
    const hookRaw = query.webhook ?? query.webhookId;
    if (hookRaw !== undefined && hookRaw !== '') {
      const m = /^(?:\/api\/webhooks\/)?(\d{1,18})$/.exec(String(hookRaw));
      if (!m) throw AppError.validation([{ propertyPath: 'webhook', message: 'webhook is a webhook id or IRI', code: 'type' }]);
      values.push(m[1]);
      where.push(`webhook_id = $${values.length}`);
    }
    if (query.status !== undefined && query.status !== '') {
      if (!['success', 'failed', 'timeout'].includes(String(query.status))) throw AppError.validation([{ propertyPath: 'status', message: 'status is success, failed or timeout', code: 'choice' }]);
      values.push(query.status);
      where.push(`status = $${values.length}`);
    }
    if (query.eventId !== undefined && query.eventId !== '') {
      if (!/^[0-9a-f-]{36}$/i.test(String(query.eventId))) throw AppError.validation([{ propertyPath: 'eventId', message: 'eventId is a UUID', code: 'type' }]);
      values.push(query.eventId);
      where.push(`event_id = $${values.length}`);
    }
    const filters = [...where];
    const filterValues = [...values];
    const cmp = dir === 'DESC' ? '<' : '>';
    if (query.cursor !== undefined && query.cursor !== '') {
      const after = decodeLogCursor(query.cursor, dir);
      if (q.page !== 1) throw AppError.validation([{ propertyPath: 'page', message: 'page is 1 (or absent) when cursor is given: the cursor says where the page starts', code: 'cursor' }]);
      values.push(after);
      where.push(`id ${cmp} $${values.length}`);
    } else if (q.skip > 0) {
      if (q.skip + q.take > LOG_PAGE_WINDOW) {
        throw AppError.validation([{ propertyPath: 'page', message: `pages reach the first ${LOG_PAGE_WINDOW} entries; continue with cursor (nextCursor of a page)`, code: 'window' }]);
      }
      // the id the page starts after: a walk over the narrow (account_id|webhook_id, id) index, bounded by the window
      const [found] = await this.ds.query<Array<{ edge: string }>>(
        `SELECT l.id::text AS edge FROM webhooks.request_log l WHERE ${where.join(' AND ')} ORDER BY l.id ${dir} LIMIT 1 OFFSET ${q.skip - 1}`,
        values,
      );
      if (!found) return { items: [], nextCursor: null, ...(await this.capped(filters, filterValues)) };
      values.push(found.edge);
      where.push(`id ${cmp} $${values.length}`);
    }
    const rows = await this.ds.query<Array<Record<string, unknown>>>(
      `SELECT l.id::text, l.webhook_id::text, l.event_id::text, l.attempt, l.test, l.request, l.response, l.status, l.error, l.duration_ms, l.sent_at, d.payload
         FROM (SELECT * FROM webhooks.request_log l WHERE ${where.join(' AND ')} ORDER BY l.id ${dir} LIMIT ${q.take + 1}) l
         LEFT JOIN webhooks.delivery d ON d.id = l.delivery_id AND NOT (l.request ? 'body')
        ORDER BY l.id ${dir}`,
      values,
    );
    const more = rows.length > q.take;
    if (more) rows.length = q.take;
    const { total, totalCapped } = await this.capped(filters, filterValues);
    return {
      items: rows.map((r) => {
        const { address: _address, ...logged } = r.request as LoggedRequest & { address?: string };
        // a delivery's log row references its payload (the delivery row's); a test call's row keeps its own body
        const request: WebhookRequestLogDto['request'] = logged.body === undefined ? withPayload(logged, (r.payload as string | null) ?? '') : { ...logged, body: logged.body };
        return {
          id: Number(r.id),
          webhook: `/api/webhooks/${String(r.webhook_id)}`,
          webhookId: Number(r.webhook_id),
          eventId: (r.event_id as string | null) ?? null,
          attempt: r.attempt as number,
          test: r.test as boolean,
          request,
          response: (r.response as WebhookRequestLogDto['response']) ?? null,
          status: r.status as WebhookRequestLogDto['status'],
          error: (r.error as string | null) ?? null,
          durationMs: r.duration_ms as number,
          sentAt: new Date(r.sent_at as string).toISOString(),
        };
      }),
      total,
      totalCapped,
      nextCursor: more ? encodeLogCursor(dir, String(rows[rows.length - 1].id)) : null,
    };
  }

  /** The filtered count, up to the page window (a count over a whole busy log would read all of it). */
  private async capped(where: string[], values: unknown[]): Promise<{ total: number; totalCapped: boolean }> {
    const n = await this.countLog(where, values);
    return { total: Math.min(n, LOG_PAGE_WINDOW), totalCapped: n > LOG_PAGE_WINDOW };
  }

  private async countLog(where: string[], values: unknown[]): Promise<number> {
    const [{ n }] = await this.ds.query<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM webhooks.request_log WHERE ${where.join(' AND ')} LIMIT ${LOG_PAGE_WINDOW + 1}) w`,
      values,
    );
    return n;
  }
}

/** A webhook's bucket: which process serves it is decided per bucket (advisory lock). */
function bucketOf(webhookId: string): number {
  return Number(BigInt(webhookId) % BigInt(DELIVERY_BUCKETS));
}

/**
 * The request sent for a payload: POST carries it as the body; GET in `?payload=` (the same text the signature covers).
 * Also rebuilds a log row's request from the delivery's payload, exactly as it was sent.
 */
function withPayload(r: LoggedRequest, payload: string): SentRequest {
  if (r.method === 'GET') {
    const u = new URL(r.uri);
    u.searchParams.set('payload', payload);
    return { uri: u.toString(), method: r.method, headers: r.headers, body: '' };
  }
  return { uri: r.uri, method: r.method, headers: r.headers, body: payload };
}

/** The request log's page window: `page` reaches this many entries; beyond, a cursor continues. */
export const LOG_PAGE_WINDOW = 10_000;

/** An opaque cursor: the direction and the id of the last row of the page (base64url). */
function encodeLogCursor(dir: 'ASC' | 'DESC', id: string): string {
  return Buffer.from(`${dir === 'DESC' ? 'd' : 'a'}:${id}`).toString('base64url');
}

function decodeLogCursor(raw: unknown, dir: 'ASC' | 'DESC'): string {
  const text = typeof raw === 'string' && /^[A-Za-z0-9_-]{1,40}$/.test(raw) ? Buffer.from(raw, 'base64url').toString() : '';
  const m = /^([ad]):(\d{1,18})$/.exec(text);
  if (!m) throw AppError.validation([{ propertyPath: 'cursor', message: 'cursor is the nextCursor of a previous page', code: 'cursor' }]);
  if ((m[1] === 'd') !== (dir === 'DESC')) throw AppError.validation([{ propertyPath: 'cursor', message: 'the cursor was made for the other order; keep order[id] as on the first page', code: 'cursor' }]);
  return m[2];
}
