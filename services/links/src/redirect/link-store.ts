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
  /** `messageUuid`'s 16 bytes, made on the first click (the group statement's binary array, docs/decisions/0223). */
  messageUuidBytes?: Uint8Array;
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
  /** Codes to read in the next look-up, by domain id and code (number keys: no key string a request). */
  private pending = new Map<string, Map<number, Pending>>();
  private pendingCount = 0;
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
  }

  private async readPending(): Promise<void> {
    this.scheduled = false;
    const batch: Pending[] = [];
    for (const codes of this.pending.values()) for (const p of codes.values()) batch.push(p);
    this.pending = new Map();
    this.pendingCount = 0;
    this.reading++;
    let links: Array<ResolvedLink | null> | null = null;
    try {
      // the codes of one look-up decrypted together (ten AES passes for all of them): a code's sequence number finds its
      // range row (docs/decisions/0092, 0105)
      const n = batch.length;
      const seqs = new Float64Array(n);
      if (this.options.cipher) {
        for (let i = 0; i < n; i++) seqs[i] = batch[i].code;
        this.options.cipher.decryptInPlace(seqs);
      } else seqs.fill(-1);
      // prepared once per connection (docs/decisions/0097): an unnamed statement was parsed and planned for every batch,
      // which cost PostgreSQL more than the lookup itself (~0.6 ms a batch). Its generic plan probes one key per code
      // (the array's rows are estimated at 10 whatever its length), so it stays linear in the batch. The keys go as
      // array literals made here (pg quotes an array's elements one by one), the rows come back as arrays of their four
      // texts, unparsed (docs/decisions/0171)
      let domains = '{';
      let codes = '{';
      let seqText = '{';
      for (let i = 0; i < n; i++) {
        const sep = i === 0 ? '' : ',';
        domains += sep + batch[i].domainId;
        codes += sep + batch[i].code;
        seqText += sep + seqs[i];
      }
      const { rows } = await this.pool.query<LinkRow>({ name: 'links_link_lookup', text: LOOKUP_SQL, values: [domains + '}', codes + '}', seqText + '}'], rowMode: 'array', types: TEXT });
      const found = new Array<LinkRow | undefined>(n);
      for (const r of rows) found[headIndex(r[0])] = r;
      const now = this.options.now();
      let previous: ResolvedLink | null = null;
      links = new Array<ResolvedLink | null>(n);
      for (let i = 0; i < n; i++) {
        const p = batch[i];
        const r = found[i];
        const link: ResolvedLink | null = r ? toLink(p.domainId, p.code, seqs[i], r, previous) : null;
        if (link) previous = link;
        if (link?.offerStamp != null) {
          if (this.offers.size >= this.options.cacheMax) this.offers.clear();
          this.offers.set(`${link.accountId}/${link.offerId}`, { stamp: link.offerStamp, until: now + this.options.cacheTtlMs });
        }
        this.remember(p.domainId, p.code, link, now);
        links[i] = link;
      }
    } catch (e) {
      for (const p of batch) {
        p.waiter.reject(e);
        if (p.more) for (const w of p.more) w.reject(e);
      }
    } finally {
      this.reading--;
      this.schedule();
    }
    // the waiters answered once the batch is in the cache (a redirect's request answers here, synchronously)
    if (links)
      for (let i = 0; i < batch.length; i++) {
        const p = batch[i];
        p.waiter.resolve(links[i]);
        if (p.more) for (const w of p.more) w.resolve(links[i]);
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
 * batch position (1-based), account, campaign, variant, stream, contact, message uuid, kind, offer, the link's expiry and
 * creation (ms since the epoch), the offer's disabled flag, expiry method, days and creation (docs/decisions/0171: four
 * fields a row for pg to cut and keep, not nineteen).
 */
type LinkRow = [head: string, destination: string | null, vars: string | null, url: string | null];

/** Every column as PostgreSQL's text: no parser a field (the head is cut in `toLink`). */
const TEXT = { getTypeParser: () => (text: string) => text };

const DOMAIN_SQL = `SELECT id::text, account_id::text FROM links.domain WHERE name = $1 AND claimed AND NOT blocked AND state <> 7`;

// The link by `links.link_of` (its range row, or its own row when minted before ranges: docs/decisions/0092, 0105;
// the variables as the text minted, parsed here: 0109). The offer is read with the link (and cached with it): its URL,
// whether it is disabled, and its expiry rule (spec 4: expired at expireInDays after the offer's creation, or after the
// link's, by expireMethod). Times as float8 ms (`date_part`, not `extract`: no numeric arithmetic a row; the same
// instant to well under a microsecond). The head's fields are digits, uuids, `true`/`false` and the expiry method's
// three words: never a comma (`LinkRow`).
export const LOOKUP_SQL = `
  SELECT k.i || ',' || l.account_id || ',' || coalesce(l.campaign_id::text, '') || ',' || coalesce(l.variant_id::text, '') || ',' || coalesce(l.stream_id::text, '')
           || ',' || coalesce(l.contact_id::text, '') || ',' || coalesce(l.message_uuid::text, '') || ',' || t.kind || ',' || coalesce(t.offer_id::text, '')
           || ',' || coalesce((date_part('epoch', l.expires_at) * 1000)::text, '') || ',' || (date_part('epoch', l.created_at) * 1000)::text
           || ',' || coalesce(o.disabled::text, '') || ',' || coalesce(o.expire_method, '') || ',' || coalesce(o.expire_in_days::text, '')
           || ',' || coalesce((date_part('epoch', o.created_at) * 1000)::text, ''),
         l.destination, l.vars, coalesce(o.original_url, t.url)
    FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) WITH ORDINALITY AS k(domain_id, code, seq, i)
    CROSS JOIN LATERAL links.link_of(k.domain_id, k.code, k.seq) l
    JOIN links.link_target t ON t.id = l.target_id
    LEFT JOIN links.offer o ON o.id = t.offer_id AND o.account_id = l.account_id`;

/** The row's position in its batch (0-based), from the head's first field. */
const headIndex = (head: string) => Number(head.slice(0, head.indexOf(','))) - 1;

/** A head field: null when empty. */
const orNull = (s: string) => (s === '' ? null : s);

/**
 * The cached link of a row. Strings repeated from the batch's previous link (a campaign's account, campaign, variant,
 * stream and target URL) are that link's, so a batch keeps one copy of each rather than one a link.
 */
function toLink(domainId: string, code: number, seq: number, r: LinkRow, previous: ResolvedLink | null): ResolvedLink {
  const f = r[0].split(',');
  const offerId = orNull(f[8]);
  const createdMs = Number(f[10]);
  const disabled = f[11];
  const method = f[12];
  const days = f[13] === '' ? null : Number(f[13]);
  let expires = f[9] === '' ? Infinity : Number(f[9]);
  if (offerId !== null && days) {
    if (method === 'offer_creation' && f[14] !== '') expires = Math.min(expires, Number(f[14]) + days * DAY_MS);
    if (method === 'link_creation') expires = Math.min(expires, createdMs + days * DAY_MS);
  }
  const kind = Number(f[7]);
  let url = r[3];
  let accountId = f[1];
  let campaignId = orNull(f[2]);
  let variantId = orNull(f[3]);
  let streamId = orNull(f[4]);
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
    contactId: orNull(f[5]),
    messageUuid: orNull(f[6]),
    destination: r[1],
    kind,
    offerId,
    template: url,
    location: kind === 0 && url ? fillStored(url, r[2]) : null,
    expiresAtMs: expires,
    // an offer row missing (its link's offer deleted) answers as a disabled one
    disabled: disabled === 'true' || (offerId !== null && disabled === ''),
    createdAtMs: createdMs,
    // everything of the offer the answer is built from (the URL is the offer's for a link with one: a target has a URL or an offer)
    offerStamp: offerId === null ? null : `${url}\n${disabled}\n${method}\n${f[13]}\n${f[14]}`,
  };
}
