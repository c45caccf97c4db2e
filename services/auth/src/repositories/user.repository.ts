import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { AUTH_CONNECTION } from '../auth.options';
import { UserEntity } from '../entities';

export type NewUser = Omit<UserEntity, 'id'>;
export type UserPatch = Partial<Pick<UserEntity, 'firstName' | 'lastName' | 'timezone' | 'preferences' | 'superAdmin' | 'active' | 'passwordHash' | 'updatedAt'>>;

@Injectable()
export class UserRepository {
  constructor(@InjectDataSource(AUTH_CONNECTION) private readonly ds: DataSource) {}

  private repo(m?: EntityManager) {
    return (m ?? this.ds.manager).getRepository(UserEntity);
  }

  findByEmail(email: string, m?: EntityManager): Promise<UserEntity | null> {
    return this.repo(m).findOne({ where: { email } });
  }

  findById(id: string, m?: EntityManager): Promise<UserEntity | null> {
    return this.repo(m).findOne({ where: { id } });
  }

  insert(user: NewUser, m?: EntityManager): Promise<UserEntity> {
    return this.repo(m).save(this.repo(m).create(user));
  }

  async update(id: string, patch: UserPatch, m?: EntityManager): Promise<void> {
    // jsonb values are plain objects; TypeORM's deep-partial type cannot express `Record<string, unknown>`
    await this.repo(m).update({ id }, patch as QueryDeepPartialEntity<UserEntity>);
  }
}
