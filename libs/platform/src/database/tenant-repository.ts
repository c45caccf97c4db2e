import type { DeepPartial, EntityManager, FindOptionsWhere, ObjectLiteral, Repository, SelectQueryBuilder } from 'typeorm';
import { RequestContext } from '../context/request-context';
import { AppError } from '../errors/app-error';

type FindListOptions = { skip?: number; take?: number; order?: Record<string, 'ASC' | 'DESC'> };

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (!v || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/**
 * TypeORM drops `undefined` conditions: `{ id: undefined }` matches every row. For a lookup or a delete of one thing
 * that would pick or remove an arbitrary row of the account, so such a condition matches nothing instead.
 */
function hasUndefinedCondition(where: object, depth = 0): boolean {
  return Object.values(where).some((v) => v === undefined || (depth < 8 && isPlainObject(v) && hasUndefinedCondition(v, depth + 1)));
}

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
    // An array means OR in TypeORM; spread into one object it would lose its conditions. Not supported here.
    if (where !== undefined && (where === null || typeof where !== 'object' || Array.isArray(where))) {
      throw new Error(`${this.what}: a tenant query takes one where object`);
    }
    return { ...(where ?? {}), accountId: this.accountId } as FindOptionsWhere<T>;
  }

  async find(where?: FindOptionsWhere<T>, options: FindListOptions = {}): Promise<T[]> {
    const { skip, take, order } = options;
    return this.repo.find({ skip, take, order, where: this.scoped(where) } as Parameters<Repository<T>['find']>[0]);
  }

  async findAndCount(where?: FindOptionsWhere<T>, options: FindListOptions = {}): Promise<[T[], number]> {
    const { skip, take, order } = options;
    return this.repo.findAndCount({ skip, take, order, where: this.scoped(where) } as Parameters<Repository<T>['find']>[0]);
  }

  async findOne(where: FindOptionsWhere<T>): Promise<T | null> {
    const scoped = this.scoped(where);
    if (hasUndefinedCondition(where)) return null;
    return this.repo.findOne({ where: scoped });
  }

  /** Finds one row of the current account or throws 404 (never 403: another account's ids do not exist for you). */
  async get(where: FindOptionsWhere<T>): Promise<T> {
    const row = await this.findOne(where);
    if (!row) throw AppError.notFound(this.what);
    return row;
  }

  async count(where?: FindOptionsWhere<T>): Promise<number> {
    return this.repo.count({ where: this.scoped(where) });
  }

  create(data: DeepPartial<T>): T {
    return this.repo.create({ ...data, accountId: this.accountId } as DeepPartial<T>);
  }

  /**
   * Saves a row of the current account. A row that names another account, or whose primary key is another
   * account's row, is refused with 404 (TypeORM would otherwise update that row and move it to this account).
   */
  async save(entity: T, manager?: EntityManager): Promise<T> {
    const accountId = this.accountId;
    if (entity.accountId !== undefined && entity.accountId !== null && String(entity.accountId) !== accountId) throw AppError.notFound(this.what);
    const m = manager ?? this.repo.manager;
    const ids = this.repo.metadata.getEntityIdMap(entity);
    if (ids) {
      const owner = await m
        .createQueryBuilder(this.repo.target, 'row')
        .withDeleted()
        .select('row.accountId', 'accountId')
        .where(ids)
        .getRawOne<{ accountId: string }>();
      if (owner && String(owner.accountId) !== accountId) throw AppError.notFound(this.what);
    }
    entity.accountId = accountId as T['accountId'];
    return m.save(this.repo.target, entity) as Promise<T>;
  }

  /** Deletes rows of the current account matching `where`; a condition left undefined deletes nothing. */
  async delete(where: FindOptionsWhere<T>, manager?: EntityManager): Promise<number> {
    const scoped = this.scoped(where);
    if (hasUndefinedCondition(where)) return 0;
    const r = await (manager ?? this.repo.manager).delete(this.repo.target, scoped);
    return r.affected ?? 0;
  }

  /**
   * A query builder restricted to the current account. The restriction is ANDed to the whole WHERE clause, so a
   * later `.where()` (which replaces conditions) or `.orWhere()` (which ORs with them) cannot lift it; it carries
   * over to `.update()`, `.delete()`, `.softDelete()` and `.restore()` built from it (whose conditions name columns
   * without the alias). `.insert()` is refused: rows are created with `create()` and `save()`.
   */
  qb(alias: string, manager?: EntityManager): SelectQueryBuilder<T> {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(alias)) throw new Error(`invalid query builder alias ${alias}`);
    const accountId = this.accountId;
    const qb = manager ? manager.createQueryBuilder<T>(this.repo.target, alias) : this.repo.createQueryBuilder(alias);
    qb.expressionMap.extraAppendedAndWhereCondition = `${alias}.accountId = :${TENANT_PARAM}`;
    qb.setParameter(TENANT_PARAM, accountId).where(`${alias}.accountId = :${TENANT_PARAM}`);
    const write = <Q extends { expressionMap: { extraAppendedAndWhereCondition: string } }>(q: Q): Q => {
      q.expressionMap.extraAppendedAndWhereCondition = `accountId = :${TENANT_PARAM}`;
      return q;
    };
    const { update, delete: del, softDelete, restore } = qb;
    Object.assign(qb, {
      update: (...args: unknown[]) => write((update as (...a: unknown[]) => ReturnType<typeof qb.update>).apply(qb, args)),
      delete: () => write(del.call(qb)),
      softDelete: () => write(softDelete.call(qb)),
      restore: () => write(restore.call(qb)),
      insert: () => {
        throw new Error(`${this.what}: insert through a tenant query builder is not scoped; use create() and save()`);
      },
    });
    return qb;
  }
}

const TENANT_PARAM = '__tenantAccountId';
