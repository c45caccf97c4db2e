import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { In, IsNull, type DataSource, type EntityManager } from 'typeorm';
import { AUTH_CONNECTION } from '../auth.options';
import { RoleEntity } from '../entities';

@Injectable()
export class RoleRepository {
  constructor(@InjectDataSource(AUTH_CONNECTION) private readonly ds: DataSource) {}

  private repo(m?: EntityManager) {
    return (m ?? this.ds.manager).getRepository(RoleEntity);
  }

  findSystemRole(name: string, m?: EntityManager): Promise<RoleEntity | null> {
    return this.repo(m).findOne({ where: { name, accountId: IsNull() } });
  }

  /** Creates or refreshes a system role (account_id null): its permission list follows the code on every start. */
  async upsertSystemRole(role: Pick<RoleEntity, 'name' | 'description' | 'roleType' | 'permissions' | 'readOnly'>, now: Date, m?: EntityManager): Promise<RoleEntity> {
    await (m ?? this.ds.manager).query(
      `INSERT INTO auth.role (account_id, name, description, role_type, permissions, read_only, is_deleted, created_at)
       VALUES (NULL, $1, $2, $3, $4, $5, false, $6)
       ON CONFLICT (name) WHERE account_id IS NULL
       DO UPDATE SET description = EXCLUDED.description, role_type = EXCLUDED.role_type,
                     permissions = EXCLUDED.permissions, read_only = EXCLUDED.read_only, is_deleted = false`,
      [role.name, role.description, role.roleType, role.permissions, role.readOnly, now],
    );
    return (await this.findSystemRole(role.name, m)) as RoleEntity;
  }

  insert(role: Omit<RoleEntity, 'id'>, m?: EntityManager): Promise<RoleEntity> {
    return this.repo(m).save(this.repo(m).create(role));
  }

  /** Live roles among `ids` usable in `accountId`: system roles or the account's own. */
  findUsable(ids: string[], accountId: string, m?: EntityManager): Promise<RoleEntity[]> {
    if (!ids.length) return Promise.resolve([]);
    return this.repo(m).find({ where: [
      { id: In(ids), accountId: IsNull(), isDeleted: false },
      { id: In(ids), accountId, isDeleted: false },
    ] });
  }
}
