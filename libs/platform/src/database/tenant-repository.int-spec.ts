import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, type DataSource, type MigrationInterface, type QueryRunner, type Repository } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '../testing/database';
import { RequestContext, type Principal } from '../context/request-context';
import { AppError } from '../errors/app-error';
import { openServiceDataSource } from './data-source';
import { TenantRepository } from './tenant-repository';

@Entity()
class ContactList {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id!: string;

  @Index('contact_list_account_idx')
  @Column({ type: 'bigint' })
  accountId!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'int', default: 0 })
  contactCount!: number;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;
}

/** Hand-written and unqualified, like most reviewed migrations: it must land in the service schema. */
class CreateContactList1700000000000 implements MigrationInterface {
  name = 'CreateContactList1700000000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE contact_list (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL,
        name text NOT NULL,
        contact_count integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX contact_list_account_idx ON contact_list (account_id)`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE contact_list`);
  }
}

const principal = (accountId: string | null): Principal => ({
  kind: 'user',
  userId: 'u1',
  email: 'u1@test.local',
  accountId,
  permissions: [],
  roles: [],
  superAdmin: false,
});
const as = <T>(accountId: string | null, fn: () => Promise<T>): Promise<T> => RequestContext.run({ principal: principal(accountId), traceId: 't', ip: null }, fn);

async function rejection(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return e as AppError;
  }
  throw new Error('expected a refusal');
}

describe('TenantRepository', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let raw: Repository<ContactList>;
  let repo: TenantRepository<ContactList>;
  let ids: Record<string, string>;

  beforeAll(async () => {
    db = await createTestDatabase('tenant');
    ds = await openServiceDataSource({ name: 'tenant', url: db.url, schema: 'contacts', entities: [ContactList], migrations: [CreateContactList1700000000000] });
    raw = ds.getRepository(ContactList);
    repo = new TenantRepository(raw);
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  beforeEach(async () => {
    await raw.clear();
    const rows = await raw.save([
      { accountId: '1', name: 'a1-first' },
      { accountId: '1', name: 'a1-second' },
      { accountId: '1', name: 'a1-third' },
      { accountId: '2', name: 'a2-only' },
    ]);
    ids = Object.fromEntries(rows.map((r) => [r.name, r.id]));
  });

  it('refuses every query outside a request context (403)', async () => {
    for (const call of [
      () => repo.find(),
      () => repo.findAndCount(),
      () => repo.findOne({ id: ids['a1-first'] }),
      () => repo.get({ id: ids['a1-first'] }),
      () => repo.count(),
      () => repo.delete({ id: ids['a1-first'] }),
      () => repo.save(raw.create({ name: 'x' })),
      async () => repo.qb('c').getMany(),
      async () => repo.create({ name: 'x' }),
    ]) {
      const e = await rejection(call());
      expect(e.toBody()).toEqual({ code: 'ACCESS_DENIED', status: 403, message: 'no account selected for this request' });
    }
    expect(await raw.count()).toBe(4);
  });

  it('refuses every query in a request with no account selected (403)', async () => {
    await as(null, async () => {
      expect((await rejection(repo.find())).status).toBe(403);
      expect((await rejection(repo.count())).status).toBe(403);
      expect((await rejection(repo.delete({ name: 'a2-only' }))).status).toBe(403);
      expect((await rejection((async () => repo.qb('c').getMany())())).status).toBe(403);
    });
    expect(await raw.count()).toBe(4);
  });

  it('scopes find, findAndCount and count to the current account', async () => {
    await as('1', async () => {
      expect((await repo.find({}, { order: { name: 'ASC' } })).map((r) => r.name)).toEqual(['a1-first', 'a1-second', 'a1-third']);
      expect(await repo.count()).toBe(3);
      const [page, total] = await repo.findAndCount(undefined, { skip: 1, take: 1, order: { name: 'ASC' } });
      expect(page.map((r) => r.name)).toEqual(['a1-second']);
      expect(total).toBe(3);
      // Naming another account in the filter does not reach it.
      expect((await repo.find({ accountId: '2' })).map((r) => r.name)).not.toContain('a2-only');
      expect(await repo.count({ name: 'a2-only' })).toBe(0);
    });
    await as('2', async () => {
      expect((await repo.find()).map((r) => r.name)).toEqual(['a2-only']);
    });
  });

  it("answers 404 for another account's id, never its row", async () => {
    await as('1', async () => {
      expect((await repo.get({ id: ids['a1-first'] })).name).toBe('a1-first');
      expect(await repo.findOne({ id: ids['a2-only'] })).toBeNull();
      expect((await rejection(repo.get({ id: ids['a2-only'] }))).toBody()).toEqual({ code: 'NOT_FOUND', status: 404, message: 'ContactList not found' });
    });
  });

  it('matches nothing when a lookup or delete condition is undefined (TypeORM would match every row)', async () => {
    await as('1', async () => {
      expect(await repo.findOne({ id: undefined })).toBeNull();
      expect((await rejection(repo.get({ id: undefined }))).status).toBe(404);
      expect(await repo.delete({ id: undefined })).toBe(0);
      expect(await repo.delete({ name: 'a1-first', id: undefined })).toBe(0);
    });
    expect(await raw.count()).toBe(4);
  });

  it('deletes only rows of the current account', async () => {
    await as('1', async () => {
      expect(await repo.delete({ id: ids['a2-only'] })).toBe(0);
      expect(await repo.delete({ name: 'a1-first' })).toBe(1);
    });
    expect((await raw.find({ order: { name: 'ASC' } })).map((r) => r.name)).toEqual(['a1-second', 'a1-third', 'a2-only']);
  });

  it('creates and saves rows into the current account', async () => {
    const saved = await as('2', async () => repo.save(repo.create({ name: 'a2-new' })));
    expect(saved.accountId).toBe('2');
    expect(await raw.countBy({ accountId: '2' })).toBe(2);
    await as('2', async () => {
      const row = await repo.get({ id: saved.id });
      row.name = 'a2-renamed';
      await repo.save(row);
    });
    expect((await raw.findOneByOrFail({ id: saved.id })).name).toBe('a2-renamed');
  });

  it('refuses to save a row that names another account', async () => {
    await as('1', async () => {
      const e = await rejection(repo.save(raw.create({ accountId: '2', name: 'sneaky' })));
      expect(e.status).toBe(404);
    });
    expect(await raw.countBy({ name: 'sneaky' })).toBe(0);
  });

  it("refuses to save over another account's row by its id, and leaves that row alone", async () => {
    await as('1', async () => {
      const forged = raw.create({ id: ids['a2-only'], name: 'hijacked' });
      expect((await rejection(repo.save(forged))).status).toBe(404);
      const forgedWithOwnAccount = raw.create({ id: ids['a2-only'], accountId: '1', name: 'hijacked' });
      expect((await rejection(repo.save(forgedWithOwnAccount))).status).toBe(404);
    });
    expect(await raw.findOneByOrFail({ id: ids['a2-only'] })).toMatchObject({ accountId: '2', name: 'a2-only' });
  });

  it('saves inside a transaction through the given manager', async () => {
    await as('1', async () => {
      await expect(
        ds.transaction(async (m) => {
          await repo.save(repo.create({ name: 'in-tx' }), m);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      await ds.transaction((m) => repo.save(repo.create({ name: 'committed' }), m));
    });
    expect(await raw.countBy({ name: 'in-tx' })).toBe(0);
    expect(await raw.findOneByOrFail({ name: 'committed' })).toMatchObject({ accountId: '1' });
  });

  it('gives a query builder scoped to the current account', async () => {
    await as('1', async () => {
      expect(await repo.qb('c').getCount()).toBe(3);
      const [rows, total] = await repo.qb('c').orderBy('c.name', 'ASC').skip(2).take(5).getManyAndCount();
      expect(rows.map((r) => r.name)).toEqual(['a1-third']);
      expect(total).toBe(3);
      expect(await repo.qb('c').andWhere('c.name = :n', { n: 'a2-only' }).getCount()).toBe(0);
    });
  });

  it('keeps the query builder scoped through .where() and .orWhere()', async () => {
    await as('1', async () => {
      expect(await repo.qb('c').where('c.name = :n', { n: 'a2-only' }).getMany()).toEqual([]);
      const names = (await repo.qb('c').where('c.name = :n', { n: 'a1-first' }).orWhere('1 = 1').getMany()).map((r) => r.name).sort();
      expect(names).toEqual(['a1-first', 'a1-second', 'a1-third']);
      const raws = await repo.qb('c').select('c.accountId', 'acc').orWhere('c.accountId = :other', { other: '2' }).getRawMany();
      expect(new Set(raws.map((r) => String(r.acc)))).toEqual(new Set(['1']));
    });
  });

  it('keeps updates and deletes built from the query builder in the current account', async () => {
    await as('1', async () => {
      const updated = await repo.qb('c').update().set({ contactCount: 9 }).where('1 = 1').execute();
      expect(updated.affected).toBe(3);
      expect((await repo.qb('c').delete().where('name = :n', { n: 'a2-only' }).execute()).affected).toBe(0);
      expect((await repo.qb('c').delete().where('name = :n', { n: 'a2-only' }).orWhere('1 = 1').execute()).affected).toBe(3);
    });
    expect(await raw.findOneByOrFail({ id: ids['a2-only'] })).toMatchObject({ accountId: '2', contactCount: 0 });
    expect(await raw.countBy({ accountId: '1' })).toBe(0);
  });

  it('refuses inserts through the query builder, which the account condition cannot cover', async () => {
    await as('1', async () => {
      expect(() => repo.qb('c').insert()).toThrow(/use create\(\) and save\(\)/);
    });
  });
});
