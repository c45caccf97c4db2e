import { randomUUID } from 'node:crypto';
import { LinkClickedV1, LinkClicksRecordedV1, Topics } from '@switchboard/contracts';
import type { Pool } from 'pg';
import type { ResolvedLink } from './link-store';
import { UA_CLASSES } from './user-agent';

export interface Click {
  link: ResolvedLink;
  shortUrl: string;
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
   * Clicks answered but not yet committed (waiting and in flight), at most. Beyond it (the database away for long)
   * clicks are dropped and counted in `dropped`; redirects go on. It is also the most a SIGKILL can lose.
   */
  bufferMax: number;
  /** Called after a commit that wrote click events (embedded mode kicks the outbox relay). */
  onCommitted?: () => void;
  onError?: (e: unknown) => void;
}

const MAX_EVENT_CLICKS = 1000;

/**
 * Group commit of clicks. The redirect answers at once and hands the click here; clicks are written in groups, one
 * transaction each (the click rows, each recipient's first click, the rollups, the click events in one outbox row),
 * at most one group in flight, the next one gathered meanwhile. The answer does not wait for the commit
 * (docs/decisions/0034): a SIGKILL loses the clicks answered since the last commit, never more than `bufferMax`.
 */
export class ClickRecorder {
  private buffer: Click[] = [];
  private inFlight = 0;
  private writing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private failures = 0;
  private closed = false;
  /** Counters for the bench and health: committed clicks (counted and previews), dropped clicks, failed writes. */
  readonly stats = { committed: 0, counted: 0, dropped: 0, failedWrites: 0, groups: 0 };

  constructor(
    private readonly pool: Pool,
    private readonly options: ClickRecorderOptions,
  ) {}

  record(c: Click): void {
    if (this.buffer.length + this.inFlight >= this.options.bufferMax) {
      this.stats.dropped++;
      return;
    }
    this.buffer.push(c);
    this.schedule();
  }

  get pending(): number {
    return this.buffer.length + this.inFlight;
  }

  /** Writes what is waiting, then stops taking the timer (SIGTERM: nothing answered is lost). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
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
    this.writing = this.write(group)
      .then(() => {
        this.failures = 0;
        this.stats.groups++;
        this.stats.committed += group.length;
        for (const c of group) if (!c.preview) this.stats.counted++;
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
      });
    return this.writing;
  }

  /**
   * One statement, so one round trip and one transaction without BEGIN/COMMIT: the rows, the first clicks, the rollups
   * and the outbox row of the group's events, which PostgreSQL assembles from each link's event fields (serialised and
   * quoted once per cached link) and the first-click flags the same statement decides.
   */
  private async write(group: Click[]): Promise<void> {
    const n = group.length;
    const ids = new Array<string>(n);
    // the arrays go as PostgreSQL array literals built here: numbers and uuids need no quoting, texts are quoted once
    const at = new Array<number>(n);
    const account = new Array<string>(n);
    const domain = new Array<string>(n);
    const code = new Array<number>(n);
    const campaign = new Array<string>(n);
    const variant = new Array<string>(n);
    const message = new Array<string>(n);
    const ua = new Array<number>(n);
    const preview = new Array<string>(n);
    const ip = new Array<string>(n);
    // user agents repeat: each distinct one is sent once, the clicks name it by position
    const agents: string[] = [];
    const agentAt = new Map<string, number>();
    const agent = new Array<string | number>(n);
    const created = new Array<number>(n);
    const fields = new Array<string>(n);
    const codeText = new Array<string>(n);
    for (let i = 0; i < n; i++) {
      const c = group[i];
      const l = c.link;
      ids[i] = randomUUID();
      at[i] = c.at;
      account[i] = l.accountId;
      domain[i] = l.domainId;
      code[i] = l.code;
      campaign[i] = l.campaignId ?? 'NULL';
      variant[i] = l.variantId ?? 'NULL';
      message[i] = l.messageUuid ?? 'NULL';
      ua[i] = c.uaClass;
      preview[i] = c.preview ? 't' : 'f';
      ip[i] = c.ip === null ? 'NULL' : quoteElement(c.ip);
      if (c.userAgent === null) agent[i] = 'NULL';
      else {
        let a = agentAt.get(c.userAgent);
        if (a === undefined) {
          agents.push(quoteElement(c.userAgent));
          agentAt.set(c.userAgent, (a = agents.length));
        }
        agent[i] = a;
      }
      created[i] = l.createdAtMs;
      if (c.preview) {
        fields[i] = 'NULL';
        codeText[i] = 'NULL';
      } else {
        fields[i] = l.eventFields ??= quoteElement(linkEventJson(l, c.shortUrl));
        codeText[i] = c.shortUrl.slice(c.shortUrl.lastIndexOf('/') + 1);
      }
    }
    const lit = (a: Array<string | number>) => `{${a.join(',')}}`;
    await this.pool.query(FLUSH_SQL, [
      lit(ids),
      lit(at),
      lit(account),
      lit(domain),
      lit(code),
      lit(campaign),
      lit(variant),
      lit(message),
      lit(ua),
      lit(preview),
      lit(ip),
      lit(agent),
      lit(created),
      lit(fields),
      lit(codeText),
      new Date().toISOString(),
      lit(agents),
    ]);
  }
}

/** An element of a PostgreSQL text array literal: double-quoted, backslash and quote escaped. */
function quoteElement(s: string): string {
  return `"${s.replace(/[\\"]/g, '\\$&')}"`;
}

/** A link's fields of a click event, serialised once (ids are decimal strings, the rest JSON-escaped). */
function linkEventJson(l: ResolvedLink, shortUrl: string): string {
  const str = (v: string | null) => (v === null ? 'null' : JSON.stringify(v));
  return (
    `"linkId":${str(`${l.domainId}/${shortUrl.slice(shortUrl.lastIndexOf('/') + 1)}`)},"shortUrl":${str(shortUrl)},"originalUrl":${str(l.location ?? l.template ?? '')},` +
    `"domainId":${str(l.domainId)},"offerId":${str(l.offerId)},"campaignId":${str(l.campaignId)},"variantId":${str(l.variantId)},"streamId":${str(l.streamId)},` +
    `"contactId":${str(l.contactId)},"messageUuid":${str(l.messageUuid)},"destination":${str(l.destination)}`
  );
}

const ISO_MS = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
const UA_NAME = `(ARRAY[${UA_CLASSES.map((u) => `'${u}'`).join(', ')}])[e.ua_class + 1]`;
/** The fields a click event adds after the link's: the address, the user agent, the time (JSON-escaped by PostgreSQL). */
const CLICK_TAIL = `'"ip":' || coalesce(to_json(e.ip)::text, 'null') || ',"userAgent":' || coalesce(to_json(e.user_agent)::text, 'null') || ',"clickedAt":"' || to_char(e.clicked_at AT TIME ZONE 'UTC', ${ISO_MS}) || '"'`;

/**
 * One statement for a group (one transaction, no BEGIN/COMMIT round trips): the click rows; each recipient's first
 * counted click (the earliest of the group when the recipient has none yet: `ON CONFLICT` counts the rest; rows taken
 * in key order, so concurrent groups of other replicas lock in one order and never deadlock); the rollups per
 * campaign, variant and domain with the first clicks' delay since the link was minted (clickAvgTime); and the group's
 * events in one packed outbox row: per account `links.clicks.recorded` of at most ${MAX_EVENT_CLICKS} counted clicks,
 * then each first click as `links.link.clicked` under the click's id. Previews are recorded, never announced.
 */
const FLUSH_SQL = `
  WITH c AS (
    SELECT click_id, to_timestamp(at_ms / 1000) AS clicked_at, account_id, domain_id, code, campaign_id, variant_id, message_uuid, ua_class, preview, ip,
           ($17::text[])[agent] AS user_agent, to_timestamp(created_ms / 1000) AS link_created_at, fields, code_text, ord
      FROM unnest($1::uuid[], $2::float8[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[],
                  $8::uuid[], $9::smallint[], $10::boolean[], $11::text[], $12::int[], $13::float8[], $14::text[], $15::text[]) WITH ORDINALITY
        AS c(click_id, at_ms, account_id, domain_id, code, campaign_id, variant_id, message_uuid, ua_class, preview, ip, agent, created_ms, fields, code_text, ord)
  ), firsts AS (
    INSERT INTO links.recipient_click AS r (account_id, message_uuid, campaign_id, variant_id, domain_id, first_click_id, first_clicked_at, clicks)
    SELECT account_id, message_uuid, campaign_id, variant_id, domain_id, click_id, clicked_at, n FROM (
      SELECT DISTINCT ON (account_id, message_uuid) account_id, message_uuid, campaign_id, variant_id, domain_id, click_id, clicked_at,
             count(*) OVER (PARTITION BY account_id, message_uuid) AS n
        FROM c WHERE NOT preview AND message_uuid IS NOT NULL
       ORDER BY account_id, message_uuid, clicked_at) f
    ORDER BY account_id, message_uuid
    ON CONFLICT (account_id, message_uuid) DO UPDATE SET clicks = r.clicks + excluded.clicks
    RETURNING r.first_click_id, (xmax = 0) AS inserted
  ), first_ids AS (
    SELECT first_click_id FROM firsts WHERE inserted
  ), ins AS (
    INSERT INTO links.click (click_id, clicked_at, account_id, domain_id, code, campaign_id, variant_id, message_uuid, ua_class, preview, first, ip, user_agent)
    SELECT c.click_id, c.clicked_at, c.account_id, c.domain_id, c.code, c.campaign_id, c.variant_id, c.message_uuid, c.ua_class, c.preview,
           f.first_click_id IS NOT NULL, c.ip, c.user_agent
      FROM c LEFT JOIN first_ids f ON f.first_click_id = c.click_id
  ), rollup AS (
    INSERT INTO links.click_stats AS s (account_id, campaign_id, variant_id, domain_id, clicks, first_clicks, first_click_delay_ms, preview_clicks)
    SELECT c.account_id, coalesce(c.campaign_id, 0), coalesce(c.variant_id, 0), c.domain_id,
           count(*) FILTER (WHERE NOT c.preview), count(f.first_click_id),
           coalesce(sum(extract(epoch FROM c.clicked_at - c.link_created_at) * 1000) FILTER (WHERE f.first_click_id IS NOT NULL), 0)::bigint,
           count(*) FILTER (WHERE c.preview)
      FROM c LEFT JOIN first_ids f ON f.first_click_id = c.click_id
     GROUP BY 1, 2, 3, 4
     ORDER BY 1, 2, 3, 4
    ON CONFLICT (account_id, campaign_id, variant_id, domain_id) DO UPDATE
      SET clicks = s.clicks + excluded.clicks, first_clicks = s.first_clicks + excluded.first_clicks,
          first_click_delay_ms = s.first_click_delay_ms + excluded.first_click_delay_ms, preview_clicks = s.preview_clicks + excluded.preview_clicks
  ), e AS (
    SELECT c.*, f.first_click_id IS NOT NULL AS first, (row_number() OVER (PARTITION BY c.account_id ORDER BY c.ord) - 1) / ${MAX_EVENT_CLICKS} AS chunk
      FROM c LEFT JOIN first_ids f ON f.first_click_id = c.click_id WHERE NOT c.preview
  ), envelopes AS (
    SELECT 0 AS part, min(e.ord) AS ord,
           '{"id":"' || gen_random_uuid() || '","type":"${LinkClicksRecordedV1.type}","version":${LinkClicksRecordedV1.version},"occurredAt":"' || $16 || '","source":"links","accountId":"' || e.account_id ||
           '","traceId":null,"key":"' || e.account_id || '","data":{"accountId":"' || e.account_id || '","clicks":[' ||
           string_agg('{"clickId":"' || e.click_id || '",' || e.fields || ',"first":' || e.first || ',"uaClass":"' || ${UA_NAME} || '",' || ${CLICK_TAIL} || '}', ',' ORDER BY e.ord) ||
           ']},"topic":"${Topics.Links}"}' AS env
      FROM e GROUP BY e.account_id, e.chunk
    UNION ALL
    SELECT 1, e.ord,
           '{"id":"' || e.click_id || '","type":"${LinkClickedV1.type}","version":${LinkClickedV1.version},"occurredAt":"' || to_char(e.clicked_at AT TIME ZONE 'UTC', ${ISO_MS}) ||
           '","source":"links","accountId":"' || e.account_id || '","traceId":null,"key":"' || e.domain_id || '/' || e.code_text || '","data":{"clickId":"' || e.click_id ||
           '","accountId":"' || e.account_id || '",' || e.fields || ',' || ${CLICK_TAIL} || '},"topic":"${Topics.Links}"}'
      FROM e WHERE e.first
  ), outbox AS (
    INSERT INTO links.outbox (event_id, topic, key, type, payload, packed)
    SELECT gen_random_uuid(), '', count(*)::text, '$packed', '{}', '[' || string_agg(env, ',' ORDER BY part, ord) || ']' FROM envelopes HAVING count(*) > 0
  )
  SELECT 1`;
