import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { AUTH_CONNECTION } from '../auth.options';
import { ApiKeyEntity } from '../entities';

export type ApiKeyPatch = Partial<Pick<ApiKeyEntity, 'name' | 'ipAcl' | 'permissions' | 'active' | 'keyHash' | 'keyPrefix' | 'updatedAt'>>;

@Injectable()
export class ApiKeyRepository {
  constructor(@InjectDataSource(AUTH_CONNECTION) private readonly ds: DataSource) {}

  private repo(m?: EntityManager) {
    return (m ?? this.ds.manager).getRepository(ApiKeyEntity);
  }

  findInAccount(accountId: string, id: string, m?: EntityManager): Promise<ApiKeyEntity | null> {
    return this.repo(m).findOne({ where: { id, accountId } });
  }

  findByHash(keyHash: string, m?: EntityManager): Promise<ApiKeyEntity | null> {
    return this.repo(m).findOne({ where: { keyHash } });
  }

  list(accountId: string, opts: { skip: number; take: number; order: Record<string, 'ASC' | 'DESC'> }, m?: EntityManager): Promise<[ApiKeyEntity[], number]> {
    return this.repo(m).findAndCount({ where: { accountId }, order: { ...opts.order, id: opts.order.id ?? 'DESC' }, skip: opts.skip, take: opts.take });
  }

  insert(k: Omit<ApiKeyEntity, 'id' | 'lastUsedAt'>, m?: EntityManager): Promise<ApiKeyEntity> {
    return this.repo(m).save(this.repo(m).create({ ...k, lastUsedAt: null }));
  }

  async update(accountId: string, id: string, patch: ApiKeyPatch, m?: EntityManager): Promise<void> {
    await this.repo(m).update({ id, accountId }, patch);
  }

  async delete(accountId: string, id: string, m?: EntityManager): Promise<boolean> {
    const r = await this.repo(m).delete({ id, accountId });
    return (r.affected ?? 0) > 0;
  }

  /** Records use, at most once a minute per key, so a busy key does not write on every exchange. */
  async touch(id: string, at: Date, m?: EntityManager): Promise<void> {
    await (m ?? this.ds.manager).query(
      `UPDATE auth.api_key SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2::timestamptz - interval '60 seconds')`,
      [id, at],
    );
  }
}
