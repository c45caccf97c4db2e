import { Inject, Injectable } from '@nestjs/common';
import { AccountStatus, CustomerCreatedV1, CustomerUpdatedV1, type AccountStatusValue, type Violation } from '@switchboard/contracts';
import { AppError, parseListQuery, type ListResult, type Principal } from '@switchboard/platform';
import type { EntityManager } from 'typeorm';
import { ACCOUNTS_OPTIONS, type ResolvedAccountsOptions } from '../accounts.options';
import type { CreateCustomerDto, CustomerStatusDto, SuperAdminCustomersDto, UpdateCustomerDto } from '../dtos/customer.dto';
import { idOf } from '../dtos/validators';
import type { CustomerEntity } from '../entities';
import { CUSTOMER_SORT_FIELDS, CustomerRepository } from '../repositories';
import { CUSTOM_SETTINGS_DEFAULTS, GEN_SETTINGS_DEFAULTS, mergeCustomSettings, mergeGenSettings, readCustomSettings, readGenSettings } from '../rules/settings';
import { AccountGate } from './account-gate.service';
import { AccountsUnitOfWork, type Emit, type Notify } from './accounts-events.service';
import { toCustomerDto, toDropdownCustomer, toSnapshot, type CustomerDto, type DropdownCustomerDto } from './customer-view';

export interface NewCustomerInput {
  name: string;
  shortName?: string | null;
  customId?: string | null;
  currency?: string;
  tps?: number;
  active?: number;
  status?: AccountStatusValue;
  customSettings?: Record<string, unknown>;
  genSettings?: Record<string, unknown>;
}

/** Customers: creation, settings, status and approval. Every change emits the customer's new snapshot. */
@Injectable()
export class CustomerService {
  constructor(
    private readonly customers: CustomerRepository,
    private readonly gate: AccountGate,
    private readonly uow: AccountsUnitOfWork,
    @Inject(ACCOUNTS_OPTIONS) private readonly options: ResolvedAccountsOptions,
  ) {}

  async get(p: Principal, id: string): Promise<CustomerDto> {
    return toCustomerDto(await this.gate.named(p, id));
  }

  async create(input: CreateCustomerDto | NewCustomerInput): Promise<CustomerDto> {
    return toCustomerDto(await this.uow.run((m, emit, notify) => this.insert(input, m, emit, notify)));
  }

  /** Creates a customer in the caller's transaction (seeding uses it with its own). */
  async insert(input: NewCustomerInput, m: EntityManager, emit: Emit, _notify?: Notify): Promise<CustomerEntity> {
    const violations: Violation[] = [];
    const custom = mergeCustomSettings({ ...CUSTOM_SETTINGS_DEFAULTS }, input.customSettings ?? {});
    const gen = mergeGenSettings({ ...GEN_SETTINGS_DEFAULTS }, input.genSettings ?? {});
    if (!custom.ok) violations.push(...custom.violations);
    if (!gen.ok) violations.push(...gen.violations);
    if (!custom.ok || !gen.ok) throw AppError.validation(violations);
    const now = new Date();
    let created: CustomerEntity;
    try {
      created = await this.customers.insert(
        {
          customId: input.customId ?? null,
          name: input.name.trim(),
          shortName: input.shortName === undefined ? shortNameOf(input.name) : input.shortName,
          active: input.active ?? 1,
          status: input.status ?? AccountStatus.Active,
          currency: input.currency ?? this.options.defaultCurrency,
          tps: input.tps ?? this.options.defaultTps,
          customSettings: custom.value,
          genSettings: gen.value,
          createdAt: now,
          updatedAt: now,
        },
        m,
      );
    } catch (e) {
      if ((e as { code?: string }).code === '23505') throw AppError.conflict('a customer with this custom id exists');
      throw e;
    }
    const row = (await this.customers.findById(created.id, m))!;
    emit(CustomerCreatedV1, toSnapshot(row), row.id);
    return row;
  }

  /**
   * Names are the account's own (SETTINGS_EDIT, checked by the route). TPS and settings are commercial terms:
   * super admins only (docs/decisions/0010-accounts.md).
   */
  async update(p: Principal, id: string, dto: UpdateCustomerDto): Promise<CustomerDto> {
    const restricted = (['tps', 'customSettings', 'genSettings'] as const).filter((k) => dto[k] !== undefined);
    await this.gate.named(p, id);
    if (restricted.length && !p.superAdmin) throw AppError.forbidden(`only super administrators may change ${restricted.join(', ')}`);
    return this.uow.run(async (m, emit, notify) => {
      const c = await this.customers.findForUpdate(id, m);
      if (!c) throw AppError.notFound('customer');
      const violations: Violation[] = [];
      const patch: Partial<CustomerEntity> = {};
      if (dto.name !== undefined) patch.name = dto.name.trim();
      if (dto.shortName !== undefined) patch.shortName = dto.shortName === null ? null : dto.shortName.trim();
      if (dto.tps !== undefined) patch.tps = dto.tps;
      if (dto.customSettings !== undefined) {
        const r = mergeCustomSettings(readCustomSettings(c.customSettings), dto.customSettings);
        if (r.ok) patch.customSettings = r.value;
        else violations.push(...r.violations);
      }
      if (dto.genSettings !== undefined) {
        const r = mergeGenSettings(readGenSettings(c.genSettings), dto.genSettings);
        if (r.ok) patch.genSettings = r.value;
        else violations.push(...r.violations);
      }
      if (violations.length) throw AppError.validation(violations);
      if (!Object.keys(patch).length) return toCustomerDto(c);
      const updated = await this.customers.update(id, { ...patch, updatedAt: new Date() }, m);
      emit(CustomerUpdatedV1, toSnapshot(updated), id);
      const out = toCustomerDto(updated);
      notify({ accountId: id, type: 'customer.updated', data: out });
      return out;
    });
  }

  /** Super admin: active, restrict, disable, delete. A disabled or deleted account is closed to everyone else. */
  async setStatus(dto: CustomerStatusDto): Promise<CustomerDto> {
    const id = idOf(dto.customer_id);
    return this.uow.run(async (m, emit, notify) => {
      const c = await this.customers.findForUpdate(id, m);
      if (!c) throw AppError.notFound('customer');
      if (c.status === dto.status) return toCustomerDto(c);
      const previousStatus = c.status;
      const updated = await this.customers.update(id, { status: dto.status, updatedAt: new Date() }, m);
      emit(CustomerUpdatedV1, { ...toSnapshot(updated), previousStatus }, id);
      const out = toCustomerDto(updated);
      notify({ accountId: id, type: 'customer.status_changed', data: { id: out.id, status: out.status, previousStatus } });
      return out;
    });
  }

  /** Super admin: a new account (active 0) becomes active 1. Approving an approved account changes nothing. */
  async approve(customerId: number | string): Promise<CustomerDto> {
    const id = idOf(customerId);
    return this.uow.run(async (m, emit, notify) => {
      const c = await this.customers.findForUpdate(id, m);
      if (!c) throw AppError.notFound('customer');
      if (c.active === 1) return toCustomerDto(c);
      const updated = await this.customers.update(id, { active: 1, updatedAt: new Date() }, m);
      emit(CustomerUpdatedV1, toSnapshot(updated), id);
      const out = toCustomerDto(updated);
      notify({ accountId: id, type: 'customer.updated', data: out });
      return out;
    });
  }

  /**
   * The accounts a caller may pick from: every live account for a super admin, the current one for anyone else
   * (memberships live in auth: GET /users/connected lists a user's accounts).
   */
  async dropdown(p: Principal, query: Record<string, unknown>): Promise<ListResult<DropdownCustomerDto>> {
    const list = parseListQuery(query, { sortable: ['id', 'name'], defaultOrder: { name: 'ASC' }, defaultItemsPerPage: 2000 });
    const search = stringParam(query, 'search') ?? stringParam(query, 'name');
    if (!p.superAdmin) {
      const own = await this.gate.currentIfAny(p);
      const items = own && (!search || own.name.toLowerCase().includes(search.toLowerCase())) ? [toDropdownCustomer(own)] : [];
      return { items: list.skip === 0 ? items : [], total: items.length };
    }
    const [rows, total] = await this.customers.list({ search, excludeDeleted: true }, list);
    return { items: rows.map(toDropdownCustomer), total };
  }

  async superAdminList(dto: SuperAdminCustomersDto): Promise<ListResult<CustomerDto>> {
    const list = parseListQuery({ page: dto.page, itemsPerPage: dto.itemsPerPage, order: dto.order }, { sortable: CUSTOMER_SORT_FIELDS, defaultOrder: { id: 'DESC' } });
    const statuses = dto.status === undefined ? undefined : Array.isArray(dto.status) ? dto.status : [dto.status];
    const [rows, total] = await this.customers.list({ search: dto.search?.trim() || undefined, statuses, active: dto.active }, list);
    return { items: rows.map(toCustomerDto), total };
  }
}

/** A query parameter that must be a single string when present. */
export function stringParam(query: Record<string, unknown>, name: string): string | undefined {
  const v = query[name];
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string' || v.length > 255) throw AppError.validation([{ propertyPath: name, message: `${name} must be one string of at most 255 characters` }]);
  return v.trim() || undefined;
}

export function shortNameOf(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  return (words.length > 1 ? words.map((w) => w[0]).join('') : name.trim().slice(0, 2)).toUpperCase().slice(0, 4);
}

