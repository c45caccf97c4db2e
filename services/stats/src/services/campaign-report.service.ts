import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type {
  CampaignCountryFigures,
  CampaignCtrDto,
  CampaignDeliveryStatsDto,
  CampaignDomainStatisticsDto,
  CampaignDomainStatsDto,
  CampaignFigures,
  CampaignSeriesPoint,
  CampaignStatsDashboardDto,
  CampaignStatsRowDto,
  CampaignVariantStatsDto,
} from '@switchboard/contracts';
import { AppError, type ListResult } from '@switchboard/platform';
import { STATS_CONNECTION } from '../stats.options';
import { bad, counts, idList, money, partConds, rangeParts, ReportService, type Grain, type Part, type Range, type Scope } from './report.service';

type Row = Record<string, string | number | null>;
/** A grouping expression, the same for every rollup, or one per rollup grain (an hour bucket is an instant, a day or month bucket a local date). */
type Key = string | ((grain: Grain) => string);

/**
 * The message rollups a campaign figure is read from, per grain of the range's part (docs/decisions/0060, 0077):
 * `wide` keeps variant and country (per variant, per country; a month is read from its day rows), `narrow` is per
 * campaign, status and currency only (totals, per campaign, the series), down to months.
 */
const MSG_TABLES: Record<'wide' | 'narrow', Record<Grain, [string, Grain]>> = {
  wide: { hour: ['rollup_campaign_hour', 'hour'], day: ['rollup_campaign_day', 'day'], month: ['rollup_campaign_day', 'day'] },
  narrow: { hour: ['rollup_campaign_hour', 'hour'], day: ['rollup_campaign_day_total', 'day'], month: ['rollup_campaign_month', 'month'] },
};
/** Clicks have hour and day rollups (a month part is read from its day rows). */
const CLICK_TABLES: Record<Grain, [string, Grain]> = { hour: ['campaign_click_hour', 'hour'], day: ['campaign_click_day', 'day'], month: ['campaign_click_day', 'day'] };

/** Percent with two decimals, as the campaign page computes its CTR (unique clicks over delivered). */
const pct = (part: number, whole: number): number => (whole > 0 ? Math.round((part / whole) * 10_000) / 100 : 0);

interface Acc {
  st: Map<string, { n: number; parts: number }>;
  cost: Map<string, bigint>;
  clicks: number;
  unique: number;
  optedOut: number;
}
const acc = (): Acc => ({ st: new Map(), cost: new Map(), clicks: 0, unique: 0, optedOut: 0 });

function campaignId(raw: unknown, field = 'id'): string {
  const m = /^(?:\/api\/campaigns\/)?(\d{1,18})$/.exec(String(raw ?? '').trim());
  if (!m || /^0+$/.test(m[1])) throw bad(field, `${field} is a campaign id`);
  return m[1].replace(/^0+/, '');
}

/**
 * The campaign reports of spec 7 (docs/decisions/0046-campaign-reports.md): `campaign_reports` delivery_stats,
 * variant_stats and domain_stats of one campaign, and `campaign_stats` (per campaign, per_variant, ctr, dashboard),
 * from the campaign rollups the messaging, campaign and link events feed. Ranges as on the dashboard (the account's
 * zone, date-only ends 23:59:59); without a slice a campaign report covers the whole campaign. Not cached: the campaign
 * page refreshes while the campaign sends, and these reads are a campaign's rows only.
 */
@Injectable()
export class CampaignReportService {
  constructor(
    @InjectDataSource(STATS_CONNECTION) private readonly ds: DataSource,
    private readonly reports: ReportService,
  ) {}

  private async rangeOf(q: Record<string, unknown>, scope: Scope): Promise<Range> {
    const none = (v: unknown) => v === undefined || v === null || v === '';
    const body = none(q.type) && none(q.timeSlice) && none(q.start) && none(q.end) ? { type: 'all' } : q;
    return this.reports.range(body, scope.timeZone);
  }

  /** The campaign must be the scope's (another account's id, or one stats never heard of, is 404). */
  private async campaign(scope: Scope, raw: unknown): Promise<{ id: string; name: string; status: number }> {
    const id = campaignId(raw);
    const rows = await this.ds.query<Array<{ name: string; status: number }>>(
      `SELECT name, status FROM stats.campaign WHERE campaign_id = $1 ${scope.accounts === null ? '' : 'AND account_id = ANY($2::bigint[])'}`,
      scope.accounts === null ? [id] : [id, scope.accounts],
    );
    if (!rows[0]) throw AppError.notFound('campaign');
    return { id, name: rows[0].name, status: rows[0].status };
  }

  /** The conditions of one part of a range; its parameters are appended to `params` (shared by the branches of one statement). */
  private where(scope: Scope, part: Part, campaigns: string[] | null, params: unknown[]): string {
    const parts = partConds(scope, part, params);
    if (campaigns) {
      params.push(campaigns);
      parts.push(`campaign_id = ANY($${params.length}::bigint[])`);
    } else parts.push(`campaign_id <> 0`);
    return parts.join(' AND ');
  }

  /**
   * Message and click figures grouped by `key` (an SQL expression over the rollups' columns; a function of the rollup's
   * grain when it reads the bucket), summed over the range's parts in one statement each. The range is read as
   * `rangeParts` splits it, never coarser than `coarsest` (0070): whole local months from month rows, the whole days
   * left from day rows, the partial first and last day from hour rows; a coarser row is the sum of the finer rows of its
   * local period, so every answer is the hour rollups' answer. `shape`: whether the key needs variant or country.
   */
  private async grouped(
    scope: Scope,
    range: Range,
    campaigns: string[] | null,
    key: Key,
    opts: { clickKey?: Key; coarsest?: Grain; shape?: 'wide' | 'narrow'; format?: (g: string) => string } = {},
  ): Promise<Map<string, Acc>> {
    const clickKey = opts.clickKey ?? key;
    const format = opts.format ?? ((g: string) => g);
    const parts = rangeParts(range, opts.coarsest ?? 'month');
    const k = (kk: Key, grain: Grain) => (typeof kk === 'string' ? kk : kk(grain));
    const union = (tables: Record<Grain, [string, Grain]>, cols: string, kk: Key, params: unknown[]) =>
      parts
        .map((p) => {
          const [table, grain] = tables[p.grain];
          return `SELECT ${k(kk, grain)} AS g, ${cols} FROM stats.${table} WHERE ${this.where(scope, p, campaigns, params)}`;
        })
        .join(' UNION ALL ');
    const mp: unknown[] = [];
    // grouped by the key's value, formatted (`format`) once per group rather than once per row
    const msgSql = `SELECT ${format('x.g')} AS g, status, currency, sum(messages)::bigint::text AS n, sum(parts)::bigint::text AS parts, sum(cost_micros)::text AS cost
                      FROM (${union(MSG_TABLES[opts.shape ?? 'narrow'], 'status, currency, messages, parts, cost_micros', key, mp)}) x GROUP BY x.g, status, currency`;
    const cp: unknown[] = [];
    const clickSql =
      clickKey === ''
        ? null
        : `SELECT ${format('x.g')} AS g, sum(clicks)::text AS clicks, sum(unique_clicks)::text AS uniq, sum(opted_out)::text AS opted
             FROM (${union(CLICK_TABLES, 'clicks, unique_clicks, opted_out', clickKey, cp)}) x GROUP BY x.g`;
    const [msgs, clicks] = await Promise.all([this.ds.query<Row[]>(msgSql, mp), clickSql === null ? Promise.resolve([] as Row[]) : this.ds.query<Row[]>(clickSql, cp)]);
    const out = new Map<string, Acc>();
    const get = (g: unknown) => {
      const k = String(g ?? '');
      let a = out.get(k);
      if (!a) out.set(k, (a = acc()));
      return a;
    };
    for (const r of msgs) {
      const a = get(r.g);
      const s = a.st.get(String(r.status)) ?? { n: 0, parts: 0 };
      a.st.set(String(r.status), { n: s.n + Number(r.n), parts: s.parts + Number(r.parts) });
      a.cost.set(String(r.currency), (a.cost.get(String(r.currency)) ?? 0n) + BigInt(String(r.cost)));
    }
    for (const r of clicks) {
      const a = get(r.g);
      a.clicks += Number(r.clicks);
      a.unique += Number(r.uniq);
      a.optedOut += Number(r.opted);
    }
    return out;
  }

  private figures(scope: Scope, a: Acc): CampaignFigures {
    const c = counts(a.st);
    return {
      ...c,
      cost: scope.cost ? money([...a.cost.entries()].map(([currency, micros]) => ({ currency, micros: micros.toString() }))) : null,
      clicks: a.clicks,
      uniqueClicks: a.unique,
      optedOut: a.optedOut,
      ctr: pct(a.unique, c.delivered),
    };
  }

  private async series(scope: Scope, range: Range, campaigns: string[] | null): Promise<{ grain: 'hour' | 'day' | 'month'; series: CampaignSeriesPoint[] }> {
    let span: number;
    if (range.start && range.endExclusive) span = range.endExclusive.getTime() - range.start.getTime();
    else {
      let lo: number | null = null;
      let hi: number | null = null;
      if (campaigns) {
        // the campaigns' own first and last hours (the key's probes; the bucket index would scan the account's hours)
        for (const sp of await this.spans(scope, range, campaigns)) {
          lo = Math.min(lo ?? Infinity, new Date(sp.lo).getTime());
          hi = Math.max(hi ?? -Infinity, new Date(sp.hi).getTime());
        }
      } else {
        const params: unknown[] = [];
        const where = this.where(scope, { grain: 'hour', lo: null, hi: null }, campaigns, params);
        const [b] = await this.ds.query<Array<{ lo: Date | null; hi: Date | null }>>(`SELECT min(bucket) AS lo, max(bucket) AS hi FROM stats.rollup_campaign_hour WHERE ${where}`, params);
        if (b.lo && b.hi) [lo, hi] = [new Date(b.lo).getTime(), new Date(b.hi).getTime()];
      }
      span = lo !== null && hi !== null ? hi - lo + 3_600_000 : 0;
    }
    const grain: 'hour' | 'day' | 'month' = span <= 3 * 86_400_000 ? 'hour' : span <= 400 * 86_400_000 ? 'day' : 'month';
    const zone = scope.timeZone.replace(/'/g, "''");
    // a day or month row's bucket is its local date (a month's first day) already; an hour row's is an instant, put on
    // its local date in the zone; the text of a point is made once per group
    const local = (g: Grain) => (g === 'hour' ? `(bucket AT TIME ZONE '${zone}')` : 'bucket');
    const key: Key = (g) => (grain === 'hour' ? 'bucket' : grain === 'day' ? `${local(g)}::date` : g === 'month' ? 'bucket' : `date_trunc('month', ${local(g)})::date`);
    const format = (g: string) => (grain === 'hour' ? `to_char(${g} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')` : `to_char(${g}, '${grain === 'day' ? 'YYYY-MM-DD' : 'YYYY-MM'}')`);
    const g = await this.grouped(scope, range, campaigns, key, { coarsest: grain, format });
    const series = [...g.entries()]
      .map(([bucket, a]) => {
        const c = counts(a.st);
        return { bucket, total: c.total, delivered: c.delivered, failed: c.failed, pending: c.pending, clicks: a.clicks };
      })
      .filter((p) => p.total !== 0 || p.clicks !== 0)
      .sort((x, y) => x.bucket.localeCompare(y.bucket));
    return { grain, series };
  }

  /** `GET /campaign_reports/delivery_stats/{id}`: totals, delivery over time (with clicks) and per country. */
  async deliveryStats(idRaw: unknown, q: Record<string, unknown>): Promise<CampaignDeliveryStatsDto> {
    const scope = await this.reports.scope(q);
    const c = await this.campaign(scope, idRaw);
    const range = await this.rangeOf(q, scope);
    const [total, byCountry, { grain, series }] = await Promise.all([
      this.grouped(scope, range, [c.id], `''`),
      this.grouped(scope, range, [c.id], 'iso2', { clickKey: '', shape: 'wide' }),
      this.series(scope, range, [c.id]),
    ]);
    const countries: CampaignCountryFigures[] = [...byCountry.entries()]
      .map(([country, a]) => {
        const k = counts(a.st);
        return { country, total: k.total, delivered: k.delivered, failed: k.failed };
      })
      .filter((x) => x.total > 0)
      .sort((x, y) => y.total - x.total || x.country.localeCompare(y.country));
    return {
      ...this.reports.rangeDto(scope, range),
      cached: false,
      campaignId: Number(c.id),
      name: c.name,
      grain,
      totals: this.figures(scope, total.get('') ?? acc()),
      series,
      countries,
    };
  }

  /** `GET /campaign_reports/variant_stats/{id}` and `/campaign_stats/per_variant?campaign=`: figures per variant. */
  async variantStats(idRaw: unknown, q: Record<string, unknown>): Promise<CampaignVariantStatsDto> {
    const scope = await this.reports.scope(q);
    const c = await this.campaign(scope, idRaw);
    const range = await this.rangeOf(q, scope);
    const g = await this.grouped(scope, range, [c.id], 'variant_id::text', { shape: 'wide' });
    const items = [...g.entries()]
      .map(([v, a]) => ({ variantId: v === '0' ? null : Number(v), ...this.figures(scope, a) }))
      .filter((x) => x.total > 0 || x.clicks > 0 || x.optedOut > 0)
      .sort((x, y) => (x.variantId ?? Number.MAX_SAFE_INTEGER) - (y.variantId ?? Number.MAX_SAFE_INTEGER));
    return { ...this.reports.rangeDto(scope, range), cached: false, campaignId: Number(c.id), items };
  }

  /** `GET /campaign_reports/domain_stats/{id}`: links minted, clicks and unique clicks per domain. */
  async domainStats(idRaw: unknown, q: Record<string, unknown>): Promise<CampaignDomainStatsDto> {
    const scope = await this.reports.scope(q);
    const c = await this.campaign(scope, idRaw);
    return { campaignId: Number(c.id), items: (await this.domainRows(scope, c.id)).map(({ campaignId: _c, ...d }) => d) };
  }

  /** Per campaign and domain: links minted (by the link's host, matched to the account's domain) and clicks. */
  private async domainRows(scope: Scope, campaign: string | null): Promise<Array<CampaignDomainStatsDto['items'][number] & { campaignId: number }>> {
    const rows = await this.ds.query<Array<{ c: string; id: string | null; name: string; usages: string; clicks: string; uniq: string }>>(
      `WITH k AS (
         -- all time: the click day rollup (a day row is the sum of its local date's hour rows; 0077), not every hour
         SELECT account_id, campaign_id, domain_id, sum(clicks) AS clicks, sum(unique_clicks) AS uniq FROM stats.campaign_click_day
          WHERE domain_id <> 0 AND ($1::bigint[] IS NULL OR account_id = ANY($1)) AND (($2::bigint IS NULL AND campaign_id <> 0) OR campaign_id = $2) GROUP BY 1, 2, 3),
       u AS (
         SELECT u.account_id, u.campaign_id, d.domain_id, u.domain_name, sum(u.usages) AS usages FROM stats.campaign_domain_usage u
           LEFT JOIN stats.domain d ON d.account_id = u.account_id AND d.name = u.domain_name
          WHERE ($1::bigint[] IS NULL OR u.account_id = ANY($1)) AND ($2::bigint IS NULL OR u.campaign_id = $2) GROUP BY 1, 2, 3, 4)
       SELECT coalesce(u.campaign_id, k.campaign_id)::text AS c, coalesce(u.domain_id, k.domain_id)::text AS id, coalesce(u.domain_name, d.name, '#' || k.domain_id) AS name,
              coalesce(u.usages, 0)::text AS usages, coalesce(k.clicks, 0)::text AS clicks, coalesce(k.uniq, 0)::text AS uniq
         FROM u FULL JOIN k ON k.account_id = u.account_id AND k.campaign_id = u.campaign_id AND k.domain_id = u.domain_id
         LEFT JOIN stats.domain d ON d.domain_id = k.domain_id
        LIMIT 20000`,
      [scope.accounts, campaign],
    );
    return rows
      .map((r) => {
        const usages = Number(r.usages);
        const uniq = Number(r.uniq);
        return { campaignId: Number(r.c), domainId: r.id === null ? null : Number(r.id), domain: r.name, usages, clicks: Number(r.clicks), uniqueClicks: uniq, ctr: pct(uniq, usages) };
      })
      .sort((x, y) => y.campaignId - x.campaignId || y.usages - x.usages || y.clicks - x.clicks || x.domain.localeCompare(y.domain));
  }

  /** `GET /campaign_stats`: figures per campaign over the slice (default: all time), paged, newest activity first. */
  async campaignStats(q: Record<string, unknown>): Promise<ListResult<CampaignStatsRowDto>> {
    const scope = await this.reports.scope(q);
    const range = await this.rangeOf(q, scope);
    const only = idList(q.campaigns ?? q.campaign, 'campaigns');
    const page = q.page === undefined ? 1 : Number(q.page);
    const per = q.itemsPerPage === undefined ? 30 : Number(q.itemsPerPage);
    if (!Number.isInteger(page) || page < 1) throw bad('page', 'page is a positive integer');
    if (!Number.isInteger(per) || per < 1 || per > 500) throw bad('itemsPerPage', 'itemsPerPage is an integer from 1 to 500');
    const rows = await this.rows(scope, range, only);
    return { items: rows.slice((page - 1) * per, page * per), total: rows.length };
  }

  private async rows(scope: Scope, range: Range, only: string[] | null, grouped?: Map<string, Acc>): Promise<CampaignStatsRowDto[]> {
    const g = grouped ?? (await this.grouped(scope, range, only, 'campaign_id::text'));
    const ids = [...g.keys()];
    if (ids.length === 0) return [];
    const [names, spans] = await Promise.all([
      this.ds.query<Array<{ id: string; name: string; status: number; account_id: string }>>(`SELECT campaign_id::text AS id, account_id::text, name, status FROM stats.campaign WHERE campaign_id = ANY($1::bigint[])`, [ids]),
      this.spans(scope, range, ids),
    ]);
    const byId = new Map(names.map((n) => [n.id, n]));
    const span = new Map(spans.map((s) => [s.id, s]));
    return ids
      .map((id) => {
        const s = span.get(id);
        return {
          campaignId: Number(id),
          name: byId.get(id)?.name ?? `#${id}`,
          status: byId.get(id)?.status ?? null,
          firstAt: s ? new Date(s.lo).toISOString() : null,
          lastAt: s ? new Date(s.hi).toISOString() : null,
          ...this.figures(scope, g.get(id) as Acc),
        };
      })
      .sort((x, y) => (y.lastAt ?? '').localeCompare(x.lastAt ?? '') || y.campaignId - x.campaignId);
  }

  /**
   * Each campaign's first and last hour with messages in the range. For one account: two probes of the campaign hour
   * rollup's key per campaign (its first and its last row in the range), not a scan of every hour of every campaign.
   */
  private async spans(scope: Scope, range: Range, ids: string[]): Promise<Array<{ id: string; lo: Date; hi: Date }>> {
    const params: unknown[] = [];
    if (scope.accounts === null || scope.accounts.length !== 1) {
      const where = this.where(scope, { grain: 'hour', lo: range.start?.toISOString() ?? null, hi: range.endExclusive?.toISOString() ?? null }, ids, params);
      return this.ds.query(`SELECT campaign_id::text AS id, min(bucket) AS lo, max(bucket) AS hi FROM stats.rollup_campaign_hour WHERE ${where} GROUP BY 1`, params);
    }
    const probe = (dir: 'ASC' | 'DESC') =>
      `SELECT h.bucket FROM stats.rollup_campaign_hour h WHERE h.account_id = $1::bigint AND h.campaign_id = c.id
          AND ($3::timestamptz IS NULL OR h.bucket >= $3::timestamptz) AND ($4::timestamptz IS NULL OR h.bucket < $4::timestamptz) ORDER BY h.bucket ${dir} LIMIT 1`;
    return this.ds.query(
      `SELECT c.id::text AS id, lo.bucket AS lo, hi.bucket AS hi FROM unnest($2::bigint[]) AS c(id)
        CROSS JOIN LATERAL (${probe('ASC')}) lo CROSS JOIN LATERAL (${probe('DESC')}) hi`,
      [scope.accounts[0], ids, range.start?.toISOString() ?? null, range.endExclusive?.toISOString() ?? null],
    );
  }

  /** `GET /campaign_stats/ctr?campaigns=`: unique clicks over delivered per campaign. */
  async ctr(q: Record<string, unknown>): Promise<ListResult<CampaignCtrDto>> {
    const scope = await this.reports.scope(q);
    const range = await this.rangeOf(q, scope);
    const rows = await this.rows(scope, range, idList(q.campaigns ?? q.campaign, 'campaigns'));
    const items = rows.map((r) => ({ campaignId: r.campaignId, name: r.name, delivered: r.delivered, uniqueClicks: r.uniqueClicks, clicks: r.clicks, ctr: r.ctr }));
    return { items, total: items.length };
  }

  /** `GET /campaign_stats/dashboard`: every campaign's totals over the slice (default one day back), a series, the four latest. */
  async dashboard(q: Record<string, unknown>): Promise<CampaignStatsDashboardDto> {
    const scope = await this.reports.scope(q);
    const range = await this.reports.range(q, scope.timeZone);
    // the totals are the campaigns' figures summed: one read of the rollups for both
    const [byCampaign, { grain, series }] = await Promise.all([this.grouped(scope, range, null, 'campaign_id::text'), this.series(scope, range, null)]);
    const total = acc();
    for (const a of byCampaign.values()) {
      for (const [status, v] of a.st) {
        const t = total.st.get(status) ?? { n: 0, parts: 0 };
        total.st.set(status, { n: t.n + v.n, parts: t.parts + v.parts });
      }
      for (const [currency, micros] of a.cost) total.cost.set(currency, (total.cost.get(currency) ?? 0n) + micros);
      total.clicks += a.clicks;
      total.unique += a.unique;
      total.optedOut += a.optedOut;
    }
    const rows = await this.rows(scope, range, null, byCampaign);
    return { ...this.reports.rangeDto(scope, range), cached: false, totals: this.figures(scope, total), grain, series, latest: rows.slice(0, 4) };
  }

  /**
   * `GET /campaign_domain_statistics`: usages, clicks and unique clicks per campaign and domain (every campaign of the
   * caller's account, or `campaign`), at most 2000 rows, newest campaign first.
   */
  async campaignDomainStatistics(q: Record<string, unknown>): Promise<ListResult<CampaignDomainStatisticsDto>> {
    const scope = await this.reports.scope({});
    const raw = q.campaign ?? q.campaignId;
    const only = raw === undefined || raw === '' ? null : campaignId(raw, 'campaign');
    const items = (await this.domainRows(scope, only))
      .filter((d): d is typeof d & { domainId: number } => d.domainId !== null)
      .slice(0, 2000)
      .map((d) => ({ campaignId: d.campaignId, domainId: d.domainId, domain: d.domain, usages: d.usages, clicks: d.clicks, uniqueClicks: d.uniqueClicks, ctr: d.ctr }));
    return { items, total: items.length };
  }
}

