import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { MemberChangedV1, RoleChangedV1 } from '@switchboard/contracts';
import type { RoleEntity } from '../entities';
import { MembershipRepository, type MemberRow } from '../repositories';
import type { Emit } from './auth-events.service';

const ref = (r: { id: string; name: string } | null) => (r ? { id: r.id, name: r.name } : null);

export function memberChangedData(row: MemberRow, removed = false) {
  return {
    accountId: row.accountId,
    userId: row.userId,
    email: row.email,
    firstName: row.firstName,
    lastName: row.lastName,
    status: row.status,
    platformRole: ref(row.platformRole),
    inboxRole: ref(row.inboxRole),
    permissions: row.permissions,
    removed,
  };
}

/** The member and role snapshots other services build their read models from (the inbox's agents). */
@Injectable()
export class MemberEvents {
  constructor(private readonly memberships: MembershipRepository) {}

  /** Emits the current snapshot of each member, read in the caller's transaction (one query for all). */
  async changed(m: EntityManager, emit: Emit, accountId: string, userIds: string[]): Promise<void> {
    for (const row of await this.memberships.members(accountId, [...new Set(userIds)], m)) emit(MemberChangedV1, memberChangedData(row), accountId);
  }

  /** For members about to be deleted: the snapshot taken before, marked removed. */
  removed(emit: Emit, row: MemberRow): void {
    emit(MemberChangedV1, memberChangedData(row, true), row.accountId);
  }

  role(emit: Emit, role: RoleEntity): void {
    emit(
      RoleChangedV1,
      {
        roleId: role.id,
        accountId: role.accountId,
        name: role.name,
        roleType: role.roleType,
        permissions: role.permissions,
        readOnly: role.readOnly,
        isDeleted: role.isDeleted,
      },
      role.accountId,
    );
  }
}
