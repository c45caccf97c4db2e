import type { Pool } from 'pg';
import { timeOrderedUuid } from '@switchboard/platform';
import { ArrayWriter, binaryArray, uuidBytes, type ArrayBody } from './pg-binary-array';
import type { ResolvedLink } from './link-store';

export interface Click {
  link: ResolvedLink;
  /** The code as written in the short URL (7 base62 characters). */
  codeText: string;
  /** The host the link was found by: its domain's name (the short URL of the click's event). */
  host: string;
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
 * The outbox row type of a click group's events since docs/decisions/0165: the same events again, the row's text made
 * by the redirect (`ClickGroupRowV2`: each click's values with its agent second and without its first flag) and the
 * positions of the group's first clicks added by the group statement (`firsts`), which only it knows. Links' relay
 * expands it (`unpackClickGroupV2`).
 */
export const CLICK_GROUP_V2_TYPE = '$links.click-group.2';

/**
 * A counted click in a `$links.click-group.2` row: clickId, the user agent's position in the row's `agents` from 1
 * (0: none), domainId, code, shortUrl, originalUrl, offerId, campaignId, variantId, streamId, contactId, messageUuid,
 * destination, the user agent class's position in `UA_CLASSES`, ip, clickedAt.
 */
export type CompactClickV2 = [string, number, string, string, string, string, string | null, string | null, string | null, string | null, string | null, string | null, string | null, number, string | null, string];

/** A `$links.click-group.2` row's text parsed: `[ClickGroupRowV2]`. */
export interface ClickGroupRowV2 {
  occurredAt: string;
  agents: string[];
  events: Array<{ id: string; accountId: string; clicks: CompactClickV2[] }>;
  /** The first clicks, by position among the row's clicks (all events' clicks in order, from 0). */
  firsts: number[];
}

/**
 * A group of clicks encoded for the group statement: each column as the elements of a PostgreSQL array in the binary
 * format (`ArrayBody`: PostgreSQL copies them instead of parsing text, docs/decisions/0223), the distinct user agents
 * (as sent) and each click's agent as a 1-based position in them (0: none), and each counted click's event values as
 * JSON text (docs/decisions/0165). Strings, numbers and byte arrays, so a cluster worker hands it to the primary over
 * IPC (advanced serialization) as it is (docs/decisions/0057).
 */
export interface ClickChunk {
  n: number;
  /** When each click was answered, ms since the epoch (float8). */
  at: ArrayBody;
  /** The link's values the click row and rollups need, which the redirect holds (docs/decisions/0165: no look-ups). */
  account: ArrayBody;
  domain: ArrayBody;
  code: ArrayBody;
  campaign: ArrayBody;
  variant: ArrayBody;
  message: ArrayBody;
  /** The links' creation, ms since the epoch (the first clicks' delay; float8). */
  created: ArrayBody;
  ua: ArrayBody;
  preview: ArrayBody;
  ip: ArrayBody;
  /**
   * `true` where this process already committed a counted click of the link: its recipient has its first click, so the
   * statement does not probe `recipient_click` for it (docs/decisions/0122).
   */
  seen: ArrayBody;
  /** Each click's account id as text (the events are per account). */
  accounts: string[];
  agents: string[];
  agent: number[];
  /**
   * Per click, its event's values after the click id and agent (`CompactClickV2` from domainId on), as JSON text without
   * the brackets; empty for a preview (recorded, never announced). Joined by newlines (never raw in JSON text): one
   * string over a worker's IPC, not one a click.
   */
  values: string;
}

/** Encodes clicks for the group statement and their events' values (the link's from the link the redirect holds). */
export function encodeClicks(group: readonly Click[], scheme = 'https'): ClickChunk {
  const n = group.length;
  const at = new ArrayWriter('float8', n);
  const account = new ArrayWriter('int8', n);
  const domain = new ArrayWriter('int8', n);
  const code = new ArrayWriter('int8', n);
  const campaign = new ArrayWriter('int8', n);
  const variant = new ArrayWriter('int8', n);
  const message = new ArrayWriter('uuid', n);
  const created = new ArrayWriter('float8', n);
  const ua = new ArrayWriter('int2', n);
  const preview = new ArrayWriter('bool', n);
  const ip = new ArrayWriter('text', n * 2);
  const seen = new ArrayWriter('bool', n);
  const accounts = new Array<string>(n);
  // the event values of the chunk's clicks, one string: pieces pushed and joined once (no string a click)
  const values: string[] = [];
  // user agents repeat: each distinct one is sent once, the clicks name it by position
  const agents: string[] = [];
  const agentAt = new Map<string, number>();
  const agent = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const c = group[i];
    const l = c.link;
    at.float8(c.at);
    accounts[i] = l.accountId;
    account.int8Text(l.accountId);
    domain.int8Text(l.domainId);
    code.int8(l.code);
    campaign.int8Text(l.campaignId);
    variant.int8Text(l.variantId);
    message.uuidBytes(l.messageUuid === null ? null : (l.messageUuidBytes ??= uuidBytes(l.messageUuid)));
    created.float8(l.createdAtMs);
    ua.int2(c.uaClass);
    preview.bool(c.preview);
    ip.text(c.ip);
    seen.bool(l.clickCommitted === true);
    if (i > 0) values.push('\n');
    if (!c.preview)
      values.push(linkValues(l, c.codeText, c.host, scheme), ',', String(c.uaClass), ',', c.ip === null ? 'null' : PLAIN_ADDRESS.test(c.ip) ? `"${c.ip}"` : JSON.stringify(c.ip), ',"', isoOf(c.at), '"');
    if (c.userAgent === null) agent[i] = 0;
    else {
      let a = agentAt.get(c.userAgent);
      if (a === undefined) {
        agents.push(c.userAgent);
        agentAt.set(c.userAgent, (a = agents.length));
      }
      agent[i] = a;
    }
  }
  return {
    n,
    at: at.body(),
    account: account.body(),
    domain: domain.body(),
    code: code.body(),
    campaign: campaign.body(),
    variant: variant.body(),
    message: message.body(),
    created: created.body(),
    ua: ua.body(),
    preview: preview.body(),
    ip: ip.body(),
    seen: seen.body(),
    accounts,
    agents,
    agent,
    values: values.join(''),
  };
}

// clicks come many a ms: the time's text is made once a ms
let isoAt = NaN;
let iso = '';
const isoOf = (at: number) => (at === isoAt ? iso : ((isoAt = at), (iso = new Date(at).toISOString())));

const jsonId = (x: string | null) => (x === null ? 'null' : `"${x}"`);

/**
 * A click's link values as JSON text (`CompactClickV2` domainId to destination), made once per link and code text
 * and kept on the link: the domain, the code as written, the short URL (the host the domain was found by is its name),
 * the original URL (the filled target when it has variables, else the offer's or the target's), the ids, the
 * destination.
 */
function linkValues(l: ResolvedLink, codeText: string, host: string, scheme: string): string {
  if (l.eventValues !== undefined && l.eventCode === codeText) return l.eventValues;
  const original = l.location !== null && l.location !== l.template ? l.location : (l.template ?? '');
  l.eventCode = codeText;
  // joined, so the string kept on the link is flat (a template of many parts would keep a tree of them)
  return (l.eventValues = [
    `"${l.domainId}"`, JSON.stringify(codeText), JSON.stringify(`${scheme}://${host}/${codeText}`), JSON.stringify(original),
    jsonId(l.offerId), jsonId(l.campaignId), jsonId(l.variantId), jsonId(l.streamId), jsonId(l.contactId), jsonId(l.messageUuid),
    l.destination === null ? 'null' : JSON.stringify(l.destination),
  ].join(','));
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
  private readonly scheme: string;
  /** Counters for the bench and health: committed clicks (counted and previews), dropped clicks, failed writes. */
  readonly stats = { committed: 0, counted: 0, dropped: 0, failedWrites: 0, groups: 0, waited: 0 };

  constructor(
    pool: Pool | null,
    private readonly options: ClickRecorderOptions,
    /** The scheme of the short URLs in click events (`https`). */
    scheme = 'https',
    sink?: ClickSink,
  ) {
    this.scheme = scheme;
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
    this.writing = this.sink(encodeClicks(group, this.scheme))
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
   * and the outbox row of the group's events. Node sends each click's values and its link's (the redirect holds the
   * link: docs/decisions/0165, no look-ups), the click ids (time-ordered) and the outbox row's text but for its first
   * clicks' positions, which the statement adds as it finds them.
   */
  private async write(chunks: ClickChunk[]): Promise<void> {
    const col = (k: 'at' | 'account' | 'domain' | 'code' | 'campaign' | 'variant' | 'message' | 'created' | 'ua' | 'preview' | 'ip' | 'seen') =>
      binaryArray(chunks[0][k].type, chunks.map((c) => c[k]));
    const now = Date.now();
    let n = 0;
    for (const c of chunks) n += c.n;
    const ids = new Array<string>(n);
    const agent = new Array<number>(n);
    const agents: string[] = [];
    // the counted clicks by account, in the group's order (the events: per account, at most MAX_EVENT_CLICKS each)
    const byAccount = new Map<string, number[]>();
    const values = new Array<string>(n);
    let g = 0;
    for (const c of chunks) {
      // each chunk's positions move past the agents of the chunks before it
      const off = agents.length;
      for (const a of c.agents) agents.push(a);
      const accounts = c.accounts;
      const vs = c.values.split('\n');
      for (let i = 0; i < c.n; i++, g++) {
        ids[g] = timeOrderedUuid(now);
        agent[g] = c.agent[i] === 0 ? 0 : c.agent[i] + off;
        values[g] = vs[i];
        if (vs[i] === '') continue;
        const list = byAccount.get(accounts[i]);
        if (list) list.push(g);
        else byAccount.set(accounts[i], [g]);
      }
    }
    const events: Array<{ accountId: string; clicks: number[] }> = [];
    for (const [accountId, list] of byAccount)
      for (let i = 0; i < list.length; i += MAX_EVENT_CLICKS) events.push({ accountId, clicks: list.length <= MAX_EVENT_CLICKS ? list : list.slice(i, i + MAX_EVENT_CLICKS) });
    // the events in the order of their first clicks (an account's later events after other accounts' earlier clicks)
    events.sort((a, b) => a.clicks[0] - b.clicks[0]);
    const pos = new Array<number>(n).fill(-1);
    let text: string | null = null;
    if (events.length > 0) {
      const parts: string[] = [];
      let p = 0;
      for (const e of events) {
        const clicks = new Array<string>(e.clicks.length);
        for (let i = 0; i < e.clicks.length; i++) {
          const k = e.clicks[i];
          pos[k] = p++;
          clicks[i] = `["${ids[k]}",${agent[k]},${values[k]}]`;
        }
        parts.push(`{"id":"${timeOrderedUuid(now)}","accountId":"${e.accountId}","clicks":[${clicks.join(',')}]}`);
      }
      text = `[{"occurredAt":"${new Date(now).toISOString()}","agents":${JSON.stringify(agents)},"events":[${parts.join(',')}],"firsts":[`;
    }
    // prepared once per connection (no parse and plan a group, ~1 ms of backend CPU: docs/decisions/0075); the first
    // clicks are marked by a hashed subplan, so no join of the group's CTEs can turn into nested loops (0057)
    // the arrays in the binary format (docs/decisions/0223); the statement is the same, only its parameters' format moved
    const idCol = new ArrayWriter('uuid', n);
    const agentCol = new ArrayWriter('int4', n);
    const posCol = new ArrayWriter('int4', n);
    for (let i = 0; i < n; i++) {
      idCol.uuid(ids[i]);
      agentCol.int4(agent[i]);
      if (pos[i] < 0) posCol.null();
      else posCol.int4(pos[i]);
    }
    const agentsCol = new ArrayWriter('text', agents.length * 64);
    for (const a of agents) agentsCol.text(a);
    await this.pool.query({
      name: 'links_click_group_2',
      text: FLUSH_SQL,
      values: [
        binaryArray('uuid', [idCol.body()]), col('at'), col('account'), col('domain'), col('code'), col('campaign'), col('variant'), col('message'), col('created'),
        col('ua'), col('preview'), col('seen'), col('ip'), binaryArray('int4', [agentCol.body()]), binaryArray('text', [agentsCol.body()]), binaryArray('int4', [posCol.body()]),
        events.length, text, text === null ? null : timeOrderedUuid(now),
      ],
    });
  }
}

/** An address from the socket (IPv4, IPv6): safe in JSON text as it is. */
const PLAIN_ADDRESS = /^[0-9A-Fa-f.:]{1,64}$/;


/**
 * One statement for a group (one transaction, no BEGIN/COMMIT round trips): the click rows; each recipient's first
 * counted click (the earliest of the group when the recipient has none yet; a repeat click writes nothing there:
 * `ON CONFLICT DO NOTHING`, its count is its rows in `links.click`, docs/decisions/0104; rows taken in key order, so
 * concurrent groups of other replicas lock in one order and never deadlock); the rollups per campaign, variant and
 * domain with the first clicks' delay since the link was minted (clickAvgTime); and the group's events in one packed
 * outbox row of type `$links.click-group.2`, whose text Node made (per account `links.clicks.recorded` of at most
 * ${MAX_EVENT_CLICKS} counted clicks, docs/decisions/0159) but for the first clicks' positions, added here; its `key`
 * counts the events and the first clicks, whose `links.link.clicked` links' relay makes from the recorded click
 * (docs/decisions/0110). The link's values come from Node, which answered from them (docs/decisions/0165).
 * Previews are recorded, never announced.
 */
export const FLUSH_SQL = `
  WITH c AS (
    SELECT k.click_id, to_timestamp(k.at_ms / 1000) AS clicked_at, k.account_id, k.domain_id, k.code, k.campaign_id, k.variant_id, k.message_uuid,
           k.ua_class, k.preview, k.seen, k.ip, ($15::text[])[k.agent] AS user_agent, to_timestamp(k.created_ms / 1000) AS link_created_at, k.pos, k.ord
      FROM unnest($1::uuid[], $2::float8[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::uuid[], $9::float8[],
                  $10::smallint[], $11::boolean[], $12::boolean[], $13::text[], $14::int[], $16::int[]) WITH ORDINALITY
        AS k(click_id, at_ms, account_id, domain_id, code, campaign_id, variant_id, message_uuid, created_ms, ua_class, preview, seen, ip, agent, pos, ord)
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
  ), outbox AS (
    INSERT INTO links.outbox (event_id, topic, key, type, payload, packed)
    SELECT $19::uuid, '', (f.n + $17::int)::text, '${CLICK_GROUP_V2_TYPE}', '{}', $18::text || f.list || ']}]'
      FROM (SELECT count(*) AS n, coalesce(string_agg(pos::text, ','), '') AS list FROM cf WHERE first) f
     WHERE $18::text IS NOT NULL
  )
  SELECT 1`;
