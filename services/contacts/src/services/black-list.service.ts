import { Injectable } from '@nestjs/common';
import { BlacklistChangedV1 } from '@switchboard/contracts';
import { AppError, parseListQuery, type ListResult } from '@switchboard/platform';
import type { BlackListDto, CreateBlackListDto } from '../dtos/black-list.dto';
import { normalizePhone, PhoneState } from '../import/phone';
import { BlackListRepository, type BlackListRow } from '../repositories/black-list.repository';
import { ContactListRepository } from '../repositories/contact-list.repository';
import { one } from '../db/sql';
import { idFromInput, parseId } from './access';
import { ContactsUnitOfWork } from './contacts-events.service';

export const blackListDto = (r: BlackListRow): BlackListDto => ({
  id: Number(r.id),
  phone: r.phone,
  normalizedPhone: r.normalized_phone,
  importList: r.import_list_id ? Number(r.import_list_id) : null,
  createdAt: r.created_at.toISOString(),
});

/** Blocked destinations: a number here is never counted, exported or sent to as a member of a list. */
@Injectable()
export class BlackListService {
  constructor(
    private readonly repo: BlackListRepository,
    private readonly lists: ContactListRepository,
    private readonly uow: ContactsUnitOfWork,
  ) {}

  async list(accountId: string, query: Record<string, unknown>): Promise<ListResult<BlackListDto>> {
    const q = parseListQuery(query, { sortable: ['id'], defaultItemsPerPage: 25 });
    let importList: string | undefined;
    if (query.importList !== undefined && query.importList !== '') {
      importList = idFromInput(query.importList) ?? undefined;
      if (!importList) throw AppError.validation([{ propertyPath: 'importList', message: 'must be an id' }]);
    }
    const f = { phone: typeof query.phone === 'string' && query.phone.trim() ? query.phone.trim() : undefined, importList };
    const [items, total] = await Promise.all([this.repo.list(accountId, f, { skip: q.skip, take: q.take, dir: q.order.id ?? 'DESC' }), this.repo.count(accountId, f)]);
    return { items: items.map(blackListDto), total };
  }

  async create(accountId: string, dto: CreateBlackListDto): Promise<BlackListDto> {
    const p = normalizePhone(dto.phone, dto.country?.toUpperCase() ?? null, false);
    if (p.state !== PhoneState.Ok || !p.e164) throw AppError.validation([{ propertyPath: 'phone', message: 'impossiblePhoneNumber', code: 'impossiblePhoneNumber' }]);
    const e164 = p.e164;
    return this.uow.run(async (m, emit) => {
      const before = await one<{ list_ids: string[]; sendable: boolean }>(
        m,
        `SELECT list_ids, (NOT blocked AND opted_out_at IS NULL) AS sendable FROM contacts.contact WHERE account_id = $1 AND normalized_phone = $2 FOR UPDATE`,
        [accountId, e164],
      );
      const row = await this.repo.insert(accountId, dto.phone.trim(), e164, m);
      if (!row) throw AppError.conflict('the number is already blacklisted');
      if (before?.sendable) await this.lists.adjustCounts(accountId, [], before.list_ids.map(String), m);
      emit(BlacklistChangedV1, { accountId, added: [e164], removed: [], changedAt: new Date().toISOString() }, accountId);
      return blackListDto(row);
    });
  }

  async delete(accountId: string, rawId: string): Promise<void> {
    const id = parseId(rawId, 'blacklist entry');
    await this.uow.run(async (m, emit) => {
      const row = await this.repo.delete(accountId, id, m);
      if (!row) throw AppError.notFound('blacklist entry');
      const after = await one<{ list_ids: string[]; sendable: boolean }>(
        m,
        `SELECT list_ids, (NOT blocked AND opted_out_at IS NULL) AS sendable FROM contacts.contact WHERE account_id = $1 AND normalized_phone = $2`,
        [accountId, row.normalized_phone],
      );
      if (after?.sendable) await this.lists.adjustCounts(accountId, after.list_ids.map(String), [], m);
      emit(BlacklistChangedV1, { accountId, added: [], removed: [row.normalized_phone], changedAt: new Date().toISOString() }, accountId);
    });
  }
}
