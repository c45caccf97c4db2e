import { rowsOf } from './rows';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { DISPATCH_CONNECTION, type AdapterKind, type ServiceType, type VendorRow } from '../dispatch.options';
import type { RoutingHistoryDto } from '@switchboard/contracts';

/** A routing change as stored; the API shows `changedAt` as ISO text. */
export interface RoutingHistoryRow extends Omit<RoutingHistoryDto, 'changedAt'> {
  changedAt: Date;
}

export interface ChannelRow {
  id: string;
  name: string;
  active: boolean;
  stsMethods: string[];
  routingProvider: number;
  serviceType: ServiceType;
  vendorId: string;
}

export interface CountryRouteRow {
  id: string;
  accountId: string | null;
  iso2: string;
  serviceType: ServiceType;
  vendorIds: string[];
  updatedBy: string | null;
  updatedAt: Date;
}


const VENDOR_COLS = `id::text, name, service_type AS "serviceType", carrier, product_name AS "productName", product_id AS "productId",
  currency, active, adapter, config`;
const CHANNEL_COLS = `id::text, name, active, sts_methods AS "stsMethods", routing_provider AS "routingProvider", service_type AS "serviceType", vendor_id::text AS "vendorId"`;
const ROUTE_COLS = `id::text, account_id::text AS "accountId", iso2, service_type AS "serviceType", vendor_ids::text[] AS "vendorIds", updated_by AS "updatedBy", updated_at AS "updatedAt"`;

/** Vendors, channels, country routes and their history. Global data (super admin), except per-account routes. */
@Injectable()
export class RoutingRepository {
  constructor(@InjectDataSource(DISPATCH_CONNECTION) readonly ds: DataSource) {}

  vendors(): Promise<VendorRow[]> {
    return this.ds.query(`SELECT ${VENDOR_COLS} FROM dispatch.vendor ORDER BY id`);
  }

  async vendor(id: string): Promise<VendorRow | null> {
    const rows = await this.ds.query<VendorRow[]>(`SELECT ${VENDOR_COLS} FROM dispatch.vendor WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  async insertVendor(
    q: Pick<EntityManager, 'query'>,
    v: { name: string; serviceType: ServiceType; adapter: AdapterKind; config: Record<string, unknown>; carrier: string; productName: string; productId: string; currency: string; active: boolean },
  ): Promise<VendorRow | null> {
    const rows = await q.query<VendorRow[]>(
      `INSERT INTO dispatch.vendor (name, service_type, adapter, config, carrier, product_name, product_id, currency, active)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (name) DO NOTHING RETURNING ${VENDOR_COLS}`,
      [v.name, v.serviceType, v.adapter, JSON.stringify(v.config), v.carrier, v.productName, v.productId, v.currency, v.active],
    );
    return rows[0] ?? null;
  }

  async updateVendor(id: string, patch: Partial<Pick<VendorRow, 'name' | 'carrier' | 'productName' | 'productId' | 'currency' | 'active' | 'config'>>): Promise<VendorRow | null> {
    const rows = rowsOf<VendorRow>(await this.ds.query(
      `UPDATE dispatch.vendor SET name = coalesce($2, name), carrier = coalesce($3, carrier), product_name = coalesce($4, product_name),
         product_id = coalesce($5, product_id), currency = coalesce($6, currency), active = coalesce($7, active),
         config = coalesce($8::jsonb, config), updated_at = now()
       WHERE id = $1 RETURNING ${VENDOR_COLS}`,
      [id, patch.name ?? null, patch.carrier ?? null, patch.productName ?? null, patch.productId ?? null, patch.currency ?? null, patch.active ?? null, patch.config ? JSON.stringify(patch.config) : null],
    ));
    return rows[0] ?? null;
  }

  channels(): Promise<ChannelRow[]> {
    return this.ds.query(`SELECT ${CHANNEL_COLS} FROM dispatch.channel ORDER BY routing_provider, id`);
  }

  async channel(id: string): Promise<ChannelRow | null> {
    const rows = await this.ds.query<ChannelRow[]>(`SELECT ${CHANNEL_COLS} FROM dispatch.channel WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  async updateChannel(id: string, patch: { name?: string; active?: boolean; stsMethods?: string[]; routingProvider?: number }): Promise<ChannelRow | null> {
    const rows = rowsOf<ChannelRow>(await this.ds.query(
      `UPDATE dispatch.channel SET name = coalesce($2, name), active = coalesce($3, active), sts_methods = coalesce($4::text[], sts_methods),
         routing_provider = coalesce($5, routing_provider), updated_at = now() WHERE id = $1 RETURNING ${CHANNEL_COLS}`,
      [id, patch.name ?? null, patch.active ?? null, patch.stsMethods ?? null, patch.routingProvider ?? null],
    ));
    return rows[0] ?? null;
  }

  /** One channel per vendor that has none; channels of deactivated vendors follow them. Returns channels created. */
  async syncChannels(q: Pick<EntityManager, 'query'> = this.ds, routingProvider = 1): Promise<number> {
    const created = await q.query<unknown[]>(
      `INSERT INTO dispatch.channel (name, active, sts_methods, routing_provider, service_type, vendor_id)
       SELECT v.name, v.active, ARRAY['dlr']::text[], $1, v.service_type, v.id FROM dispatch.vendor v
        WHERE NOT EXISTS (SELECT 1 FROM dispatch.channel c WHERE c.vendor_id = v.id)
       RETURNING id`,
      [routingProvider],
    );
    rowsOf<unknown>(await q.query(`UPDATE dispatch.channel c SET active = false, updated_at = now() FROM dispatch.vendor v WHERE v.id = c.vendor_id AND NOT v.active AND c.active`));
    return created.length;
  }

  routes(accountId: string | null | 'all'): Promise<CountryRouteRow[]> {
    if (accountId === 'all') return this.ds.query(`SELECT ${ROUTE_COLS} FROM dispatch.country_route ORDER BY iso2, service_type, id`);
    if (accountId === null) return this.ds.query(`SELECT ${ROUTE_COLS} FROM dispatch.country_route WHERE account_id IS NULL ORDER BY iso2, service_type`);
    return this.ds.query(`SELECT ${ROUTE_COLS} FROM dispatch.country_route WHERE account_id = $1 ORDER BY iso2, service_type`, [accountId]);
  }

  /** Sets (or with no vendors removes) a country route and records the change in the history, in one transaction. */
  async setRoute(accountId: string | null, iso2: string, serviceType: ServiceType, vendorIds: string[], changedBy: string | null): Promise<CountryRouteRow | null> {
    return this.ds.transaction(async (m) => {
      const prev = await m.query<Array<{ vendor_ids: string[] }>>(
        `SELECT vendor_ids::text[] AS vendor_ids FROM dispatch.country_route WHERE coalesce(account_id, 0) = coalesce($1::bigint, 0) AND iso2 = $2 AND service_type = $3 FOR UPDATE`,
        [accountId, iso2, serviceType],
      );
      let row: CountryRouteRow | null = null;
      if (vendorIds.length === 0) {
        rowsOf<unknown>(await m.query(`DELETE FROM dispatch.country_route WHERE coalesce(account_id, 0) = coalesce($1::bigint, 0) AND iso2 = $2 AND service_type = $3`, [accountId, iso2, serviceType]));
      } else {
        const rows = await m.query<CountryRouteRow[]>(
          `INSERT INTO dispatch.country_route (account_id, iso2, service_type, vendor_ids, updated_by) VALUES ($1, $2, $3, $4::bigint[], $5)
           ON CONFLICT ((coalesce(account_id, 0)), iso2, service_type) DO UPDATE SET vendor_ids = EXCLUDED.vendor_ids, updated_by = EXCLUDED.updated_by, updated_at = now()
           RETURNING ${ROUTE_COLS}`,
          [accountId, iso2, serviceType, vendorIds, changedBy],
        );
        row = rows[0];
      }
      await m.query(
        `INSERT INTO dispatch.routing_history (account_id, iso2, service_type, previous_vendor_ids, vendor_ids, changed_by) VALUES ($1, $2, $3, $4::bigint[], $5::bigint[], $6)`,
        [accountId, iso2, serviceType, prev[0]?.vendor_ids ?? null, vendorIds.length ? vendorIds : null, changedBy],
      );
      return row;
    });
  }

  async history(filter: { accountId?: string | null; iso2?: string }, skip: number, take: number): Promise<{ items: RoutingHistoryRow[]; total: number }> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.accountId !== undefined) {
      params.push(filter.accountId);
      where.push(filter.accountId === null ? `account_id IS NULL` : `account_id = $${params.length}`);
      if (filter.accountId === null) params.pop();
    }
    if (filter.iso2) {
      params.push(filter.iso2);
      where.push(`iso2 = $${params.length}`);
    }
    const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const [{ total }] = await this.ds.query<Array<{ total: string }>>(`SELECT count(*) AS total FROM dispatch.routing_history ${w}`, params);
    const items = await this.ds.query<RoutingHistoryRow[]>(
      `SELECT id::text, account_id::text AS "accountId", iso2, service_type AS "serviceType", previous_vendor_ids::text[] AS "previousVendorIds",
              vendor_ids::text[] AS "vendorIds", changed_by AS "changedBy", changed_at AS "changedAt"
         FROM dispatch.routing_history ${w} ORDER BY id DESC OFFSET $${params.length + 1} LIMIT $${params.length + 2}`,
      [...params, skip, take],
    );
    return { items, total: Number(total) };
  }
}
