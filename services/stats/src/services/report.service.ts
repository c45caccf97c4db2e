import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import {
  ErrorCode,
  microsToAmount,
  Permission,
  TIME_SLICES,
  type DashboardMainDto,
  type DestinationFigures,
  type MoneyDto,
  type ReportRange,
  type SeriesPoint,
  type StatusCounts,
  type StreamFigures,
  type StreamsStatisticsDto,
  type StreamStatusCountsDto,
  type TimeSlice,
  type TopDestinationsDto,
} from '@switchboard/contracts';
import { AppError, RequestContext, type Principal } from '@switchboard/platform';
import { COUNT_TABLES, STATUS_COLUMNS, STATUSES } from '../rollup-shape';
import { STATS_CONNECTION } from '../stats.options';
import { ReportCache } from './report-cache';

const SLICE_IDS: Record<string, TimeSlice> = { '1': 'day', '2': 'week', '3': 'month', '4': 'year' };
export const FAILED = ['sent_failed', 'undelivered', 'no_routes', 'rejected'];
export const PENDING = ['accepted', 'sent'];
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** Who the report is of: one account (its zone and currency) or every account (super administrators). */
export interface Scope {
  account: string;
  accounts: string[] | null;
  timeZone: string;
  currency: string | null;
  cost: boolean;
  streams: boolean;
}

/** The resolved time range: [start, endExclusive) instants (null: open, the "all" slice). */
export interface Range {
  slice: TimeSlice | 'default';
  start: Date | null;
  endExclusive: Date | null;
  /**
   * The whole local days inside the range ([startDay, endDay) dates, from startAt to endAt as instants), or null when
   * it holds none; what lies between start and startAt and between endAt and endExclusive are partial days (hour rows).
   */
  fullDays: { startDay: string; endDay: string; startAt: Date; endAt: Date } | null;
  /** The whole local months inside the range ([startMonth, endMonth), first days of local months), or null (0070). */
  fullMonths: { startMonth: string; endMonth: string } | null;
}

/** The rollup grains, finest first. */
export type Grain = 'hour' | 'day' | 'month';

/**
 * One piece of a range and the rollup grain it is read at: hour rows over [lo, hi) instants (ISO), or day or month
 * rows over [lo, hi) local dates (a month row's bucket is the first day of its local month); null: open.
 */
export interface Part {
  grain: Grain;
  lo: string | null;
  hi: string | null;
}

/**
 * Where a range is read (docs/decisions/0060, 0070): the whole local months inside it from month rows, the whole
 * local days left at its ends from day rows, the partial first and last day from hour rows; never coarser than
 * `coarsest` (a daily series reads no month rows, an hourly one hour rows only). A coarser row is the sum of the finer
 * rows of its local period, so every answer is the hour rollups' answer over the same instants, from far fewer rows.
 */
export function rangeParts(range: Range, coarsest: Grain): Part[] {
  if (range.start === null || range.endExclusive === null) return [{ grain: coarsest, lo: range.start?.toISOString() ?? null, hi: range.endExclusive?.toISOString() ?? null }];
  const out: Part[] = [];
  const add = (grain: Grain, lo: string, hi: string) => {
    if (lo < hi) out.push({ grain, lo, hi });
  };
  const d = range.fullDays;
  const mo = range.fullMonths;
  if (coarsest === 'hour' || d === null) {
    add('hour', range.start.toISOString(), range.endExclusive.toISOString());
    return out;
  }
  if (coarsest === 'month' && mo !== null) {
    // the first whole month starts on a whole day at or after the first whole day; the last ends on or before the last
    add('month', mo.startMonth, mo.endMonth);
    add('day', d.startDay, mo.startMonth);
    add('day', mo.endMonth, d.endDay);
  } else add('day', d.startDay, d.endDay);
  add('hour', range.start.toISOString(), d.startAt.toISOString());
  add('hour', d.endAt.toISOString(), range.endExclusive.toISOString());
  return out;
}

/** The conditions of one part of a range in a scope (its accounts, the part's buckets); parameters appended to `params`. */
export function partConds(scope: Scope, part: Part, params: unknown[]): string[] {
  const parts: string[] = [];
  if (scope.accounts !== null) {
    params.push(scope.accounts.length === 1 ? scope.accounts[0] : scope.accounts);
    parts.push(scope.accounts.length === 1 ? `account_id = $${params.length}::bigint` : `account_id = ANY($${params.length}::bigint[])`);
  }
  const type = part.grain === 'hour' ? 'timestamptz' : 'date';
  if (part.lo !== null) {
    params.push(part.lo);
    parts.push(`bucket >= $${params.length}::${type}`);
  }
  if (part.hi !== null) {
    params.push(part.hi);
    parts.push(`bucket < $${params.length}::${type}`);
  }
  return parts;
}

/**
 * The rollup table of the dashboard's figures per grain. A row holds messages, parts and cost over every status and a
 * count per status (docs/decisions/0131, 0132). The figures per stream (main, series, stream statistics) and per country
 * (top destinations) read the same tables: a day or month row is per stream and country, and the per-stream figures
 * are its sums over the countries, in the statement that already sums the range's rows (docs/decisions/0175: no rollup
 * per stream alone is written, two row writes fewer a message in the ingest).
 */
const TABLES: Record<Grain, string> = { hour: COUNT_TABLES.hour, day: COUNT_TABLES.dayCountry, month: COUNT_TABLES.monthCountry };

/** The count columns summed, as text named after themselves (a row's counts then read by statusCounts). */
const COUNT_SUMS = STATUS_COLUMNS.map((c) => `sum(${c})::bigint::text AS ${c}`).join(', ');
/** The failed statuses' and the pending statuses' count columns, and their sums. */
const FAILED_COLUMNS = FAILED.map((s) => `n_${s}`).join(', ');
const PENDING_COLUMNS = PENDING.map((s) => `n_${s}`).join(', ');
const FAILED_SUM = FAILED.map((s) => `n_${s}`).join(' + ');
const PENDING_SUM = PENDING.map((s) => `n_${s}`).join(' + ');

interface Filters {
  streams: string[] | null;
}

type Row = Record<string, string | number | null>;

export const bad = (field: string, message: string): AppError => AppError.validation([{ propertyPath: field, message }]);

export function idList(raw: unknown, field: string): string[] | null {
  if (raw === undefined || raw === null || raw === '') return null;
  const list = Array.isArray(raw) ? raw : String(raw).split(',');
  const ids = list.map((v) => {
    const m = /^(?:\/api\/[a-z_]+\/)?(\d{1,18})$/.exec(String(v).trim());
    if (!m || /^0+$/.test(m[1])) throw bad(field, `${field} are stream ids`);
    return m[1].replace(/^0+/, '');
  });
  if (ids.length > 500) throw bad(field, `${field}: at most 500`);
  return ids.length > 0 ? [...new Set(ids)] : null;
}

function instant(raw: unknown, field: string): string | null {
  if (raw === undefined || raw === null || raw === '') return null;
  if (typeof raw !== 'string' || raw.length > 40) throw bad(field, `${field} is a date (YYYY-MM-DD) or an ISO date-time`);
  if (DATE_ONLY.test(raw)) {
    if (Number.isNaN(Date.parse(`${raw}T00:00:00Z`)) || new Date(`${raw}T00:00:00Z`).toISOString().slice(0, 10) !== raw) throw bad(field, `${field} is not a calendar date`);
    return raw;
  }
  if (!/^\d{4}-\d{2}-\d{2}T/.test(raw) || Number.isNaN(Date.parse(raw))) throw bad(field, `${field} is a date (YYYY-MM-DD) or an ISO date-time`);
  return new Date(raw).toISOString();
}

export function money(rows: Array<{ currency: string; micros: string }>): MoneyDto[] {
  return rows
    .filter((r) => r.currency !== '' && BigInt(r.micros) !== 0n)
    .map((r) => ({ currency: r.currency, micros: BigInt(r.micros).toString(), amount: microsToAmount(r.micros) }))
    .sort((a, b) => a.currency.localeCompare(b.currency));
}

/** A row's count per status (STATUSES' order) from its summed count columns (COUNT_SUMS). */
function statusCounts(r: Row): number[] {
  return STATUS_COLUMNS.map((c) => Number(r[c]));
}

/** Per-status counts and parts added up from rows of the count shape (what `counts` takes, a status at a time). */
class Tally {
  readonly n = STATUSES.map(() => 0);
  parts = 0;

  add(n: readonly number[], parts: number): void {
    for (let j = 0; j < n.length; j++) this.n[j] += n[j];
    this.parts += parts;
  }

  counts(): StatusCounts {
    const c = counts(new Map(STATUSES.map((s, j) => [s, { n: this.n[j], parts: 0 }])));
    c.parts = this.parts;
    return c;
  }
}

export function counts(byStatus: Map<string, { n: number; parts: number }>): StatusCounts {
  const c: StatusCounts = { total: 0, accepted: 0, sent: 0, delivered: 0, sent_failed: 0, undelivered: 0, no_routes: 0, rejected: 0, failed: 0, pending: 0, parts: 0 };
  for (const [status, v] of byStatus) {
    if (status in c && status !== 'total' && status !== 'failed' && status !== 'pending' && status !== 'parts') (c as unknown as Record<string, number>)[status] += v.n;
    c.total += v.n;
    c.parts += v.parts;
    if (FAILED.includes(status)) c.failed += v.n;
    if (PENDING.includes(status)) c.pending += v.n;
  }
  return c;
}

/**
 * The report calls of spec 7 that exist without campaigns and links, answered from the rollups: `dashboard_statistics`
 * main (totals per status, cost per currency, a series over the time slice, per stream) and top_destinations. Ranges
 * resolve in the account's time zone; day-aligned ranges read the day rollups, others the hour rollups.
 */
@Injectable()
export class ReportService {
  constructor(
    @InjectDataSource(STATS_CONNECTION) private readonly ds: DataSource,
    private readonly cache: ReportCache,
  ) {}

  async main(body: Record<string, unknown>): Promise<DashboardMainDto> {
    const scope = await this.scope(body);
    const filters: Filters = { streams: idList(body.streams ?? body.streamId, 'streams') };
    const key = JSON.stringify(['main', scope.cost, scope.streams, body.type ?? body.timeSlice ?? null, body.start ?? null, body.end ?? null, filters, body.date ?? null]);
    const { value, cached } = await this.cache.get(scope.account, key, async () => {
      const range = await this.range(body, scope.timeZone);
      return this.computeMain(scope, range, filters);
    });
    return { ...value, cached };
  }

  async topDestinations(body: Record<string, unknown>): Promise<TopDestinationsDto> {
    const scope = await this.scope(body);
    const filters: Filters = { streams: idList(body.streams ?? body.streamId, 'streams') };
    const limitRaw = body.limit ?? 10;
    const limit = Number(limitRaw);
    if (!Number.isInteger(limit) || limit < 1 || limit > 250) throw bad('limit', 'limit is an integer from 1 to 250');
    const key = JSON.stringify(['top', scope.cost, body.type ?? body.timeSlice ?? null, body.start ?? null, body.end ?? null, filters, limit, body.date ?? null]);
    const { value, cached } = await this.cache.get(scope.account, key, async () => {
      const range = await this.range(body, scope.timeZone);
      const params: unknown[] = [];
      const rows = await this.ds.query<Row[]>(
        `SELECT iso2, currency, sum(messages)::bigint::text AS n, sum(n_delivered)::bigint::text AS delivered, sum(${FAILED_SUM})::bigint::text AS failed, sum(cost_micros)::text AS cost
           FROM (${this.union(scope, rangeParts(range, 'month'), filters, () => `iso2, currency, messages, n_delivered, ${FAILED_COLUMNS}, cost_micros`, params)}) x GROUP BY iso2, currency`,
        params,
      );
      const byCountry = new Map<string, { total: number; delivered: number; failed: number; cost: Map<string, bigint> }>();
      for (const r of rows) {
        const k = String(r.iso2);
        const c = byCountry.get(k) ?? { total: 0, delivered: 0, failed: 0, cost: new Map<string, bigint>() };
        c.total += Number(r.n);
        c.delivered += Number(r.delivered);
        c.failed += Number(r.failed);
        c.cost.set(String(r.currency), (c.cost.get(String(r.currency)) ?? 0n) + BigInt(String(r.cost)));
        byCountry.set(k, c);
      }
      const items: DestinationFigures[] = [...byCountry.entries()]
        .filter(([, c]) => c.total > 0)
        .sort((a, b) => b[1].total - a[1].total || a[0].localeCompare(b[0]))
        .slice(0, limit)
        .map(([country, c]) => ({
          country,
          total: c.total,
          delivered: c.delivered,
          failed: c.failed,
          cost: scope.cost ? money([...c.cost.entries()].map(([currency, micros]) => ({ currency, micros: micros.toString() }))) : null,
        }));
      return { ...this.rangeDto(scope, range), items };
    });
    return { ...value, cached };
  }

  private async computeMain(scope: Scope, range: Range, filters: Filters): Promise<Omit<DashboardMainDto, 'cached'>> {
    const params: unknown[] = [];
    const rows = await this.ds.query<Row[]>(
      `SELECT stream_id::text AS stream, currency, ${COUNT_SUMS}, sum(parts)::bigint::text AS parts, sum(cost_micros)::text AS cost
         FROM (${this.union(scope, rangeParts(range, 'month'), filters, () => `stream_id, currency, ${STATUS_COLUMNS.join(', ')}, parts, cost_micros`, params)}) x GROUP BY stream_id, currency`,
      params,
    );
    const all = new Tally();
    const cost = new Map<string, bigint>();
    const perStream = new Map<string, { st: Tally; cost: Map<string, bigint> }>();
    for (const r of rows) {
      const n = statusCounts(r);
      const parts = Number(r.parts);
      const c = BigInt(String(r.cost));
      const cur = String(r.currency);
      all.add(n, parts);
      cost.set(cur, (cost.get(cur) ?? 0n) + c);
      const s = perStream.get(String(r.stream)) ?? { st: new Tally(), cost: new Map() };
      s.st.add(n, parts);
      s.cost.set(cur, (s.cost.get(cur) ?? 0n) + c);
      perStream.set(String(r.stream), s);
    }
    const toMoney = (m: Map<string, bigint>) => money([...m.entries()].map(([currency, micros]) => ({ currency, micros: micros.toString() })));
    let streams: StreamFigures[] | null = null;
    if (scope.streams) {
      const ids = [...perStream.keys()];
      const names = ids.length
        ? await this.ds.query<Array<{ id: string; name: string; stream_type: number }>>(`SELECT stream_id::text AS id, name, stream_type FROM stats.stream WHERE stream_id = ANY($1::bigint[])`, [ids])
        : [];
      const byId = new Map(names.map((n) => [n.id, n]));
      streams = [...perStream.entries()]
        .map(([id, s]) => ({ streamId: Number(id), name: byId.get(id)?.name ?? `#${id}`, streamType: byId.get(id)?.stream_type ?? null, ...s.st.counts(), cost: scope.cost ? toMoney(s.cost) : null }))
        .filter((s) => s.total > 0)
        .sort((a, b) => b.total - a.total || a.streamId - b.streamId);
    }
    const { grain, series } = await this.series(scope, range, filters);
    return {
      ...this.rangeDto(scope, range),
      totals: all.counts(),
      cost: scope.cost ? toMoney(cost) : null,
      currency: scope.currency,
      grain,
      series,
      streams,
      clicked: filters.streams ? null : await this.clicked(scope, range),
      waiting: [],
    };
  }

  /**
   * Recipients who clicked in the range (first clicks, every campaign and link of the scope), from the click rollups:
   * the day rollup for the range's whole local days, the hour rollup for its partial first and last day (0060).
   */
  private async clicked(scope: Scope, range: Range): Promise<number> {
    const params: unknown[] = [];
    const part = (table: string, lo: string | null, hi: string | null, type: string) => {
      const parts: string[] = [];
      if (scope.accounts !== null) {
        params.push(scope.accounts);
        parts.push(`account_id = ANY($${params.length}::bigint[])`);
      }
      if (lo !== null) {
        params.push(lo);
        parts.push(`bucket >= $${params.length}::${type}`);
      }
      if (hi !== null) {
        params.push(hi);
        parts.push(`bucket < $${params.length}::${type}`);
      }
      return `SELECT unique_clicks FROM stats.${table} WHERE ${parts.length ? parts.join(' AND ') : 'true'}`;
    };
    const iso = (d: Date | null) => d?.toISOString() ?? null;
    const f = range.fullDays;
    const branches =
      range.start === null && range.endExclusive === null
        ? [part('campaign_click_day', null, null, 'date')]
        : f && range.start && range.endExclusive
          ? [
              part('campaign_click_day', f.startDay, f.endDay, 'date'),
              ...(range.start < f.startAt ? [part('campaign_click_hour', iso(range.start), iso(f.startAt), 'timestamptz')] : []),
              ...(f.endAt < range.endExclusive ? [part('campaign_click_hour', iso(f.endAt), iso(range.endExclusive), 'timestamptz')] : []),
            ]
          : [part('campaign_click_hour', iso(range.start), iso(range.endExclusive), 'timestamptz')];
    const [r] = await this.ds.query<Array<{ n: string }>>(`SELECT coalesce(sum(unique_clicks), 0)::text AS n FROM (${branches.join(' UNION ALL ')}) x`, params);
    return Number(r.n);
  }

  /**
   * `GET /streams/statistics?start&end&streamId` (default one day back to now) and `POST /streams/subscribe
   * {type, date?, start?, end?, streamId?}` (a time slice, asked again at an interval): the stream pages' figures per
   * stream and status, from the same rollups and ranges as the dashboard (the account's zone; date-only ends 23:59:59),
   * so the stream pages and the dashboard agree. Not cached: the stream pages refetch on every change they are told of.
   */
  async streamStatistics(query: Record<string, unknown>): Promise<StreamsStatisticsDto> {
    return this.streamFigures({ start: query.start, end: query.end }, query.streamId);
  }

  async streamSubscribe(body: Record<string, unknown>): Promise<StreamsStatisticsDto> {
    if (body.type === undefined || body.type === null || body.type === '') throw bad('type', `type is one of ${TIME_SLICES.join(', ')}`);
    return this.streamFigures({ type: body.type, date: body.date, start: body.start, end: body.end }, body.streamId);
  }

  private async streamFigures(rangeBody: Record<string, unknown>, streamId: unknown): Promise<StreamsStatisticsDto> {
    const scope = await this.scope({});
    const filters: Filters = { streams: streamId === undefined || streamId === null || streamId === '' ? null : idList([streamId], 'streamId') };
    const range = await this.range(rangeBody, scope.timeZone);
    const params: unknown[] = [];
    const rows = await this.ds.query<Row[]>(
      `SELECT stream_id::text AS stream, ${COUNT_SUMS}, sum(parts)::bigint::text AS parts, sum(cost_micros)::text AS cost
         FROM (${this.union(scope, rangeParts(range, 'month'), filters, () => `stream_id, ${STATUS_COLUMNS.join(', ')}, parts, cost_micros`, params)}) x GROUP BY stream_id`,
      params,
    );
    const zero = (): StreamStatusCountsDto => ({ accepted: 0, sent: 0, delivered: 0, sent_failed: 0, undelivered: 0, no_routes: 0, rejected: 0, total: 0, parts: 0, cost: 0 });
    const totals = zero();
    let totalCost = 0n;
    const per = new Map<string, { c: StreamStatusCountsDto; cost: bigint }>();
    for (const r of rows) {
      const n = statusCounts(r);
      const parts = Number(r.parts);
      const cost = BigInt(String(r.cost));
      const s = per.get(String(r.stream)) ?? { c: zero(), cost: 0n };
      for (const c of [s.c, totals]) {
        for (let j = 0; j < STATUSES.length; j++) {
          c[STATUSES[j]] += n[j];
          c.total += n[j];
        }
        c.parts += parts;
      }
      s.cost += cost;
      totalCost += cost;
      per.set(String(r.stream), s);
    }
    const ids = [...per.entries()].filter(([, s]) => s.c.total !== 0).map(([id]) => id);
    const names = ids.length
      ? await this.ds.query<Array<{ id: string; uid: string; name: string; stream_type: number }>>(
          `SELECT stream_id::text AS id, stream_uid::text AS uid, name, stream_type FROM stats.stream WHERE stream_id = ANY($1::bigint[]) AND account_id = $2`,
          [ids, scope.account],
        )
      : [];
    const byId = new Map(names.map((n) => [n.id, n]));
    const units = (micros: bigint) => Number(microsToAmount(micros));
    return {
      start: range.start ? range.start.toISOString() : null,
      end: range.endExclusive ? new Date(range.endExclusive.getTime() - 1).toISOString() : null,
      totals: { ...totals, cost: units(totalCost) },
      streams: ids
        .map((id) => {
          const s = per.get(id) as { c: StreamStatusCountsDto; cost: bigint };
          const n = byId.get(id);
          return { streamId: Number(id), streamUid: n?.uid ?? '', name: n?.name ?? `#${id}`, streamType: n?.stream_type ?? 0, ...s.c, cost: units(s.cost) };
        })
        .sort((a, b) => a.streamId - b.streamId),
    };
  }

  /** Hours over a range of up to three days, else days (months beyond 400 days); always summing to the totals. */
  private async series(scope: Scope, range: Range, filters: Filters): Promise<{ grain: 'hour' | 'day' | 'month'; series: SeriesPoint[] }> {
    let span = Infinity;
    if (range.start && range.endExclusive) span = range.endExclusive.getTime() - range.start.getTime();
    else if (range.start === null && range.endExclusive === null) {
      const scopeArgs = scope.accounts === null ? [] : [scope.accounts];
      const [b] = await this.ds.query<Array<{ lo: string | null; hi: string | null }>>(
        `SELECT min(bucket)::text AS lo, max(bucket)::text AS hi FROM stats.${COUNT_TABLES.dayCountry} ${scope.accounts === null ? '' : 'WHERE account_id = ANY($1::bigint[])'}`,
        scopeArgs,
      );
      span = b.lo && b.hi ? Date.parse(b.hi) - Date.parse(b.lo) + 86_400_000 : 0;
    }
    const grain: Grain = span <= 3 * 86_400_000 ? 'hour' : span <= 400 * 86_400_000 ? 'day' : 'month';
    const zone = `'${scope.timeZone.replace(/'/g, "''")}'`;
    // a point's rows: the range's parts no coarser than the point (0070), grouped by the bucket's value (an instant, a
    // local date or month; an hour row's instant is put on its local date or month in the zone), the text made once
    const key = (g: Grain): string =>
      grain === 'hour' || g === grain ? 'bucket' : g === 'hour' ? `${grain === 'day' ? '' : "date_trunc('month', "}(bucket AT TIME ZONE ${zone})${grain === 'day' ? '' : ')'}::date` : `date_trunc('month', bucket)::date`;
    const format = grain === 'hour' ? `to_char(x.b AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')` : `to_char(x.b, '${grain === 'day' ? 'YYYY-MM-DD' : 'YYYY-MM'}')`;
    const params: unknown[] = [];
    const rows = await this.ds.query<Row[]>(
      `SELECT ${format} AS b, n::text, delivered::text, failed::text, pending::text, cost::text FROM (
         SELECT b, sum(messages)::bigint AS n, sum(n_delivered)::bigint AS delivered, sum(${FAILED_SUM})::bigint AS failed, sum(${PENDING_SUM})::bigint AS pending, sum(cost_micros) AS cost
           FROM (${this.union(scope, rangeParts(range, grain), filters, (g) => `${key(g)} AS b, messages, n_delivered, ${FAILED_COLUMNS}, ${PENDING_COLUMNS}, cost_micros`, params)}) u GROUP BY b) x ORDER BY x.b`,
      params,
    );
    const points = new Map<string, { total: number; delivered: number; failed: number; pending: number; cost: bigint }>();
    for (const r of rows) {
      const p = points.get(String(r.b)) ?? { total: 0, delivered: 0, failed: 0, pending: 0, cost: 0n };
      p.total += Number(r.n);
      p.delivered += Number(r.delivered);
      p.failed += Number(r.failed);
      p.pending += Number(r.pending);
      p.cost += BigInt(String(r.cost));
      points.set(String(r.b), p);
    }
    const series = [...points.entries()]
      .filter(([, p]) => p.total !== 0 || p.cost !== 0n)
      .map(([bucket, p]) => ({ bucket, total: p.total, delivered: p.delivered, failed: p.failed, pending: p.pending, costMicros: scope.cost ? p.cost.toString() : null }));
    return { grain, series };
  }

  /** The rows of every part of a range in one statement (UNION ALL), `cols` per grain; the parameters appended to `params`. */
  private union(scope: Scope, parts: Part[], filters: Filters, cols: (g: Grain) => string, params: unknown[]): string {
    return parts.map((p) => `SELECT ${cols(p.grain)} FROM stats.${TABLES[p.grain]} WHERE ${this.cond(scope, p, filters, params)}`).join(' UNION ALL ');
  }

  private cond(scope: Scope, part: Part, filters: Filters, params: unknown[]): string {
    const parts = partConds(scope, part, params);
    if (filters.streams) {
      params.push(filters.streams);
      parts.push(`stream_id = ANY($${params.length}::bigint[])`);
    }
    return parts.length ? parts.join(' AND ') : 'true';
  }

  rangeDto(scope: Scope, range: Range): Omit<ReportRange, 'cached'> {
    return {
      slice: range.slice,
      start: range.start ? range.start.toISOString() : null,
      end: range.endExclusive ? new Date(range.endExclusive.getTime() - 1000).toISOString() : null,
      timeZone: scope.timeZone,
      account: scope.account,
    };
  }

  /**
   * Spec 9: no slice means one day back to now; day, week (from Monday), month and year are the current ones in the
   * account's zone; custom takes start and end (a date-only start is its 00:00:00, a date-only end its 23:59:59, in the
   * account's zone); all is unbounded.
   */
  async range(body: Record<string, unknown>, timeZone: string): Promise<Range> {
    const rawType = body.type ?? body.timeSlice;
    const slice: TimeSlice | 'default' =
      rawType === undefined || rawType === null || rawType === '' ? 'default' : (SLICE_IDS[String(rawType)] ?? (String(rawType) as TimeSlice));
    if (slice !== 'default' && !TIME_SLICES.includes(slice)) throw bad('type', `type is one of ${TIME_SLICES.join(', ')}`);
    const now = new Date();
    const anchor = instant(body.date, 'date');
    let sql: string;
    let params: unknown[];
    if (slice === 'default') {
      const start = instant(body.start, 'start');
      const end = instant(body.end, 'end');
      sql = `SELECT ${start ? (DATE_ONLY.test(start) ? `($1::date)::timestamp AT TIME ZONE $3` : `$1::timestamptz`) : `$4::timestamptz - interval '1 day'`} AS s,
                    ${end ? (DATE_ONLY.test(end) ? `($2::date + 1)::timestamp AT TIME ZONE $3` : `$2::timestamptz + interval '1 millisecond'`) : `$4::timestamptz + interval '1 millisecond'`} AS e, $1::text AS p1, $2::text AS p2, $3::text AS z, $4::timestamptz AS n`;
      params = [start, end, timeZone, now.toISOString()];
    } else if (slice === 'custom') {
      const start = instant(body.start, 'start');
      const end = instant(body.end, 'end');
      if (!start || !end) throw AppError.validation([{ propertyPath: start ? 'end' : 'start', message: 'a custom slice needs start and end', code: 'required' }]);
      sql = `SELECT ${DATE_ONLY.test(start) ? `($1::date)::timestamp AT TIME ZONE $3` : `$1::timestamptz`} AS s,
                    ${DATE_ONLY.test(end) ? `($2::date + 1)::timestamp AT TIME ZONE $3` : `$2::timestamptz + interval '1 millisecond'`} AS e, $3::text AS z`;
      params = [start, end, timeZone];
    } else if (slice === 'all') {
      return { slice, start: null, endExclusive: null, fullDays: null, fullMonths: null };
    } else {
      const unit = slice;
      const a = anchor ? (DATE_ONLY.test(anchor) ? `($1::date)::timestamp` : `($1::timestamptz AT TIME ZONE $2)`) : `($1::timestamptz AT TIME ZONE $2)`;
      sql = `SELECT date_trunc('${unit}', ${a}) AT TIME ZONE $2 AS s, (date_trunc('${unit}', ${a}) + interval '1 ${unit}') AT TIME ZONE $2 AS e`;
      params = [anchor ?? now.toISOString(), timeZone];
    }
    const [r] = await this.ds.query<Array<{ s: Date; e: Date }>>(sql, params);
    const start = new Date(r.s);
    const endExclusive = new Date(r.e);
    if (!(start < endExclusive)) throw bad('start', 'start is after end');
    // the whole local days: from the first local date starting at or after start to the local date end falls in; the
    // whole local months likewise (their first days)
    const [al] = await this.ds.query<Array<{ fs: string; fe: string; ms: Date; me: Date; mfs: string; mfe: string }>>(
      `SELECT f.fs::text AS fs, f.fe::text AS fe, f.fs::timestamp AT TIME ZONE $3 AS ms, f.fe::timestamp AT TIME ZONE $3 AS me, f.mfs::text AS mfs, f.mfe::text AS mfe
         FROM (SELECT (($1::timestamptz - interval '1 microsecond') AT TIME ZONE $3)::date + 1 AS fs, ($2::timestamptz AT TIME ZONE $3)::date AS fe,
                      (date_trunc('month', ($1::timestamptz - interval '1 microsecond') AT TIME ZONE $3) + interval '1 month')::date AS mfs,
                      date_trunc('month', $2::timestamptz AT TIME ZONE $3)::date AS mfe) f`,
      [start.toISOString(), endExclusive.toISOString(), timeZone],
    );
    const fullDays = al.fs < al.fe ? { startDay: al.fs, endDay: al.fe, startAt: new Date(al.ms), endAt: new Date(al.me) } : null;
    const fullMonths = al.mfs < al.mfe ? { startMonth: al.mfs, endMonth: al.mfe } : null;
    return { slice, start, endExclusive, fullDays, fullMonths };
  }

  /**
   * The caller's account, or for a super administrator the account asked for (`accountId`, `"all"` for every one).
   * Anyone else naming another account is refused. Cost figures need COST_VIEW, per-stream figures STREAM_VIEW.
   */
  async scope(body: Record<string, unknown>): Promise<Scope> {
    const p = RequestContext.principal() as Principal;
    const own = RequestContext.accountId();
    const asked = body.accountId ?? body.customerId;
    let account = own;
    if (asked !== undefined && asked !== null && asked !== '') {
      const s = String(asked).trim();
      const m = /^(?:\/api\/customers\/)?(\d{1,18})$/.exec(s);
      if (s !== 'all' && !m) throw bad('accountId', 'accountId is an account id or "all"');
      const target = s === 'all' ? 'all' : (m as RegExpExecArray)[1].replace(/^0+/, '');
      if (target !== own && !p.superAdmin) throw AppError.forbidden('only super administrators see other accounts', ErrorCode.AccessDenied);
      account = target;
    }
    const has = (perm: string) => p.superAdmin || p.permissions.includes(perm);
    if (account === 'all') return { account, accounts: null, timeZone: 'UTC', currency: null, cost: has(Permission.CostView), streams: has(Permission.StreamView) };
    const [a] = await this.ds.query<Array<{ time_zone: string; currency: string }>>(`SELECT time_zone, currency FROM stats.account WHERE account_id = $1`, [account]);
    return { account, accounts: [account], timeZone: a?.time_zone ?? 'UTC', currency: a?.currency ?? null, cost: has(Permission.CostView), streams: has(Permission.StreamView) };
  }
}
