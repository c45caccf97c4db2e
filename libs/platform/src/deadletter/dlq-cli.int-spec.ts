import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { createTestDatabase, type TestDatabase } from '../testing/database';
import { runDlqCli } from './dlq-cli';
import { deadLetterTableSql } from './sql';
import { DeadLetterStore, poolClient } from './store';

describe('dlq CLI', () => {
  let db: TestDatabase;
  let pool: Pool;
  let store: DeadLetterStore;

  beforeAll(async () => {
    db = await createTestDatabase('dlqcli');
    pool = new Pool({ connectionString: db.url, max: 2 });
    for (const schema of ['alpha', 'beta']) await pool.query(`CREATE SCHEMA ${schema}; ${deadLetterTableSql(schema)}`);
    store = new DeadLetterStore(poolClient(pool));
  });
  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  const run = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runDlqCli(argv, { DATABASE_URL: db.url }, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };
  const letter = (group: string) =>
    store.add({
      group,
      topic: 't',
      envelope: { id: randomUUID(), type: 'x.happened', version: 1, occurredAt: new Date().toISOString(), source: 's', accountId: '7', traceId: null, key: 'k', data: {} },
      raw: null,
      error: 'Error: boom',
      attempts: 4,
    });

  it('lists the letters of every service, shows one, and asks for replays of one or all', async () => {
    await letter('alpha.projector');
    await letter('beta.charger');
    await letter('beta.charger');

    const list = await run('list');
    expect(list.code).toBe(0);
    expect(list.out.split('\n')).toHaveLength(3);
    expect(list.out).toMatch(/^alpha-1\tdead\tconsume\talpha\.projector\tx\.happened/m);
    expect((await run('list', '--service', 'beta', '--json')).out).toContain('"group": "beta.charger"');

    expect(JSON.parse((await run('show', 'alpha-1')).out)).toMatchObject({ id: 'alpha-1', accountId: '7', payload: expect.stringContaining('x.happened') });
    expect(await run('replay', 'alpha-1')).toMatchObject({ code: 0, out: 'alpha-1: replay_requested' });
    expect(await run('replay', '--all', '--service', 'beta')).toMatchObject({ code: 0, out: 'replay requested for 2 dead letter(s)' });
    expect((await run('list', '--status', 'dead')).out).toBe('no dead letters');
  });

  it('refuses bad input with a usage message and changes nothing', async () => {
    expect((await run()).code).toBe(2);
    expect((await run('list', '--status', 'lost')).code).toBe(2);
    expect(await run('replay', 'gamma-1')).toMatchObject({ code: 1, err: 'no dead letter gamma-1' });
    expect(await run('show', "alpha-1'; drop table alpha.dead_letter; --")).toMatchObject({ code: 1 });
    expect(await runDlqCli(['list'], {}, { out: () => undefined, err: () => undefined })).toBe(2);
  });
});
