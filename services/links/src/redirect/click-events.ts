import { LinkClickedV1, LinkClicksRecordedV1, Topics, type EventData } from '@switchboard/contracts';
import type { OutboxRelayOptions, OutgoingEvent } from '@switchboard/platform';
import { CLICK_EVENTS_TYPE, CLICK_GROUP_TYPE, CLICK_GROUP_V2_TYPE, type ClickGroupRow, type ClickGroupRowV2 } from './click-recorder';
import { UA_CLASSES } from './user-agent';

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

/**
 * A click group's outbox row of values (`$links.click-group`, docs/decisions/0159) as the relay publishes it: the same
 * events as a `$links.clicks` row held as text, in the same order and with the same fields in the same order: each
 * `links.clicks.recorded` (its id and account from the row, `occurredAt` the group's), then each first click of them as
 * `links.link.clicked` (`unpackClickEvents`). Pure: the row published again gives the same events.
 */
export function unpackClickGroup(rows: OutgoingEvent[]): OutgoingEvent[] {
  const recorded: OutgoingEvent[] = [];
  for (const row of rows as unknown as ClickGroupRow[])
    for (const ev of row.events) {
      const clicks = new Array<RecordedClick>(ev.clicks.length);
      for (let i = 0; i < ev.clicks.length; i++) {
        const c = ev.clicks[i];
        clicks[i] = {
          clickId: c[0],
          linkId: `${c[1]}/${c[2]}`,
          shortUrl: c[3],
          originalUrl: c[4],
          domainId: c[1],
          offerId: c[5],
          campaignId: c[6],
          variantId: c[7],
          streamId: c[8],
          contactId: c[9],
          messageUuid: c[10],
          destination: c[11],
          first: c[12],
          uaClass: UA_CLASSES[c[13]],
          ip: c[14],
          userAgent: c[15] === 0 ? null : row.agents[c[15] - 1],
          clickedAt: c[16],
        };
      }
      recorded.push(recordedEvent(row.occurredAt, ev.id, ev.accountId, clicks));
    }
  return unpackClickEvents(recorded);
}

function recordedEvent(occurredAt: string, id: string, accountId: string, clicks: RecordedClick[]): OutgoingEvent {
  return {
    id,
    type: LinkClicksRecordedV1.type,
    version: LinkClicksRecordedV1.version,
    occurredAt,
    source: 'links',
    accountId,
    traceId: null,
    key: accountId,
    data: { accountId, clicks },
    topic: Topics.Links,
  };
}

/**
 * A click group row made by the redirect (`$links.click-group.2`, docs/decisions/0165) as the relay publishes it: the
 * same events as `unpackClickGroup` gives for the same clicks, each click's first flag from the row's `firsts`. Pure.
 */
export function unpackClickGroupV2(rows: OutgoingEvent[]): OutgoingEvent[] {
  const recorded: OutgoingEvent[] = [];
  for (const row of rows as unknown as ClickGroupRowV2[]) {
    const first = new Set(row.firsts);
    let p = 0;
    for (const ev of row.events) {
      const clicks = new Array<RecordedClick>(ev.clicks.length);
      for (let i = 0; i < ev.clicks.length; i++, p++) {
        const c = ev.clicks[i];
        clicks[i] = {
          clickId: c[0],
          linkId: `${c[2]}/${c[3]}`,
          shortUrl: c[4],
          originalUrl: c[5],
          domainId: c[2],
          offerId: c[6],
          campaignId: c[7],
          variantId: c[8],
          streamId: c[9],
          contactId: c[10],
          messageUuid: c[11],
          destination: c[12],
          first: first.has(p),
          uaClass: UA_CLASSES[c[13]],
          ip: c[14],
          userAgent: c[1] === 0 ? null : row.agents[c[1] - 1],
          clickedAt: c[15],
        };
      }
      recorded.push(recordedEvent(row.occurredAt, ev.id, ev.accountId, clicks));
    }
  }
  return unpackClickEvents(recorded);
}

/**
 * A bound of the bytes a click group row's events serialise to, from its text and the events (the relay sizes its
 * publish calls by it: a bound below `maxBatchBytes` spares it serialising each event to measure it). Per recorded
 * click: its values as in the text, plus the field names (187 bytes), the link id (at most 31: a bigint domain, `/`, 7
 * characters), the class's name and slack: 250; its user agent, which the row holds once for the group, as JSON. A
 * first click's `links.link.clicked` repeats the click's values and agent with at most 650 bytes of envelope, names
 * and account id (so 900 in all). Each recorded event's envelope is at most 400. The values are counted twice
 * (`2 * textBytes`) to cover the first clicks' second copy.
 */
export function clickGroupBytes(textBytes: number, events: OutgoingEvent[]): number {
  let bytes = 2 * textBytes;
  const agents = new Map<string, number>();
  for (const e of events) {
    if (e.type !== LinkClicksRecordedV1.type) continue;
    bytes += 400;
    for (const c of (e.data as EventData<typeof LinkClicksRecordedV1>).clicks) {
      let agent = 4;
      if (c.userAgent !== null) {
        const known = agents.get(c.userAgent);
        if (known === undefined) agents.set(c.userAgent, (agent = Buffer.byteLength(JSON.stringify(c.userAgent))));
        else agent = known;
      }
      bytes += c.first ? 900 + 2 * agent : 250 + agent;
    }
  }
  return bytes;
}

/** Links' relay options: its click groups' rows unpacked (every process that relays `links.outbox` needs them). */
export const LINKS_RELAY_OPTIONS: Pick<OutboxRelayOptions, 'unpack' | 'unpackBound'> = {
  unpack: { [CLICK_EVENTS_TYPE]: unpackClickEvents, [CLICK_GROUP_TYPE]: unpackClickGroup, [CLICK_GROUP_V2_TYPE]: unpackClickGroupV2 },
  unpackBound: { [CLICK_GROUP_TYPE]: clickGroupBytes, [CLICK_GROUP_V2_TYPE]: clickGroupBytes },
};
