import * as fs from 'node:fs';
import * as path from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { ContactListStatus, ImportListType, ImportStatus, Permission, StandardVariable, type Violation } from '@switchboard/contracts';
import { AppError, parseListQuery, type ListResult, type Principal } from '@switchboard/platform';
import { CONTACTS_OPTIONS, type ResolvedContactsOptions } from '../contacts.options';
import type { ImportListDto, ImportPreviewDto, UpdateImportListDto } from '../dtos/import-list.dto';
import { previewFile, type FilePreview } from '../import/file-source';
import { receiveUpload } from '../import/upload';
import { ZipFormatError } from '../import/zip';
import { ContactListRepository } from '../repositories/contact-list.repository';
import { ImportListRepository, type ImportListRow, type MappingEntry } from '../repositories/import-list.repository';
import { hasPermission, parseId, requireAnyPermission } from './access';
import { ContactsRealtime, ContactsUnitOfWork } from './contacts-events.service';
import { ImportJobsService, importProgressData } from './import-jobs.service';
import { MAPPABLE_STANDARD, VariableService, type VariableCatalog } from './variable.service';

export function importListDto(r: ImportListRow, catalog?: VariableCatalog): ImportListDto {
  return {
    id: Number(r.id),
    name: r.name,
    type: r.type,
    status: r.status,
    parsed: r.parsed,
    failed: r.failed,
    duplicates: r.duplicates,
    numberOfContacts: r.number_of_contacts,
    invalid: r.invalid,
    notMobile: r.not_mobile,
    blacklisted: r.blacklisted,
    progress: r.progress,
    mapping: r.mapping ? r.mapping.map((m) => ({ column: m.column, variable: Number(m.variable), name: catalog?.byIdString(String(m.variable))?.name ?? null })) : null,
    ignoreFirstLine: r.ignore_first_line,
    defaultCountry: r.default_country,
    integrationKey: r.integration_key,
    fileName: r.file_name,
    fileSize: Number(r.file_size),
    fileFormat: r.file_format,
    delimiter: r.delimiter,
    columns: r.columns,
    contactList: r.contact_list_id ? Number(r.contact_list_id) : null,
    error: r.error,
    createdAt: r.created_at.toISOString(),
    startedAt: r.started_at ? r.started_at.toISOString() : null,
    finishedAt: r.finished_at ? r.finished_at.toISOString() : null,
  };
}

/** The permission an import of this type needs to be made, and to be seen. */
const EDIT: Record<string, string> = { contacts: Permission.ContactListSegmentAdd, blacklist: Permission.BlockDestinationAddEdit, integration: Permission.ContactListSegmentAdd };
const VIEW: Record<string, string> = { contacts: Permission.ContactListSegmentView, blacklist: Permission.BlockDestinationView, integration: Permission.ContactListSegmentView };
const REMOVE: Record<string, string> = { contacts: Permission.ContactListSegmentRemove, blacklist: Permission.BlockDestinationRemove, integration: Permission.ContactListSegmentRemove };

const EXAMPLE_CSV = 'phone,firstName,lastName,email\r\n+447911123456,John,Smith,john.smith@example.com\r\n+33612345678,Marie,Dubois,marie@example.com\r\n+491701234567,Hans,Müller,\r\n';

@Injectable()
export class ImportListService {
  constructor(
    @Inject(CONTACTS_OPTIONS) private readonly options: ResolvedContactsOptions,
    private readonly repo: ImportListRepository,
    private readonly lists: ContactListRepository,
    private readonly variables: VariableService,
    private readonly uow: ContactsUnitOfWork,
    private readonly jobs: ImportJobsService,
    private readonly realtime: ContactsRealtime,
  ) {}

  private typesVisible(p: Principal): string[] {
    return Object.keys(VIEW).filter((t) => hasPermission(p, VIEW[t]) || hasPermission(p, EDIT[t]));
  }

  async list(accountId: string, p: Principal, query: Record<string, unknown>): Promise<ListResult<ImportListDto>> {
    const visible = this.typesVisible(p);
    if (!visible.length) requireAnyPermission(p, Permission.ContactListSegmentView, Permission.BlockDestinationView);
    const q = parseListQuery(query, { sortable: ['id'], defaultItemsPerPage: 25 });
    const status = typeof query.status === 'string' && query.status ? query.status : undefined;
    if (status && !Object.values(ImportStatus).includes(status as never)) throw AppError.validation([{ propertyPath: 'status', message: `one of ${Object.values(ImportStatus).join(', ')}` }]);
    const type = typeof query.type === 'string' && query.type ? query.type : undefined;
    if (type && !Object.values(ImportListType).includes(type as never) && type !== 'integration') throw AppError.validation([{ propertyPath: 'type', message: 'one of contacts, blacklist, integration' }]);
    if (type && !visible.includes(type)) requireAnyPermission(p, VIEW[type]);
    // a member who may see some types only gets those (integration imports, decision 0040, go with the contact lists)
    const types = !type && visible.length < Object.keys(VIEW).length ? visible : undefined;
    const f = { status, type, types, name: typeof query.name === 'string' ? query.name.trim() || undefined : undefined };
    const [items, total, catalog] = await Promise.all([this.repo.list(accountId, f, { skip: q.skip, take: q.take, dir: q.order.id ?? 'DESC' }), this.repo.count(accountId, f), this.variables.catalog(accountId)]);
    return { items: items.map((r) => importListDto(r, catalog)), total };
  }

  async get(accountId: string, p: Principal, rawId: string): Promise<ImportListDto & { preview: ImportPreviewDto }> {
    const row = await this.load(accountId, rawId);
    requireAnyPermission(p, VIEW[row.type], EDIT[row.type]);
    return { ...importListDto(row, await this.variables.catalog(accountId)), preview: previewDto(row) };
  }

  /** POST /api/import_lists (multipart: file, name?, type?): stores the file and answers with a preview. */
  async upload(accountId: string, p: Principal, req: Request): Promise<ImportListDto & { preview: ImportPreviewDto }> {
    // refused before the body is read: nobody uploads 100 MB to learn they may not
    requireAnyPermission(p, EDIT.contacts, EDIT.blacklist);
    const dir = path.join(this.options.storageDir, 'uploads', accountId);
    const { file, fields } = await receiveUpload(req, dir, this.options.maxUploadBytes);
    try {
      const type = fields.type?.trim() || ImportListType.Contacts;
      const violations: Violation[] = [];
      if (!Object.values(ImportListType).includes(type as never)) violations.push({ propertyPath: 'type', message: 'one of contacts, blacklist' });
      if (!file) violations.push({ propertyPath: 'file', message: 'errors.client.required' });
      else if (file.size === 0) violations.push({ propertyPath: 'file', message: 'the file is empty' });
      else if (!/\.(csv|txt|tsv|xlsx)$/i.test(file.name)) violations.push({ propertyPath: 'file', message: 'only .csv and .xlsx files' });
      const name = (fields.name?.trim() || file?.name.replace(/\.[^.]*$/, '') || 'Import').slice(0, 255);
      if (violations.length) throw AppError.validation(violations);
      requireAnyPermission(p, EDIT[type]);
      const f = file as NonNullable<typeof file>;
      let preview: FilePreview;
      try {
        preview = await previewFile(f.path, 10);
      } catch (e) {
        if (e instanceof ZipFormatError || e instanceof Error) throw AppError.validation([{ propertyPath: 'file', message: `the file cannot be read: ${e.message}` }]);
        throw e;
      }
      if (/\.xlsx$/i.test(f.name) !== (preview.format === 'xlsx')) throw AppError.validation([{ propertyPath: 'file', message: `the content is not ${/\.xlsx$/i.test(f.name) ? 'an XLSX workbook' : 'text'}` }]);
      if (!preview.rows.length) throw AppError.validation([{ propertyPath: 'file', message: 'the file has no rows' }]);
      const row = await this.repo.insert(accountId, {
        name,
        type,
        fileName: f.name,
        filePath: f.path,
        fileFormat: preview.format,
        fileSize: f.size,
        delimiter: preview.delimiter,
        columns: preview.columns,
        preview: preview.rows,
        createdBy: p.userId,
      });
      return { ...importListDto(row), preview: previewDto(row) };
    } catch (e) {
      if (file) await fs.promises.rm(file.path, { force: true });
      throw e;
    }
  }

  /** PUT /api/import_lists/{id}: mapping and options; with `start` (or status processing) the parse begins. */
  async update(accountId: string, p: Principal, rawId: string, dto: UpdateImportListDto): Promise<ImportListDto> {
    const id = parseId(rawId, 'import list');
    const catalog = await this.variables.catalog(accountId);
    const start = dto.start === true || dto.status === ImportStatus.Processing;
    const row = await this.uow.run(async (m) => {
      const current = await this.repo.findForUpdate(accountId, id, m);
      if (!current) throw AppError.notFound('import list');
      requireAnyPermission(p, EDIT[current.type]);
      if (current.status !== ImportStatus.Uploaded && current.status !== ImportStatus.Mapped) throw AppError.conflict(`the import is ${current.status}; only an uploaded or mapped import can change`);
      const mapping = dto.mapping !== undefined ? this.validateMapping(dto.mapping, current, catalog) : current.mapping;
      if (start && !mapping) throw AppError.validation([{ propertyPath: 'mapping', message: 'phoneVarMust', code: 'phoneVarMust' }]);
      const saved = await this.repo.saveMapping(
        accountId,
        id,
        {
          name: dto.name?.trim() ?? current.name,
          mapping,
          ignoreFirstLine: dto.ignoreFirstLine ?? current.ignore_first_line,
          defaultCountry: dto.defaultCountry === undefined ? current.default_country : (dto.defaultCountry?.toUpperCase() ?? null),
          status: mapping ? ImportStatus.Mapped : current.status,
        },
        m,
      );
      if (!start) return saved;
      let listId: string | null = null;
      if (saved.type === ImportListType.Contacts) {
        const list = await this.lists.insert(accountId, { name: saved.name, description: '', type: 'list', status: ContactListStatus.Processing, filter: null, importListId: id, numOfContacts: 0 }, m);
        listId = String(list.id);
      }
      return this.repo.markProcessing(accountId, id, listId, m);
    });
    if (start) {
      this.jobs.kick();
      this.realtime.publish(accountId, 'imports', 'import_list.progress', importProgressData(row, 0, { parsed: 0, failed: 0, duplicates: 0, invalid: 0, notMobile: 0, blacklisted: 0, numberOfContacts: 0 }), String(row.id));
      if (row.contact_list_id) this.realtime.publish(accountId, 'contact_lists', 'contact_list.created', { id: Number(row.contact_list_id), status: 1, progress: 0 }, String(row.contact_list_id));
    }
    return importListDto(row, catalog);
  }

  /** An import being parsed cannot be deleted; the list it made stays (it is the list's data now). */
  async delete(accountId: string, p: Principal, rawId: string): Promise<void> {
    const id = parseId(rawId, 'import list');
    const file = await this.uow.run(async (m) => {
      const row = await this.repo.findForUpdate(accountId, id, m);
      if (!row) throw AppError.notFound('import list');
      requireAnyPermission(p, REMOVE[row.type], EDIT[row.type]);
      if (row.status === ImportStatus.Processing) throw AppError.conflict('the import is being parsed');
      await this.repo.delete(accountId, id, m);
      return row.file_path;
    });
    if (file) await fs.promises.rm(file, { force: true });
  }

  exampleFile(): string {
    return EXAMPLE_CSV;
  }

  private async load(accountId: string, rawId: string): Promise<ImportListRow> {
    const row = await this.repo.find(accountId, parseId(rawId, 'import list'));
    if (!row) throw AppError.notFound('import list');
    return row;
  }

  /** Spec 5: no variable twice (notSameVars), phone mapped (phoneVarMust), columns that exist, mappable variables. */
  private validateMapping(entries: Array<{ column: number; variable: number | string }>, row: ImportListRow, catalog: VariableCatalog): MappingEntry[] {
    const violations: Violation[] = [];
    const seen = new Set<string>();
    const out: MappingEntry[] = [];
    entries.forEach((e, i) => {
      const v = catalog.find(e.variable);
      if (e.column >= Math.max(row.columns, 1)) violations.push({ propertyPath: `mapping[${i}].column`, message: `the file has ${row.columns} column(s)` });
      if (!v) {
        violations.push({ propertyPath: `mapping[${i}].variable`, message: 'no such variable' });
        return;
      }
      const vid = String(v.id);
      if (v.is_standard && !MAPPABLE_STANDARD.has(vid)) violations.push({ propertyPath: `mapping[${i}].variable`, message: `${v.name} is filled when sending, not imported` });
      if (row.type === ImportListType.Blacklist && vid !== String(StandardVariable.phone) && vid !== String(StandardVariable.country)) {
        violations.push({ propertyPath: `mapping[${i}].variable`, message: 'a blacklist import takes the phone (and country) only' });
      }
      if (seen.has(vid)) violations.push({ propertyPath: `mapping[${i}].variable`, message: 'notSameVars', code: 'notSameVars' });
      seen.add(vid);
      out.push({ column: e.column, variable: vid });
    });
    if (!seen.has(String(StandardVariable.phone))) violations.push({ propertyPath: 'mapping', message: 'phoneVarMust', code: 'phoneVarMust' });
    if (violations.length) throw AppError.validation(violations);
    return out;
  }
}

function previewDto(row: ImportListRow): ImportPreviewDto {
  return { format: row.file_format, delimiter: row.delimiter, columns: row.columns, rows: row.preview };
}
