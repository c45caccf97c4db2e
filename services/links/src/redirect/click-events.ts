import { createHash } from 'node:crypto';
import { LinkClickedV1, LinkClicksRecordedV1, Topics } from '@switchboard/contracts';
import type { ExpandableOutboxRow, OutgoingEvent } from '@switchboard/platform';
import type { EntityManager } from 'typeorm';
import { encodeCode } from '../mint/codes';
import { fillTarget } from './target';
import { UA_CLASSES } from './user-agent';

/**
 * The outbox row type of a click group (docs/decisions/0084): the group statement commits its click rows, first clicks
 * and rollups with ONE small outbox row naming the group (the transaction id and the first and last row positions of
 * its click rows), and links' outbox relay expands it after the commit into the same `links.clicks.recorded` and
 * `links.link.clicked` events the statement used to write out in full. `key` holds the number of events.
 */
export const CLICK_GROUP_OUTBOX_TYPE = '$links.click_group';

/** Counted clicks per `links.clicks.recorded` event, at most. */
export const MAX_EVENT_CLICKS = 1000;

/** What a click group's outbox row names: its transaction (`xmin` of its click rows), their row positions, the short URLs' scheme. */
export interface ClickGroupRef {
  xid: string;
  from: string;
  to: string;
  /** Its counted clicks. */
  n: number;
  scheme: string;
}

interface GroupClickRow {
  g: number;
  click_id: string;
  clicked_at: string;
  account_id: string;
  domain_id: string;
  code: string;
  first: boolean;
  ua_class: number;
  ip: string | null;
  user_agent: string | null;
}

interface LinkRow {
  domain_id: string;
  code: string;
  campaign_id: string | null;
  variant_id: string | null;
  stream_id: string | null;
  contact_id: string | null;
  message_uuid: string | null;
  destination: string | null;
  vars: Record<string, string> | null;
  kind: number | null;
  offer_id: string | null;
  template: string | null;
  domain: string | null;
}

/**
 * The counted clicks of the groups, in the order each group inserted them: the rows between the group's first and last
 * position (a TID range scan, no index needed on the append-only click table) written by the group's transaction.
 */
const GROUP_CLICKS_SQL = `
  SELECT g.g::int AS g, c.click_id::text, to_char(c.clicked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS clicked_at, c.account_id::text,
         c.domain_id::text, c.code::text, c.first, c.ua_class, c.ip, c.user_agent
    FROM unnest($1::xid[], $2::tid[], $3::tid[]) WITH ORDINALITY AS g(xid, first_tid, last_tid, g)
    CROSS JOIN LATERAL (
      SELECT c.*, c.ctid AS tid FROM links.click c
       WHERE c.ctid >= g.first_tid AND c.ctid <= g.last_tid AND c.xmin = g.xid AND NOT c.preview) c
   ORDER BY g.g, c.tid`;

/** The clicked links' fields as the links' rows hold them now (each link once, however many clicks it had). */
const LINKS_SQL = `
  SELECT k.domain_id::text, k.code::text, l.campaign_id::text, l.variant_id::text, l.stream_id::text, l.contact_id::text, l.message_uuid::text,
         l.destination, l.vars, t.kind, t.offer_id::text, coalesce(o.original_url, t.url) AS template, d.name AS domain
    FROM unnest($1::bigint[], $2::bigint[]) AS k(domain_id, code)
    LEFT JOIN links.link l ON l.domain_id = k.domain_id AND l.code = k.code
    LEFT JOIN links.link_target t ON t.id = l.target_id
    LEFT JOIN links.offer o ON o.id = t.offer_id AND o.account_id = l.account_id
    LEFT JOIN links.domain d ON d.id = k.domain_id`;

/** A stable id for the n-th `links.clicks.recorded` event of a group row: the same every time the row is expanded. */
function derivedId(rowEventId: string, n: number): string {
  const h = createHash('sha1').update(`${rowEventId}/${n}`).digest('hex');
  // shaped as a name-based (version 5, RFC 4122 variant) UUID
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16], 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Expands click group rows into their events (links' OutboxRelay calls it in its pass's transaction). Per group, as
 * the group statement wrote them before (0075): per account, `links.clicks.recorded` events of at most
 * ${MAX_EVENT_CLICKS} counted clicks in the group's order (`occurredAt`: the group's commit, its id derived from the
 * row's), then each first click as `links.link.clicked` under the click's id and time. Previews are never announced.
 */
export async function expandClickGroups(manager: EntityManager, rows: ExpandableOutboxRow[]): Promise<OutgoingEvent[][]> {
  const refs = rows.map((r) => JSON.parse(r.packed ?? '{}') as ClickGroupRef);
  const clicks = await manager.query<GroupClickRow[]>(GROUP_CLICKS_SQL, [refs.map((r) => r.xid), refs.map((r) => r.from), refs.map((r) => r.to)]);
  const keys = new Map<string, [string, string]>();
  for (const c of clicks) keys.set(`${c.domain_id}/${c.code}`, [c.domain_id, c.code]);
  const links = new Map<string, LinkRow>();
  if (keys.size > 0) {
    const found = await manager.query<LinkRow[]>(LINKS_SQL, [[...keys.values()].map((k) => k[0]), [...keys.values()].map((k) => k[1])]);
    for (const l of found) links.set(`${l.domain_id}/${l.code}`, l);
  }
  const perGroup: GroupClickRow[][] = rows.map(() => []);
  for (const c of clicks) perGroup[c.g - 1].push(c);
  // the positions hold as long as nothing rewrites links.click (VACUUM FULL, CLUSTER, pg_repack) while groups wait for
  // the relay: then the group's rows are not where its row says, and its events are not published rather than published short
  refs.forEach((r, i) => {
    if (perGroup[i].length !== r.n) throw new Error(`click group ${rows[i].id}: ${r.n} counted clicks named, ${perGroup[i].length} found at ${r.from}..${r.to} (links.click rewritten while the group waited?)`);
  });
  return rows.map((row, i) => groupEvents(row, refs[i].scheme, perGroup[i], links));
}

type LinkFields = ReturnType<typeof linkFields>;

/** A click event's fields of its link (`links.clicks.recorded`' and `links.link.clicked`'s, in their order). */
function linkFields(domainId: string, code: string, l: LinkRow | undefined, scheme: string) {
  const codeText = encodeCode(Number(code));
  const template = l?.template ?? null;
  let originalUrl = template ?? '';
  // the redirect answered with the filled target (it answers no click whose filling it refused)
  if (l?.kind === 0 && template) originalUrl = fillTarget(template, l.vars) ?? template;
  return {
    linkId: `${domainId}/${codeText}`,
    shortUrl: `${scheme}://${l?.domain ?? ''}/${codeText}`,
    originalUrl,
    domainId,
    offerId: l?.offer_id ?? null,
    campaignId: l?.campaign_id ?? null,
    variantId: l?.variant_id ?? null,
    streamId: l?.stream_id ?? null,
    contactId: l?.contact_id ?? null,
    messageUuid: l?.message_uuid ?? null,
    destination: l?.destination ?? null,
  };
}

function groupEvents(row: ExpandableOutboxRow, scheme: string, clicks: GroupClickRow[], links: Map<string, LinkRow>): OutgoingEvent[] {
  const occurredAt = row.createdAt.toISOString();
  const recorded: OutgoingEvent[] = [];
  const singles: OutgoingEvent[] = [];
  const open = new Map<string, unknown[]>();
  const fieldsOf = new Map<string, LinkFields>();
  let n = 0;
  for (const c of clicks) {
    const key = `${c.domain_id}/${c.code}`;
    let link = fieldsOf.get(key);
    if (!link) fieldsOf.set(key, (link = linkFields(c.domain_id, c.code, links.get(key), scheme)));
    let list = open.get(c.account_id);
    if (!list || list.length >= MAX_EVENT_CLICKS) {
      open.set(c.account_id, (list = []));
      recorded.push({
        id: derivedId(row.eventId, n++),
        type: LinkClicksRecordedV1.type,
        version: LinkClicksRecordedV1.version,
        occurredAt,
        source: 'links',
        accountId: c.account_id,
        traceId: null,
        key: c.account_id,
        data: { accountId: c.account_id, clicks: list },
        topic: Topics.Links,
      });
    }
    list.push({ clickId: c.click_id, ...link, first: c.first, uaClass: UA_CLASSES[c.ua_class], ip: c.ip, userAgent: c.user_agent, clickedAt: c.clicked_at });
    if (c.first) {
      singles.push({
        id: c.click_id,
        type: LinkClickedV1.type,
        version: LinkClickedV1.version,
        occurredAt: c.clicked_at,
        source: 'links',
        accountId: c.account_id,
        traceId: null,
        key: link.linkId,
        data: { clickId: c.click_id, accountId: c.account_id, ...link, ip: c.ip, userAgent: c.user_agent, clickedAt: c.clicked_at },
        topic: Topics.Links,
      });
    }
  }
  return recorded.concat(singles);
}
