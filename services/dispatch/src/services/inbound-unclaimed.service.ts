import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, parseListQuery, type ListResult } from '@switchboard/platform';
import { DISPATCH_CONNECTION } from '../dispatch.options';

export interface UnclaimedInboundDto {
  id: number;
  channel: string;
  vendorId: number | null;
  /** The address as claims spell it (E.164, phone number id, bot). */
  address: string;
  /** The customer who wrote. */
  source: string;
  /** Our side as the provider named it. */
  destination: string;
  contactName: string | null;
  messageType: string;
  message: string;
  /** `unclaimed` (no account owns the address) or `no_stream` (its owner has no stream for it). */
  reason: string;
  receivedAt: string;
  heldAt: string;
}

/** `GET /api/dispatch/inbound_unclaimed`: newest first; filters `channel`, `address`. */
@Injectable()
export class InboundUnclaimedService {
  constructor(@InjectDataSource(DISPATCH_CONNECTION) private readonly ds: DataSource) {}

  async list(query: Record<string, unknown>): Promise<ListResult<UnclaimedInboundDto>> {
    const q = parseListQuery(query, { sortable: ['id'] });
    const params: unknown[] = [];
    const where: string[] = [];
    for (const field of ['channel', 'address'] as const) {
      const v = query[field];
      if (v === undefined || v === '') continue;
      if (typeof v !== 'string' || v.length > 64) throw AppError.validation([{ propertyPath: field, message: `${field} must be a string of at most 64 characters` }]);
      params.push(v);
      where.push(`${field} = $${params.length}`);
    }
    const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const dir = q.order.id === 'ASC' ? 'ASC' : 'DESC';
    const [{ total }] = await this.ds.query<Array<{ total: string }>>(`SELECT count(*) AS total FROM dispatch.inbound_unclaimed ${w}`, params);
    const rows = await this.ds.query<Array<Record<string, unknown>>>(
      `SELECT id, channel, vendor_id, address, account_phone, contact_phone, contact_name, message_type, body, reason, received_at, held_at
         FROM dispatch.inbound_unclaimed ${w} ORDER BY id ${dir} OFFSET $${params.length + 1} LIMIT $${params.length + 2}`,
      [...params, q.skip, q.take],
    );
    return {
      total: Number(total),
      items: rows.map((r) => ({
        id: Number(r.id),
        channel: String(r.channel),
        vendorId: r.vendor_id === null ? null : Number(r.vendor_id),
        address: String(r.address),
        source: String(r.contact_phone),
        destination: String(r.account_phone),
        contactName: (r.contact_name as string | null) ?? null,
        messageType: String(r.message_type),
        message: String(r.body),
        reason: String(r.reason),
        receivedAt: new Date(r.received_at as string).toISOString(),
        heldAt: new Date(r.held_at as string).toISOString(),
      })),
    };
  }
}
