import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { MessageStatus } from '@switchboard/contracts';
import { AppError, parseListQuery, RequestContext, type ListResult } from '@switchboard/platform';
import { Clock } from '../clock';
import { STREAMS_CONNECTION } from '../streams.options';
import { streamIdFrom } from './stream.service';

const STATUSES = Object.values(MessageStatus);
type Counts = Record<(typeof STATUSES)[number], number>;

export interface StreamStats extends Counts {
  streamId: number;
  streamUid: string;
  name: string;
  streamType: number;
  total: number;
  parts: number;
  cost: number;
}

export interface StatisticsDto {
  start: string | null;
  end: string | null;
  totals: Counts & { total: number; parts: number; cost: number };
  streams: StreamStats[];
}

export interface MessageStatusDto {
  message_uuid: string;
  stream_id: number;
  destination: string;
  sender: string;
  country: string | null;
  status: string;
  outgoing_status: string | null;
  error: string | null;
  parts: number;
  price: number;
  refunded: number;
  currency: string;
  demo: boolean;
  created_at: string;
  sent_at: string | null;
  delivered_at: string | null;
}

/** Spec 9 time slices; the numeric preview ids are day 1, week 2, month 3, year 4. */
const SLICE_IDS: Record<string, string> = { '1': 'day', '2': 'week', '3': 'month', '4': 'year' };
const SLICES = ['day', 'week', 'month', 'year', 'custom', 'all'];

const zero = (): Counts => Object.fromEntries(STATUSES.map((s) => [s, 0])) as Counts;

function parseDate(raw: unknown, field: string, endOfDay = false): Date | null {
  if (raw === undefined || raw === null || raw === '') return null;
  if (typeof raw !== 'string') throw AppError.validation([{ propertyPath: field, message: `${field} is an ISO date` }]);
  // Spec 9: date-only ranges run from 00:00:00 to 23:59:59.
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(raw);
  const d = new Date(dateOnly ? `${raw}T${endOfDay ? '23:59:59.999' : '00:00:00.000'}Z` : raw);
  if (Number.isNaN(d.getTime())) throw AppError.validation([{ propertyPath: field, message: `${field} is an ISO date` }]);
  return d;
}

/** Statistics per stream and status over the account's messages, the live `subscribe` slices, and `message_status`. */
@Injectable()
export class StatsService {
  constructor(
    @InjectDataSource(STREAMS_CONNECTION) private readonly ds: DataSource,
    private readonly clock: Clock,
  ) {}

  /** `GET /streams/statistics?start&end&streamId`: default one day back to now (spec 9). */
  statistics(query: Record<string, unknown>): Promise<StatisticsDto> {
    const now = this.clock.now();
    const start = parseDate(query.start, 'start') ?? new Date(now.getTime() - 86_400_000);
    const end = parseDate(query.end, 'end', true) ?? now;
    const streamId = query.streamId === undefined || query.streamId === '' ? null : streamIdFrom(query.streamId);
    return this.compute(start, end, streamId);
  }

  /** `POST /streams/subscribe {type, date?, start?, end?, streamId?}`: the figures of a time slice, asked again at an interval. */
  subscribe(dto: { type: unknown; date?: string; start?: string; end?: string; streamId?: unknown }): Promise<StatisticsDto> {
    const type = SLICE_IDS[String(dto.type)] ?? String(dto.type);
    if (!SLICES.includes(type)) throw AppError.validation([{ propertyPath: 'type', message: `type is one of ${SLICES.join(', ')}` }]);
    const anchor = parseDate(dto.date, 'date') ?? this.clock.now();
    let start: Date | null = null;
    let end: Date | null = null;
    const y = anchor.getUTCFullYear();
    const m = anchor.getUTCMonth();
    const d = anchor.getUTCDate();
    if (type === 'day') [start, end] = [new Date(Date.UTC(y, m, d)), new Date(Date.UTC(y, m, d + 1) - 1)];
    else if (type === 'week') {
      const monday = d - ((anchor.getUTCDay() + 6) % 7);
      [start, end] = [new Date(Date.UTC(y, m, monday)), new Date(Date.UTC(y, m, monday + 7) - 1)];
    } else if (type === 'month') [start, end] = [new Date(Date.UTC(y, m, 1)), new Date(Date.UTC(y, m + 1, 1) - 1)];
    else if (type === 'year') [start, end] = [new Date(Date.UTC(y, 0, 1)), new Date(Date.UTC(y + 1, 0, 1) - 1)];
    else if (type === 'custom') {
      start = parseDate(dto.start, 'start');
      end = parseDate(dto.end, 'end', true);
      if (!start || !end) throw AppError.validation([{ propertyPath: start ? 'end' : 'start', message: 'a custom slice needs start and end', code: 'required' }]);
    }
    if (start && end && start > end) throw AppError.validation([{ propertyPath: 'start', message: 'start is after end' }]);
    const streamId = dto.streamId === undefined || dto.streamId === null || dto.streamId === '' ? null : streamIdFrom(dto.streamId);
    return this.compute(start, end, streamId);
  }

  private async compute(start: Date | null, end: Date | null, streamId: string | null): Promise<StatisticsDto> {
    const accountId = RequestContext.accountId();
    const rows: Array<{ stream_id: string; stream_uid: string; name: string; stream_type: number; status: string; n: number; parts: string; cost: string }> = await this.ds.query(
      `SELECT s.id::text AS stream_id, s.stream_uid::text, s.name, s.stream_type, m.status, count(*)::int AS n,
              sum(m.segments)::text AS parts, sum(m.price_micros - m.refunded_micros)::text AS cost
         FROM streams.message m JOIN streams.stream s ON s.id = m.stream_id AND s.account_id = m.account_id
        WHERE m.account_id = $1 AND ($2::timestamptz IS NULL OR m.created_at >= $2) AND ($3::timestamptz IS NULL OR m.created_at <= $3)
          AND ($4::bigint IS NULL OR m.stream_id = $4)
        GROUP BY s.id, m.status ORDER BY s.id`,
      [accountId, start, end, streamId],
    );
    const totals = { ...zero(), total: 0, parts: 0, cost: 0 };
    const byStream = new Map<string, StreamStats>();
    for (const r of rows) {
      let s = byStream.get(r.stream_id);
      if (!s) byStream.set(r.stream_id, (s = { streamId: Number(r.stream_id), streamUid: r.stream_uid, name: r.name, streamType: r.stream_type, ...zero(), total: 0, parts: 0, cost: 0 }));
      const status = r.status as keyof Counts;
      s[status] = (s[status] ?? 0) + r.n;
      s.total += r.n;
      s.parts += Number(r.parts);
      s.cost += Number(r.cost);
      totals[status] = (totals[status] ?? 0) + r.n;
      totals.total += r.n;
      totals.parts += Number(r.parts);
      totals.cost += Number(r.cost);
    }
    const money = (micros: number): number => micros / 1_000_000;
    return {
      start: start ? start.toISOString() : null,
      end: end ? end.toISOString() : null,
      totals: { ...totals, cost: money(totals.cost) },
      streams: [...byStream.values()].map((s) => ({ ...s, cost: money(s.cost) })),
    };
  }

  /** `GET /streams/message_status?message_uuid=` (one) or `?streamId&status&page&itemsPerPage` (a page, newest first). */
  async messageStatus(query: Record<string, unknown>): Promise<MessageStatusDto | ListResult<MessageStatusDto>> {
    const accountId = RequestContext.accountId();
    const uuid = query.message_uuid ?? query.messageUuid;
    if (uuid !== undefined) {
      if (typeof uuid !== 'string' || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(uuid)) {
        throw AppError.validation([{ propertyPath: 'message_uuid', message: 'message_uuid is a UUID' }]);
      }
      const [row] = await this.ds.query(`SELECT * FROM streams.message WHERE account_id = $1 AND uuid = $2`, [accountId, uuid]);
      if (!row) throw AppError.notFound('message');
      return toStatus(row);
    }
    const q = parseListQuery(query, { sortable: ['createdAt'], defaultOrder: { createdAt: 'DESC' }, maxItemsPerPage: 500 });
    const streamId = query.streamId === undefined || query.streamId === '' ? null : streamIdFrom(query.streamId);
    const status = query.status === undefined || query.status === '' ? null : String(query.status);
    if (status !== null && !STATUSES.includes(status as (typeof STATUSES)[number])) throw AppError.validation([{ propertyPath: 'status', message: `status is one of ${STATUSES.join(', ')}` }]);
    const where = `account_id = $1 AND ($2::bigint IS NULL OR stream_id = $2) AND ($3::text IS NULL OR status = $3)`;
    const dir = q.order.createdAt === 'ASC' ? 'ASC' : 'DESC';
    const [rows, [{ n }]] = await Promise.all([
      this.ds.query(`SELECT * FROM streams.message WHERE ${where} ORDER BY created_at ${dir}, uuid ${dir} LIMIT $4 OFFSET $5`, [accountId, streamId, status, q.take, q.skip]),
      this.ds.query(`SELECT count(*)::int AS n FROM streams.message WHERE ${where}`, [accountId, streamId, status]),
    ]);
    return { items: (rows as Record<string, unknown>[]).map(toStatus), total: n };
  }
}

function toStatus(r: Record<string, unknown>): MessageStatusDto {
  const iso = (v: unknown): string | null => (v instanceof Date ? v.toISOString() : null);
  return {
    message_uuid: String(r.uuid),
    stream_id: Number(r.stream_id),
    destination: String(r.destination),
    sender: String(r.sender),
    country: (r.iso2 as string) ?? null,
    status: String(r.status),
    outgoing_status: (r.outgoing_status as string) ?? null,
    error: (r.error as string) ?? null,
    parts: Number(r.segments),
    price: Number(r.price_micros) / 1_000_000,
    refunded: Number(r.refunded_micros) / 1_000_000,
    currency: String(r.currency),
    demo: r.demo === true,
    created_at: iso(r.created_at) as string,
    sent_at: iso(r.sent_at),
    delivered_at: iso(r.delivered_at),
  };
}
