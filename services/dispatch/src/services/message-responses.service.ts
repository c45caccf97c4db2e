import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, parseListQuery, RequestContext, type ListResult } from '@switchboard/platform';
import { DISPATCH_CONNECTION } from '../dispatch.options';

export interface MessageResponseDto {
  id: number;
  uuid: string;
  streamUid: string;
  channel: string;
  /** The contact who wrote (their number, or a Telegram chat id): an inbound message comes from them. */
  source: string;
  /** Where it was sent: our number / phone number id / bot. */
  destination: string;
  contactName: string | null;
  messageType: string;
  message: string;
  media: Record<string, unknown> | null;
  receivedAt: string;
}

export interface ChatItemDto {
  direction: 'in' | 'out';
  uuid: string;
  message: string;
  status: string | null;
  at: string;
}

const SORTABLE = ['id', 'receivedAt'] as const;
const COLUMN: Record<string, string> = { id: 'id', receivedAt: 'received_at' };

function phoneParam(v: unknown, name: string): string | undefined {
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string' || v.length > 64) throw AppError.validation([{ propertyPath: name, message: `${name} must be a phone, chat id or sender` }]);
  return v;
}

/** Inbound messages of the caller's account (GET /api/message_responses and /chat). Tenant-scoped by account_id. */
@Injectable()
export class MessageResponsesService {
  constructor(@InjectDataSource(DISPATCH_CONNECTION) private readonly ds: DataSource) {}

  async list(query: Record<string, unknown>): Promise<ListResult<MessageResponseDto>> {
    const accountId = RequestContext.accountId();
    const q = parseListQuery(query, { sortable: SORTABLE });
    const params: unknown[] = [accountId];
    const where = ['account_id = $1'];
    const source = phoneParam(query.source, 'source');
    const destination = phoneParam(query.destination, 'destination');
    // an inbound message's source is the contact, its destination our number (docs/decisions/0021)
    if (source) {
      params.push(source);
      where.push(`contact_phone = $${params.length}`);
    }
    if (destination) {
      params.push(destination);
      where.push(`account_phone = $${params.length}`);
    }
    const order = Object.entries(q.order).map(([f, d]) => `${COLUMN[f]} ${d}`).join(', ');
    const [{ total }] = await this.ds.query<Array<{ total: string }>>(`SELECT count(*) AS total FROM dispatch.inbound_message WHERE ${where.join(' AND ')}`, params);
    const rows = await this.ds.query<Array<Record<string, unknown>>>(
      `SELECT id, uuid, stream_uid, channel, account_phone, contact_phone, contact_name, message_type, body, media, received_at
         FROM dispatch.inbound_message WHERE ${where.join(' AND ')} ORDER BY ${order}, id DESC OFFSET $${params.length + 1} LIMIT $${params.length + 2}`,
      [...params, q.skip, q.take],
    );
    return {
      total: Number(total),
      items: rows.map((r) => ({
        id: Number(r.id),
        uuid: String(r.uuid),
        streamUid: String(r.stream_uid),
        channel: String(r.channel),
        source: String(r.contact_phone),
        destination: String(r.account_phone),
        contactName: (r.contact_name as string | null) ?? null,
        messageType: String(r.message_type),
        message: String(r.body),
        media: (r.media as Record<string, unknown> | null) ?? null,
        receivedAt: new Date(r.received_at as string).toISOString(),
      })),
    };
  }

  /** Both directions between our `source` and the contact `destination`, newest first (last 100). */
  async chat(query: Record<string, unknown>): Promise<ListResult<ChatItemDto>> {
    const accountId = RequestContext.accountId();
    const destination = phoneParam(query.destination, 'destination');
    const source = phoneParam(query.source, 'source');
    if (!destination) throw AppError.validation([{ propertyPath: 'destination', message: 'destination is required' }]);
    const variants = (v: string) => [v, v.replace(/^\+/, ''), `+${v.replace(/^\+/, '')}`];
    const params: unknown[] = [accountId, variants(destination)];
    const srcIn = source ? (params.push(variants(source)), `AND account_phone = ANY($3::text[])`) : '';
    const srcOut = source ? `AND sender = ANY($3::text[])` : '';
    const rows = await this.ds.query<Array<{ direction: 'in' | 'out'; uuid: string; body: string; status: string | null; at: Date }>>(
      `(SELECT 'in' AS direction, uuid, body, NULL AS status, received_at AS at FROM dispatch.inbound_message
         WHERE account_id = $1 AND contact_phone = ANY($2::text[]) ${srcIn} ORDER BY id DESC LIMIT 100)
       UNION ALL
       (SELECT 'out', uuid, body, status, accepted_at FROM dispatch.message
         WHERE destination = ANY($2::text[]) AND account_id = $1 ${srcOut} ORDER BY id DESC LIMIT 100)
       ORDER BY at DESC LIMIT 100`,
      params,
    );
    return { total: rows.length, items: rows.map((r) => ({ direction: r.direction, uuid: String(r.uuid), message: r.body, status: r.status, at: new Date(r.at).toISOString() })) };
  }
}
