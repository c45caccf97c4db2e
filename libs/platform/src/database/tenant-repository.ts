import type { DeepPartial, EntityManager, FindOptionsWhere, ObjectLiteral, Repository, SelectQueryBuilder } from 'typeorm';
import { RequestContext } from '../context/request-context';
import { AppError } from '../errors/app-error';

/**
 * Repository access scoped to the current request's account. Every method takes the tenant from the request
 * context and refuses to run without one, so a query can never forget its `account_id` condition.
 * The entity must have an `accountId` column.
 */
export class TenantRepository<T extends ObjectLiteral & { accountId: string }> {
  constructor(
    private readonly repo: Repository<T>,
    private readonly what = repo.metadata.name,
  ) {}

  /** The account of the current request; throws (403) when there is none. */
  get accountId(): string {
    return RequestContext.accountId();
  }

  private scoped(where?: FindOptionsWhere<T>): FindOptionsWhere<T> {
    return { ...(where ?? {}), accountId: this.accountId } as FindOptionsWhere<T>;
  }

  find(where?: FindOptionsWhere<T>, options: { skip?: number; take?: number; order?: Record<string, 'ASC' | 'DESC'> } = {}): Promise<T[]> {
    return this.repo.find({ where: this.scoped(where), ...options } as Parameters<Repository<T>['find']>[0]);
  }

  findAndCount(where?: FindOptionsWhere<T>, options: { skip?: number; take?: number; order?: Record<string, 'ASC' | 'DESC'> } = {}): Promise<[T[], number]> {
    return this.repo.findAndCount({ where: this.scoped(where), ...options } as Parameters<Repository<T>['find']>[0]);
  }

  findOne(where: FindOptionsWhere<T>): Promise<T | null> {
    return this.repo.findOne({ where: this.scoped(where) });
  }

  /** Finds one row of the current account or throws 404 (never 403: another account's ids do not exist for you). */
  async get(where: FindOptionsWhere<T>): Promise<T> {
    const row = await this.findOne(where);
    if (!row) throw AppError.notFound(this.what);
    return row;
  }

  count(where?: FindOptionsWhere<T>): Promise<number> {
    return this.repo.count({ where: this.scoped(where) });
  }

  create(data: DeepPartial<T>): T {
    return this.repo.create({ ...data, accountId: this.accountId } as DeepPartial<T>);
  }

  /** Saves rows of the current account; a row that names another account is refused. */
  async save(entity: T, manager?: EntityManager): Promise<T> {
    if (entity.accountId && entity.accountId !== this.accountId) throw AppError.notFound(this.what);
    entity.accountId = this.accountId;
    return manager ? manager.save(this.repo.target, entity) : this.repo.save(entity);
  }

  async delete(where: FindOptionsWhere<T>, manager?: EntityManager): Promise<number> {
    const r = await (manager ?? this.repo.manager).delete(this.repo.target, this.scoped(where));
    return r.affected ?? 0;
  }

  /** A query builder already restricted to the current account. */
  qb(alias: string, manager?: EntityManager): SelectQueryBuilder<T> {
    const qb = manager ? manager.createQueryBuilder<T>(this.repo.target, alias) : this.repo.createQueryBuilder(alias);
    return qb.where(`${alias}.accountId = :__accountId`, { __accountId: this.accountId });
  }
}
