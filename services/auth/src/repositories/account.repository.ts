import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Not, type DataSource, type EntityManager } from 'typeorm';
import { AUTH_CONNECTION } from '../auth.options';
import { AccountEntity, ENTERING_STATUSES, MembershipEntity, type AccountStatus } from '../entities';

@Injectable()
export class AccountRepository {
  constructor(@InjectDataSource(AUTH_CONNECTION) private readonly ds: DataSource) {}

  private repo(m?: EntityManager) {
    return (m ?? this.ds.manager).getRepository(AccountEntity);
  }

  findById(id: string, m?: EntityManager): Promise<AccountEntity | null> {
    return this.repo(m).findOne({ where: { id } });
  }

  findByName(name: string, m?: EntityManager): Promise<AccountEntity | null> {
    return this.repo(m).findOne({ where: { name }, order: { id: 'ASC' } });
  }

  /** Every account that is not deleted (what a super admin may enter). */
  findAllLive(m?: EntityManager): Promise<AccountEntity[]> {
    return this.repo(m).find({ where: { status: Not('delete' as AccountStatus) }, order: { name: 'ASC', id: 'ASC' } });
  }

  /** The live accounts a user is an owner or active member of. */
  findEnterableBy(userId: string, m?: EntityManager): Promise<AccountEntity[]> {
    return this.repo(m)
      .createQueryBuilder('a')
      .innerJoin(MembershipEntity, 'ms', 'ms.accountId = a.id')
      .where('ms.userId = :userId', { userId })
      .andWhere('ms.status IN (:...statuses)', { statuses: [...ENTERING_STATUSES] })
      .andWhere(`a.status <> 'delete'`)
      .orderBy('a.name', 'ASC')
      .addOrderBy('a.id', 'ASC')
      .getMany();
  }

  insert(account: Omit<AccountEntity, 'id'> & { id?: string }, m?: EntityManager): Promise<AccountEntity> {
    return this.repo(m).save(this.repo(m).create(account));
  }

  async setStatus(id: string, status: AccountStatus, m?: EntityManager): Promise<void> {
    await this.repo(m).update({ id }, { status });
  }
}
