import { Logger } from '@nestjs/common';
import { LinkClickedV1, LinkClicksRecordedV1, type EventEnvelope } from '@switchboard/contracts';
import { EventBus, OutboxRelay, type OutgoingEvent, type SubscribeOptions } from '@switchboard/platform';
import { DataSource } from 'typeorm';
import { CLICK_GROUP_OUTBOX_TYPE } from '../src/redirect/click-events';
import { LINKS_RELAY_OPTIONS, LinksOutboxRelay } from '../src/services/links-events.service';
import { batch, shortUrl, split, startLinks, waitFor, type LinksTestApp } from './redirect-support';

const A = '301';
const B = '302';

/** Hands events to the test's bus; once `dieAfter` calls went out, each later call delivers its events and then fails, as a process killed before it marks them published. */
class DyingBus extends EventBus {
  calls = 0;
  delivered = 0;
  constructor(
    private readonly inner: EventBus,
    private readonly dieAfter: number,
  ) {
    super();
  }
  async publish(events: OutgoingEvent[]): Promise<void> {
    await this.inner.publish(events);
    this.delivered += events.length;
    if (++this.calls > this.dieAfter) throw new Error('relay process killed before it marked the rows published');
  }
  async subscribe(_options: SubscribeOptions): Promise<void> {}
  async start(): Promise<void> {}
  async stop(): Promise<void> {}
}

describe('click events built by the relay from the click group rows (docs/decisions/0084)', () => {
  let l: LinksTestApp;
  let ds: DataSource;

  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    l = await startLinks();
    // the process's own relay is stopped: group commits land in the outbox and nothing publishes them until this test says so
    await l.t.app.get(LinksOutboxRelay).relay.stop();
    ds = await new DataSource({ type: 'postgres', url: l.t.db.url, applicationName: 'click-events-relay-test' }).initialize();
  }, 60_000);

  afterAll(async () => {
    await ds?.destroy();
    await l?.close();
    jest.restoreAllMocks();
  });

  it('a relay killed between the group commits and marking them published: the next relay publishes every counted click’s events, each id with the same event', async () => {
    const domA = await l.domain(A, 'go.relay-a.test');
    const domB = await l.domain(B, 'go.relay-b.test');
    const a = await l.mint(batch(A, [shortUrl({ url: 'https://shop-a.example/r?n={n}', domainIds: [domA] })], 4, (i) => ({ n: `ü ${i}` }), '81'));
    const b = await l.mint(batch(B, [shortUrl({ url: 'https://shop-b.example/r', domainIds: [domB] })], 2, () => ({}), '82'));
    const urls = [...Object.values(a.links), ...Object.values(b.links)].map((x) => x.shorturl);
    // the minting's events leave first (a relay as the process runs it), so the outbox then holds the click groups only
    const roles = { http: false, consumers: false, relay: true, schedulers: false };
    await new LinksOutboxRelay(ds, l.bus, roles).relay.flush();
    // three click groups (each drain commits what was answered): first clicks, repeats, previews, both accounts in one group
    const hits: Array<[string, Record<string, string>?]> = [];
    for (let round = 0; round < 3; round++) {
      for (const [i, url] of urls.entries()) {
        if ((i + round) % 3 === 0) continue;
        hits.push([url]);
        if (round === 1 && i === 0) hits.push([url, { 'user-agent': 'WhatsApp/2.23.20.0 A' }]);
      }
      for (const [url, headers] of hits.splice(0)) {
        const { host, path } = split(url);
        expect((await l.hit(host, path, { headers })).status).toBe(302);
      }
      await l.redirect.running!.clicks.drain();
    }

    const clicks = await l.sql<{ click_id: string; first: boolean; preview: boolean }>(`SELECT click_id::text, first, preview FROM links.click WHERE campaign_id IN (81, 82)`);
    const counted = clicks.filter((c) => !c.preview);
    const firsts = counted.filter((c) => c.first);
    expect(clicks.filter((c) => c.preview)).toHaveLength(1);
    expect(firsts).toHaveLength(6);
    // committed, not published: the outbox holds one small row per group, no event text
    const rows = await l.sql<{ type: string; bytes: number; published: boolean }>(
      `SELECT type, octet_length(packed) AS bytes, published_at IS NOT NULL AS published FROM links.outbox WHERE type = $1`,
      [CLICK_GROUP_OUTBOX_TYPE],
    );
    // at least one group a drain (the 10 ms timer may cut more)
    expect(rows.length).toBeGreaterThanOrEqual(3);
    for (const r of rows) {
      expect(r.published).toBe(false);
      expect(r.bytes).toBeLessThan(200);
    }
    const ofCampaigns = (e: EventEnvelope) =>
      e.type === LinkClickedV1.type ? ['81', '82'].includes((e.data as { campaignId: string }).campaignId) : (e.data as { clicks: Array<{ campaignId: string }> }).clicks.some((c) => ['81', '82'].includes(c.campaignId));
    const seen = () => [...l.events(LinkClicksRecordedV1.type), ...l.events(LinkClickedV1.type)].filter(ofCampaigns);
    expect(seen()).toHaveLength(0);

    // a relay publishes one pass (one group) and marks it; then it publishes the next and dies before marking
    const dying = new DyingBus(l.bus, 1);
    // one group a pass: the first pass is marked, the second is published and not marked
    const firstRelay = new OutboxRelay({ schema: 'links', dataSource: ds, bus: dying, batchSize: 1, ...LINKS_RELAY_OPTIONS });
    await expect(firstRelay.flush()).rejects.toThrow('killed');
    expect(dying.calls).toBe(2);
    // the in-memory bus hands events to its subscribers after publish returns
    await waitFor(() => seen().length >= dying.delivered);
    const afterCrash = seen().length;
    expect(afterCrash).toBe(dying.delivered);
    const left = await l.sql<{ n: string }>(`SELECT count(*)::text AS n FROM links.outbox WHERE type = $1 AND published_at IS NULL`, [CLICK_GROUP_OUTBOX_TYPE]);
    expect(left).toEqual([{ n: String(rows.length - 1) }]);

    // the process starts again: a new relay publishes what was not marked, the events it had sent under the same ids
    const again = new LinksOutboxRelay(ds, l.bus, roles);
    const published = await again.relay.flush();
    expect(published).toBeGreaterThan(0);
    await waitFor(() => seen().length >= afterCrash + published);
    const all = seen();
    expect(all).toHaveLength(afterCrash + published);
    const byId = new Map<string, EventEnvelope[]>();
    for (const e of all) byId.set(e.id, [...(byId.get(e.id) ?? []), e]);
    // some ids came twice (published, then the relay died): each copy the same event, so consumers dedupe them by id
    expect([...byId.values()].some((copies) => copies.length === 2)).toBe(true);
    for (const copies of byId.values()) {
      expect(copies.length).toBeLessThanOrEqual(2);
      for (const c of copies) expect(c).toEqual(copies[0]);
    }
    // after the dedupe: every counted click exactly once in links.clicks.recorded, every first click once as links.link.clicked, no preview
    const distinct = [...byId.values()].map((copies) => copies[0]);
    const recorded = distinct.filter((e) => e.type === LinkClicksRecordedV1.type).flatMap((e) => LinkClicksRecordedV1.schema.parse(e.data).clicks);
    expect(recorded.map((c) => c.clickId).sort()).toEqual(counted.map((c) => c.click_id).sort());
    expect(recorded.filter((c) => c.first).map((c) => c.clickId).sort()).toEqual(firsts.map((c) => c.click_id).sort());
    const singles = distinct.filter((e) => e.type === LinkClickedV1.type);
    expect(singles.map((e) => e.id).sort()).toEqual(firsts.map((c) => c.click_id).sort());
    for (const e of distinct) expect(e.accountId).toBe(e.type === LinkClickedV1.type ? LinkClickedV1.schema.parse(e.data).accountId : LinkClicksRecordedV1.schema.parse(e.data).accountId);
    expect(new Set(recorded.map((c) => c.originalUrl))).toEqual(new Set(['https://shop-b.example/r', ...[0, 1, 2, 3].map((i) => `https://shop-a.example/r?n=%C3%BC%20${i}`)]));
    const marked = await l.sql<{ n: string }>(`SELECT count(*)::text AS n FROM links.outbox WHERE type = $1 AND published_at IS NULL`, [CLICK_GROUP_OUTBOX_TYPE]);
    expect(marked).toEqual([{ n: '0' }]);
  });
});
