import { Client } from 'pg';
import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, type DataSource, type MigrationInterface, type QueryRunner } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '../testing/database';
import { ArrayLiteralClient, openServiceDataSource } from './data-source';

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

class BrokenMigration1700000000001 implements MigrationInterface {
  name = 'BrokenMigration1700000000001';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE half_done (id int)`);
    await q.query(`SELECT * FROM no_such_table`);
  }
  async down(): Promise<void> {}
}

describe('service data source', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let sql: Client;

  beforeAll(async () => {
    db = await createTestDatabase('ds');
    ds = await openServiceDataSource({ name: 'contacts', url: db.url, schema: 'contacts', entities: [ContactList], migrations: [CreateContactList1700000000000] });
    sql = new Client({ connectionString: db.url });
    await sql.connect();
  });
  afterAll(async () => {
    await sql?.end();
    await ds?.destroy();
    await db?.drop();
  });

  it('creates the schema and runs the migrations into it, never synchronize', async () => {
    expect(ds.options.synchronize).toBe(false);
    const tables = await sql.query(`SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema IN ('contacts', 'public') ORDER BY 2`);
    expect(tables.rows).toEqual([
      { table_schema: 'contacts', table_name: 'contact_list' },
      { table_schema: 'contacts', table_name: 'migrations' },
    ]);
    const ran = await sql.query(`SELECT name FROM contacts.migrations`);
    expect(ran.rows).toEqual([{ name: 'CreateContactList1700000000000' }]);
  });

  it('names tables and columns in snake_case, matching the migration exactly', async () => {
    const meta = ds.getMetadata(ContactList);
    expect(meta.tableName).toBe('contact_list');
    expect(meta.schema).toBe('contacts');
    expect(meta.columns.map((c) => c.databaseName).sort()).toEqual(['account_id', 'contact_count', 'created_at', 'id', 'name']);
    const cols = await sql.query(`SELECT column_name FROM information_schema.columns WHERE table_schema = 'contacts' AND table_name = 'contact_list' ORDER BY 1`);
    expect(cols.rows.map((r) => r.column_name)).toEqual(['account_id', 'contact_count', 'created_at', 'id', 'name']);
    // What synchronize would still change: nothing, so the entities and the migration agree.
    const pending = await ds.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((q) => q.query)).toEqual([]);
  });

  it('is idempotent: opening again runs nothing new', async () => {
    const again = await openServiceDataSource({ name: 'contacts2', url: db.url, schema: 'contacts', entities: [ContactList], migrations: [CreateContactList1700000000000] });
    await again.destroy();
    expect((await sql.query(`SELECT count(*)::int AS n FROM contacts.migrations`)).rows[0].n).toBe(1);
  });

  it('lets replicas migrate the same schema at once: they take turns and each migration runs once', async () => {
    // slow enough that, without the lock, every replica would be inside the migration at the same time
    class SlowCreate1700000000002 implements MigrationInterface {
      name = 'SlowCreate1700000000002';
      async up(q: QueryRunner): Promise<void> {
        await q.query(`SELECT pg_sleep(0.3)`);
        await q.query(`CREATE TABLE slow_table (id int PRIMARY KEY)`);
      }
      async down(): Promise<void> {}
    }
    const opened = await Promise.all(
      [1, 2, 3].map((i) => openServiceDataSource({ name: `replica${i}`, url: db.url, schema: 'replicated', entities: [], migrations: [SlowCreate1700000000002] })),
    );
    await Promise.all(opened.map((d) => d.destroy()));
    expect((await sql.query(`SELECT name FROM replicated.migrations`)).rows).toEqual([{ name: 'SlowCreate1700000000002' }]);
    expect((await sql.query(`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'replicated' AND table_name = 'slow_table'`)).rows[0].n).toBe(1);
  });

  it('fails on a broken migration, rolls it back and leaves no connection open', async () => {
    jest.spyOn(console, 'log').mockImplementation(() => undefined); // TypeORM's logger reports the failed query
    await expect(
      openServiceDataSource({ name: 'broken', url: db.url, schema: 'broken', entities: [], migrations: [BrokenMigration1700000000001] }),
    ).rejects.toThrow(/no_such_table/);
    expect((await sql.query(`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name = 'half_done'`)).rows[0].n).toBe(0);
    // pg_stat_activity drops a backend once it has exited; wait for that, bounded.
    let open = -1;
    for (let i = 0; i < 50 && open !== 0; i++) {
      open = (await sql.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'switchboard-broken'`)).rows[0].n;
      if (open) await new Promise((r) => setTimeout(r, 100));
    }
    expect(open).toBe(0);
    jest.restoreAllMocks();
  });

  it('sends array parameters through its own client, each value arriving as it was given', async () => {
    const runner = ds.createQueryRunner();
    try {
      expect(await runner.connect()).toBeInstanceOf(ArrayLiteralClient);
    } finally {
      await runner.release();
    }
    const texts = ['plain', '', 'NULL', 'a,b', '{x}', ' spaced ', 'quote " here', 'back\\slash', 'ü😀', null];
    const uuids = ['0190a1b2-c3d4-7e5f-8a9b-000000000001', null, '0190a1b2-c3d4-7e5f-8a9b-000000000003'];
    const ints = [1, -2, null, 2147483647];
    const flags = [true, false, null];
    const got = (await ds.query(`SELECT (SELECT array_agg(t ORDER BY o) FROM unnest($1::text[]) WITH ORDINALITY AS x(t, o)) AS texts, $2::uuid[]::text[] AS uuids, $3::int[] AS ints, $4::boolean[] AS flags, $5::text AS scalar`, [texts, uuids, ints, flags, 'x'])) as Array<Record<string, unknown>>;
    expect(got[0]).toEqual({ texts, uuids, ints, flags, scalar: 'x' });
    // the same through a config object (a named, prepared statement), twice, as a plain client gets it
    const r2 = ds.createQueryRunner();
    try {
      const client = (await r2.connect()) as Client;
      for (const values of [['p', 'q', null], ['r"', 's']]) {
        const viaConfig = await client.query({ name: 'array_probe', text: 'SELECT $1::text[] AS a', values: [values] });
        expect(viaConfig.rows[0].a).toEqual(values);
        expect((await sql.query('SELECT $1::text[] AS a', [values])).rows[0].a).toEqual(values);
      }
    } finally {
      await r2.release();
    }
  });

  it('refuses a schema name that is not a plain identifier', async () => {
    await expect(openServiceDataSource({ name: 'x', url: db.url, schema: 'a"; DROP SCHEMA contacts; --', entities: [], migrations: [] })).rejects.toThrow(/invalid schema name/);
  });
});

