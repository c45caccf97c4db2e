import { Injectable } from '@nestjs/common';
import { StandardVariable } from '@switchboard/contracts';
import { AppError, parseListQuery, type ListResult } from '@switchboard/platform';
import type { EntityManager } from 'typeorm';
import type { CreateVariableDto, UpdateVariableDto, VariableDto } from '../dtos/variable.dto';
import { VariableRepository, type VariableRow } from '../repositories/variable.repository';
import { idFromInput, parseId } from './access';

/** Standard variables an import may map a column to. */
export const MAPPABLE_STANDARD: ReadonlySet<string> = new Set(['phone', 'firstName', 'lastName', 'email', 'country', 'timezone'].map((n) => String(StandardVariable[n as keyof typeof StandardVariable])));

export function toVariableDto(r: VariableRow): VariableDto {
  return {
    id: Number(r.id),
    name: r.name,
    type: r.type,
    hidden: r.hidden,
    isStandard: r.is_standard,
    UIname: r.ui_name,
    example: r.example,
    mappable: !r.is_standard || MAPPABLE_STANDARD.has(String(r.id)),
    createdAt: r.created_at.toISOString(),
  };
}

/** The account's variables, looked up by id, IRI or name (case-insensitive). */
export class VariableCatalog {
  private readonly byId = new Map<string, VariableRow>();
  private readonly byName = new Map<string, VariableRow>();

  constructor(readonly rows: VariableRow[]) {
    for (const r of rows) {
      this.byId.set(String(r.id), r);
      this.byName.set(r.name.toLowerCase(), r);
    }
  }

  find(ref: unknown): VariableRow | undefined {
    const id = idFromInput(ref);
    if (id) return this.byId.get(id);
    return typeof ref === 'string' ? this.byName.get(ref.trim().toLowerCase()) : undefined;
  }

  byIdString(id: string): VariableRow | undefined {
    return this.byId.get(id);
  }

  custom(): VariableRow[] {
    return this.rows.filter((r) => !r.is_standard);
  }
}

@Injectable()
export class VariableService {
  constructor(private readonly repo: VariableRepository) {}

  async catalog(accountId: string, m?: EntityManager): Promise<VariableCatalog> {
    return new VariableCatalog(await this.repo.all(accountId, m));
  }

  async list(accountId: string, query: Record<string, unknown>): Promise<ListResult<VariableDto>> {
    const q = parseListQuery(query, { sortable: ['id'], defaultItemsPerPage: 500 });
    const search = typeof query.name === 'string' && query.name.trim() ? query.name.trim() : undefined;
    const isStandard = query.isStandard === 'true' ? true : query.isStandard === 'false' ? false : undefined;
    if (query.isStandard !== undefined && isStandard === undefined) throw AppError.validation([{ propertyPath: 'isStandard', message: 'must be true or false' }]);
    const [items, total] = await Promise.all([this.repo.list(accountId, { skip: q.skip, take: q.take, order: q.order.id ?? 'DESC', search, isStandard }), this.repo.count(accountId, { search, isStandard })]);
    return { items: items.map(toVariableDto), total };
  }

  async get(accountId: string, rawId: string): Promise<VariableDto> {
    const row = await this.repo.find(accountId, parseId(rawId, 'variable'));
    if (!row) throw AppError.notFound('variable');
    return toVariableDto(row);
  }

  async create(accountId: string, dto: CreateVariableDto): Promise<VariableDto> {
    if (await this.repo.nameTaken(accountId, dto.name, null)) throw AppError.validation([{ propertyPath: 'name', message: 'uniqVarName', code: 'uniqVarName' }]);
    try {
      const row = await this.repo.insert(accountId, { name: dto.name, uiName: dto.UIname ?? dto.name, type: dto.type ?? 'text', hidden: dto.hidden ?? false, example: dto.example ?? null });
      return toVariableDto(row);
    } catch (e) {
      // two creations of one name racing: the unique index decides
      if ((e as { code?: string }).code === '23505') throw AppError.validation([{ propertyPath: 'name', message: 'uniqVarName', code: 'uniqVarName' }]);
      throw e;
    }
  }

  async update(accountId: string, rawId: string, dto: UpdateVariableDto): Promise<VariableDto> {
    const id = parseId(rawId, 'variable');
    const row = await this.repo.find(accountId, id);
    if (!row) throw AppError.notFound('variable');
    if (row.is_standard) throw AppError.validation([{ propertyPath: 'id', message: 'a standard variable cannot be changed' }]);
    const name = dto.name ?? row.name;
    if (name.toLowerCase() !== row.name.toLowerCase() && (await this.repo.nameTaken(accountId, name, id))) {
      throw AppError.validation([{ propertyPath: 'name', message: 'uniqVarName', code: 'uniqVarName' }]);
    }
    const updated = await this.repo.update(accountId, id, {
      name,
      uiName: dto.UIname ?? row.ui_name,
      type: dto.type ?? row.type,
      hidden: dto.hidden ?? row.hidden,
      example: dto.example === undefined ? row.example : dto.example,
    });
    if (!updated) throw AppError.notFound('variable');
    return toVariableDto(updated);
  }

  /** Values stay in contacts under the deleted id, which is never reused (identity), and are no longer shown. */
  async delete(accountId: string, rawId: string): Promise<void> {
    const id = parseId(rawId, 'variable');
    const row = await this.repo.find(accountId, id);
    if (!row) throw AppError.notFound('variable');
    if (row.is_standard) throw AppError.validation([{ propertyPath: 'id', message: 'a standard variable cannot be deleted' }]);
    await this.repo.delete(accountId, id);
  }
}
