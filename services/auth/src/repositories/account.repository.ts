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

  async insert(account: Omit<AccountEntity, 'id' | 'active' | 'customSettings' | 'snapshotAt'> & { id?: string }, m?: EntityManager): Promise<AccountEntity> {
    const saved = await this.repo(m).save(this.repo(m).create({ active: 1, customSettings: {}, snapshotAt: null, ...account }));
    if (account.id) await this.syncIdentity(m);
    return saved;
  }

  async setStatus(id: string, status: AccountStatus, m?: EntityManager): Promise<void> {
    await this.repo(m).update({ id }, { status });
  }

  /**
   * Applies an accounts-service snapshot: inserts the account with the owner's id, or overwrites the row unless it
   * already holds a newer snapshot (a redelivered or replayed old event changes nothing). Returns whether it applied.
   */
  async upsertSnapshot(s: AccountSnapshotRow, m?: EntityManager): Promise<boolean> {
    if (!m) return this.ds.transaction((tx) => this.upsertSnapshot(s, tx));
    await this.lockNames(m);
    const rows = (await m.query(
      `INSERT INTO auth.account AS a (id, name, short_name, status, currency, active, custom_settings, created_at, snapshot_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9)
       ON CONFLICT (id) DO UPDATE
         SET name = EXCLUDED.name, short_name = EXCLUDED.short_name, status = EXCLUDED.status, currency = EXCLUDED.currency,
             active = EXCLUDED.active, custom_settings = EXCLUDED.custom_settings, snapshot_at = EXCLUDED.snapshot_at
         WHERE a.snapshot_at IS NULL OR a.snapshot_at <= EXCLUDED.snapshot_at
       RETURNING id`,
      [s.id, s.name, s.shortName, s.status, s.currency, s.active, JSON.stringify(s.customSettings), s.createdAt, s.snapshotAt],
    )) as unknown[];
    await this.syncIdentity(m);
    return rows.length > 0;
  }

  /**
   * Serialises, until the caller's transaction ends, the writers that decide an account's id: the seed's "find the
   * demo account by name, else record it" and the accounts service's snapshots. Without it a snapshot committed between
   * the seed's look-up and its insert moved the id sequence past its own id, and the seed recorded a second account of
   * the same name (the administrator owned it, and as a super administrator with two accounts signed in with none).
   * Only the seed and customer events take it: both are rare.
   */
  async lockNames(m: EntityManager): Promise<void> {
    await m.query(`SELECT pg_advisory_xact_lock(hashtext('switchboard.auth.account-ids'))`);
  }

  /**
   * Moves the id sequence past the highest id, so an account created by seeding after rows were inserted with the
   * accounts service's ids does not collide with them.
   */
  async syncIdentity(m?: EntityManager): Promise<void> {
    await (m ?? this.ds.manager).query(
      `SELECT setval(pg_get_serial_sequence('auth.account', 'id'), GREATEST((SELECT max(id) FROM auth.account), 1))`,
    );
  }
}

export interface AccountSnapshotRow {
  id: string;
  name: string;
  shortName: string;
  status: AccountStatus;
  currency: string;
  active: number;
  customSettings: Record<string, unknown>;
  createdAt: Date;
  snapshotAt: Date;
}
