import type { Pool } from 'pg';
import type { CodeCipher } from '../mint/codes';
import { fillStored } from './target';

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

/**
 * A page read ahead (docs/decisions/0203): its look-up row, one for the whole range row (its arrays as PostgreSQL's
 * text), cut into its recipients' fields when the first of its links is asked for.
 */
interface PageRow {
  row: LinkRow;
  head: string[] | null;
  variants: string[];
  contacts: string[];
  messages: string[];
  destinations: Array<string | null>;
  vars: Array<string | null> | null;
}

/** An offer's stamp as last read with one of its links, and until when it is taken as current (the cache time). */
interface CachedOffer {
  stamp: string;
  until: number;
}

/** Who waits for a link being read: the redirect's request itself (no promise or closure a request), or `loadLink`'s promise. */
export interface LinkWaiter {
  resolve(link: ResolvedLink | null): void;
  reject(e: unknown): void;
}

interface Pending {
  domainId: string;
  code: number;
  /** The first waiter, and any more (the same code asked for again while it is read). */
  waiter: LinkWaiter;
  more: LinkWaiter[] | null;
}

/** A page read whole, kept for its cache time. */
interface CachedPage {
  page: PageRow;
  /** Its domains by place (`domains[k]` as text; NULL past a short page's end). */
  domains: string[];
  until: number;
}

/** A code waiting on its page's read (read-ahead): answered from that read, not read itself. */
interface PageWaiter {
  p: Pending;
  seq: number;
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
  /**
   * Read-ahead (`LINKS_READ_AHEAD`, docs/decisions/0203): a missed range code reads its whole page (the 16 recipients
   * minted together, `links.link_range`) in the same look-up and caches every link of it, so the page's other codes
   * (recipients of the same send, clicking in the same minutes) are answered from memory. Codes of a page being read
   * wait on that read. Needs the cipher; false (default here): one link a code, as before.
   */
  readAhead?: boolean;
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
  /** Codes to read in the next look-up, by domain id and code (number keys: no key string a request). */
  private pending = new Map<string, Map<number, Pending>>();
  private pendingCount = 0;
  private scheduled = false;
  private reading = 0;
  /**
   * Read-ahead: the pages (seq >> 4) a look-up in flight reads whole, with the codes of each that arrived meanwhile
   * (or in the same batch) and wait on that read instead of reading it again.
   */
  private readonly pages = new Map<number, PageWaiter[]>();
  /**
   * Read-ahead: pages read whole, by page number (seq >> 4), for their cache time: a missed code whose page is here is
   * answered from it after the batch's decrypt, without a look-up. One entry a page (not sixteen links), at most
   * cacheMax / 16 of them; a link is made from its page when first asked for and then cached as any link.
   */
  private readonly pageCache = new Map<number, CachedPage>();
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
    return new Promise((resolve, reject) => this.readLink(domainId, code, { resolve, reject }));
  }

  /**
   * `loadLink` for a waiter that is an object of its own (the redirect's request, docs/decisions/0171): its `resolve` or
   * `reject` is called once the batch the code joins is read.
   */
  readLink(domainId: string, code: number, waiter: LinkWaiter): void {
    let codes = this.pending.get(domainId);
    if (!codes) this.pending.set(domainId, (codes = new Map()));
    const p = codes.get(code);
    if (p) (p.more ??= []).push(waiter);
    else {
      codes.set(code, { domainId, code, waiter, more: null });
      this.pendingCount++;
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.reading >= LinkStore.MAX_READS || this.pendingCount === 0) return;
    this.scheduled = true;
    setImmediate(() => void this.readPending());
  }

  /** Forget cached links (tests, and an operator's "apply now"). */
  clear(): void {
    this.links.clear();
    this.linkCount = 0;
    this.domains.clear();
    this.offers.clear();
    this.pageCache.clear();
  }

  private async readPending(): Promise<void> {
    this.scheduled = false;
    const all: Pending[] = [];
    for (const codes of this.pending.values()) for (const p of codes.values()) all.push(p);
    this.pending = new Map();
    this.pendingCount = 0;
    const cipher = this.options.cipher ?? null;
    const readAhead = this.options.readAhead === true && cipher !== null;
    // read-ahead: a code that waited while an earlier read put its page in the cache is answered from it
    let rest = all;
    if (readAhead) {
      rest = [];
      for (const p of all) {
        const l = this.cachedLink(p.domainId, p.code);
        if (l === undefined) rest.push(p);
        else answer(p, l);
      }
      if (rest.length === 0) return this.schedule();
    }
    this.reading++;
    // the codes of one look-up decrypted together (ten AES passes for all of them): a code's sequence number finds its
    // range row (docs/decisions/0092, 0105)
    const all_n = rest.length;
    const allSeqs = new Float64Array(all_n);
    if (cipher) {
      for (let i = 0; i < all_n; i++) allSeqs[i] = rest[i].code;
      cipher.decryptInPlace(allSeqs);
    } else allSeqs.fill(-1);
    // read-ahead: one code a page is sent, asking for its page (the page's first code in this batch); the page's other
    // codes of the batch, and codes of a page an earlier look-up still reads, wait on that one read
    let batch = rest;
    let seqs = allSeqs;
    let mine: number[] | null = null;
    if (readAhead) {
      batch = [];
      seqs = new Float64Array(all_n);
      mine = [];
      const now = this.options.now();
      for (let i = 0; i < all_n; i++) {
        const s = allSeqs[i];
        if (s >= 0) {
          const page = Math.floor(s / 16);
          const c = this.pageCache.get(page);
          if (c !== undefined && c.until > now) {
            // its page was read whole within the cache time: the link is in it under its own domain, or it is unknown
            const p = rest[i];
            const k = s - page * 16;
            const link = c.domains[k] === p.domainId ? fromPage(p.domainId, p.code, s, c.page, k) : null;
            this.remember(p.domainId, p.code, link, now);
            answer(p, link);
            continue;
          }
          const w = this.pages.get(page);
          if (w !== undefined) {
            w.push({ p: rest[i], seq: s });
            continue;
          }
          this.pages.set(page, []);
          mine.push(page);
        }
        seqs[batch.length] = s;
        batch.push(rest[i]);
      }
    }
    const n = batch.length;
    if (n === 0) {
      // every code waits on a page already being read
      this.reading--;
      return this.schedule();
    }
    let links: Array<ResolvedLink | null> | null = null;
    /** Read-ahead: the pages this look-up read whole. */
    const read = new Map<number, CachedPage>();
    let failure: unknown = null;
    try {
      // prepared once per connection (docs/decisions/0097): an unnamed statement was parsed and planned for every batch,
      // which cost PostgreSQL more than the lookup itself (~0.6 ms a batch). Its generic plan probes one key per code
      // (the array's rows are estimated at 10 whatever its length), so it stays linear in the batch. The keys go as
      // array literals made here (pg quotes an array's elements one by one), the rows come back as arrays of their four
      // texts, unparsed (docs/decisions/0171)
      let domains = '{';
      let codes = '{';
      let seqText = '{';
      let ahead = '{';
      for (let i = 0; i < n; i++) {
        const sep = i === 0 ? '' : ',';
        domains += sep + batch[i].domainId;
        codes += sep + batch[i].code;
        seqText += sep + seqs[i];
        ahead += sep + (readAhead && seqs[i] >= 0 ? 't' : 'f');
      }
      const { rows } = await this.pool.query<LinkRow>({ name: 'links_link_lookup', text: LOOKUP_SQL, values: [domains + '}', codes + '}', seqText + '}', ahead + '}'], rowMode: 'array', types: TEXT });
      // the codes asked for (slot 0), and the pages' links read ahead (slot k + 1)
      const found = new Array<LinkRow | undefined>(n);
      let aheadRows: LinkRow[] | null = null;
      for (const r of rows) {
        // the head's first two fields: the batch position and the slot (0: the code asked for)
        const h = r[0];
        const c1 = h.indexOf(',');
        if (h.charCodeAt(c1 + 1) === 48 && h.charCodeAt(c1 + 2) === 44) found[Number(h.slice(0, c1)) - 1] = r;
        else (aheadRows ??= []).push(r);
      }
      const now = this.options.now();
      let previous: ResolvedLink | null = null;
      links = new Array<ResolvedLink | null>(n);
      for (let i = 0; i < n; i++) {
        const p = batch[i];
        const r = found[i];
        const link: ResolvedLink | null = r ? toLink(p.domainId, p.code, seqs[i], r[0].split(','), r[1], r[2], r[3], previous) : null;
        if (link) {
          previous = link;
          this.rememberOffer(link, now);
        }
        this.remember(p.domainId, p.code, link, now);
        links[i] = link;
      }
      if (aheadRows !== null) {
        // the pages read whole, one row a page, kept by page number (made into links when asked for)
        const max = Math.max(1, Math.ceil(this.options.cacheMax / 16));
        for (const r of aheadRows) {
          const i = Number(r[0].slice(0, r[0].indexOf(','))) - 1;
          const page = Math.floor(seqs[i] / 16);
          const c: CachedPage = { page: { row: r, head: null, variants: [], contacts: [], messages: [], destinations: [], vars: null }, domains: domainsOf(r), until: now + this.options.cacheTtlMs };
          if (this.pageCache.size >= max) {
            let drop = Math.ceil(max / 10);
            for (const key of this.pageCache.keys()) {
              this.pageCache.delete(key);
              if (--drop === 0) break;
            }
          }
          this.pageCache.set(page, c);
          read.set(page, c);
        }
      }
    } catch (e) {
      failure = e;
      for (const p of batch) {
        p.waiter.reject(e);
        if (p.more) for (const w of p.more) w.reject(e);
      }
    } finally {
      this.reading--;
    }
    // the waiters answered once the batch is in the cache (a redirect's request answers here, synchronously)
    if (links) for (let i = 0; i < n; i++) answer(batch[i], links[i]);
    if (mine !== null) {
      const now = this.options.now();
      for (const page of mine) {
        const waiting = this.pages.get(page)!;
        this.pages.delete(page);
        const slots = read.get(page);
        for (const { p, seq } of waiting) {
          if (failure !== null) {
            p.waiter.reject(failure);
            if (p.more) for (const w of p.more) w.reject(failure);
          } else if (slots !== undefined) {
            // the page was read whole: a code not in it under its own domain is unknown (links.link_of finds nothing either)
            const k = seq - page * 16;
            let link: ResolvedLink | null = null;
            if (slots.domains[k] === p.domainId) link = this.cachedLink(p.domainId, p.code) ?? fromPage(p.domainId, p.code, seq, slots.page, k);
            this.remember(p.domainId, p.code, link, now);
            answer(p, link);
          } else {
            // the page was not read whole (its code asked for was unknown, or not a range's): the code is read on its own
            this.readLink(p.domainId, p.code, p.waiter);
            if (p.more) for (const w of p.more) this.readLink(p.domainId, p.code, w);
          }
        }
      }
    }
    this.schedule();
  }

  private rememberOffer(link: ResolvedLink, now: number): void {
    if (link.offerStamp === null) return;
    if (this.offers.size >= this.options.cacheMax) this.offers.clear();
    this.offers.set(`${link.accountId}/${link.offerId}`, { stamp: link.offerStamp, until: now + this.options.cacheTtlMs });
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
    // one probe of the map, not two: a new key shows as a larger map
    const size = codes.size;
    codes.set(code, { value: link, until: now + (link ? this.options.cacheTtlMs : this.options.negativeTtlMs), readAt: now });
    if (codes.size !== size) this.linkCount++;
  }


}

/**
 * A look-up's row (`rowMode: 'array'`, every column as the text PostgreSQL sent): the head, then the destination, the
 * variables (the JSON text minted: docs/decisions/0109, PostgreSQL decodes no jsonb a look-up) and the target URL (the
 * offer's when it has one). The head is the fields that never hold a comma, joined by commas, empty for null: the
 * batch position (1-based), the slot (0: the code asked for; k + 1: the k-th link of its page, read ahead,
 * docs/decisions/0203), the link's domain, account, campaign, variant, stream, contact, message uuid, kind, offer, the
 * link's expiry and creation (ms since the epoch), the offer's disabled flag, expiry method, days and creation
 * (docs/decisions/0171: four fields a row for pg to cut and keep, not nineteen).
 */
type LinkRow = [head: string, destination: string | null, vars: string | null, url: string | null, page?: string | null];

/** Every column as PostgreSQL's text: no parser a field (the head is cut in `toLink`). */
const TEXT = { getTypeParser: () => (text: string) => text };

const DOMAIN_SQL = `SELECT id::text, account_id::text FROM links.domain WHERE name = $1 AND claimed AND NOT blocked AND state <> 7`;

// The link by `links.link_of` (its range row, or its own row when minted before ranges: docs/decisions/0092, 0105;
// the variables as the text minted, parsed here: 0109). The offer is read with the link (and cached with it): its URL,
// whether it is disabled, and its expiry rule (spec 4: expired at expireInDays after the offer's creation, or after the
// link's, by expireMethod). Times as float8 ms (`date_part`, not `extract`: no numeric arithmetic a row; the same
// instant to well under a microsecond). The head's fields are digits, uuids, `true`/`false` and the expiry method's
// three words: never a comma (`LinkRow`).
// Read-ahead (docs/decisions/0203): a code sent with `ahead` also returns every link of its range row (slot k + 1,
// under the row's own `domains[k]`), only when the code itself resolves there (the row's domain at its slot is the
// domain it was asked under, as `link_of`'s range probe): a code asked under another domain or account reads nothing
// ahead. A code of a page minted before ranges (a `links.link` row) has no range row: nothing read ahead.
const tail = (l: string) => `SELECT ${l}.account_id || ',' || coalesce(${l}.campaign_id::text, '') || ',' || coalesce(${l}.stream_id::text, '') || ',' || t.kind || ',' || coalesce(t.offer_id::text, '')
           || ',' || coalesce((date_part('epoch', ${l}.expires_at) * 1000)::text, '') || ',' || (date_part('epoch', ${l}.created_at) * 1000)::text
           || ',' || coalesce(o.disabled::text, '') || ',' || coalesce(o.expire_method, '') || ',' || coalesce(o.expire_in_days::text, '')
           || ',' || coalesce((date_part('epoch', o.created_at) * 1000)::text, '') AS tail, coalesce(o.original_url, t.url) AS url
          FROM links.link_target t LEFT JOIN links.offer o ON o.id = t.offer_id AND o.account_id = ${l}.account_id
         WHERE t.id = ${l}.target_id OFFSET 0`;
export const LOOKUP_SQL = `
  SELECT k.i || ',' || l.slot || ',' || l.domain_id || ',' || coalesce(l.variant_id::text, '') || ',' || coalesce(l.contact_id::text, '') || ',' || coalesce(l.message_uuid::text, '') || ',' || l.tail,
         l.destination, l.vars, l.url, l.page
    FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bool[]) WITH ORDINALITY AS k(domain_id, code, seq, ahead, i)
    CROSS JOIN LATERAL (
      SELECT 0 AS slot, f.domain_id, f.variant_id, f.contact_id, f.message_uuid, f.destination, f.vars, c.tail, c.url, NULL::text AS page
        FROM links.link_of(k.domain_id, k.code, k.seq) f
        CROSS JOIN LATERAL (${tail('f')}) c
      UNION ALL
      SELECT -1, k.domain_id, NULL, NULL, NULL, r.destinations::text, r.vars::text, c.tail, c.url, r.domains::text || r.variants::text || r.contacts::text || r.messages::text
        FROM links.link_range r
        CROSS JOIN LATERAL (${tail('r')}) c
       WHERE k.ahead AND r.page = k.seq >> 4 AND r.domains[(k.seq & 15)::int + 1] = k.domain_id
    ) l`;

/** Answers a pending code's waiters. */
function answer(p: Pending, link: ResolvedLink | null): void {
  p.waiter.resolve(link);
  if (p.more) for (const w of p.more) w.resolve(link);
}

/** A head field: null when empty. */
const orNull = (s: string) => (s === '' ? null : s);

/**
 * The cached link of a row. Strings repeated from the batch's previous link (a campaign's account, campaign, variant,
 * stream and target URL) are that link's, so a batch keeps one copy of each rather than one a link.
 */
function toLink(domainId: string, code: number, seq: number, f: string[], destination: string | null, vars: string | null, target: string | null, previous: ResolvedLink | null): ResolvedLink {
  const offerId = orNull(f[10]);
  const createdMs = Number(f[12]);
  const disabled = f[13];
  const method = f[14];
  const days = f[15] === '' ? null : Number(f[15]);
  let expires = f[11] === '' ? Infinity : Number(f[11]);
  if (offerId !== null && days) {
    if (method === 'offer_creation' && f[16] !== '') expires = Math.min(expires, Number(f[16]) + days * DAY_MS);
    if (method === 'link_creation') expires = Math.min(expires, createdMs + days * DAY_MS);
  }
  const kind = Number(f[9]);
  let url = target;
  let accountId = f[6];
  let campaignId = orNull(f[7]);
  let variantId = orNull(f[3]);
  let streamId = orNull(f[8]);
  if (previous !== null) {
    if (url === previous.template) url = previous.template;
    if (accountId === previous.accountId) accountId = previous.accountId;
    if (campaignId === previous.campaignId) campaignId = previous.campaignId;
    if (variantId === previous.variantId) variantId = previous.variantId;
    if (streamId === previous.streamId) streamId = previous.streamId;
  }
  return {
    domainId,
    code,
    seq,
    accountId,
    campaignId,
    variantId,
    streamId,
    contactId: orNull(f[4]),
    messageUuid: orNull(f[5]),
    destination,
    kind,
    offerId,
    template: url,
    location: kind === 0 && url ? fillStored(url, vars) : null,
    expiresAtMs: expires,
    // an offer row missing (its link's offer deleted) answers as a disabled one
    disabled: disabled === 'true' || (offerId !== null && disabled === ''),
    createdAtMs: createdMs,
    // everything of the offer the answer is built from (the URL is the offer's for a link with one: a target has a URL or an offer)
    offerStamp: offerId === null ? null : `${url}\n${disabled}\n${method}\n${f[15]}\n${f[16]}`,
  };
}

/** A page row's domains (its `domains` array's elements as text). */
function domainsOf(r: LinkRow): string[] {
  const p = r[4]!;
  return p.slice(1, p.indexOf('}')).split(',');
}

/** The k-th link of a page read ahead: the page's row cut into its recipients' fields once, for all of its links. */
function fromPage(domainId: string, code: number, seq: number, p: PageRow, k: number): ResolvedLink {
  if (p.head === null) {
    const arrays = p.row[4]!.slice(1, -1).split('}{');
    p.variants = arrays[1].split(',');
    p.contacts = arrays[2].split(',');
    p.messages = arrays[3].split(',');
    p.destinations = p.row[1] === null ? [] : textArray(p.row[1]);
    p.vars = p.row[2] === null ? null : textArray(p.row[2]);
    p.head = p.row[0].split(',');
  }
  const f = p.head.slice();
  f[1] = String(k + 1);
  f[2] = domainId;
  f[3] = p.variants[k] === 'NULL' ? '' : p.variants[k];
  f[4] = p.contacts[k] === 'NULL' ? '' : p.contacts[k];
  f[5] = p.messages[k] === 'NULL' ? '' : p.messages[k];
  return toLink(domainId, code, seq, f, p.destinations[k] ?? null, p.vars?.[k] ?? null, p.row[3], null);
}

/**
 * A one-dimensional text array as PostgreSQL's `array_out` writes it: elements separated by commas, an element quoted
 * (`"…"`, with `\"` and `\\` escaped) when it holds a delimiter, a quote, a backslash, white space or is empty or
 * the word NULL; an unquoted NULL is null.
 */
export function textArray(s: string): Array<string | null> {
  const out: Array<string | null> = [];
  const end = s.length - 1;
  let i = 1;
  while (i < end) {
    if (s.charCodeAt(i) === 34) {
      let v = '';
      let start = i + 1;
      let j = start;
      for (;;) {
        const c = s.charCodeAt(j);
        if (c === 92) {
          v += s.slice(start, j);
          start = j + 1;
          j += 2;
        } else if (c === 34) break;
        else j++;
      }
      out.push(v + s.slice(start, j));
      i = j + 2;
    } else {
      let j = s.indexOf(',', i);
      if (j < 0 || j > end) j = end;
      const v = s.slice(i, j);
      out.push(v === 'NULL' ? null : v);
      i = j + 1;
    }
  }
  return out;
}
