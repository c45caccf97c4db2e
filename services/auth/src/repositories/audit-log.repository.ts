import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { AUTH_CONNECTION } from '../auth.options';
import { AuditLogEntity } from '../entities';

@Injectable()
export class AuditLogRepository {
  constructor(@InjectDataSource(AUTH_CONNECTION) private readonly ds: DataSource) {}

  async record(entry: Omit<AuditLogEntity, 'id' | 'details'> & { details?: Record<string, unknown> }, m?: EntityManager): Promise<void> {
    // jsonb values are plain objects; TypeORM's deep-partial type cannot express `Record<string, unknown>`
    await (m ?? this.ds.manager).getRepository(AuditLogEntity).insert({ ...entry, details: entry.details ?? {} } as QueryDeepPartialEntity<AuditLogEntity>);
  }
}
