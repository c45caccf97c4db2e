import { Inject, Injectable } from '@nestjs/common';
import { PriceChangedV1, PriceRemovedV1, SendingHoursChangedV1, type Availability } from '@switchboard/contracts';
import { AppError, parseListQuery, type ListResult, type Principal } from '@switchboard/platform';
import { ACCOUNTS_OPTIONS, type ResolvedAccountsOptions } from '../accounts.options';
import type { AvailabilityDto, CountryOverrideDto, GlobalCountryDto } from '../dtos/country.dto';
import { COUNTRY_SORT_FIELDS, CountryRepository, TIMEZONE_SORT_FIELDS, type EffectiveCountryRow, type TimezoneRow } from '../repositories';
import { loadCountries } from '../rules/country-data';
import { currencySign, fromMicros, microsToNumber, toMicros } from '../rules/money';
import { AccountGate } from './account-gate.service';
import { AccountsUnitOfWork } from './accounts-events.service';
import { stringParam } from './customer.service';

export interface TimezoneDto {
  id: number;
  name: string;
  countryCode: string;
  /** IRI of the country. */
  country: string;
  /** Standard offset from UTC and the offset during daylight saving time, minutes. */
  utcOffset: number;
  dstOffset: number;
}

export interface CountryDto {
  id: number;
  name: string;
  iso2: string;
  iso3: string;
  availability: Availability;
  timezones: TimezoneDto[];
  /** Minutes between the westernmost and easternmost standard offsets of the country. */
  timezonesGap: number;
  defaultTimezone: TimezoneDto | null;
  /** Whether the current account overrides the sending hours or default time zone. */
  overridden: boolean;
}

export interface CountryPriceDto {
  id: number;
  name: string;
  iso2: string;
  iso3: string;
  pricePerSegment: number | null;
  pricePerSegmentMicros: string | null;
  currency: string;
  currencySign: string;
  overridden: boolean;
}

export interface SendingHoursDto {
  id: number;
  name: string;
  iso2: string;
  availability: Availability;
  defaultTimezone: string;
  timezonesGap: number;
  overridden: boolean;
}

export interface GlobalCountryView extends Omit<CountryDto, 'overridden'> {
  pricePerSegment: number | null;
  pricePerSegmentMicros: string | null;
  priceCurrency: string;
  currencySign: string;
}

const tzDto = (t: TimezoneRow): TimezoneDto => ({
  id: Number(t.id),
  name: t.name,
  countryCode: t.countryCode,
  country: `/api/countries/${t.countryId}`,
  utcOffset: t.utcOffset,
  dstOffset: t.dstOffset,
});

const toAvailability = (a: AvailabilityDto): Availability => ({
  working_days: { start: a.working_days.start, end: a.working_days.end },
  working_hours: { start: a.working_hours.start, end: a.working_hours.end },
});

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Spec 9: countries and timezones load 1000 per page. */
const PAGE = { defaultItemsPerPage: 1000, maxItemsPerPage: 1000 };

/**
 * Countries, their time zones, sending hours and prices. Global values belong to super admins; an account may
 * override sending hours and default zone (SENDING_HOURS_EDIT) and a super admin may give it its own price.
 */
@Injectable()
export class CountryService {
  constructor(
    private readonly countries: CountryRepository,
    private readonly gate: AccountGate,
    private readonly uow: AccountsUnitOfWork,
    @Inject(ACCOUNTS_OPTIONS) private readonly options: ResolvedAccountsOptions,
  ) {}

  async sync(): Promise<void> {
    await this.countries.sync(loadCountries(), this.options.defaultAvailability);
  }

  private async page(accountId: string | null, query: Record<string, unknown>): Promise<[EffectiveCountryRow[], number]> {
    const list = parseListQuery(query, { sortable: COUNTRY_SORT_FIELDS, defaultOrder: { name: 'ASC' }, ...PAGE });
    const iso2 = stringParam(query, 'iso2');
    return this.countries.list({ accountId, search: stringParam(query, 'search') ?? stringParam(query, 'name'), iso2, ...list });
  }

  private async withZones(rows: EffectiveCountryRow[]): Promise<Map<string, TimezoneRow[]>> {
    const zones = await this.countries.zonesOf(rows.map((r) => r.id));
    const by = new Map<string, TimezoneRow[]>();
    for (const z of zones) by.set(z.countryId, [...(by.get(z.countryId) ?? []), z]);
    return by;
  }

  private countryDto(r: EffectiveCountryRow, zones: TimezoneRow[]): CountryDto {
    const def = zones.find((z) => z.name === r.defaultTimezone) ?? null;
    return {
      id: Number(r.id),
      name: r.name,
      iso2: r.iso2,
      iso3: r.iso3,
      availability: r.availability,
      timezones: zones.map(tzDto),
      timezonesGap: r.timezonesGap,
      defaultTimezone: def && tzDto(def),
      overridden: r.hoursOverridden,
    };
  }

  async list(p: Principal, query: Record<string, unknown>): Promise<ListResult<CountryDto>> {
    const account = await this.gate.currentIfAny(p);
    const [rows, total] = await this.page(account?.id ?? null, query);
    const zones = await this.withZones(rows);
    return { items: rows.map((r) => this.countryDto(r, zones.get(r.id) ?? [])), total };
  }

  async get(p: Principal, id: string): Promise<CountryDto> {
    const account = await this.gate.currentIfAny(p);
    const r = await this.countries.get(id, account?.id ?? null);
    if (!r) throw AppError.notFound('country');
    return this.countryDto(r, await this.countries.zonesOf([r.id]));
  }

  async prices(p: Principal, query: Record<string, unknown>): Promise<ListResult<CountryPriceDto>> {
    const account = await this.gate.current(p);
    const [rows, total] = await this.page(account.id, query);
    return {
      items: rows.map((r) => {
        const overridden = r.accountPriceMicros !== null;
        const micros = overridden ? r.accountPriceMicros : r.globalPriceMicros;
        const currency = overridden ? account.currency : r.priceCurrency;
        return {
          id: Number(r.id),
          name: r.name,
          iso2: r.iso2,
          iso3: r.iso3,
          pricePerSegment: micros === null ? null : fromMicros(micros),
          pricePerSegmentMicros: micros,
          currency,
          currencySign: currencySign(currency),
          overridden,
        };
      }),
      total,
    };
  }

  async sendingHours(p: Principal, query: Record<string, unknown>): Promise<ListResult<SendingHoursDto>> {
    const account = await this.gate.current(p);
    const [rows, total] = await this.page(account.id, query);
    return {
      items: rows.map((r) => ({
        id: Number(r.id),
        name: r.name,
        iso2: r.iso2,
        availability: r.availability,
        defaultTimezone: r.defaultTimezone,
        timezonesGap: r.timezonesGap,
        overridden: r.hoursOverridden,
      })),
      total,
    };
  }

  async timezones(p: Principal, query: Record<string, unknown>): Promise<ListResult<TimezoneDto>> {
    await this.gate.currentIfAny(p);
    const list = parseListQuery(query, { sortable: TIMEZONE_SORT_FIELDS, defaultOrder: { name: 'ASC' }, ...PAGE });
    const country = stringParam(query, 'country');
    const countryCode = stringParam(query, 'countryCode') ?? (country && /^[A-Za-z]{2}$/.test(country) ? country : undefined);
    const countryId = country && !countryCode ? country.replace(/^\/api\/countries\//, '') : undefined;
    if (countryId !== undefined && !/^\d{1,18}$/.test(countryId)) throw AppError.validation([{ propertyPath: 'country', message: 'country must be an ISO code, an id or /api/countries/{id}' }]);
    const [rows, total] = await this.countries.listTimezones({ search: stringParam(query, 'search') ?? stringParam(query, 'name'), countryCode, countryId, ...list });
    return { items: rows.map(tzDto), total };
  }

  async getTimezone(p: Principal, id: string): Promise<TimezoneDto> {
    await this.gate.currentIfAny(p);
    const t = await this.countries.findTimezone(id);
    if (!t) throw AppError.notFound('timezone');
    return tzDto(t);
  }

  private globalView(r: EffectiveCountryRow, zones: TimezoneRow[]): GlobalCountryView {
    const { overridden: _ignored, ...country } = this.countryDto({ ...r, availability: r.globalAvailability, defaultTimezone: r.globalDefaultTimezone }, zones);
    return {
      ...country,
      pricePerSegment: r.globalPriceMicros === null ? null : fromMicros(r.globalPriceMicros),
      pricePerSegmentMicros: r.globalPriceMicros,
      priceCurrency: r.priceCurrency,
      currencySign: currencySign(r.priceCurrency),
    };
  }

  async listGlobal(query: Record<string, unknown>): Promise<ListResult<GlobalCountryView>> {
    const [rows, total] = await this.page(null, query);
    const zones = await this.withZones(rows);
    return { items: rows.map((r) => this.globalView(r, zones.get(r.id) ?? [])), total };
  }

  async getGlobal(id: string): Promise<GlobalCountryView> {
    const r = await this.countries.get(id, null);
    if (!r) throw AppError.notFound('country');
    return this.globalView(r, await this.countries.zonesOf([r.id]));
  }

  /** The zone a request names, which must be one of the country's. */
  private async zoneName(countryId: string, ref: string | number): Promise<string> {
    const zones = await this.countries.zonesOf([countryId]);
    const text = String(ref);
    const id = text.replace(/^\/api\/timezones\//, '');
    const zone = /^\d+$/.test(id) ? zones.find((z) => z.id === id) : zones.find((z) => z.name === text);
    if (!zone) throw AppError.validation([{ propertyPath: 'defaultTimezone', message: 'must be one of the time zones of the country', code: 'notCountryTimezone' }]);
    return zone.name;
  }

  async updateGlobal(id: string, dto: GlobalCountryDto): Promise<GlobalCountryView> {
    await this.uow.run(async (m, emit) => {
      const cur = await this.countries.lockGlobal(id, m);
      if (!cur) throw AppError.notFound('country');
      const next = {
        availability: dto.availability ? toAvailability(dto.availability) : cur.availability,
        defaultTimezone: dto.defaultTimezone !== undefined ? await this.zoneName(id, dto.defaultTimezone) : cur.defaultTimezone,
        priceMicros: dto.pricePerSegment === undefined ? cur.priceMicros : dto.pricePerSegment === null ? null : toMicros(dto.pricePerSegment)!.toString(),
        priceCurrency: dto.priceCurrency ?? cur.priceCurrency,
      };
      await this.countries.updateGlobal(id, next, m);
      if (!same(next.availability, cur.availability) || next.defaultTimezone !== cur.defaultTimezone) {
        emit(SendingHoursChangedV1, { accountId: null, iso2: cur.iso2, availability: next.availability, defaultTimezone: next.defaultTimezone }, null);
      }
      if (next.priceMicros === null && cur.priceMicros !== null) emit(PriceRemovedV1, { accountId: null, iso2: cur.iso2 }, null);
      if (next.priceMicros !== null && (next.priceMicros !== cur.priceMicros || next.priceCurrency !== cur.priceCurrency)) {
        emit(PriceChangedV1, { accountId: null, iso2: cur.iso2, pricePerSegmentMicros: microsToNumber(BigInt(next.priceMicros)), currency: next.priceCurrency }, null);
      }
    });
    return this.getGlobal(id);
  }

  /** The current account's override of a country. Prices are commercial terms: super admins only. */
  async updateOverride(p: Principal, id: string, dto: CountryOverrideDto): Promise<CountryDto> {
    const account = await this.gate.current(p);
    if (dto.pricePerSegment !== undefined && !p.superAdmin) throw AppError.forbidden('only super administrators may set an account price');
    const country = await this.countries.get(id, account.id);
    if (!country) throw AppError.notFound('country');
    await this.uow.run(async (m, emit) => {
      const cur = (await this.countries.lockOverride(account.id, id, m)) ?? { availability: null, defaultTimezone: null, priceMicros: null };
      const next = {
        availability: dto.availability === undefined ? cur.availability : dto.availability === null ? null : toAvailability(dto.availability),
        defaultTimezone: dto.defaultTimezone === undefined ? cur.defaultTimezone : dto.defaultTimezone === null ? null : await this.zoneName(id, dto.defaultTimezone),
        priceMicros: dto.pricePerSegment === undefined ? cur.priceMicros : dto.pricePerSegment === null ? null : toMicros(dto.pricePerSegment)!.toString(),
      };
      await this.countries.saveOverride(account.id, id, next, m);
      if (!same(next.availability, cur.availability) || next.defaultTimezone !== cur.defaultTimezone) {
        emit(SendingHoursChangedV1, { accountId: account.id, iso2: country.iso2, availability: next.availability, defaultTimezone: next.defaultTimezone }, account.id);
      }
      if (next.priceMicros === null && cur.priceMicros !== null) emit(PriceRemovedV1, { accountId: account.id, iso2: country.iso2 }, account.id);
      if (next.priceMicros !== null && next.priceMicros !== cur.priceMicros) {
        emit(PriceChangedV1, { accountId: account.id, iso2: country.iso2, pricePerSegmentMicros: microsToNumber(BigInt(next.priceMicros)), currency: account.currency }, account.id);
      }
    });
    // Prices are not echoed: SENDING_HOURS_EDIT does not include COST_VIEW (GET /countries/prices shows them).
    const r = (await this.countries.get(id, account.id))!;
    return this.countryDto(r, await this.countries.zonesOf([r.id]));
  }
}
