import { Client } from 'pg';
import { createTestDatabase } from './database';

describe('test harness', () => {
  it('gives each test file its own database on a real PostgreSQL', async () => {
    const db = await createTestDatabase();
    const c = new Client({ connectionString: db.url });
    await c.connect();
    const { rows } = await c.query('select current_database() as name, version() as v');
    expect(rows[0].name).toBe(db.name);
    expect(rows[0].v).toMatch(/^PostgreSQL 1[5-9]/);
    await c.end();
    await db.drop();
  });
});
