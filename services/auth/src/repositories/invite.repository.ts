import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { AUTH_CONNECTION } from '../auth.options';
import { InviteEntity, InviteStatus, type InviteStatusValue } from '../entities';

export type NewInvite = Omit<InviteEntity, 'id' | 'status' | 'acceptedBy' | 'acceptedAt'>;

@Injectable()
export class InviteRepository {
  constructor(@InjectDataSource(AUTH_CONNECTION) private readonly ds: DataSource) {}

  private repo(m?: EntityManager) {
    return (m ?? this.ds.manager).getRepository(InviteEntity);
  }

  findInAccount(accountId: string, id: string, m?: EntityManager): Promise<InviteEntity | null> {
    return this.repo(m).findOne({ where: { id, accountId } });
  }

  /** The invite locked until the transaction ends, so two acceptances of one invite cannot both pass. */
  lockInAccount(accountId: string, id: string, m: EntityManager): Promise<InviteEntity | null> {
    return this.repo(m).createQueryBuilder('i').setLock('pessimistic_write').where('i.id = :id AND i.accountId = :accountId', { id, accountId }).getOne();
  }

  async list(accountId: string, opts: { status?: InviteStatusValue; skip: number; take: number; order: Record<string, 'ASC' | 'DESC'> }, m?: EntityManager): Promise<[InviteEntity[], number]> {
    return this.repo(m).findAndCount({
      where: { accountId, ...(opts.status ? { status: opts.status } : {}) },
      order: { ...opts.order, id: opts.order.id ?? 'DESC' },
      skip: opts.skip,
      take: opts.take,
    });
  }

  /** Inserts a pending invite, replacing the account's pending invite to the same address (a re-invite). */
  async insertReplacingPending(invite: NewInvite, m: EntityManager): Promise<InviteEntity> {
    await this.repo(m).delete({ accountId: invite.accountId, email: invite.email, status: InviteStatus.Pending });
    return this.repo(m).save(this.repo(m).create({ ...invite, status: InviteStatus.Pending, acceptedBy: null, acceptedAt: null }));
  }

  async update(accountId: string, id: string, patch: Partial<Pick<InviteEntity, 'firstName' | 'lastName' | 'platformRoleId' | 'inboxRoleId' | 'tokenHash' | 'expiresAt'>>, m?: EntityManager): Promise<void> {
    await this.repo(m).update({ id, accountId }, patch);
  }

  async markAccepted(id: string, userId: string, at: Date, m: EntityManager): Promise<void> {
    await this.repo(m).update({ id }, { status: InviteStatus.Accepted, acceptedBy: userId, acceptedAt: at });
  }

  async delete(accountId: string, id: string, m?: EntityManager): Promise<boolean> {
    const r = await this.repo(m).delete({ id, accountId });
    return (r.affected ?? 0) > 0;
  }

  /** A deleted role leaves the pending invites that carried it. */
  async detachRole(roleId: string, m: EntityManager): Promise<void> {
    await m.query(
      `UPDATE auth.invite SET platform_role_id = CASE WHEN platform_role_id = $1 THEN NULL ELSE platform_role_id END,
                              inbox_role_id = CASE WHEN inbox_role_id = $1 THEN NULL ELSE inbox_role_id END
       WHERE status = 1 AND (platform_role_id = $1 OR inbox_role_id = $1)`,
      [roleId],
    );
  }
}
