import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ContactListReadyV1, ContactListStatus, ContactListType, IntegrationListRequested, StandardVariable, type Violation } from '@switchboard/contracts';
import { AppError, parseListQuery, type ListResult } from '@switchboard/platform';
import type { DataSource } from 'typeorm';
import { CONTACTS_CONNECTION } from '../contacts.options';
import { rows } from '../db/sql';
import type { ContactListDto, CreateContactListDto, UpdateContactListDto } from '../dtos/contact-list.dto';
import { ContactListRepository, type ContactListRow } from '../repositories/contact-list.repository';
import { ImportListRepository, type ImportListRow } from '../repositories/import-list.repository';
import { parseFilter, SqlParams, type SegmentFilter } from '../segments/filter';
import { SelectionService, SENDABLE } from '../segments/selection.service';
import { idFromInput, parseId } from './access';
import { ContactsRealtime, ContactsUnitOfWork } from './contacts-events.service';
import { VariableService } from './variable.service';

export function contactListDto(l: ContactListRow, imp: ImportListRow | null): ContactListDto {
  return {
    id: Number(l.id),
    name: l.name,
    description: l.description,
    type: l.type,
    status: l.status,
    progress: l.progress,
    filter: l.filter === null || l.filter === undefined ? null : JSON.stringify(l.filter),
    numOfContacts: l.num_of_contacts,
    createdContacts: l.created_contacts,
    importListId: l.import_list_id ? Number(l.import_list_id) : null,
    importList: imp
      ? { id: Number(imp.id), name: imp.name, fileName: imp.file_name, status: imp.status, parsed: imp.parsed, failed: imp.failed, duplicates: imp.duplicates, numberOfContacts: imp.number_of_contacts }
      : null,
    campaigns: [],
    isDeleted: l.is_deleted,
    createdAt: l.created_at.toISOString(),
    updatedAt: l.updated_at.toISOString(),
  };
}

/** Values of a repeated query parameter: `x=1&x=2`, `x[]=1&x[]=2` or `x=1,2`. */
export function queryList(query: Record<string, unknown>, name: string): string[] {
  const out: string[] = [];
  for (const raw of [query[name], query[`${name}[]`]]) {
    for (const v of Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]) {
      if (typeof v === 'string') out.push(...v.split(',').map((s) => s.trim()).filter(Boolean));
    }
  }
  return out;
}

const SORTABLE: Record<string, string> = { id: 'id', name: 'name', createdAt: 'created_at', numOfContacts: 'num_of_contacts' };

@Injectable()
export class ContactListService {
  private readonly log = new Logger('contacts');

  constructor(
    @InjectDataSource(CONTACTS_CONNECTION) private readonly ds: DataSource,
    private readonly repo: ContactListRepository,
    private readonly imports: ImportListRepository,
    private readonly selection: SelectionService,
    private readonly variables: VariableService,
    private readonly uow: ContactsUnitOfWork,
    private readonly realtime: ContactsRealtime,
  ) {}

  async list(accountId: string, query: Record<string, unknown>): Promise<ListResult<ContactListDto>> {
    const q = parseListQuery(query, { sortable: Object.keys(SORTABLE), defaultItemsPerPage: 25 });
    const [key, dir] = Object.entries(q.order)[0] ?? ['id', 'DESC'];
    const type = typeof query.type === 'string' && query.type ? query.type : undefined;
    if (type && !Object.values(ContactListType).includes(type as never)) throw AppError.validation([{ propertyPath: 'type', message: 'one of list, segment, integration' }]);
    const statusRaw = typeof query.status === 'string' && query.status !== '' ? query.status : undefined;
    if (statusRaw !== undefined && !/^[012]$/.test(statusRaw)) throw AppError.validation([{ propertyPath: 'status', message: 'one of 0, 1, 2' }]);
    const f = { type, status: statusRaw === undefined ? undefined : Number(statusRaw), name: typeof query.name === 'string' && query.name.trim() ? query.name.trim() : undefined };
    const [items, total] = await Promise.all([this.repo.list(accountId, f, { skip: q.skip, take: q.take, orderBy: SORTABLE[key], dir }), this.repo.count(accountId, f)]);
    const imports = new Map((await this.imports.findMany(accountId, items.map((l) => l.import_list_id).filter((x): x is string => !!x))).map((i) => [String(i.id), i]));
    return { items: items.map((l) => contactListDto(l, l.import_list_id ? (imports.get(String(l.import_list_id)) ?? null) : null)), total };
  }

  /** One list; a segment's count is refreshed on the way (it follows the contacts, which change under it). */
  async get(accountId: string, rawId: string): Promise<ContactListDto> {
    const id = parseId(rawId, 'contact list');
    let row = await this.repo.find(accountId, id);
    if (!row) throw AppError.notFound('contact list');
    if (row.type === ContactListType.Segment && row.status === ContactListStatus.Ready) {
      const n = await this.countSegment(accountId, row);
      if (n !== row.num_of_contacts) {
        await this.repo.setCount(accountId, id, n);
        row = { ...row, num_of_contacts: n };
      }
    }
    const imp = row.import_list_id ? ((await this.imports.findMany(accountId, [String(row.import_list_id)]))[0] ?? null) : null;
    return contactListDto(row, imp);
  }

  async create(accountId: string, dto: CreateContactListDto): Promise<ContactListDto> {
    const type = dto.type ?? (dto.filter !== undefined && dto.filter !== null ? ContactListType.Segment : ContactListType.List);
    if (type === ContactListType.List && dto.filter !== undefined && dto.filter !== null) throw AppError.validation([{ propertyPath: 'filter', message: 'a list has no filter; create a segment' }]);
    const filter = type === ContactListType.Segment ? parseFilter(dto.filter) : null;
    // validates every reference (lists, segments, variables) before anything is written
    const count = filter ? await this.countFilter(accountId, filter) : 0;
    const row = await this.uow.run(async (m, emit) => {
      const l = await this.repo.insert(
        accountId,
        { name: dto.name.trim(), description: dto.description?.trim() ?? '', type, status: ContactListStatus.Ready, filter, importListId: null, numOfContacts: count },
        m,
      );
      emit(ContactListReadyV1, { accountId, contactListId: String(l.id), type, name: l.name, numOfContacts: count, importListId: null, readyAt: new Date().toISOString() }, accountId);
      return l;
    });
    this.realtime.publish(accountId, 'contact_lists', 'contact_list.created', { id: Number(row.id), status: row.status, numOfContacts: row.num_of_contacts }, String(row.id));
    return contactListDto(row, null);
  }

  async update(accountId: string, rawId: string, dto: UpdateContactListDto): Promise<ContactListDto> {
    const id = parseId(rawId, 'contact list');
    const row = await this.repo.find(accountId, id);
    if (!row) throw AppError.notFound('contact list');
    let filter: SegmentFilter | undefined;
    let count: number | undefined;
    if (dto.filter !== undefined) {
      if (row.type !== ContactListType.Segment) throw AppError.validation([{ propertyPath: 'filter', message: 'only a segment has a filter' }]);
      filter = parseFilter(dto.filter);
      count = await this.countFilter(accountId, filter, id);
    }
    const updated = await this.repo.update(accountId, id, {
      name: dto.name?.trim() ?? row.name,
      description: dto.description === undefined ? row.description : (dto.description ?? '').trim(),
      filter,
      numOfContacts: count,
    });
    if (!updated) throw AppError.notFound('contact list');
    const imp = updated.import_list_id ? ((await this.imports.findMany(accountId, [String(updated.import_list_id)]))[0] ?? null) : null;
    return contactListDto(updated, imp);
  }

  async delete(accountId: string, rawId: string): Promise<void> {
    const id = parseId(rawId, 'contact list');
    const row = await this.repo.find(accountId, id);
    if (!row) throw AppError.notFound('contact list');
    if (row.status === ContactListStatus.Processing) throw AppError.conflict('the list is still being imported');
    if (row.type !== 'integration') {
      await this.repo.softDelete(accountId, id);
      return;
    }
    // an integration list: integrations stops keeping it in sync (decision 0040), in the deleting transaction
    await this.uow.run(async (m, emit) => {
      if (!(await this.repo.softDelete(accountId, id, m))) return;
      const [imp] = await rows<{ id: string; integration_key: string | null }>(m, `SELECT id, integration_key FROM contacts.import_list WHERE id = $1 AND account_id = $2`, [row.import_list_id, accountId]);
      await m.query(`DELETE FROM contacts.integration_member WHERE list_id = $1`, [id]);
      if (imp?.integration_key) emit(IntegrationListRequested, { accountId, integrationKey: imp.integration_key, listId: Number(id), importListId: Number(imp.id), filters: [], removed: true }, accountId);
    });
  }

  /** POST /api/contact_lists/total_by_filter: sendable contacts matching a filter, as the user edits it. */
  async totalByFilter(accountId: string, rawFilter: unknown): Promise<{ total: number }> {
    return { total: await this.countFilter(accountId, parseFilter(rawFilter)) };
  }

  /**
   * GET /api/contact_lists/missing_variables?contactLists=1,2&variables=firstName,promoCode: for each variable, how
   * many sendable contacts of those lists and segments have no value (what a campaign's missing-value rule is for).
   */
  async missingVariables(accountId: string, query: Record<string, unknown>): Promise<ListResult<{ id: number; name: string; missing: number; total: number }>> {
    const listRefs = queryList(query, 'contactLists');
    const varRefs = queryList(query, 'variables');
    const violations: Violation[] = [];
    if (!listRefs.length) violations.push({ propertyPath: 'contactLists', message: 'at least one contact list' });
    if (listRefs.length > 100) violations.push({ propertyPath: 'contactLists', message: 'at most 100' });
    if (varRefs.length > 100) violations.push({ propertyPath: 'variables', message: 'at most 100' });
    const catalog = await this.variables.catalog(accountId);
    const vars = varRefs.length ? varRefs.map((r, i) => ({ r, i, v: catalog.find(r) })) : catalog.rows.filter((v) => !v.is_standard || [2, 3, 4].includes(Number(v.id))).map((v, i) => ({ r: v.name, i, v }));
    for (const x of vars) if (!x.v) violations.push({ propertyPath: `variables[${x.i}]`, message: `no variable ${x.r}` });
    const ids = listRefs.map((r, i) => {
      const id = idFromInput(r);
      if (!id) violations.push({ propertyPath: `contactLists[${i}]`, message: 'must be an id' });
      return id;
    });
    if (violations.length) throw AppError.validation(violations);
    const params = new SqlParams([accountId]);
    const members: string[] = [];
    for (const id of ids as string[]) members.push(`(${await this.selection.where(accountId, { contactList: id }, params)})`);
    const column = (id: string, isStandard: boolean): string => {
      if (isStandard) return { [StandardVariable.firstName]: 'c.first_name', [StandardVariable.lastName]: 'c.last_name', [StandardVariable.email]: 'c.email', [StandardVariable.country]: 'c.country', [StandardVariable.timezone]: 'c.timezone' }[id] ?? 'c.normalized_phone';
      return `(c.variables ->> ${params.add(id)})`;
    };
    const selected = vars.map((x) => x.v!).filter((v) => ![StandardVariable.shorturl, StandardVariable.optout].includes(Number(v.id) as 7 | 8));
    const sums = selected.map((v, k) => `count(*) FILTER (WHERE coalesce(${column(String(v.id), v.is_standard)}, '') = '')::int AS m${k}`);
    const [r] = await rows<Record<string, number>>(
      this.ds,
      `SELECT count(*)::int AS total${sums.length ? ', ' + sums.join(', ') : ''} FROM contacts.contact c WHERE c.account_id = $1 AND ${SENDABLE} AND (${members.join(' OR ')})`,
      params.values,
    );
    const items = selected.map((v, k) => ({ id: Number(v.id), name: v.name, missing: r[`m${k}`], total: r.total }));
    return { items, total: items.length };
  }

  /** Refreshes stored counts after bulk changes (imports, tasks, blacklist): lists recounted, segments recomputed. */
  async refreshCounts(accountId: string): Promise<void> {
    try {
      await this.repo.recountLists(accountId, null);
      for (const s of await this.repo.allLive(accountId)) {
        if (s.type !== ContactListType.Segment) continue;
        await this.repo.setCount(accountId, String(s.id), await this.countSegment(accountId, s));
      }
    } catch (e) {
      this.log.warn(`refreshing list counts of account ${accountId} failed: ${String(e)}`);
    }
  }

  private async countSegment(accountId: string, s: ContactListRow): Promise<number> {
    try {
      return await this.countFilter(accountId, parseFilter(s.filter), String(s.id));
    } catch (e) {
      // a segment whose references were deleted since: it matches what is left
      if (e instanceof AppError && e.status === 400) return 0;
      throw e;
    }
  }

  private countFilter(accountId: string, filter: SegmentFilter, segmentId?: string): Promise<number> {
    return this.selection.countFilter(accountId, filter, (sql, params) => rows(this.ds, sql, params), segmentId);
  }
}
