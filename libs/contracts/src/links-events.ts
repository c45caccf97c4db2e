import { z } from 'zod';
import { defineEvent, Topics, type EventData } from './events';

const id = z.string().regex(/^\d+$/, 'a decimal id');

/**
 * A recipient opened a short link (the links service's redirect records it). Declared ahead of the links service so
 * the webhooks "short URL clicks" trigger is built against it (docs/decisions/0027-webhooks.md); the links service
 * emits it through its outbox when it lands.
 */
export const LinkClickedV1 = defineEvent({
  type: 'links.link.clicked',
  version: 1,
  topic: Topics.Links,
  key: (d) => d.linkId,
  schema: z.object({
    clickId: z.string(),
    accountId: id,
    linkId: z.string(),
    shortUrl: z.string(),
    originalUrl: z.string(),
    offerId: id.nullable(),
    campaignId: id.nullable(),
    streamId: id.nullable(),
    messageUuid: z.string().uuid().nullable(),
    /** The recipient's phone the link was made for, when known. */
    destination: z.string().nullable(),
    ip: z.string().nullable(),
    userAgent: z.string().nullable(),
    clickedAt: z.string(),
  }),
});

/**
 * Personal short links for a campaign batch (docs: the links service mints, campaigns asks). The campaign runner asks
 * for one link per item and link variable before it composes the batch's texts; links picks a domain per link from the
 * variable's domains or pool by the pool's distribution mode (skipping domains that are not valid, archived, blocked
 * or over their limit), stores the links in bulk and answers with `links.link_batch.minted`. Asking twice for the same
 * batch answers the same links.
 */
export const LinkVariableRequest = z.object({
  /** The placeholder's name without braces: `shorturl`, `optout` or a custom link variable. */
  variable: z.string().min(1).max(64),
  kind: z.enum(['shorturl', 'optout']),
  /** Target: an offer, or a URL (variables allowed, filled per recipient from `vars`). */
  offerId: id.nullable(),
  url: z.string().max(2048).nullable(),
  domainIds: z.array(id),
  domainPoolId: id.nullable(),
  /** Days after which the link stops redirecting (spec: the link param `expired`); null: never. */
  expireInDays: z.number().int().positive().nullable(),
});
export type LinkVariableRequest = z.infer<typeof LinkVariableRequest>;

export const LinkBatchRequestedV1 = defineEvent({
  type: 'campaigns.link_batch.requested',
  version: 1,
  topic: Topics.Campaigns,
  key: (d) => d.campaignId,
  schema: z.object({
    batchId: z.string().min(1).max(64),
    accountId: id,
    campaignId: id,
    streamId: id.nullable(),
    variables: z.array(LinkVariableRequest).min(1).max(8),
    items: z
      .array(
        z.object({
          ref: z.string().max(64),
          messageUuid: z.string().uuid(),
          contactId: id.nullable(),
          destination: z.string(),
          /** The recipient's variables by name, for filling the target URL. */
          vars: z.record(z.string()),
          /** Variant id, so clicks are known per variant. */
          variantId: id.nullable(),
        }),
      )
      .min(1)
      .max(1000),
  }),
});

/** Links' answer up to 0129, one JSON member a link; links now sends v2, consumers still read both (`readLinkBatchMinted`). */
export const LinkBatchMintedV1 = defineEvent({
  type: 'links.link_batch.minted',
  version: 1,
  topic: Topics.Links,
  key: (d) => d.campaignId,
  schema: z.object({
    batchId: z.string(),
    accountId: id,
    campaignId: id,
    /** `no_valid_domain`: no domain of a variable's domains or pool can take a link (the campaign halts). */
    outcome: z.enum(['minted', 'no_valid_domain', 'offer_unavailable']),
    /** Per item ref: the short URL of each variable (`https://{domain}/{code}`). Empty unless minted. */
    links: z.record(z.record(z.string())),
    /**
     * The links this batch put on each domain, per variant (docs/decisions/0044): with the clicks' `domainId` and
     * `variantId` in `links.clicks.recorded`, the figures of the campaign reports per domain (`domain_stats/{id}`)
     * built from events. Only on the first answer of a minted batch (a repeated answer counts nothing again).
     */
    usages: z.array(z.object({ domainId: id, domain: z.string(), variantId: id.nullable(), links: z.number().int().positive() })).optional(),
  }),
});

/** The digits of a v2 answer's picks and codes (base62, as the links' codes). */
const MINTED_DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const MINTED_DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < MINTED_DIGITS.length; i++) MINTED_DIGIT[MINTED_DIGITS.charCodeAt(i)] = i;
/** Domains a variable's links may be spread over in one v2 answer: picks of at most two digits. */
export const MINTED_MAX_PREFIXES = 62 * 62;

/**
 * The characters of one pick in a v2 answer whose variable has `prefixes` domain prefixes: none for one (every link is
 * on it), one base62 digit up to 62, two up to 3844.
 */
export function mintedPickWidth(prefixes: number): number {
  return prefixes <= 1 ? 0 : prefixes <= 62 ? 1 : 2;
}

/** A pick (a prefix index) written in `width` base62 digits. */
export function mintedPickText(index: number, width: number): string {
  if (width === 0) return '';
  if (width === 1) return MINTED_DIGITS[index];
  return MINTED_DIGITS[Math.floor(index / 62)] + MINTED_DIGITS[index % 62];
}

function pickAt(picks: string, width: number, i: number): number {
  if (width === 0) return 0;
  if (width === 1) return MINTED_DIGIT[picks.charCodeAt(i)];
  return MINTED_DIGIT[picks.charCodeAt(2 * i)] * 62 + MINTED_DIGIT[picks.charCodeAt(2 * i + 1)];
}

/**
 * One link variable of a v2 answer, every item's link of it without a string a link: item i's link is
 * `prefixes[pick i] + codes[i * codeWidth, (i + 1) * codeWidth)`.
 */
export const MintedVariableLinks = z.object({
  variable: z.string().min(1).max(64),
  /** `<scheme>://<domain>/` of each domain the variable's links are on, in the order of their first link. */
  prefixes: z
    .array(z.string().max(300).regex(/^https?:\/\/[^\s/?#\\@]+\/$/, 'a scheme and a host'))
    .min(1)
    .max(MINTED_MAX_PREFIXES),
  /** The characters of one code (the links service's codes are 7). */
  codeWidth: z.number().int().min(1).max(16),
  /** Per item in batch order, the index of its link's prefix in `mintedPickWidth(prefixes.length)` base62 digits. */
  picks: z.string().max(2000).regex(/^[0-9A-Za-z]*$/),
  /** Per item in batch order, its code (`codeWidth` base62 characters each), one run. */
  codes: z.string().max(16_000).regex(/^[0-9A-Za-z]*$/),
});
export type MintedVariableLinks = z.infer<typeof MintedVariableLinks>;

/**
 * `links.link_batch.minted` v2 (docs/decisions/0129): the same answer as v1 with its links compact. v1 carried one JSON
 * member a link (`{"<ref>":{"<variable>":"https://<domain>/<code>"}}`, ~57 bytes a link, each domain written again in
 * every link); v2 carries the refs once, and per variable the domains once, one pick and one code a link (~8 bytes a
 * link and the ref). No secret: the codes are what recipients get, the code key never leaves links. Consumers read
 * both versions through `readLinkBatchMinted` (a rolling upgrade: the consumers first, then links; v1 events still
 * retained or in links' outbox are read as before).
 */
export const LinkBatchMintedV2 = defineEvent({
  type: 'links.link_batch.minted',
  version: 2,
  topic: Topics.Links,
  key: (d) => d.campaignId,
  schema: z
    .object({
      batchId: z.string(),
      accountId: id,
      campaignId: id,
      /** As v1: `no_valid_domain` halts the campaign. */
      outcome: z.enum(['minted', 'no_valid_domain', 'offer_unavailable']),
      /** The items' refs in batch order. Empty unless minted. */
      refs: z.array(z.string().max(64)).max(1000),
      /** Per link variable, every item's link. Empty unless minted. */
      variables: z.array(MintedVariableLinks).max(8),
      /** As v1 (docs/decisions/0044): only on the first answer of a minted batch. */
      usages: z.array(z.object({ domainId: id, domain: z.string(), variantId: id.nullable(), links: z.number().int().positive() })).optional(),
    })
    .superRefine((d, ctx) => {
      const n = d.refs.length;
      d.variables.forEach((v, vi) => {
        const width = mintedPickWidth(v.prefixes.length);
        if (v.codes.length !== n * v.codeWidth) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['variables', vi, 'codes'], message: `${n} codes of ${v.codeWidth} characters` });
        if (v.picks.length !== n * width) {
          ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['variables', vi, 'picks'], message: `${n} picks of ${width} characters` });
          return;
        }
        for (let i = 0; i < n && width; i++) {
          if (pickAt(v.picks, width, i) >= v.prefixes.length) {
            ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['variables', vi, 'picks'], message: `item ${i} picks no prefix` });
            return;
          }
        }
      });
    }),
});

/** Item `i`'s link of a v2 answer's variable. */
export function mintedLinkAt(v: MintedVariableLinks, i: number): string {
  return v.prefixes[pickAt(v.picks, mintedPickWidth(v.prefixes.length), i)] + v.codes.slice(i * v.codeWidth, (i + 1) * v.codeWidth);
}

/** A v2 answer's links in v1's shape: per ref, the link of each variable. */
export function mintedLinksByRef(d: Pick<EventData<typeof LinkBatchMintedV2>, 'refs' | 'variables'>): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  d.refs.forEach((ref, i) => {
    const links: Record<string, string> = {};
    for (const v of d.variables) links[v.variable] = mintedLinkAt(v, i);
    out[ref] = links;
  });
  return out;
}

/**
 * v1's links (per ref, per variable) as v2's refs and variables: each link split at its last `/` into its prefix and
 * its code. Every ref must have every variable and a variable's codes one width (the links service's codes are 7
 * base62 characters); anything else is not an answer links wrote, and throws.
 */
export function encodeMintedLinks(links: Record<string, Record<string, string>>): Pick<EventData<typeof LinkBatchMintedV2>, 'refs' | 'variables'> {
  const refs = Object.keys(links);
  const names = refs.length ? Object.keys(links[refs[0]]) : [];
  const variables = names.map((variable): MintedVariableLinks => {
    const prefixes: string[] = [];
    const index = new Map<string, number>();
    const at: number[] = [];
    let codes = '';
    let codeWidth = 0;
    for (const ref of refs) {
      const url = links[ref][variable];
      if (typeof url !== 'string') throw new Error(`minted links: ref ${ref} has no ${variable}`);
      const cut = url.lastIndexOf('/') + 1;
      const code = url.slice(cut);
      if (!codeWidth) codeWidth = code.length;
      if (code.length !== codeWidth || !code.length) throw new Error(`minted links: the codes of ${variable} are not of one width`);
      const prefix = url.slice(0, cut);
      let p = index.get(prefix);
      if (p === undefined) {
        p = prefixes.length;
        prefixes.push(prefix);
        index.set(prefix, p);
      }
      at.push(p);
      codes += code;
    }
    const width = mintedPickWidth(prefixes.length);
    return { variable, prefixes, codeWidth: codeWidth || 7, picks: at.map((p) => mintedPickText(p, width)).join(''), codes };
  });
  for (const ref of refs) if (Object.keys(links[ref]).length !== names.length) throw new Error(`minted links: ref ${ref} has other variables`);
  return { refs, variables };
}

/** A minted answer as its consumers read it, whichever version it came in. */
export interface LinkBatchMinted {
  version: number;
  batchId: string;
  accountId: string;
  campaignId: string;
  outcome: 'minted' | 'no_valid_domain' | 'offer_unavailable';
  usages?: EventData<typeof LinkBatchMintedV2>['usages'];
  /** The items' refs, in batch order (v1: its links' keys). */
  refs: string[];
  /** The link variables' names. */
  variables: string[];
  /** Item `i`'s link of variable `vi`. */
  link(i: number, vi: number): string;
  /** How many of the batch's links each domain prefix (`<scheme>://<domain>/`) took. */
  perPrefix(): Map<string, number>;
}

/**
 * `links.link_batch.minted` of version 1 or 2, validated, as one readable form; null for another type or version. For
 * consumers during and after the rolling upgrade to v2 (docs/decisions/0129).
 */
export function readLinkBatchMinted(e: { type: string; version: number; data: unknown }): LinkBatchMinted | null {
  if (e.type !== LinkBatchMintedV2.type) return null;
  if (e.version === 2) {
    const d = LinkBatchMintedV2.schema.parse(e.data);
    return {
      version: 2,
      batchId: d.batchId,
      accountId: d.accountId,
      campaignId: d.campaignId,
      outcome: d.outcome,
      usages: d.usages,
      refs: d.refs,
      variables: d.variables.map((v) => v.variable),
      link: (i, vi) => mintedLinkAt(d.variables[vi], i),
      perPrefix: () => {
        const out = new Map<string, number>();
        for (const v of d.variables) {
          const width = mintedPickWidth(v.prefixes.length);
          const counts = new Array<number>(v.prefixes.length).fill(0);
          for (let i = 0; i < d.refs.length; i++) counts[pickAt(v.picks, width, i)]++;
          v.prefixes.forEach((p, k) => counts[k] && out.set(p, (out.get(p) ?? 0) + counts[k]));
        }
        return out;
      },
    };
  }
  if (e.version !== 1) return null;
  const d = LinkBatchMintedV1.schema.parse(e.data);
  const refs = Object.keys(d.links);
  const variables = [...new Set(refs.flatMap((r) => Object.keys(d.links[r])))];
  return {
    version: 1,
    batchId: d.batchId,
    accountId: d.accountId,
    campaignId: d.campaignId,
    outcome: d.outcome,
    usages: d.usages,
    refs,
    variables,
    link: (i, vi) => d.links[refs[i]][variables[vi]],
    perPrefix: () => {
      const out = new Map<string, number>();
      for (const r of refs) {
        for (const url of Object.values(d.links[r])) {
          const p = url.slice(0, url.lastIndexOf('/') + 1);
          out.set(p, (out.get(p) ?? 0) + 1);
        }
      }
      return out;
    },
  };
}

/**
 * A domain's state as the console sees it, after any change (added, verified in DNS, declined, archived, restored,
 * blocked, limit changed or reached, deleted). Read models (the redirect role, campaigns) keep the latest per domain:
 * `usable` says whether a new link may use it (configured, not archived, blocked or over its limit).
 */
export const DomainChangedV1 = defineEvent({
  type: 'links.domain.changed',
  version: 1,
  topic: Topics.Links,
  key: (d) => d.domainId,
  schema: z.object({
    accountId: id,
    domainId: id,
    name: z.string(),
    /** Spec 4: 0 not configured, 1 configured, 2 pending, 3 valid-pending, 4 declined, 5 archived, 6 reached limit, 7 blocked. */
    state: z.number().int().min(0).max(7),
    declinedReason: z.string().nullable(),
    messagesLimit: z.number().int().nonnegative().nullable(),
    usable: z.boolean(),
    deleted: z.boolean(),
    changedAt: z.string(),
  }),
});

/** A pool after any change (created, renamed, distribution, domains added or removed, deleted). */
export const DomainPoolChangedV1 = defineEvent({
  type: 'links.domain_pool.changed',
  version: 1,
  topic: Topics.Links,
  key: (d) => d.poolId,
  schema: z.object({
    accountId: id,
    poolId: id,
    name: z.string(),
    /** Spec 9: 10 spread evenly, 1 one by one. */
    distribution: z.union([z.literal(10), z.literal(1)]),
    /** Member domains in the pool's order. */
    domainIds: z.array(id),
    deleted: z.boolean(),
    changedAt: z.string(),
  }),
});

/** An offer after any change; `state` is its state when the change happened (expiry moves with time: see expiresAt). */
export const OfferChangedV1 = defineEvent({
  type: 'links.offer.changed',
  version: 1,
  topic: Topics.Links,
  key: (d) => d.offerId,
  schema: z.object({
    accountId: id,
    offerId: id,
    name: z.string(),
    originalUrl: z.string(),
    expireInDays: z.number().int().positive().nullable(),
    expireMethod: z.enum(['offer_creation', 'link_creation', 'never']),
    disabled: z.boolean(),
    expiresAt: z.string().nullable(),
    deleted: z.boolean(),
    changedAt: z.string(),
  }),
});

/** What a user agent is, as the redirect classifies it. */
export const UserAgentClass = z.enum(['desktop', 'mobile', 'tablet', 'bot', 'preview', 'other']);

/**
 * Counted clicks, batched (docs/decisions/0034-links-redirect-and-clicks.md): the redirect commits clicks in groups
 * and announces each group's counted clicks of one account in one event (at most 1000 clicks; previews and prefetches
 * are recorded but never announced). `first` marks a recipient's first counted click (unique clickers, CTR). Consumers
 * that want one event per click (the webhooks' short-URL-clicks trigger) take each click's `clickId` as its id.
 */
export const LinkClicksRecordedV1 = defineEvent({
  type: 'links.clicks.recorded',
  version: 1,
  topic: Topics.Links,
  key: (d) => d.accountId,
  schema: z.object({
    accountId: id,
    clicks: z
      .array(
        z.object({
          clickId: z.string().uuid(),
          linkId: z.string(),
          shortUrl: z.string(),
          originalUrl: z.string(),
          domainId: id,
          offerId: id.nullable(),
          campaignId: id.nullable(),
          variantId: id.nullable(),
          streamId: id.nullable(),
          contactId: id.nullable(),
          messageUuid: z.string().uuid().nullable(),
          destination: z.string().nullable(),
          first: z.boolean(),
          uaClass: UserAgentClass,
          ip: z.string().nullable(),
          userAgent: z.string().nullable(),
          clickedAt: z.string(),
        }),
      )
      .min(1)
      .max(1000),
  }),
});

/**
 * A recipient confirmed the opt-out page of their `{optout}` link: contacts opts the contact out (no later campaign
 * reaches them) and announces `contacts.contact.opted_out`.
 */
export const LinkOptOutConfirmedV1 = defineEvent({
  type: 'links.opt_out.confirmed',
  version: 1,
  topic: Topics.Links,
  key: (d) => `${d.accountId}:${d.destination ?? d.contactId ?? ''}`,
  schema: z.object({
    accountId: id,
    contactId: id.nullable(),
    /** The recipient's phone the link was made for (E.164). */
    destination: z.string().nullable(),
    campaignId: id.nullable(),
    messageUuid: z.string().uuid().nullable(),
    optedOutAt: z.string(),
  }),
});

export const LinksEvents = [LinkClickedV1, LinkBatchRequestedV1, LinkBatchMintedV1, LinkBatchMintedV2, DomainChangedV1, DomainPoolChangedV1, OfferChangedV1, LinkClicksRecordedV1, LinkOptOutConfirmedV1] as const;
