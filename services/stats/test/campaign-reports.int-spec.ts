import { randomUUID } from 'node:crypto';
import {
  CampaignChangedV1,
  DomainChangedV1,
  encodeMintedLinks,
  LinkBatchMintedV1,
  LinkBatchMintedV2,
  LinkOptOutConfirmedV1,
  Permission,
  type CampaignDeliveryStatsDto,
  type CampaignDomainStatsDto,
  type CampaignStatsDashboardDto,
  type CampaignVariantStatsDto,
  type DashboardMainDto,
} from '@switchboard/contracts';
import { createEnvelope } from '@switchboard/platform';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { rebuildRollups, STATS_CONNECTION } from '../src';
import { accepted, clicksRecorded, customer, message, sendRequested, startStats, statusChanged, type Msg, type StatsTestApp } from './support';

const P = Permission;
const ACC = '501';
const OTHER = '502';
const CAMPAIGN = '71';

const campaignChanged = (account: string, campaignId: string, name: string) =>
  createEnvelope(CampaignChangedV1, { campaignId, accountId: account, name, type: 1, status: 6, streamId: '1', deleted: false, updatedAt: new Date().toISOString() }, { accountId: account, source: 'campaigns' });

const domainChanged = (account: string, domainId: string, name: string) =>
  createEnvelope(DomainChangedV1, { accountId: account, domainId, name, state: 1, declinedReason: null, messagesLimit: null, usable: true, deleted: false, changedAt: new Date().toISOString() }, { accountId: account, source: 'links' });

const minted = (account: string, campaignId: string, urls: string[]) =>
  createEnvelope(
    LinkBatchMintedV1,
    { batchId: randomUUID(), accountId: account, campaignId, outcome: 'minted', links: Object.fromEntries(urls.map((u, i) => [String(i), { shorturl: u }])) },
    { accountId: account, source: 'links' },
  );

const mintedV2 = (account: string, campaignId: string, urls: string[]) =>
  createEnvelope(
    LinkBatchMintedV2,
    { batchId: randomUUID(), accountId: account, campaignId, outcome: 'minted', ...encodeMintedLinks(Object.fromEntries(urls.map((u, i) => [String(i), { shorturl: u }]))) },
    { accountId: account, source: 'links' },
  );

const optOut = (account: string, campaignId: string, m: Msg, at: string) =>
  createEnvelope(LinkOptOutConfirmedV1, { accountId: account, contactId: null, destination: '+447700900000', campaignId, messageUuid: m.uuid, optedOutAt: at }, { accountId: account, source: 'links' });

describe('stats: campaign, variant and domain reports', () => {
  let s: StatsTestApp;
  // campaign 71 of a +05:30 account: variant 11 sends 3 (2 delivered, 1 undelivered), variant 12 sends 2 (1 delivered,
  // 1 still sent), one message of variant 11 in India; a message outside the campaign; clicks on two domains
  const day1 = '2026-03-10T04:10:00Z'; // 09:40 local
  const day2 = '2026-03-11T10:45:00Z'; // 16:15 local
  const inCampaign = { account: ACC, campaign: CAMPAIGN };
  const v11 = [message({ ...inCampaign, variant: '11', acceptedAt: day1, priceMicros: 40_000 }), message({ ...inCampaign, variant: '11', acceptedAt: day1, priceMicros: 40_000 }), message({ ...inCampaign, variant: '11', acceptedAt: day2, iso2: 'IN', priceMicros: 60_000 })];
  const v12 = [message({ ...inCampaign, variant: '12', acceptedAt: day2, priceMicros: 40_000 }), message({ ...inCampaign, variant: '12', acceptedAt: day2, priceMicros: 40_000 })];
  const outside = message({ account: ACC, acceptedAt: day1 });

  beforeAll(async () => {
    s = await startStats({ cacheMs: 0 });
    await s.publish([customer(ACC, 'Asia/Kolkata', 'EUR'), customer(OTHER, 'UTC', 'EUR'), campaignChanged(ACC, CAMPAIGN, 'Spring sale'), domainChanged(ACC, '3', 'go.example.com'), domainChanged(ACC, '4', 'x.example.org')]);
    // the request of variant 12's messages arrives after their acceptance and a status: the variant still lands
    await s.publish([sendRequested(ACC, CAMPAIGN, v11)]);
    await s.publish([...v11, ...v12].map((m) => accepted(m)));
    await s.publish([accepted(outside), statusChanged(outside, 'delivered')]);
    await s.publish([statusChanged(v11[0], 'delivered'), statusChanged(v11[1], 'delivered'), statusChanged(v11[2], 'undelivered'), statusChanged(v12[0], 'delivered'), statusChanged(v12[1], 'sent')]);
    await s.publish([sendRequested(ACC, CAMPAIGN, v12)]);
    // a status repeated and a late `sent` after delivered change nothing
    await s.publish([statusChanged(v11[0], 'delivered'), statusChanged(v11[0], 'sent')]);
    // one batch answered in v1, one in v2 (a rolling upgrade, docs/decisions/0129): the links per host add up over both
    await s.publish([minted(ACC, CAMPAIGN, ['https://go.example.com/a', 'https://go.example.com/b']), mintedV2(ACC, CAMPAIGN, ['https://go.example.com/c', 'https://x.example.org/d'])]);
    await s.publish([
      clicksRecorded(ACC, [
        { m: v11[0], campaign: CAMPAIGN, variant: '11', domain: '3', first: true, at: '2026-03-10T05:00:00Z' },
        { m: v11[0], campaign: CAMPAIGN, variant: '11', domain: '3', first: false, at: '2026-03-10T05:20:00Z' },
        { m: v12[0], campaign: CAMPAIGN, variant: '12', domain: '4', first: true, at: '2026-03-11T11:00:00Z' },
        { m: null, campaign: null, variant: null, domain: '3', first: true, at: '2026-03-11T11:00:00Z' },
      ]),
      optOut(ACC, CAMPAIGN, v11[1], '2026-03-10T06:00:00Z'),
    ]);
  });
  afterAll(async () => s?.close());

  it('answers the delivery report of the whole campaign: totals, CTR, delivery over time in local days and per country', async () => {
    const r = await s.call<CampaignDeliveryStatsDto>('GET', `/campaign_reports/delivery_stats/${CAMPAIGN}`, { token: s.token(ACC) });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ campaignId: 71, name: 'Spring sale', slice: 'all', timeZone: 'Asia/Kolkata', grain: 'hour' });
    expect(r.body.totals).toMatchObject({ total: 5, delivered: 3, undelivered: 1, sent: 1, failed: 1, pending: 1, parts: 5, clicks: 3, uniqueClicks: 2, optedOut: 1, ctr: 66.67 });
    expect(r.body.totals.cost).toEqual([{ currency: 'EUR', micros: '220000', amount: '0.22' }]);
    // hour buckets start at :30 UTC in a +05:30 zone; clicks join the series at their own hour
    expect(r.body.series.map((p) => [p.bucket, p.total, p.delivered, p.clicks])).toEqual([
      ['2026-03-10T03:30:00Z', 2, 2, 0],
      ['2026-03-10T04:30:00Z', 0, 0, 2],
      ['2026-03-11T10:30:00Z', 3, 1, 1],
    ]);
    expect(r.body.countries).toEqual([
      { country: 'GB', total: 4, delivered: 3, failed: 0 },
      { country: 'IN', total: 1, delivered: 0, failed: 1 },
    ]);
    // a local date-only range: only the second day
    const d2 = await s.call<CampaignDeliveryStatsDto>('GET', `/campaign_reports/delivery_stats/${CAMPAIGN}?type=custom&start=2026-03-11&end=2026-03-11`, { token: s.token(ACC) });
    expect(d2.body).toMatchObject({ start: '2026-03-10T18:30:00.000Z', end: '2026-03-11T18:29:59.000Z' });
    expect(d2.body.totals).toMatchObject({ total: 3, delivered: 1, clicks: 1 });
  });

  it('answers per variant, with a variant announced after its messages were counted', async () => {
    const r = await s.call<CampaignVariantStatsDto>('GET', `/campaign_reports/variant_stats/${CAMPAIGN}`, { token: s.token(ACC) });
    expect(r.status).toBe(200);
    expect(r.body.items.map((v) => [v.variantId, v.total, v.delivered, v.failed, v.pending, v.uniqueClicks, v.optedOut, v.ctr, v.cost?.[0]?.micros])).toEqual([
      [11, 3, 2, 1, 0, 1, 1, 50, '140000'],
      [12, 2, 1, 0, 1, 1, 0, 100, '80000'],
    ]);
    const same = await s.call<CampaignVariantStatsDto>('GET', `/campaign_stats/per_variant?campaign=${CAMPAIGN}`, { token: s.token(ACC) });
    expect(same.body.items).toEqual(r.body.items);
  });

  it('answers per domain: links minted by host, clicks and unique clicks, and the campaign_domain_statistics rows', async () => {
    const r = await s.call<CampaignDomainStatsDto>('GET', `/campaign_reports/domain_stats/${CAMPAIGN}`, { token: s.token(ACC) });
    expect(r.body.items).toEqual([
      { domainId: 3, domain: 'go.example.com', usages: 3, clicks: 2, uniqueClicks: 1, ctr: 33.33 },
      { domainId: 4, domain: 'x.example.org', usages: 1, clicks: 1, uniqueClicks: 1, ctr: 100 },
    ]);
    const all = await s.call<{ items: unknown[] }>('GET', '/campaign_domain_statistics', { token: s.token(ACC) });
    expect(all.body.items).toEqual(r.body.items.map((d) => ({ campaignId: 71, ...d })));
    expect((await s.call('GET', '/campaign_domain_statistics?campaign=x', { token: s.token(ACC) })).status).toBe(400);
  });

  it('lists campaigns with their CTR, and a campaigns dashboard whose totals equal the campaign page', async () => {
    const list = await s.call<{ items: Array<Record<string, unknown>>; total: number }>('GET', '/campaign_stats', { token: s.token(ACC) });
    expect(list.body.total).toBe(1);
    expect(list.body.items[0]).toMatchObject({ campaignId: 71, name: 'Spring sale', total: 5, delivered: 3, uniqueClicks: 2, ctr: 66.67, firstAt: '2026-03-10T03:30:00.000Z', lastAt: '2026-03-11T10:30:00.000Z' });
    const ctr = await s.call<{ items: unknown[] }>('GET', '/campaign_stats/ctr', { token: s.token(ACC) });
    expect(ctr.body.items).toEqual([{ campaignId: 71, name: 'Spring sale', delivered: 3, uniqueClicks: 2, clicks: 3, ctr: 66.67 }]);
    const dash = await s.call<CampaignStatsDashboardDto>('GET', '/campaign_stats/dashboard?type=custom&start=2026-03-10&end=2026-03-11', { token: s.token(ACC) });
    expect(dash.body.totals).toMatchObject({ total: 5, delivered: 3, clicks: 3 });
    expect(dash.body.latest.map((c) => c.campaignId)).toEqual([71]);
    // the home dashboard counts every message (the one outside the campaign too) and the recipients who clicked
    const main = await s.call<DashboardMainDto>('POST', '/dashboard_statistics/main', { token: s.token(ACC), body: { type: 'custom', start: '2026-03-10', end: '2026-03-11' } });
    expect(main.body.totals.total).toBe(6);
    expect(main.body.clicked).toBe(3);
  });

  it('keeps accounts apart and needs CAMPAIGN_VIEW; costs need COST_VIEW', async () => {
    expect((await s.call('GET', `/campaign_reports/delivery_stats/${CAMPAIGN}`, { token: s.token(OTHER) })).status).toBe(404);
    expect((await s.call('GET', `/campaign_reports/variant_stats/${CAMPAIGN}`, { token: s.token(OTHER) })).status).toBe(404);
    expect((await s.call('GET', `/campaign_reports/domain_stats/${CAMPAIGN}`, { token: s.token(OTHER) })).status).toBe(404);
    expect((await s.call<{ total: number }>('GET', '/campaign_stats', { token: s.token(OTHER) })).body.total).toBe(0);
    expect((await s.call<{ items: unknown[] }>('GET', '/campaign_domain_statistics', { token: s.token(OTHER) })).body.items).toEqual([]);
    // another account's click or request naming this account's message changes nothing
    await s.publish([sendRequested(OTHER, CAMPAIGN, [{ ...v12[1], variant: '99' }])]);
    const v = await s.call<CampaignVariantStatsDto>('GET', `/campaign_reports/variant_stats/${CAMPAIGN}`, { token: s.token(ACC) });
    expect(v.body.items.map((x) => x.variantId)).toEqual([11, 12]);
    for (const path of [`/campaign_reports/delivery_stats/${CAMPAIGN}`, `/campaign_reports/variant_stats/${CAMPAIGN}`, `/campaign_reports/domain_stats/${CAMPAIGN}`, '/campaign_stats', '/campaign_stats/ctr', '/campaign_stats/dashboard', `/campaign_stats/per_variant?campaign=${CAMPAIGN}`, '/campaign_domain_statistics']) {
      expect([path, (await s.call('GET', path, { token: s.token(ACC, [P.DashboardView, P.CostView]) })).status]).toEqual([path, 403]);
      expect([path, (await s.call('GET', path, { token: s.token(ACC, [P.CampaignView]) })).status]).toEqual([path, 200]);
    }
    const noCost = await s.call<CampaignDeliveryStatsDto>('GET', `/campaign_reports/delivery_stats/${CAMPAIGN}`, { token: s.token(ACC, [P.CampaignView]) });
    expect(noCost.body.totals.cost).toBeNull();
    expect((await s.call('GET', '/campaign_reports/delivery_stats/abc', { token: s.token(ACC) })).status).toBe(400);
  });

  it('rebuilds the campaign rollup from the message states to the same figures', async () => {
    const before = await s.sql(`SELECT campaign_id, bucket, variant_id, iso2, status, currency, messages, parts, cost_micros FROM stats.rollup_campaign_hour WHERE messages <> 0 ORDER BY 1, 2, 3, 4, 5, 6`);
    await rebuildRollups(s.t.app.get<DataSource>(getDataSourceToken(STATS_CONNECTION)));
    const after = await s.sql(`SELECT campaign_id, bucket, variant_id, iso2, status, currency, messages, parts, cost_micros FROM stats.rollup_campaign_hour WHERE messages <> 0 ORDER BY 1, 2, 3, 4, 5, 6`);
    expect(after).toEqual(before);
    expect(after.length).toBeGreaterThan(0);
  });
});
