import type { Pool } from 'pg';
import { pgArrayElement } from '@switchboard/platform';
import type { ResolvedLink } from './link-store';

export interface Click {
  link: ResolvedLink;
  /** The code as written in the short URL (7 base62 characters). */
  codeText: string;
  at: number;
  uaClass: number;
  preview: boolean;
  ip: string | null;
  userAgent: string | null;
}

export interface ClickRecorderOptions {
  /** A click waits at most this long before its group is written (when no write is in flight). */
  flushMs: number;
  /** Clicks per group (one transaction), at most. */
  batchMax: number;
  /**
   * Clicks answered but not yet committed (waiting and in flight), at most: when it is full, answers wait for room
   * (`hasRoom`/`whenRoom`), whether the database is slow or away (docs/decisions/0130). It is also the most a SIGKILL
   * can lose. Only a click recorded without asking for room (after `close`) is dropped beyond it, and counted.
   */
  bufferMax: number;
  /**
   * The group statements of this process's pool start at most this often, in ms (`GroupCommitter`; default
   * COMMIT_INTERVAL_MS). A cluster worker's groups go to its primary's committer, which has its own.
   */
  commitIntervalMs?: number;
  /** Called after a commit that wrote click events (embedded mode kicks the outbox relay). */
  onCommitted?: () => void;
  onError?: (e: unknown) => void;
}

const MAX_EVENT_CLICKS = 1000;

/**
 * A click group statement starts at most this often by default, in ms (docs/decisions/0130): each statement has a fixed
 * cost in PostgreSQL (~1.5 ms of backend CPU: its executor start over a large CTE, the outbox row, the commit), so at
 * a few thousand clicks a second groups of tens of clicks paid it tens of µs a click. Groups wait this long at most
 * more; the answers never wait for it.
 */
export const COMMIT_INTERVAL_MS = 20;

/**
 * The outbox row type of a click group's events (docs/decisions/0110): its packed text holds the group's
 * `links.clicks.recorded` events only; links' relay adds each first click's `links.link.clicked` from them
 * (`unpackClickEvents`). Rows of type `$packed` (written before) hold both and are published as they are.
 */
export const CLICK_EVENTS_TYPE = '$links.clicks';

/**
 * The outbox row type of a click group's events since docs/decisions/0159: the same events as `$links.clicks`, its text
 * the values only (`ClickGroupRow`: per account chunk the event's id and each click as an array of its fields in the
 * event's order, without the names, the link id or the envelope), which links' relay expands (`unpackClickGroup`).
 * About half the text PostgreSQL builds, aggregates and writes to the outbox's TOAST a click.
 */
export const CLICK_GROUP_TYPE = '$links.click-group';

/** A click group row's text parsed: `[ClickGroupRow]`. */
export interface ClickGroupRow {
  /** The time the group statement started (Node's clock), each `links.clicks.recorded` event's `occurredAt`. */
  occurredAt: string;
  /** The group's distinct user agents; a click names its own by position from 1 (0: none). */
  agents: string[];
  events: Array<{ id: string; accountId: string; clicks: CompactClick[] }>;
}

/**
 * A counted click as the group statement writes it: clickId, domainId, code, shortUrl, originalUrl, offerId, campaignId,
 * variantId, streamId, contactId, messageUuid, destination, first, the user agent class's position in `UA_CLASSES`,
 * ip, the user agent's position in the row's `agents` from 1 (0: none), clickedAt.
 */
export type CompactClick = [string, string, string, string, string, string | null, string | null, string | null, string | null, string | null, string | null, string | null, boolean, number, string | null, number, string];

/**
 * A group of clicks encoded for the group statement: each column as the inside of a PostgreSQL array literal
 * (comma-joined elements), the distinct user agents (quoted elements) and each click's agent as a 1-based position in
 * them (0: none). Plain strings and numbers, so a cluster worker hands it to the primary over IPC as it is
 * (docs/decisions/0057).
 */
export interface ClickChunk {
  n: number;
  at: string;
  domain: string;
  code: string;
  /** The codes' sequence numbers (`links.link_of`'s key with domain and code, docs/decisions/0092). */
  seq: string;
  codeText: string;
  ua: string;
  preview: string;
  ip: string;
  url: string;
  /**
   * `t` where this process already committed a counted click of the link: its recipient has its first click, so the
   * statement does not probe `recipient_click` for it (docs/decisions/0122).
   */
  seen: string;
  agents: string[];
  agent: number[];
}

/** Encodes clicks for the group statement (the request's fields and the link's key; PostgreSQL has the rest). */
export function encodeClicks(group: readonly Click[]): ClickChunk {
  const n = group.length;
  const at = new Array<number>(n);
  const domain = new Array<string>(n);
  const code = new Array<number>(n);
  const seq = new Array<number>(n);
  const codeText = new Array<string>(n);
  const ua = new Array<number>(n);
  const preview = new Array<string>(n);
  const ip = new Array<string>(n);
  const url = new Array<string>(n);
  const seen = new Array<string>(n);
  // user agents repeat: each distinct one is sent once, the clicks name it by position
  const agents: string[] = [];
  const agentAt = new Map<string, number>();
  const agent = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const c = group[i];
    const l = c.link;
    at[i] = c.at;
    domain[i] = l.domainId;
    code[i] = l.code;
    seq[i] = l.seq;
    codeText[i] = c.codeText;
    ua[i] = c.uaClass;
    preview[i] = c.preview ? 't' : 'f';
    ip[i] = c.ip === null ? 'NULL' : PLAIN_ADDRESS.test(c.ip) ? c.ip : pgArrayElement(c.ip);
    seen[i] = l.clickCommitted === true ? 't' : 'f';
    url[i] = c.preview ? 'NULL' : (l.urlElement ??= l.location === null || l.location === l.template ? 'NULL' : pgArrayElement(l.location));
    if (c.userAgent === null) agent[i] = 0;
    else {
      let a = agentAt.get(c.userAgent);
      if (a === undefined) {
        agents.push(pgArrayElement(c.userAgent));
        agentAt.set(c.userAgent, (a = agents.length));
      }
      agent[i] = a;
    }
  }
  return { n, at: at.join(','), domain: domain.join(','), code: code.join(','), seq: seq.join(','), codeText: codeText.join(','), ua: ua.join(','), preview: preview.join(','), ip: ip.join(','), url: url.join(','), seen: seen.join(','), agents, agent };
}

/** The clicks' destination: PostgreSQL in this process (`GroupCommitter`), or a cluster worker's primary. */
export type ClickSink = (chunk: ClickChunk) => Promise<void>;

/**
 * Group commit of clicks. The redirect answers at once and hands the click here; clicks are encoded and handed to the
 * sink in groups (at most one group in flight, the next one gathered meanwhile); the sink commits them in one
 * transaction (the click rows, each recipient's first click, the rollups, the click events in one outbox row). The
 * answer does not wait for the commit (docs/decisions/0034): a SIGKILL loses the clicks answered since the last
 * commit, never more than `bufferMax`. When the buffer is full, answers wait for room (`hasRoom`/`whenRoom`): while
 * commits succeed the redirects slow to the commit rate (docs/decisions/0057); while they fail (the database away) the
 * group is retried with a backoff and the redirects pause until it commits (docs/decisions/0130). No click is dropped.
 */
export class ClickRecorder {
  private buffer: Click[] = [];
  private inFlight = 0;
  private writing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private failures = 0;
  private closed = false;
  private waiters: Array<() => void> = [];
  private readonly sink: ClickSink;
  /** Counters for the bench and health: committed clicks (counted and previews), dropped clicks, failed writes. */
  readonly stats = { committed: 0, counted: 0, dropped: 0, failedWrites: 0, groups: 0, waited: 0 };

  constructor(
    pool: Pool | null,
    private readonly options: ClickRecorderOptions,
    /** The scheme of the short URLs in click events (`https`). */
    scheme = 'https',
    sink?: ClickSink,
  ) {
    if (sink) this.sink = sink;
    else if (pool) {
      const committer = new GroupCommitter(pool, scheme, options.commitIntervalMs ?? COMMIT_INTERVAL_MS);
      this.sink = (chunk) => committer.commit(chunk);
    } else throw new Error('ClickRecorder needs a pool or a sink');
  }

  record(c: Click): void {
    if (this.buffer.length + this.inFlight >= this.options.bufferMax) {
      this.stats.dropped++;
      return;
    }
    this.buffer.push(c);
    this.schedule();
  }

  /**
   * A click can be taken without dropping one: room in the buffer (a failing sink frees none: the answers wait until
   * the database is back, docs/decisions/0130), or the recorder closing (its last answers; beyond the bound they drop).
   */
  hasRoom(): boolean {
    return this.buffer.length + this.inFlight < this.options.bufferMax || this.closed;
  }

  /** Calls `then` once there is room (after a commit), or once the recorder closes. */
  whenRoom(then: () => void): void {
    this.stats.waited++;
    this.waiters.push(then);
  }

  get pending(): number {
    return this.buffer.length + this.inFlight;
  }

  /** Writes what is waiting, then stops taking the timer (SIGTERM: nothing answered is lost). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.wake();
    for (let tries = 0; tries < 5 && (this.buffer.length > 0 || this.writing); tries++) {
      if (this.writing) await this.writing;
      if (this.buffer.length > 0) await this.flush();
    }
  }

  /** Writes everything waiting now (tests, and the bench's final count). */
  async drain(): Promise<void> {
    while (this.buffer.length > 0 || this.writing) {
      if (this.writing) await this.writing;
      else await this.flush();
    }
  }

  private wake(): void {
    while (this.waiters.length > 0 && this.hasRoom()) this.waiters.shift()!();
  }

  private schedule(delay = this.options.flushMs): void {
    if (this.timer || this.writing || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, delay);
  }

  private flush(): Promise<void> {
    if (this.writing) return this.writing;
    if (this.buffer.length === 0) return Promise.resolve();
    const group = this.buffer.length <= this.options.batchMax ? this.buffer : this.buffer.slice(0, this.options.batchMax);
    this.buffer = this.buffer.length <= this.options.batchMax ? [] : this.buffer.slice(this.options.batchMax);
    this.inFlight = group.length;
    this.writing = this.sink(encodeClicks(group))
      .then(() => {
        this.failures = 0;
        this.stats.groups++;
        this.stats.committed += group.length;
        for (const c of group)
          if (!c.preview) {
            this.stats.counted++;
            // the recipient's first click is in PostgreSQL now: later clicks of this link skip the probe (0122)
            c.link.clickCommitted = true;
          }
        this.options.onCommitted?.();
      })
      .catch((e: unknown) => {
        // back in front, in order; retried after a backoff (the database away: the buffer fills up to bufferMax)
        this.buffer = group.concat(this.buffer);
        this.stats.failedWrites++;
        this.failures++;
        this.options.onError?.(e);
      })
      .finally(() => {
        this.inFlight = 0;
        this.writing = null;
        if (this.buffer.length > 0 && !this.closed) this.schedule(this.failures ? Math.min(5000, 50 * 2 ** Math.min(this.failures, 7)) : this.options.flushMs);
        this.wake();
      });
    return this.writing;
  }
}

/**
 * The group statement's writer: chunks handed to it while a statement is in flight, or before `intervalMs` has passed
 * since the last one started, go together in the next one (one statement, one transaction, one commit for all of them),
 * so concurrent senders (a cluster's workers) share one group commit and never wait on each other's rollup rows, and
 * a statement's fixed cost is paid at most once an interval (docs/decisions/0130). `commit` resolves when its chunk is
 * committed.
 */
export class GroupCommitter {
  private queue: Array<{ chunk: ClickChunk; resolve: () => void; reject: (e: unknown) => void }> = [];
  private writing = false;
  private lastStart = -Infinity;
  readonly stats = { statements: 0, clicks: 0 };

  constructor(
    private readonly pool: Pool,
    private readonly scheme = 'https',
    /** A statement starts at most this often, in ms (0: as soon as the one before has ended). */
    private readonly intervalMs = 0,
  ) {}

  commit(chunk: ClickChunk): Promise<void> {
    if (chunk.n === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.queue.push({ chunk, resolve, reject });
      if (!this.writing) void this.next();
    });
  }

  get idle(): boolean {
    return !this.writing && this.queue.length === 0;
  }

  private async next(): Promise<void> {
    this.writing = true;
    while (this.queue.length > 0) {
      const wait = this.lastStart + this.intervalMs - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      this.lastStart = performance.now();
      const group = this.queue;
      this.queue = [];
      try {
        await this.write(group.map((g) => g.chunk));
        this.stats.statements++;
        for (const g of group) {
          this.stats.clicks += g.chunk.n;
          g.resolve();
        }
      } catch (e) {
        for (const g of group) g.reject(e);
      }
    }
    this.writing = false;
  }

  /**
   * One statement, so one round trip and one transaction without BEGIN/COMMIT: the rows, the first clicks, the rollups
   * and the outbox row of the group's events. Node sends only what the request adds to the link (time, address, user
   * agent, its class and the preview flag) and the link's key; PostgreSQL takes the rest of each click (account,
   * campaign, variant, message, the event's link fields) from the link's own row (docs/decisions/0052). The filled
   * target URL is sent only for links whose target has variables.
   */
  private async write(chunks: ClickChunk[]): Promise<void> {
    const col = (k: 'at' | 'domain' | 'code' | 'seq' | 'codeText' | 'ua' | 'preview' | 'ip' | 'url' | 'seen') => (chunks.length === 1 ? `{${chunks[0][k]}}` : `{${chunks.map((c) => c[k]).join(',')}}`);
    let agents: string[];
    let agent: string;
    if (chunks.length === 1) {
      agents = chunks[0].agents;
      agent = chunks[0].agent.join(',');
    } else {
      // each chunk's positions move past the agents of the chunks before it
      agents = [];
      const parts: string[] = [];
      for (const c of chunks) {
        const off = agents.length;
        parts.push(off === 0 ? c.agent.join(',') : c.agent.map((a) => (a === 0 ? 0 : a + off)).join(','));
        for (const a of c.agents) agents.push(a);
      }
      agent = parts.join(',');
    }
    // prepared once per connection (no parse and plan a group, ~1 ms of backend CPU: docs/decisions/0075). Its generic
    // plan fits any group size: each click's link is an index lookup of its own (LATERAL … OFFSET 0) and the first
    // clicks are marked by a hashed subplan, so no join of the group's CTEs can turn into nested loops over both
    // (0057: the plain joins' generic plan was quadratic in the group)
    await this.pool.query({
      name: 'links_click_group',
      text: FLUSH_SQL,
      values: [col('at'), col('domain'), col('code'), col('codeText'), col('ua'), col('preview'), col('ip'), `{${agent}}`, col('url'), new Date().toISOString(), `{${agents.join(',')}}`, this.scheme, col('seq'), col('seen')],
    });
  }
}

/** An address from the socket (IPv4, IPv6): safe in an array literal as it is. */
const PLAIN_ADDRESS = /^[0-9A-Fa-f.:]{1,64}$/;


const ISO_MS = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
/** The values a click adds after the link's, its class and first flag: the address, the user agent, the time (JSON-escaped by PostgreSQL). */
const CLICK_TAIL = `coalesce(to_json(e.ip)::text, 'null') || ',' || e.agent || ',"' || to_char(e.clicked_at AT TIME ZONE 'UTC', ${ISO_MS}) || '"'`;

/**
 * One statement for a group (one transaction, no BEGIN/COMMIT round trips): the click rows; each recipient's first
 * counted click (the earliest of the group when the recipient has none yet; a repeat click writes nothing there:
 * `ON CONFLICT DO NOTHING`, its count is its rows in `links.click`, docs/decisions/0104; rows taken in key order, so
 * concurrent groups of other replicas lock in one order and never deadlock); the rollups per
 * campaign, variant and domain with the first clicks' delay since the link was minted (clickAvgTime); and the group's
 * events in one packed outbox row of type `$links.click-group`: per account `links.clicks.recorded` of at most
 * ${MAX_EVENT_CLICKS} counted clicks, the row's `key` counting them and the first clicks, whose `links.link.clicked`
 * links' relay makes from the recorded click (docs/decisions/0110: a first click's fields written once, not twice).
 * The row holds the events' values only (`ClickGroupRow`), which the relay expands (docs/decisions/0159: the names and
 * the envelopes were about half the text PostgreSQL built, aggregated and wrote to TOAST a click).
 * Previews are recorded, never announced.
 */
/** A bigint or uuid of the link as a JSON string, or null. */
const jsonId = (x: string) => `coalesce('"' || ${x} || '"', 'null')`;
/**
 * The link's values of a click (`CompactClick` 1 to 11), from the link's row, its target and domain (the filled URL
 * from Node when it has variables), as JSON values without their names.
 */
const LINK_VALUES =
  `'"' || k.domain_id || '","' || k.code_text || '",' || to_json($12::text || '://' || d.name || '/' || k.code_text)::text || ',' || ` +
  `to_json(coalesce(k.url, o.original_url, t.url, ''))::text || ',' || ${jsonId('t.offer_id')} || ',' || ${jsonId('l.campaign_id')} || ',' || ${jsonId('l.variant_id')} || ',' || ` +
  `${jsonId('l.stream_id')} || ',' || ${jsonId('l.contact_id')} || ',' || ${jsonId('l.message_uuid')} || ',' || coalesce(to_json(l.destination)::text, 'null')`;

export const FLUSH_SQL = `
  WITH c AS (
    SELECT gen_random_uuid() AS click_id, to_timestamp(k.at_ms / 1000) AS clicked_at, l.account_id, k.domain_id, k.code, l.campaign_id, l.variant_id, l.message_uuid,
           k.ua_class, k.preview, k.seen, k.ip, ($11::text[])[k.agent] AS user_agent, k.agent, l.created_at AS link_created_at, k.code_text, k.ord,
           CASE WHEN k.preview THEN NULL ELSE ${LINK_VALUES} END AS fields
      FROM unnest($1::float8[], $2::bigint[], $3::bigint[], $4::text[], $5::smallint[], $6::boolean[], $7::text[], $8::int[], $9::text[], $13::bigint[], $14::boolean[]) WITH ORDINALITY
        AS k(at_ms, domain_id, code, code_text, ua_class, preview, ip, agent, url, seq, seen, ord)
      CROSS JOIN LATERAL (SELECT * FROM links.link_of(k.domain_id, k.code, k.seq) l OFFSET 0) l
      CROSS JOIN LATERAL (SELECT * FROM links.link_target t WHERE t.id = l.target_id OFFSET 0) t
      CROSS JOIN LATERAL (SELECT d.name FROM links.domain d WHERE d.id = k.domain_id OFFSET 0) d
      LEFT JOIN LATERAL (SELECT o.original_url FROM links.offer o WHERE o.id = t.offer_id AND o.account_id = l.account_id OFFSET 0) o ON true
  ), firsts AS (
    INSERT INTO links.recipient_click (account_id, message_uuid, campaign_id, variant_id, domain_id, first_click_id, first_clicked_at)
    SELECT account_id, message_uuid, campaign_id, variant_id, domain_id, click_id, clicked_at FROM (
      SELECT DISTINCT ON (account_id, message_uuid) account_id, message_uuid, campaign_id, variant_id, domain_id, click_id, clicked_at, ord
        FROM c WHERE NOT preview AND NOT seen AND message_uuid IS NOT NULL
       ORDER BY account_id, message_uuid, clicked_at, ord) f
    ORDER BY account_id, message_uuid
    ON CONFLICT (account_id, message_uuid) DO NOTHING
    RETURNING first_click_id
  ), first_ids AS (
    SELECT first_click_id FROM firsts
  ), cf AS (
    SELECT c.*, c.click_id IN (SELECT first_click_id FROM first_ids) AS first FROM c
  ), ins AS (
    INSERT INTO links.click (click_id, clicked_at, account_id, domain_id, code, campaign_id, variant_id, message_uuid, ua_class, preview, first, ip, user_agent)
    SELECT click_id, clicked_at, account_id, domain_id, code, campaign_id, variant_id, message_uuid, ua_class, preview, first, ip, user_agent FROM cf
  ), rollup AS (
    INSERT INTO links.click_stats AS s (account_id, campaign_id, variant_id, domain_id, clicks, first_clicks, first_click_delay_ms, preview_clicks)
    SELECT account_id, coalesce(campaign_id, 0), coalesce(variant_id, 0), domain_id,
           count(*) FILTER (WHERE NOT preview), count(*) FILTER (WHERE first),
           coalesce(sum(extract(epoch FROM clicked_at - link_created_at) * 1000) FILTER (WHERE first), 0)::bigint,
           count(*) FILTER (WHERE preview)
      FROM cf
     GROUP BY 1, 2, 3, 4
     ORDER BY 1, 2, 3, 4
    ON CONFLICT (account_id, campaign_id, variant_id, domain_id) DO UPDATE
      SET clicks = s.clicks + excluded.clicks, first_clicks = s.first_clicks + excluded.first_clicks,
          first_click_delay_ms = s.first_click_delay_ms + excluded.first_click_delay_ms, preview_clicks = s.preview_clicks + excluded.preview_clicks
  ), e AS (
    SELECT cf.*, (row_number() OVER (PARTITION BY account_id ORDER BY ord) - 1) / ${MAX_EVENT_CLICKS} AS chunk FROM cf WHERE NOT preview
  ), envelopes AS (
    SELECT min(e.ord) AS ord, count(*) FILTER (WHERE e.first) AS firsts,
           '{"id":"' || gen_random_uuid() || '","accountId":"' || e.account_id || '","clicks":[' ||
           string_agg('["' || e.click_id || '",' || e.fields || ',' || e.first || ',' || e.ua_class || ',' || ${CLICK_TAIL} || ']', ',' ORDER BY e.ord) || ']}' AS env
      FROM e GROUP BY e.account_id, e.chunk
  ), outbox AS (
    INSERT INTO links.outbox (event_id, topic, key, type, payload, packed)
    SELECT gen_random_uuid(), '', (count(*) + sum(firsts))::text, '${CLICK_GROUP_TYPE}', '{}', '[{"occurredAt":"' || $10 || '","agents":' || (SELECT coalesce(json_agg(a ORDER BY i), '[]') FROM unnest($11::text[]) WITH ORDINALITY u(a, i)) || ',"events":[' || string_agg(env, ',' ORDER BY ord) || ']}]' FROM envelopes HAVING count(*) > 0
  )
  SELECT 1`;
