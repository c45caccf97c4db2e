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

export const LinksEvents = [LinkClickedV1] as const;
