import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { Availability } from '@switchboard/contracts';
import { ACCOUNTS_CONNECTION } from '../accounts.options';
import type { CountryRecord } from '../rules/country-data';

/** A country as one account sees it: global settings with the account's overrides applied. */
export interface EffectiveCountryRow {
  id: string;
  iso2: string;
  iso3: string;
  name: string;
  timezonesGap: number;
  availability: Availability;
  defaultTimezone: string;
  globalAvailability: Availability;
  globalDefaultTimezone: string;
  globalPriceMicros: string | null;
  priceCurrency: string;
  accountPriceMicros: string | null;
  hoursOverridden: boolean;
}

export interface TimezoneRow {
  id: string;
  countryId: string;
  countryCode: string;
  name: string;
  utcOffset: number;
  dstOffset: number;
}

export interface CountryListQuery {
  /** The account whose overrides apply; null for the global values. */
  accountId: string | null;
  search?: string;
  iso2?: string;
  ids?: string[];
  skip: number;
  take: number;
  order: Record<string, 'ASC' | 'DESC'>;
}

const SORT: Record<string, string> = { id: 'c.id', name: 'c.name', iso2: 'c.iso2', iso3: 'c.iso3' };
export const COUNTRY_SORT_FIELDS = Object.keys(SORT);

const TZ_SORT: Record<string, string> = { id: 't.id', name: 't.name', countryCode: 't.country_code', utcOffset: 't.utc_offset' };
export const TIMEZONE_SORT_FIELDS = Object.keys(TZ_SORT);

const like = (s: string) => `%${s.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;

@Injectable()
export class CountryRepository {
  constructor(@InjectDataSource(ACCOUNTS_CONNECTION) private readonly ds: DataSource) {}

  /**
   * Inserts the countries and zones the packages know and refreshes their names, codes and offsets. Settings an
   * administrator may have changed (sending hours, default zone, price) are only set for new countries. Two
   * statements whatever the number of countries.
   */
  async sync(records: CountryRecord[], availability: Availability): Promise<void> {
    await this.ds.transaction(async (m) => {
      await m.query(
        `INSERT INTO accounts.country (iso2, iso3, numeric_code, name, availability, default_timezone, timezones_gap)
         SELECT r.iso2, r.iso3, r.numeric_code, r.name, $6::jsonb, r.default_timezone, r.gap
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $7::int[]) AS r(iso2, iso3, numeric_code, name, default_timezone, gap)
         ON CONFLICT (iso2) DO UPDATE SET iso3 = EXCLUDED.iso3, numeric_code = EXCLUDED.numeric_code, name = EXCLUDED.name, timezones_gap = EXCLUDED.timezones_gap`,
        [
          records.map((r) => r.iso2),
          records.map((r) => r.iso3),
          records.map((r) => r.numeric),
          records.map((r) => r.name),
          records.map((r) => r.defaultTimezone),
          JSON.stringify(availability),
          records.map((r) => r.timezonesGap),
        ],
      );
      const zones = records.flatMap((r) => r.zones.map((z) => ({ iso2: r.iso2, ...z })));
      await m.query(
        `INSERT INTO accounts.timezone (country_id, country_code, name, utc_offset, dst_offset)
         SELECT c.id, z.iso2, z.name, z.utc_offset, z.dst_offset
         FROM unnest($1::text[], $2::text[], $3::int[], $4::int[]) AS z(iso2, name, utc_offset, dst_offset)
         JOIN accounts.country c ON c.iso2 = z.iso2
         ON CONFLICT (country_id, name) DO UPDATE SET utc_offset = EXCLUDED.utc_offset, dst_offset = EXCLUDED.dst_offset`,
        [zones.map((z) => z.iso2), zones.map((z) => z.name), zones.map((z) => z.utcOffset), zones.map((z) => z.dstOffset)],
      );
    });
  }

  async list(q: CountryListQuery, m?: EntityManager): Promise<[EffectiveCountryRow[], number]> {
    const where: string[] = [];
    const params: unknown[] = [q.accountId];
    if (q.search) {
      params.push(like(q.search), q.search.toUpperCase());
      where.push(`(c.name ILIKE $${params.length - 1} ESCAPE '\\' OR c.iso2 = $${params.length} OR c.iso3 = $${params.length})`);
    }
    if (q.iso2) {
      params.push(q.iso2.toUpperCase());
      where.push(`c.iso2 = $${params.length}`);
    }
    if (q.ids) {
      params.push(q.ids);
      where.push(`c.id = ANY($${params.length}::bigint[])`);
    }
    const order = Object.entries(q.order).map(([f, d]) => `${SORT[f]} ${d}`);
    params.push(q.skip, q.take);
    const rows = await (m ?? this.ds.manager).query<Array<Record<string, unknown>>>(
      `SELECT c.id, c.iso2, c.iso3, c.name, c.timezones_gap,
              COALESCE(s.availability, c.availability) AS availability,
              COALESCE(s.default_timezone, c.default_timezone) AS default_timezone,
              c.availability AS global_availability, c.default_timezone AS global_default_timezone,
              c.price_micros::text AS global_price_micros, c.price_currency, s.price_micros::text AS account_price_micros,
              (s.availability IS NOT NULL OR s.default_timezone IS NOT NULL) IS TRUE AS hours_overridden,
              count(*) OVER () AS total
       FROM accounts.country c
       LEFT JOIN accounts.country_setting s ON s.country_id = c.id AND s.account_id = $1::bigint
       ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY ${[...order, 'c.id ASC'].join(', ')}
       OFFSET $${params.length - 1} LIMIT $${params.length}`,
      params,
    );
    let total = rows.length ? Number(rows[0].total) : 0;
    if (!rows.length && q.skip > 0) total = await this.count(q, m);
    return [
      rows.map((r) => ({
        id: String(r.id),
        iso2: r.iso2 as string,
        iso3: r.iso3 as string,
        name: r.name as string,
        timezonesGap: r.timezones_gap as number,
        availability: r.availability as Availability,
        defaultTimezone: r.default_timezone as string,
        globalAvailability: r.global_availability as Availability,
        globalDefaultTimezone: r.global_default_timezone as string,
        globalPriceMicros: (r.global_price_micros as string | null) ?? null,
        priceCurrency: r.price_currency as string,
        accountPriceMicros: (r.account_price_micros as string | null) ?? null,
        hoursOverridden: r.hours_overridden as boolean,
      })),
      total,
    ];
  }

  private async count(q: CountryListQuery, m?: EntityManager): Promise<number> {
    const [, total] = await this.list({ ...q, skip: 0, take: 1 }, m);
    return total;
  }

  async get(id: string, accountId: string | null, m?: EntityManager): Promise<EffectiveCountryRow | null> {
    if (!/^\d{1,18}$/.test(id)) return null;
    const [rows] = await this.list({ accountId, ids: [id], skip: 0, take: 1, order: {} }, m);
    return rows[0] ?? null;
  }

  /** The zones of the given countries, in one query. */
  async zonesOf(countryIds: string[], m?: EntityManager): Promise<TimezoneRow[]> {
    if (!countryIds.length) return [];
    const rows = await (m ?? this.ds.manager).query<Array<Record<string, unknown>>>(
      `SELECT id, country_id, country_code, name, utc_offset, dst_offset FROM accounts.timezone WHERE country_id = ANY($1::bigint[]) ORDER BY country_id, utc_offset, name`,
      [countryIds],
    );
    return rows.map(tzRow);
  }

  async listTimezones(q: { search?: string; countryCode?: string; countryId?: string; skip: number; take: number; order: Record<string, 'ASC' | 'DESC'> }): Promise<[TimezoneRow[], number]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (q.search) {
      params.push(like(q.search));
      where.push(`t.name ILIKE $${params.length} ESCAPE '\\'`);
    }
    if (q.countryCode) {
      params.push(q.countryCode.toUpperCase());
      where.push(`t.country_code = $${params.length}`);
    }
    if (q.countryId) {
      params.push(q.countryId);
      where.push(`t.country_id = $${params.length}::bigint`);
    }
    const order = Object.entries(q.order).map(([f, d]) => `${TZ_SORT[f]} ${d}`);
    params.push(q.skip, q.take);
    const rows = await this.ds.query<Array<Record<string, unknown>>>(
      `SELECT t.id, t.country_id, t.country_code, t.name, t.utc_offset, t.dst_offset, count(*) OVER () AS total
       FROM accounts.timezone t ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY ${[...order, 't.id ASC'].join(', ')} OFFSET $${params.length - 1} LIMIT $${params.length}`,
      params,
    );
    let total = rows.length ? Number(rows[0].total) : 0;
    if (!rows.length && q.skip > 0) {
      const [{ n }] = await this.ds.query<Array<{ n: number }>>(
        `SELECT count(*)::int AS n FROM accounts.timezone t ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`,
        params.slice(0, -2),
      );
      total = n;
    }
    return [rows.map(tzRow), total];
  }

  async findTimezone(id: string): Promise<TimezoneRow | null> {
    if (!/^\d{1,18}$/.test(id)) return null;
    const rows = await this.ds.query<Array<Record<string, unknown>>>(`SELECT id, country_id, country_code, name, utc_offset, dst_offset FROM accounts.timezone WHERE id = $1`, [id]);
    return rows.length ? tzRow(rows[0]) : null;
  }

  /** Locks the country row: concurrent edits of one country's global settings are serialised. */
  async lockGlobal(id: string, m: EntityManager): Promise<{ availability: Availability; defaultTimezone: string; priceMicros: string | null; priceCurrency: string; iso2: string } | null> {
    if (!/^\d{1,18}$/.test(id)) return null;
    const rows = await m.query<Array<Record<string, unknown>>>(
      `SELECT iso2, availability, default_timezone, price_micros::text AS price_micros, price_currency FROM accounts.country WHERE id = $1 FOR UPDATE`,
      [id],
    );
    if (!rows.length) return null;
    const r = rows[0];
    return { iso2: r.iso2 as string, availability: r.availability as Availability, defaultTimezone: r.default_timezone as string, priceMicros: (r.price_micros as string | null) ?? null, priceCurrency: r.price_currency as string };
  }

  async updateGlobal(id: string, v: { availability: Availability; defaultTimezone: string; priceMicros: string | null; priceCurrency: string }, m: EntityManager): Promise<void> {
    await m.query(`UPDATE accounts.country SET availability = $2, default_timezone = $3, price_micros = $4, price_currency = $5, updated_at = now() WHERE id = $1`, [
      id,
      JSON.stringify(v.availability),
      v.defaultTimezone,
      v.priceMicros,
      v.priceCurrency,
    ]);
  }

  async lockOverride(accountId: string, countryId: string, m: EntityManager): Promise<{ availability: Availability | null; defaultTimezone: string | null; priceMicros: string | null } | null> {
    const rows = await m.query<Array<Record<string, unknown>>>(
      `SELECT availability, default_timezone, price_micros::text AS price_micros FROM accounts.country_setting WHERE account_id = $1 AND country_id = $2 FOR UPDATE`,
      [accountId, countryId],
    );
    if (!rows.length) return null;
    return { availability: (rows[0].availability as Availability | null) ?? null, defaultTimezone: (rows[0].default_timezone as string | null) ?? null, priceMicros: (rows[0].price_micros as string | null) ?? null };
  }

  /** Writes the account's override; an override with nothing left in it is removed. */
  async saveOverride(accountId: string, countryId: string, v: { availability: Availability | null; defaultTimezone: string | null; priceMicros: string | null }, m: EntityManager): Promise<void> {
    if (v.availability === null && v.defaultTimezone === null && v.priceMicros === null) {
      await m.query(`DELETE FROM accounts.country_setting WHERE account_id = $1 AND country_id = $2`, [accountId, countryId]);
      return;
    }
    await m.query(
      `INSERT INTO accounts.country_setting (account_id, country_id, availability, default_timezone, price_micros, updated_at) VALUES ($1, $2, $3, $4, $5, now())
       ON CONFLICT (account_id, country_id) DO UPDATE SET availability = EXCLUDED.availability, default_timezone = EXCLUDED.default_timezone, price_micros = EXCLUDED.price_micros, updated_at = now()`,
      [accountId, countryId, v.availability === null ? null : JSON.stringify(v.availability), v.defaultTimezone, v.priceMicros],
    );
  }
}

const tzRow = (r: Record<string, unknown>): TimezoneRow => ({
  id: String(r.id),
  countryId: String(r.country_id),
  countryCode: r.country_code as string,
  name: r.name as string,
  utcOffset: r.utc_offset as number,
  dstOffset: r.dst_offset as number,
});
