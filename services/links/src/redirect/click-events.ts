import { LinkClickedV1, LinkClicksRecordedV1, Topics, type EventData } from '@switchboard/contracts';
import type { OutboxRelayOptions, OutgoingEvent } from '@switchboard/platform';
import { CLICK_EVENTS_TYPE } from './click-recorder';

type RecordedClick = EventData<typeof LinkClicksRecordedV1>['clicks'][number];
type Clicked = EventData<typeof LinkClickedV1> & { domainId: string; variantId: string | null; contactId: string | null };

/**
 * A click group's outbox row (`$links.clicks`, docs/decisions/0110) as the relay publishes it: its
 * `links.clicks.recorded` events as stored, then each first click of them as `links.link.clicked`, in the group's
 * order per account. The clicked event is made of the recorded click's own fields (the same text the group
 * statement wrote for it before: the link's fields, address, user agent and time), under the click's id, keyed by the
 * link, at the click's time; so a relay that publishes the row again publishes the same events.
 */
export function unpackClickEvents(events: OutgoingEvent[]): OutgoingEvent[] {
  const out = events.slice();
  for (const event of events) {
    if (event.type !== LinkClicksRecordedV1.type) continue;
    const data = event.data as EventData<typeof LinkClicksRecordedV1>;
    for (const c of data.clicks) if (c.first) out.push(linkClicked(data.accountId, c));
  }
  return out;
}

function linkClicked(accountId: string, c: RecordedClick): OutgoingEvent<Clicked> {
  return {
    id: c.clickId,
    type: LinkClickedV1.type,
    version: LinkClickedV1.version,
    occurredAt: c.clickedAt,
    source: 'links',
    accountId,
    traceId: null,
    key: c.linkId,
    data: {
      clickId: c.clickId,
      accountId,
      linkId: c.linkId,
      shortUrl: c.shortUrl,
      originalUrl: c.originalUrl,
      domainId: c.domainId,
      offerId: c.offerId,
      campaignId: c.campaignId,
      variantId: c.variantId,
      streamId: c.streamId,
      contactId: c.contactId,
      messageUuid: c.messageUuid,
      destination: c.destination,
      ip: c.ip,
      userAgent: c.userAgent,
      clickedAt: c.clickedAt,
    },
    topic: Topics.Links,
  };
}

/** Links' relay options: its click groups' rows unpacked (every process that relays `links.outbox` needs them). */
export const LINKS_RELAY_OPTIONS: Pick<OutboxRelayOptions, 'unpack'> = { unpack: { [CLICK_EVENTS_TYPE]: unpackClickEvents } };
