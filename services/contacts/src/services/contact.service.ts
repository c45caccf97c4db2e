import { Injectable } from '@nestjs/common';
import { CONTACT_STATES, ContactOptedOutV1, ContactState, StandardVariable, type ContactStateValue, type Violation } from '@switchboard/contracts';
import { AppError, isTimeZone, parseListQuery, type ListResult } from '@switchboard/platform';
import type { EntityManager } from 'typeorm';
import type { ContactDto, CreateContactDto, UpdateContactDto } from '../dtos/contact.dto';
import type { ContactVariableDto } from '../dtos/variable.dto';
import { normalizePhone, PhoneState } from '../import/phone';
import { timezoneOfCountry } from '../import/country-timezones';
import { ContactListRepository } from '../repositories/contact-list.repository';
import { CONTACT_SORT, ContactRepository, type ContactRow, type ContactWrite, type RejectedRow } from '../repositories/contact.repository';
import { parseFilter, SqlParams } from '../segments/filter';
import { SelectionService, type ContactSelection } from '../segments/selection.service';
import { idFromInput, parseId } from './access';
import { ContactsUnitOfWork } from './contacts-events.service';
import { VariableService, type VariableCatalog } from './variable.service';

/** Parse state codes (staging, rejected rows) to the API's names. */
export const STATE_NAMES: readonly ContactStateValue[] = [ContactState.NoError, ContactState.Invalid, ContactState.NotMobile, ContactState.Blacklist, ContactState.Duplicate];

export function contactDto(r: ContactRow, catalog: VariableCatalog): ContactDto {
  const variables: Record<string, string> = {};
  for (const [id, value] of Object.entries(r.variables ?? {})) {
    const v = catalog.byIdString(id);
    // values of a deleted variable stay stored under its id and are not shown
    if (v) variables[v.name] = value;
  }
  return {
    id: Number(r.id),
    phone: r.phone,
    normalizedPhone: r.normalized_phone,
    firstName: r.first_name,
    lastName: r.last_name,
    email: r.email,
    country: r.country,
    timezone: r.timezone,
    operator: r.operator,
    state: ContactState.NoError,
    error: null,
    importList: r.import_list_id ? Number(r.import_list_id) : null,
    rowNumber: null,
    optedOutAt: r.opted_out_at ? r.opted_out_at.toISOString() : null,
    blocked: r.blocked,
    variables,
    contactLists: (r.list_ids ?? []).map(Number),
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

export function rejectedDto(r: RejectedRow): ContactDto {
  return {
    id: Number(r.id),
    phone: r.phone,
    normalizedPhone: r.normalized_phone,
    firstName: r.first_name,
    lastName: r.last_name,
    email: r.email,
    country: r.country,
    timezone: null,
    operator: null,
    state: STATE_NAMES[r.state] ?? ContactState.Invalid,
    error: r.error,
    importList: Number(r.import_list_id),
    rowNumber: r.row_no,
    optedOutAt: null,
    blocked: r.state === PhoneState.Blacklist,
    variables: {},
    contactLists: [],
    createdAt: r.created_at.toISOString(),
    updatedAt: null,
  };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

function queryId(query: Record<string, unknown>, name: string): string | undefined {
  const raw = query[name];
  if (raw === undefined || raw === '') return undefined;
  const id = idFromInput(raw);
  if (!id) throw AppError.validation([{ propertyPath: name, message: 'must be an id' }]);
  return id;
}

@Injectable()
export class ContactService {
  constructor(
    private readonly repo: ContactRepository,
    private readonly lists: ContactListRepository,
    private readonly selection: SelectionService,
    private readonly variables: VariableService,
    private readonly uow: ContactsUnitOfWork,
  ) {}

  /**
   * GET /api/contacts. Filters: contactList, importList, country, optedOut, search (phone, names, email), phone,
   * filter (a segment filter, JSON), state. A state other than no_error lists an import's rejected rows (needs
   * importList, or a contactList that came from an import). `after` = the last id seen: keyset paging by id.
   */
  async list(accountId: string, query: Record<string, unknown>): Promise<ListResult<ContactDto> & { nextAfter: number | null }> {
    const q = parseListQuery(query, { sortable: Object.keys(CONTACT_SORT), defaultItemsPerPage: 25, maxItemsPerPage: 1000 });
    const [orderKey, dir] = Object.entries(q.order)[0] ?? ['id', 'DESC'];
    const after = queryId(query, 'after');
    if (after && orderKey !== 'id') throw AppError.validation([{ propertyPath: 'after', message: 'keyset paging needs order[id]' }]);
    const state = str(query.state) ?? ContactState.NoError;
    if (!CONTACT_STATES.includes(state as ContactStateValue) && state !== 'failed') {
      throw AppError.validation([{ propertyPath: 'state', message: `one of ${[...CONTACT_STATES, 'failed'].join(', ')}` }]);
    }
    const contactList = queryId(query, 'contactList');
    let importList = queryId(query, 'importList');
    if (state !== ContactState.NoError) {
      if (!importList && contactList) {
        const l = await this.lists.find(accountId, contactList);
        if (!l) throw AppError.notFound('contact list');
        importList = l.import_list_id ?? undefined;
      }
      if (!importList) throw AppError.validation([{ propertyPath: 'importList', message: 'rejected rows are listed per import: give importList or a contactList made by an import' }]);
      const states = state === 'failed' ? [PhoneState.Invalid, PhoneState.NotMobile, PhoneState.Blacklist] : [STATE_NAMES.indexOf(state as ContactStateValue)];
      const [items, total] = await Promise.all([
        this.repo.rejected(accountId, importList, states, { skip: q.skip, take: q.take, dir, afterId: after }),
        this.repo.countRejected(accountId, importList, states),
      ]);
      return { items: items.map(rejectedDto), total, nextAfter: items.length === q.take ? Number(items[items.length - 1].id) : null };
    }
    const optedOut = query.optedOut === 'true' ? true : query.optedOut === 'false' ? false : undefined;
    if (query.optedOut !== undefined && optedOut === undefined) throw AppError.validation([{ propertyPath: 'optedOut', message: 'must be true or false' }]);
    const country = str(query.country);
    if (country && !/^[A-Za-z]{2}$/.test(country)) throw AppError.validation([{ propertyPath: 'country', message: 'must be an ISO 3166 alpha-2 code' }]);
    const sel: ContactSelection = {
      contactList,
      importList,
      country,
      optedOut,
      search: str(query.search) ?? str(query.phone),
      filter: query.filter !== undefined ? parseFilter(query.filter) : undefined,
    };
    const params = new SqlParams([accountId]);
    const where = await this.selection.where(accountId, sel, params);
    const [items, total, catalog] = await Promise.all([
      this.repo.page(where, params.values, { orderBy: CONTACT_SORT[orderKey], dir, skip: q.skip, take: q.take, afterId: after }),
      this.repo.count(where, params.values),
      this.variables.catalog(accountId),
    ]);
    return { items: items.map((r) => contactDto(r, catalog)), total, nextAfter: orderKey === 'id' && items.length === q.take ? Number(items[items.length - 1].id) : null };
  }

  async get(accountId: string, rawId: string): Promise<ContactDto> {
    const row = await this.repo.find(accountId, parseId(rawId, 'contact'));
    if (!row) throw AppError.notFound('contact');
    return contactDto(row, await this.variables.catalog(accountId));
  }

  async create(accountId: string, dto: CreateContactDto): Promise<ContactDto> {
    return this.uow.run(async (m) => {
      const catalog = await this.variables.catalog(accountId, m);
      const write = await this.buildWrite(accountId, dto, null, catalog, m);
      if (await this.repo.phoneTaken(accountId, write.normalizedPhone, null, m)) throw AppError.validation([{ propertyPath: 'phone', message: 'a contact with this phone number exists', code: 'duplicate' }]);
      const blocked = await this.repo.isBlacklisted(accountId, write.normalizedPhone, m);
      try {
        const saved = await this.repo.insert(accountId, write, blocked, m);
        await this.lists.adjustCounts(accountId, blocked ? [] : write.listIds, [], m);
        return contactDto(saved, catalog);
      } catch (e) {
        if ((e as { code?: string }).code === '23505') throw AppError.validation([{ propertyPath: 'phone', message: 'a contact with this phone number exists', code: 'duplicate' }]);
        throw e;
      }
    });
  }

  async update(accountId: string, rawId: string, dto: UpdateContactDto): Promise<ContactDto> {
    const id = parseId(rawId, 'contact');
    return this.uow.run(async (m, emit) => {
      const row = await this.repo.findForUpdate(accountId, id, m);
      if (!row) throw AppError.notFound('contact');
      if (dto.optedOut === false && row.opted_out_at) throw AppError.validation([{ propertyPath: 'optedOut', message: 'an opt-out cannot be undone' }]);
      const catalog = await this.variables.catalog(accountId, m);
      const write = await this.buildWrite(accountId, dto, row, catalog, m);
      if (write.normalizedPhone !== row.normalized_phone && (await this.repo.phoneTaken(accountId, write.normalizedPhone, id, m))) {
        throw AppError.validation([{ propertyPath: 'phone', message: 'a contact with this phone number exists', code: 'duplicate' }]);
      }
      const blocked = write.normalizedPhone === row.normalized_phone ? row.blocked : await this.repo.isBlacklisted(accountId, write.normalizedPhone, m);
      const optingOut = dto.optedOut === true && !row.opted_out_at;
      const optedOutAt = optingOut ? new Date() : row.opted_out_at;
      const saved = await this.repo.update(accountId, id, write, blocked, optedOutAt, m);
      await this.adjustCounts(accountId, row, saved, m);
      if (optingOut) emit(ContactOptedOutV1, { accountId, contactId: id, phone: saved.normalized_phone, optedOutAt: (optedOutAt as Date).toISOString(), source: 'api' }, accountId);
      return contactDto(saved, catalog);
    });
  }

  async delete(accountId: string, rawId: string): Promise<void> {
    const id = parseId(rawId, 'contact');
    await this.uow.run(async (m) => {
      const row = await this.repo.findForUpdate(accountId, id, m);
      if (!row) throw AppError.notFound('contact');
      await this.repo.delete(accountId, id, m);
      await this.adjustCounts(accountId, row, null, m);
    });
  }

  /** Lists count their sendable members: one contact's change moves each affected count by one. */
  private async adjustCounts(accountId: string, before: ContactRow | null, after: ContactRow | null, m: EntityManager): Promise<void> {
    const counted = (r: ContactRow | null) => new Set(r && !r.blocked && !r.opted_out_at ? r.list_ids.map(String) : []);
    const a = counted(before);
    const b = counted(after);
    await this.lists.adjustCounts(accountId, [...b].filter((x) => !a.has(x)), [...a].filter((x) => !b.has(x)), m);
  }

  /** POST/PUT /api/contacts_variables: one value of one contact; standard fields are written to their columns. */
  async setVariable(accountId: string, dto: ContactVariableDto): Promise<ContactDto> {
    const contactId = idFromInput(dto.contact);
    if (!contactId) throw AppError.notFound('contact');
    return this.uow.run(async (m) => {
      const row = await this.repo.findForUpdate(accountId, contactId, m);
      if (!row) throw AppError.notFound('contact');
      const catalog = await this.variables.catalog(accountId, m);
      const v = catalog.find(dto.variable);
      if (!v) throw AppError.validation([{ propertyPath: 'variable', message: 'no such variable' }]);
      const value = dto.value === null || dto.value.trim() === '' ? null : dto.value.trim();
      const patch: UpdateContactDto = {};
      switch (Number(v.id)) {
        case StandardVariable.firstName:
          patch.firstName = value;
          break;
        case StandardVariable.lastName:
          patch.lastName = value;
          break;
        case StandardVariable.email:
          patch.email = value;
          break;
        case StandardVariable.timezone:
          patch.timezone = value;
          break;
        default:
          if (v.is_standard) throw AppError.validation([{ propertyPath: 'variable', message: `${v.name} is not set through contact variables` }]);
          patch.variables = { [String(v.id)]: value };
      }
      const write = await this.buildWrite(accountId, patch, row, catalog, m);
      return contactDto(await this.repo.update(accountId, contactId, write, row.blocked, row.opted_out_at, m), catalog);
    });
  }

  /** Validates and merges a create or update body over the current row. */
  private async buildWrite(accountId: string, dto: CreateContactDto | UpdateContactDto, row: ContactRow | null, catalog: VariableCatalog, m: EntityManager): Promise<ContactWrite> {
    const violations: Violation[] = [];
    let phone = row?.phone ?? '';
    let normalizedPhone = row?.normalized_phone ?? '';
    let country = row?.country ?? null;
    let timezone = row?.timezone ?? null;
    if (dto.phone !== undefined) {
      const p = normalizePhone(dto.phone, dto.country?.toUpperCase() ?? null, true);
      if (p.state === PhoneState.Invalid) violations.push({ propertyPath: 'phone', message: 'impossiblePhoneNumber', code: 'impossiblePhoneNumber' });
      else if (p.state === PhoneState.NotMobile) violations.push({ propertyPath: 'phone', message: p.error ?? 'not a mobile number', code: 'notMobile' });
      else {
        phone = dto.phone.trim();
        normalizedPhone = p.e164 as string;
        country = p.country;
        timezone = p.timezone;
      }
    }
    if (dto.timezone !== undefined) {
      if (dto.timezone === null || dto.timezone.trim() === '') timezone = timezoneOfCountry(country);
      else if (!isTimeZone(dto.timezone.trim())) violations.push({ propertyPath: 'timezone', message: 'must be an IANA time zone' });
      else timezone = dto.timezone.trim();
    }
    const text = (v: string | null | undefined, current: string | null): string | null => (v === undefined ? current : v === null || v.trim() === '' ? null : v.trim());
    const variables: Record<string, string> = { ...(row?.variables ?? {}) };
    if (dto.variables !== undefined && dto.variables !== null) {
      if (typeof dto.variables !== 'object' || Array.isArray(dto.variables)) violations.push({ propertyPath: 'variables', message: 'must be an object of variable values' });
      else {
        for (const [key, value] of Object.entries(dto.variables as Record<string, unknown>)) {
          const v = catalog.find(key);
          if (!v || v.is_standard) {
            violations.push({ propertyPath: `variables.${key}`, message: 'no such custom variable' });
            continue;
          }
          if (value === null || value === '') delete variables[String(v.id)];
          else if (typeof value === 'string' || typeof value === 'number') {
            const s = String(value).trim();
            if (s.length > 1000) violations.push({ propertyPath: `variables.${key}`, message: 'must be at most 1000 characters' });
            else variables[String(v.id)] = s;
          } else violations.push({ propertyPath: `variables.${key}`, message: 'must be text, a number or null' });
        }
      }
    }
    let listIds = row?.list_ids?.map(String) ?? [];
    if (dto.contactLists !== undefined) {
      const ids: string[] = [];
      dto.contactLists.forEach((raw, i) => {
        const id = idFromInput(raw);
        if (!id) violations.push({ propertyPath: `contactLists[${i}]`, message: 'must be an id' });
        else ids.push(id);
      });
      const found = await this.lists.findMany(accountId, ids, m);
      ids.forEach((id, i) => {
        const l = found.find((x) => String(x.id) === id);
        if (!l || l.type !== 'list') violations.push({ propertyPath: `contactLists[${i}]`, message: `no contact list ${id} of type list` });
      });
      listIds = [...new Set(ids)];
    }
    if (!normalizedPhone && !violations.some((v) => v.propertyPath === 'phone')) violations.push({ propertyPath: 'phone', message: 'phone is required' });
    if (violations.length) throw AppError.validation(violations);
    return {
      phone,
      normalizedPhone,
      country,
      timezone,
      firstName: text(dto.firstName, row?.first_name ?? null),
      lastName: text(dto.lastName, row?.last_name ?? null),
      email: text(dto.email, row?.email ?? null),
      variables,
      listIds,
    };
  }
}
