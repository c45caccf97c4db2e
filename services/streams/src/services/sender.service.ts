import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import {
  ErrorCode,
  inboundAddress,
  isReceivingNumber,
  SenderType,
  MaliciousKeywordsChangedV1,
  SenderApproval,
  SenderChangedV1,
  SenderDeletedV1,
  type SenderSnapshot,
  type Violation,
} from '@switchboard/contracts';
import { AppError, parseListQuery, TenantRepository, type ListResult } from '@switchboard/platform';
import { Clock } from '../clock';
import type { ApproveSenderDto, CreateSenderDto, KeywordDto, UpdateSenderDto } from '../dtos/sender.dto';
import { MaliciousKeywordEntity, SenderEntity } from '../entities';
import { senderIdViolations } from '../rules/sender-id';
import { STREAMS_CONNECTION } from '../streams.options';
import { InboundClaimService, type InboundTarget } from './inbound-claims.service';
import { LookupsService } from './lookups.service';
import { StreamsUnitOfWork, type Emit } from './streams-events.service';
import type { SenderDto, SuperAdminSenderDto } from '@switchboard/contracts';

export type { SenderDto, SuperAdminSenderDto };

const SENDER_REFUSAL = { propertyPath: 'value', what: 'this number' };

/** A sender that receives (inbound-outbound or inbound-only, a number) claims its number (docs/decisions/0021). */
export function senderInboundTarget(s: Pick<SenderEntity, 'type' | 'value' | 'country'>): InboundTarget | null {
  if (s.type !== SenderType.InboundOutbound && s.type !== SenderType.InboundOnly) return null;
  if (!isReceivingNumber(s.value)) return null;
  const address = inboundAddress('sms', s.value, s.country);
  return address ? { channel: 'sms', address } : null;
}



const toDto = (s: SenderEntity): SenderDto => ({
  id: Number(s.id),
  name: s.name,
  value: s.value,
  createdAt: s.createdAt.toISOString(),
  type: s.type,
  country: s.country,
  approved: s.approved,
  declinedReason: s.declinedReason,
  defaultMetadata: s.defaultMetadata ?? {},
});

const snapshot = (s: SenderEntity): SenderSnapshot => ({
  senderId: s.id,
  accountId: s.accountId,
  name: s.name,
  value: s.value,
  type: s.type,
  country: s.country,
  approved: s.approved,
  declinedReason: s.declinedReason,
});

const isUniqueViolation = (e: unknown): boolean => (e as { code?: string })?.code === '23505';
const senderExists = (): AppError =>
  new AppError(409, ErrorCode.Conflict, 'a sender with this ID already exists', [{ propertyPath: 'value', message: 'a sender with this ID already exists', code: 'senderExists' }]);

const keywordExists = (): AppError => new AppError(409, ErrorCode.Conflict, 'this keyword is already listed', [{ propertyPath: 'word', message: 'this keyword is already listed' }]);

/** Senders with the spec's ID rules and super-admin approval (pending 0, approved 1, declined 2 with a reason). */
@Injectable()
export class SenderService {
  private readonly repo: TenantRepository<SenderEntity>;

  constructor(
    @InjectDataSource(STREAMS_CONNECTION) private readonly ds: DataSource,
    private readonly uow: StreamsUnitOfWork,
    private readonly lookups: LookupsService,
    private readonly clock: Clock,
    private readonly claims: InboundClaimService,
  ) {
    this.repo = new TenantRepository(ds.getRepository(SenderEntity), 'sender');
  }

  async list(query: Record<string, unknown>): Promise<ListResult<SenderDto>> {
    const q = parseListQuery(query, { sortable: ['id', 'name', 'value', 'createdAt', 'approved', 'type'], defaultItemsPerPage: 25, maxItemsPerPage: 2000 });
    const qb = this.repo.qb('s');
    this.filters(qb, query);
    for (const [field, dir] of Object.entries(q.order)) qb.addOrderBy(`s.${field}`, dir);
    const [rows, total] = await qb.skip(q.skip).take(q.take).getManyAndCount();
    return { items: rows.map(toDto), total };
  }

  async dropdown(query: Record<string, unknown>): Promise<ListResult<Pick<SenderDto, 'id' | 'name' | 'value' | 'approved' | 'type'>>> {
    const qb = this.repo.qb('s');
    this.filters(qb, query);
    const rows = await qb.orderBy('s.name', 'ASC').addOrderBy('s.id', 'ASC').take(2000).getMany();
    const items = rows.map((s) => ({ id: Number(s.id), name: s.name, value: s.value, approved: s.approved, type: s.type }));
    return { items, total: items.length };
  }

  private filters(qb: ReturnType<TenantRepository<SenderEntity>['qb']>, query: Record<string, unknown>): void {
    if (query.approved !== undefined && query.approved !== '') {
      if (typeof query.approved !== 'string' || !/^[012]$/.test(query.approved)) throw AppError.validation([{ propertyPath: 'approved', message: 'approved is 0, 1 or 2' }]);
      qb.andWhere('s.approved = :approved', { approved: Number(query.approved) });
    }
    if (typeof query.search === 'string' && query.search.trim()) {
      qb.andWhere('(s.name ILIKE :search OR s.value ILIKE :search)', { search: `%${query.search.trim().replace(/[%_\\]/g, '\\$&')}%` });
    }
    if (typeof query.type === 'string' && query.type) qb.andWhere('s.type = :type', { type: query.type });
  }

  async get(id: string): Promise<SenderDto> {
    return toDto(await this.find(id));
  }

  private async find(id: string): Promise<SenderEntity> {
    if (!/^\d{1,18}$/.test(id)) throw AppError.notFound('sender');
    return this.repo.get({ id });
  }

  async create(dto: CreateSenderDto): Promise<SenderDto> {
    const violations = senderIdViolations(dto.value, 'value');
    if (violations.length) throw AppError.validation(violations);
    await this.assertFree(String(dto.value).trim());
    const entity = this.repo.create({
      name: dto.name.trim(),
      value: String(dto.value).trim(),
      type: dto.type ?? 'outbound-only',
      country: dto.country ? dto.country.toUpperCase() : null,
      approved: SenderApproval.Pending,
      declinedReason: null,
      defaultMetadata: dto.defaultMetadata ?? {},
      createdAt: this.clock.now(),
    });
    const saved = await this.write(async (m, emit) => {
      const row = await this.repo.save(entity, m);
      await this.claims.set(m, emit, row.accountId, { kind: 'sender', id: row.id }, senderInboundTarget(row), SENDER_REFUSAL);
      emit(SenderChangedV1, snapshot(row), row.accountId);
      return row;
    });
    return toDto(saved);
  }

  async update(id: string, dto: UpdateSenderDto): Promise<SenderDto> {
    const row = await this.find(id);
    const violations: Violation[] = dto.value !== undefined ? senderIdViolations(dto.value, 'value') : [];
    if (violations.length) throw AppError.validation(violations);
    const claimBefore = JSON.stringify(senderInboundTarget(row));
    if (dto.name !== undefined) row.name = dto.name.trim();
    if (dto.type !== undefined) row.type = dto.type;
    if (dto.country !== undefined) row.country = dto.country ? dto.country.toUpperCase() : null;
    if (dto.defaultMetadata !== undefined) row.defaultMetadata = dto.defaultMetadata;
    if (dto.value !== undefined && String(dto.value).trim() !== row.value) {
      await this.assertFree(String(dto.value).trim(), row.id);
      // A new ID is a new thing to approve.
      row.value = String(dto.value).trim();
      row.approved = SenderApproval.Pending;
      row.declinedReason = null;
    }
    const saved = await this.write(async (m, emit) => {
      const r = await this.repo.save(row, m);
      // a rename leaves the claim as it is; a new number, type or country claims anew
      if (JSON.stringify(senderInboundTarget(r)) !== claimBefore) await this.claims.set(m, emit, r.accountId, { kind: 'sender', id: r.id }, senderInboundTarget(r), SENDER_REFUSAL);
      emit(SenderChangedV1, snapshot(r), r.accountId);
      return r;
    });
    this.lookups.forgetSenders(saved.accountId);
    return toDto(saved);
  }

  async remove(id: string): Promise<void> {
    const row = await this.find(id);
    await this.uow.run(async (m, emit) => {
      await this.repo.delete({ id: row.id }, m);
      await this.claims.set(m, emit, row.accountId, { kind: 'sender', id: row.id }, null, SENDER_REFUSAL);
      emit(SenderDeletedV1, { senderId: row.id, accountId: row.accountId }, row.accountId);
    });
    this.lookups.forgetSenders(row.accountId);
  }

  /** Super admins: senders of every account, pending first by default (`approved=0` to see only those). */
  async listAll(query: Record<string, unknown>): Promise<ListResult<SuperAdminSenderDto>> {
    const q = parseListQuery(query, { sortable: ['id', 'name', 'value', 'createdAt', 'approved'], defaultOrder: { approved: 'ASC', id: 'DESC' }, maxItemsPerPage: 2000 });
    const qb = this.ds.getRepository(SenderEntity).createQueryBuilder('s');
    if (query.approved !== undefined && query.approved !== '') {
      if (typeof query.approved !== 'string' || !/^[012]$/.test(query.approved)) throw AppError.validation([{ propertyPath: 'approved', message: 'approved is 0, 1 or 2' }]);
      qb.andWhere('s.approved = :approved', { approved: Number(query.approved) });
    }
    for (const [field, dir] of Object.entries(q.order)) qb.addOrderBy(`s.${field}`, dir);
    const [rows, total] = await qb.skip(q.skip).take(q.take).getManyAndCount();
    return { items: rows.map((s) => ({ ...toDto(s), accountId: Number(s.accountId) })), total };
  }

  /** `PUT /senders/superadmin/{id}`: any account's sender (super admins see all accounts). */
  async approve(id: string, dto: ApproveSenderDto): Promise<SuperAdminSenderDto> {
    const approved = dto.approved === true ? SenderApproval.Approved : dto.approved === false ? SenderApproval.Declined : dto.approved;
    if (approved !== 0 && approved !== 1 && approved !== 2) throw AppError.validation([{ propertyPath: 'approved', message: 'approved is 0 (pending), 1 (approved) or 2 (declined)' }]);
    if (approved === SenderApproval.Declined && !dto.declinedReason) throw AppError.validation([{ propertyPath: 'declinedReason', message: 'a declined sender needs one of the decline reasons', code: 'required' }]);
    if (!/^\d{1,18}$/.test(id)) throw AppError.notFound('sender');
    const repo = this.ds.getRepository(SenderEntity);
    const row = await repo.findOne({ where: { id } });
    if (!row) throw AppError.notFound('sender');
    row.approved = approved;
    row.declinedReason = approved === SenderApproval.Declined ? (dto.declinedReason ?? null) : null;
    const saved = await this.uow.run(async (m, emit) => {
      const r = await m.save(SenderEntity, row);
      emit(SenderChangedV1, snapshot(r), r.accountId);
      return r;
    });
    this.lookups.forgetSenders(saved.accountId);
    return { ...toDto(saved), accountId: Number(saved.accountId) };
  }

  /** The unique index decides in a race; this check keeps the usual case from being a failed INSERT. */
  private async assertFree(value: string, exceptId?: string): Promise<void> {
    const taken = await this.repo.qb('s').andWhere('lower(s.value) = lower(:value)', { value }).andWhere(exceptId ? 's.id <> :exceptId' : 'TRUE', { exceptId }).getCount();
    if (taken) throw senderExists();
  }

  private async write<T>(work: (m: EntityManager, emit: Emit) => Promise<T>): Promise<T> {
    try {
      return await this.uow.run(work);
    } catch (e) {
      if (isUniqueViolation(e)) throw senderExists();
      throw e;
    }
  }
}

/** The global malicious keyword list (super admins); every send is checked against it. */
@Injectable()
export class KeywordService {
  constructor(
    @InjectDataSource(STREAMS_CONNECTION) private readonly ds: DataSource,
    private readonly uow: StreamsUnitOfWork,
    private readonly lookups: LookupsService,
    private readonly clock: Clock,
  ) {}

  private get repo() {
    return this.ds.getRepository(MaliciousKeywordEntity);
  }

  async list(query: Record<string, unknown>): Promise<ListResult<{ id: number; word: string; type: number }>> {
    const q = parseListQuery(query, { sortable: ['id', 'word', 'type'], maxItemsPerPage: 2000 });
    const qb = this.repo.createQueryBuilder('k');
    if (typeof query.search === 'string' && query.search.trim()) qb.andWhere('k.word ILIKE :s', { s: `%${query.search.trim().replace(/[%_\\]/g, '\\$&')}%` });
    for (const [field, dir] of Object.entries(q.order)) qb.addOrderBy(`k.${field}`, dir);
    const [rows, total] = await qb.skip(q.skip).take(q.take).getManyAndCount();
    return { items: rows.map((k) => ({ id: Number(k.id), word: k.word, type: k.type })), total };
  }

  async get(id: string): Promise<{ id: number; word: string; type: number }> {
    const row = await this.find(id);
    return { id: Number(row.id), word: row.word, type: row.type };
  }

  async create(dto: KeywordDto): Promise<{ id: number; word: string; type: number }> {
    await this.assertFree(dto.word.trim());
    return this.save(this.repo.create({ word: dto.word.trim(), type: dto.type ?? 1, createdAt: this.clock.now() }));
  }

  async update(id: string, dto: KeywordDto): Promise<{ id: number; word: string; type: number }> {
    const row = await this.find(id);
    await this.assertFree(dto.word.trim(), row.id);
    row.word = dto.word.trim();
    if (dto.type !== undefined) row.type = dto.type;
    return this.save(row);
  }

  async remove(id: string): Promise<void> {
    const row = await this.find(id);
    await this.uow.run(async (m, emit) => {
      await m.delete(MaliciousKeywordEntity, { id: row.id });
      await this.emitList(m, emit);
    });
    this.lookups.forgetKeywords();
  }

  private async assertFree(word: string, exceptId?: string): Promise<void> {
    const taken = await this.repo.createQueryBuilder('k').where('lower(k.word) = lower(:word)', { word }).andWhere(exceptId ? 'k.id <> :exceptId' : 'TRUE', { exceptId }).getCount();
    if (taken) throw keywordExists();
  }

  private async find(id: string): Promise<MaliciousKeywordEntity> {
    const row = /^\d{1,18}$/.test(id) ? await this.repo.findOne({ where: { id } }) : null;
    if (!row) throw AppError.notFound('malicious keyword');
    return row;
  }

  private async save(row: MaliciousKeywordEntity): Promise<{ id: number; word: string; type: number }> {
    try {
      const saved = await this.uow.run(async (m, emit) => {
        const r = await m.save(MaliciousKeywordEntity, row);
        await this.emitList(m, emit);
        return r;
      });
      this.lookups.forgetKeywords();
      return { id: Number(saved.id), word: saved.word, type: saved.type };
    } catch (e) {
      if (isUniqueViolation(e)) throw keywordExists();
      throw e;
    }
  }

  private async emitList(m: EntityManager, emit: Emit): Promise<void> {
    const all = await m.find(MaliciousKeywordEntity, { order: { id: 'ASC' } });
    emit(MaliciousKeywordsChangedV1, { keywords: all.map((k) => ({ id: k.id, word: k.word, type: k.type })) }, null);
  }
}
