import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ErrorCode, StreamEventChangedV1, StreamEventDeletedV1 } from '@switchboard/contracts';
import { AppError, parseListQuery, TenantRepository, type ListResult } from '@switchboard/platform';
import { Clock } from '../clock';
import type { StreamEventDto as StreamEventInput } from '../dtos/sender.dto';
import { StreamEventEntity } from '../entities';
import { STREAMS_CONNECTION } from '../streams.options';
import { StreamService, streamIdFrom } from './stream.service';
import { StreamsUnitOfWork } from './streams-events.service';
import type { StreamEventView } from '@switchboard/contracts';

export type { StreamEventView };


const toView = (e: StreamEventEntity): StreamEventView => ({
  id: Number(e.id),
  name: e.name,
  text: e.text,
  eventKey: e.eventKey,
  active: e.active,
  stream: `/api/streams/${e.streamId}`,
  streamId: Number(e.streamId),
});

const bool = (v: unknown, field: string): boolean | undefined => {
  if (v === undefined) return undefined;
  if (v === true || v === 1 || v === '1') return true;
  if (v === false || v === 0 || v === '0') return false;
  throw AppError.validation([{ propertyPath: field, message: `${field} is true or false (1 or 0)` }]);
};

const keyTaken = (): AppError =>
  new AppError(409, ErrorCode.Conflict, 'the stream already has an event with this key', [{ propertyPath: 'eventKey', message: 'the stream already has an event with this key', code: 'sameKey' }]);

@Injectable()
export class StreamEventService {
  private readonly repo: TenantRepository<StreamEventEntity>;

  constructor(
    @InjectDataSource(STREAMS_CONNECTION) ds: DataSource,
    private readonly streams: StreamService,
    private readonly uow: StreamsUnitOfWork,
    private readonly clock: Clock,
  ) {
    this.repo = new TenantRepository(ds.getRepository(StreamEventEntity), 'stream event');
  }

  async list(query: Record<string, unknown>): Promise<ListResult<StreamEventView>> {
    const q = parseListQuery(query, { sortable: ['id', 'name', 'eventKey'], defaultItemsPerPage: 500, maxItemsPerPage: 2000 });
    const qb = this.repo.qb('e');
    const streamRaw = query.streamId ?? query.stream;
    if (streamRaw !== undefined && streamRaw !== '') qb.andWhere('e.streamId = :streamId', { streamId: streamIdFrom(streamRaw, query.streamId !== undefined ? 'streamId' : 'stream') });
    for (const [field, dir] of Object.entries(q.order)) qb.addOrderBy(`e.${field}`, dir);
    const [rows, total] = await qb.skip(q.skip).take(q.take).getManyAndCount();
    return { items: rows.map(toView), total };
  }

  async get(id: string): Promise<StreamEventView> {
    return toView(await this.find(id));
  }

  private async find(id: string): Promise<StreamEventEntity> {
    if (!/^\d{1,18}$/.test(id)) throw AppError.notFound('stream event');
    return this.repo.get({ id });
  }

  async create(dto: StreamEventInput): Promise<StreamEventView> {
    const violations = [];
    if (!dto.name) violations.push({ propertyPath: 'name', message: 'name is required', code: 'required' });
    if (!dto.eventKey) violations.push({ propertyPath: 'eventKey', message: 'eventKey is required', code: 'required' });
    if (dto.stream === undefined) violations.push({ propertyPath: 'stream', message: 'stream is required', code: 'required' });
    if (violations.length) throw AppError.validation(violations);
    const stream = await this.streams.find(streamIdFrom(dto.stream, 'stream'));
    const entity = this.repo.create({
      streamId: stream.id,
      name: (dto.name as string).trim(),
      text: dto.text ?? '',
      eventKey: dto.eventKey as string,
      active: bool(dto.active, 'active') ?? true,
      createdAt: this.clock.now(),
    });
    return toView(await this.save(entity));
  }

  async update(id: string, dto: StreamEventInput): Promise<StreamEventView> {
    const row = await this.find(id);
    if (dto.stream !== undefined) row.streamId = (await this.streams.find(streamIdFrom(dto.stream, 'stream'))).id;
    if (dto.name !== undefined) row.name = dto.name.trim();
    if (dto.text !== undefined) row.text = dto.text;
    if (dto.eventKey !== undefined) row.eventKey = dto.eventKey;
    const active = bool(dto.active, 'active');
    if (active !== undefined) row.active = active;
    return toView(await this.save(row));
  }

  async remove(id: string): Promise<void> {
    const row = await this.find(id);
    await this.uow.run(async (m, emit) => {
      await this.repo.delete({ id: row.id }, m);
      emit(StreamEventDeletedV1, { streamEventId: row.id, accountId: row.accountId }, row.accountId);
    });
  }

  private async save(row: StreamEventEntity): Promise<StreamEventEntity> {
    // The unique index decides in a race; this check keeps the usual case from being a failed INSERT.
    const taken = await this.repo
      .qb('e')
      .andWhere('e.streamId = :streamId AND e.eventKey = :key', { streamId: row.streamId, key: row.eventKey })
      .andWhere(row.id ? 'e.id <> :id' : 'TRUE', { id: row.id })
      .getCount();
    if (taken) throw keyTaken();
    try {
      return await this.uow.run(async (m, emit) => {
        const r = await this.repo.save(row, m);
        emit(StreamEventChangedV1, { streamEventId: r.id, accountId: r.accountId, streamId: r.streamId, name: r.name, text: r.text, eventKey: r.eventKey, active: r.active }, r.accountId);
        return r;
      });
    } catch (e) {
      if ((e as { code?: string }).code === '23505') throw keyTaken();
      throw e;
    }
  }
}
