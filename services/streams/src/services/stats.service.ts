import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { MessageStatus } from '@switchboard/contracts';
import { AppError, parseListQuery, RequestContext, type ListResult } from '@switchboard/platform';
import { Clock } from '../clock';
import { STREAMS_CONNECTION } from '../streams.options';
import { streamIdFrom } from './stream.service';
import type { MessageStatusDto } from '@switchboard/contracts';

export type { MessageStatusDto };

const STATUSES = Object.values(MessageStatus);


/** `message_status` (the figures per stream, `statistics` and `subscribe`, are the stats service's: docs/decisions/0028). */
@Injectable()
export class StatsService {
  constructor(
    @InjectDataSource(STREAMS_CONNECTION) private readonly ds: DataSource,
    private readonly clock: Clock,
  ) {}

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
    text: String(r.text ?? ''),
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
