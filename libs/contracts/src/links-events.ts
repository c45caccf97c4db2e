import { z } from 'zod';
import { defineEvent, Topics } from './events';

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

export const LinksEvents = [LinkClickedV1, LinkBatchRequestedV1, LinkBatchMintedV1, DomainChangedV1, DomainPoolChangedV1, OfferChangedV1, LinkClicksRecordedV1, LinkOptOutConfirmedV1] as const;
