import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { CampaignDomainStatisticsDto } from '@switchboard/contracts';
import { AppError, RequestContext, type ListResult } from '@switchboard/platform';
import { LINKS_CONNECTION } from '../links.options';
import { ctrOf } from './domain-rows';

interface StatRow {
  campaign_id: string | null;
  domain_id: string;
  name: string;
  usages: string;
  clicks: string;
  unique_clicks: string;
}

/**
 * `GET /campaign_domain_statistics`: usages and clicks per campaign and domain. Built from the redirect role's tables
 * when they exist (links minted per campaign and domain in `links.link`, clicks from its rollup `links.click_stats`);
 * without them (an admin-only deployment before the redirect role's migration) it answers the domains' own counters,
 * campaign unknown (null).
 */
@Injectable()
export class DomainStatisticsService {
  constructor(@InjectDataSource(LINKS_CONNECTION) private readonly ds: DataSource) {}

  async campaignDomains(query: Record<string, unknown>): Promise<ListResult<CampaignDomainStatisticsDto>> {
    const acc = RequestContext.accountId();
    const raw = query.campaign ?? query.campaignId;
    const campaign = raw === undefined || raw === '' ? null : String(raw).replace(/^.*\//, '');
    if (campaign !== null && !/^\d{1,18}$/.test(campaign)) throw AppError.validation([{ propertyPath: 'campaign', message: 'a campaign id' }]);
    const [t] = await this.ds.query<Array<{ links: boolean; stats: boolean }>>(`SELECT to_regclass('links.link') IS NOT NULL AS links, to_regclass('links.click_stats') IS NOT NULL AS stats`);
    let rows: StatRow[];
    if (t.links && t.stats) {
      rows = await this.ds.query<StatRow[]>(
        `WITH used AS (
           SELECT l.campaign_id, l.domain_id, count(*) AS usages FROM links.link l
           WHERE l.account_id = $1 AND l.campaign_id IS NOT NULL AND ($2::bigint IS NULL OR l.campaign_id = $2) GROUP BY 1, 2),
         clicked AS (
           SELECT c.campaign_id, c.domain_id, sum(c.clicks) AS clicks, sum(c.first_clicks) AS unique_clicks FROM links.click_stats c
           WHERE c.account_id = $1 AND c.campaign_id <> 0 AND ($2::bigint IS NULL OR c.campaign_id = $2) GROUP BY 1, 2)
         SELECT coalesce(u.campaign_id, k.campaign_id)::text AS campaign_id, coalesce(u.domain_id, k.domain_id)::text AS domain_id, d.name,
                coalesce(u.usages, 0)::text AS usages, coalesce(k.clicks, 0)::text AS clicks, coalesce(k.unique_clicks, 0)::text AS unique_clicks
         FROM used u FULL JOIN clicked k ON k.campaign_id = u.campaign_id AND k.domain_id = u.domain_id
         JOIN links.domain d ON d.id = coalesce(u.domain_id, k.domain_id) AND d.account_id = $1
         ORDER BY coalesce(u.campaign_id, k.campaign_id) DESC, d.name LIMIT 2000`,
        [acc, campaign],
      );
    } else {
      rows = await this.ds.query<StatRow[]>(
        `SELECT NULL AS campaign_id, d.id::text AS domain_id, d.name, d.total_usages::text AS usages, d.total_clicks::text AS clicks, d.total_clicks::text AS unique_clicks
         FROM links.domain d WHERE d.account_id = $1 AND $2::bigint IS NULL AND d.total_usages > 0 ORDER BY d.name LIMIT 2000`,
        [acc, campaign],
      );
    }
    const items = rows.map((r) => ({
      campaignId: r.campaign_id === null ? null : Number(r.campaign_id),
      domainId: Number(r.domain_id),
      domain: r.name,
      usages: Number(r.usages),
      clicks: Number(r.clicks),
      uniqueClicks: Number(r.unique_clicks),
      // a campaign's CTR counts each recipient once: first clicks over links sent
      ctr: ctrOf(Number(r.unique_clicks), Number(r.usages)),
    }));
    return { items, total: items.length };
  }
}
