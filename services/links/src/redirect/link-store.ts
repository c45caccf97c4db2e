import type { Pool } from 'pg';
import type { CodeCipher } from '../mint/codes';
import { fillTarget, storedVars } from './target';

/** A claimed domain, as the redirect knows it by its host name. */
export interface RedirectDomain {
  id: string;
  accountId: string;
}

/** A link with everything the redirect answers from. */
export interface ResolvedLink {
  domainId: string;
  code: number;
  /** The code's sequence number (the inverse permutation; -1 without a code key): with (domain, code) the key of `links.link_of`. */
  seq: number;
  accountId: string;
  campaignId: string | null;
  variantId: string | null;
  streamId: string | null;
  contactId: string | null;
  messageUuid: string | null;
  destination: string | null;
  /** 0 short URL, 1 opt-out. */
  kind: number;
  offerId: string | null;
  /** The filled target (null: refused, a variable tried to change its scheme or host, or no target). */
  location: string | null;
  /** The target before filling, for the click event's originalUrl. */
  template: string | null;
  /** When the link stops redirecting (the link's own expiry, the offer's), ms since the epoch; Infinity: never. */
  expiresAtMs: number;
  /** The offer is disabled. */
  disabled: boolean;
  createdAtMs: number;
  /**
   * The offer's fields the answer depends on (URL, disabled, expiry rule, creation), as read with the link: past the
   * cache time the link is served on while its offer still reads the same (docs/decisions/0117). Null without an offer.
   */
  offerStamp: string | null;
  /** The click event's link values as JSON text (ClickRecorder, docs/decisions/0165), made on first use for `eventCode`. */
  eventValues?: string;
  /** The code text (as written in the short URL) `eventValues` was made for. */
  eventCode?: string;
  /**
   * This process committed a counted click of the link (ClickRecorder): its recipient's first click is recorded, and
   * `recipient_click` rows are never deleted, so the group statement skips the recipient's probe (docs/decisions/0122).
   */
  clickCommitted?: boolean;
}

interface Cached<T> {
  value: T;
  until: number;
}

interface CachedLink extends Cached<ResolvedLink | null> {
  /** When the link's rows were read (a link is read again at the latest this many cache times after, `REREAD_AFTER`). */
  readAt: number;
}

/** An offer's stamp as last read with one of its links, and until when it is taken as current (the cache time). */
interface CachedOffer {
  stamp: string;
  until: number;
}

interface Pending {
  domainId: string;
  code: number;
  waiters: Array<{ resolve: (l: ResolvedLink | null) => void; reject: (e: unknown) => void }>;
}

export interface LinkStoreOptions {
  /** How long a link (or a domain) is served from memory before it is read again: an offer disabled or an expiry changed shows within this. */
  cacheTtlMs: number;
  /** How long an unknown code or host is remembered (a flood of made-up codes costs one query per code and this long). */
  negativeTtlMs: number;
  /** Links kept in memory at most (the oldest go first). */
  cacheMax: number;
  now: () => number;
  /**
   * The codes' key (`LINKS_CODE_SECRET`): a code is decrypted to its sequence number, which finds its range row
   * (docs/decisions/0092). Without it only links minted before ranges (a row each) are found.
   */
  cipher?: CodeCipher | null;
}

const DAY_MS = 86_400_000;

/**
 * Looks links up by (domain, code) with an in-process cache. Misses of the same turn of the event loop are read
 * together in one query (`unnest` of the keys), so a burst of new codes costs one round trip, not one each.
 */
export class LinkStore {
  private readonly domains = new Map<string, Cached<RedirectDomain | null>>();
  private readonly domainLoads = new Map<string, Promise<RedirectDomain | null>>();
  /** Links by domain id, then by code: number keys, so a lookup builds no string. */
  private readonly links = new Map<string, Map<number, CachedLink>>();
  /** Offers (`account/offer`) as the latest link read with them found them: their links past the cache time are served on while it matches. */
  private readonly offers = new Map<string, CachedOffer>();
  private linkCount = 0;
  private pending = new Map<string, Pending>();
  private scheduled = false;
  private reading = 0;
  /** Lookups in flight at most; misses arriving meanwhile wait and go together in the next one. */
  private static readonly MAX_READS = 2;
  /**
   * A link is read again at the latest this many cache times after it was (5 minutes at the default 10 s), even when
   * nothing it depends on can have changed: a bound on what a row changed outside the service (an operator) takes.
   */
  static readonly REREAD_AFTER = 30;

  constructor(
    private readonly pool: Pool,
    private readonly options: LinkStoreOptions,
  ) {}

  /** The cached domain of a host: undefined when it must be read (`loadDomain`). */
  cachedDomain(host: string): RedirectDomain | null | undefined {
    const c = this.domains.get(host);
    if (c && c.until > this.options.now()) return c.value;
    return undefined;
  }

  loadDomain(host: string): Promise<RedirectDomain | null> {
    let p = this.domainLoads.get(host);
    if (!p) {
      p = this.pool
        .query<{ id: string; account_id: string }>({ name: 'links_domain_lookup', text: DOMAIN_SQL, values: [host] })
        .then(({ rows }) => {
          const d = rows[0] ? { id: rows[0].id, accountId: rows[0].account_id } : null;
          this.domains.set(host, { value: d, until: this.options.now() + (d ? this.options.cacheTtlMs : this.options.negativeTtlMs) });
          return d;
        })
        .finally(() => this.domainLoads.delete(host));
      this.domainLoads.set(host, p);
    }
    return p;
  }

  /**
   * The cached link (null: unknown code), or undefined when it must be read (`loadLink`). A link's own rows (its range
   * row, its target) are written once at minting and never changed, so past the cache time only its offer can answer
   * differently (disabled, another URL, another expiry rule) (docs/decisions/0117): a link without an offer is served on,
   * and a link with one while its offer, as the latest link of that offer read within the cache time found it, is the
   * same as when this link was read. So a warm link costs a read per offer and cache time, not one per link, per
   * process; an offer changed shows within the cache time as before. Unknown codes are read again after theirs.
   */
  cachedLink(domainId: string, code: number): ResolvedLink | null | undefined {
    const c = this.links.get(domainId)?.get(code);
    if (!c) return undefined;
    const now = this.options.now();
    if (c.until > now) return c.value;
    const l = c.value;
    if (l === null || now - c.readAt >= this.options.cacheTtlMs * LinkStore.REREAD_AFTER) return undefined;
    if (l.offerStamp === null) {
      c.until = now + this.options.cacheTtlMs;
      return l;
    }
    const o = this.offers.get(`${l.accountId}/${l.offerId}`);
    if (o === undefined || o.until <= now || o.stamp !== l.offerStamp) return undefined;
    c.until = o.until;
    return l;
  }

  loadLink(domainId: string, code: number): Promise<ResolvedLink | null> {
    return new Promise((resolve, reject) => {
      const key = `${domainId}:${code}`;
      let p = this.pending.get(key);
      if (!p) {
        p = { domainId, code, waiters: [] };
        this.pending.set(key, p);
      }
      p.waiters.push({ resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.reading >= LinkStore.MAX_READS || this.pending.size === 0) return;
    this.scheduled = true;
    setImmediate(() => void this.readPending());
  }

  /** Forget cached links (tests, and an operator's "apply now"). */
  clear(): void {
    this.links.clear();
    this.linkCount = 0;
    this.domains.clear();
    this.offers.clear();
  }

  private async readPending(): Promise<void> {
    this.scheduled = false;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    this.reading++;
    try {
      // the codes of one look-up decrypted together (ten AES passes for all of them): a code's sequence number finds its
      // range row (docs/decisions/0092, 0105)
      const seqs = new Float64Array(batch.length);
      if (this.options.cipher) {
        batch.forEach((p, i) => (seqs[i] = p.code));
        this.options.cipher.decryptInPlace(seqs);
      } else seqs.fill(-1);
      // prepared once per connection (docs/decisions/0097): an unnamed statement was parsed and planned for every batch,
      // which cost PostgreSQL more than the lookup itself (~0.6 ms a batch). Its generic plan probes one key per code
      // (the array's rows are estimated at 10 whatever its length), so it stays linear in the batch
      const { rows } = await this.pool.query<LinkRow>({ name: 'links_link_lookup', text: LOOKUP_SQL, values: [batch.map((p) => p.domainId), batch.map((p) => p.code), Array.from(seqs)] });
      const found = new Map<number, LinkRow>();
      for (const r of rows) found.set(r.i - 1, r);
      const now = this.options.now();
      batch.forEach((p, i) => {
        const r = found.get(i);
        const link = r ? toLink(p.domainId, p.code, seqs[i], r) : null;
        if (link?.offerStamp != null) {
          if (this.offers.size >= this.options.cacheMax) this.offers.clear();
          this.offers.set(`${link.accountId}/${link.offerId}`, { stamp: link.offerStamp, until: now + this.options.cacheTtlMs });
        }
        this.remember(p.domainId, p.code, link, now);
        for (const w of p.waiters) w.resolve(link);
      });
    } catch (e) {
      for (const p of batch) for (const w of p.waiters) w.reject(e);
    } finally {
      this.reading--;
      this.schedule();
    }
  }

  private remember(domainId: string, code: number, link: ResolvedLink | null, now: number): void {
    if (this.linkCount >= this.options.cacheMax) {
      // each map keeps insertion order: drop the oldest tenth at once (domain by domain) rather than one entry per insert
      let n = Math.ceil(this.options.cacheMax / 10);
      for (const [d, codes] of this.links) {
        for (const k of codes.keys()) {
          codes.delete(k);
          this.linkCount--;
          if (--n === 0) break;
        }
        if (codes.size === 0) this.links.delete(d);
        if (n === 0) break;
      }
    }
    let codes = this.links.get(domainId);
    if (!codes) this.links.set(domainId, (codes = new Map()));
    if (!codes.has(code)) this.linkCount++;
    codes.set(code, { value: link, until: now + (link ? this.options.cacheTtlMs : this.options.negativeTtlMs), readAt: now });
  }
}

interface LinkRow {
  i: number;
  account_id: string;
  campaign_id: string | null;
  variant_id: string | null;
  stream_id: string | null;
  contact_id: string | null;
  message_uuid: string | null;
  destination: string | null;
  /** The variables the target uses, as the JSON text minted (docs/decisions/0109: PostgreSQL decodes no jsonb a look-up). */
  vars: string | null;
  expires_ms: number | null;
  created_ms: number;
  kind: number;
  offer_id: string | null;
  url: string | null;
  disabled: boolean | null;
  expire_method: string | null;
  expire_in_days: number | null;
  offer_created_ms: number | null;
}

const DOMAIN_SQL = `SELECT id::text, account_id::text FROM links.domain WHERE name = $1 AND claimed AND NOT blocked AND state <> 7`;

// The link by `links.link_of` (its range row, or its own row when minted before ranges: docs/decisions/0092, 0105;
// the variables as the text minted, parsed here: 0109). The
// offer is read with the link (and cached with it): its URL, whether it is disabled, and its expiry rule (spec 4:
// expired at expireInDays after the offer's creation, or after the link's, by expireMethod).
export const LOOKUP_SQL = `
  SELECT k.i::int AS i, l.account_id::text, l.campaign_id::text, l.variant_id::text, l.stream_id::text, l.contact_id::text,
         l.message_uuid::text, l.destination, l.vars,
         (extract(epoch FROM l.expires_at) * 1000)::float8 AS expires_ms, (extract(epoch FROM l.created_at) * 1000)::float8 AS created_ms,
         t.kind, t.offer_id::text, coalesce(o.original_url, t.url) AS url, o.disabled, o.expire_method, o.expire_in_days,
         (extract(epoch FROM o.created_at) * 1000)::float8 AS offer_created_ms
    FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) WITH ORDINALITY AS k(domain_id, code, seq, i)
    CROSS JOIN LATERAL links.link_of(k.domain_id, k.code, k.seq) l
    JOIN links.link_target t ON t.id = l.target_id
    LEFT JOIN links.offer o ON o.id = t.offer_id AND o.account_id = l.account_id`;

function toLink(domainId: string, code: number, seq: number, r: LinkRow): ResolvedLink {
  let expires = r.expires_ms ?? Infinity;
  if (r.offer_id !== null && r.expire_in_days) {
    if (r.expire_method === 'offer_creation' && r.offer_created_ms !== null) expires = Math.min(expires, r.offer_created_ms + r.expire_in_days * DAY_MS);
    if (r.expire_method === 'link_creation') expires = Math.min(expires, r.created_ms + r.expire_in_days * DAY_MS);
  }
  const offerMissing = r.offer_id !== null && r.disabled === null;
  return {
    domainId,
    code,
    seq,
    accountId: r.account_id,
    campaignId: r.campaign_id,
    variantId: r.variant_id,
    streamId: r.stream_id,
    contactId: r.contact_id,
    messageUuid: r.message_uuid,
    destination: r.destination,
    kind: r.kind,
    offerId: r.offer_id,
    template: r.url,
    location: r.kind === 0 && r.url ? fillTarget(r.url, storedVars(r.url, r.vars)) : null,
    expiresAtMs: expires,
    disabled: r.disabled === true || offerMissing,
    createdAtMs: r.created_ms,
    // everything of the offer the answer is built from (the URL is the offer's for a link with one: a target has a URL or an offer)
    offerStamp: r.offer_id === null ? null : `${r.url}\n${r.disabled}\n${r.expire_method}\n${r.expire_in_days}\n${r.offer_created_ms}`,
  };
}
