import { Pool } from 'pg';
import { AgentsImported, type AgentsImportedData } from '@switchboard/contracts';
import { createEnvelope, DATABASE_URL, InMemoryEventBus, isInfrastructureError } from '@switchboard/platform';
import { createTestApp, CuttableLink, recordHandleFailures, type TestApp } from '@switchboard/platform/testing';
import { AuthBootstrapService, AuthModule, ImportedAgentsConsumer } from '../src';

/** The consumer of `integrations.agents.imported` while PostgreSQL is unreachable: retried, never dead-lettered. */
describe('CRM users imported as inbox agents, through a database outage', () => {
  let t: TestApp;
  let link: CuttableLink;
  let direct: Pool;
  const ACC = '81';

  beforeAll(async () => {
    link = await new CuttableLink().start();
    t = await createTestApp(({ keys, db }) => {
      const u = new URL(db.url);
      link.target = { host: u.hostname, port: Number(u.port) };
      u.host = `127.0.0.1:${link.port}`;
      return {
        imports: [AuthModule.register({ privateKey: keys.privateKey, captcha: 'none', appUrl: 'http://console.test' })],
        // auth reaches PostgreSQL through the link; the dead letters (platform) directly, so they would be seen
        override: (b) => b.overrideProvider(DATABASE_URL).useValue(u.toString()),
      };
    });
    direct = new Pool({ connectionString: t.db.url, max: 2 });
    await t.app.get(AuthBootstrapService).createAccount({ id: ACC, name: 'Acme' });
  }, 60000);

  afterAll(async () => {
    await direct?.end();
    await t?.close();
    await link?.stop();
  });

  it('retries the same event while the database cannot be reached, then applies it once', async () => {
    const consumer = t.app.get(ImportedAgentsConsumer);
    const { failures, atLeast } = recordHandleFailures(consumer);
    const data: AgentsImportedData = {
      accountId: ACC,
      integrationKey: '3f2b8c1e-5d4a-4e6f-9a10-7b2c3d4e5f60',
      type: 'hubspot',
      syncId: 'sync-1',
      seq: 0,
      last: true,
      spaceName: null,
      importTeams: 'profiles',
      agents: [
        { externalId: '1', email: 'ann@crm.test', firstName: 'Ann', lastName: 'A', admin: false, profile: '100' },
        { externalId: '2', email: 'ANN@crm.test', firstName: 'Ann', lastName: 'again', admin: false, profile: '200' },
        { externalId: '3', email: 'not an address', firstName: null, lastName: null, admin: false, profile: null },
      ],
    };
    link.cut();
    const bus = t.bus as InMemoryEventBus;
    await bus.publish([createEnvelope(AgentsImported, data, { accountId: ACC, source: 'integrations' })]);
    await atLeast(3);
    expect(failures.length).toBeGreaterThanOrEqual(3);
    expect(failures.every((f) => isInfrastructureError(f))).toBe(true);
    expect((await direct.query(`SELECT count(*)::int AS n FROM auth.membership WHERE account_id = $1`, [ACC])).rows[0].n).toBe(0);

    link.restore();
    await bus.drain();
    const members = await direct.query(`SELECT u.email, ms.status, ms.inbox_role_id IS NOT NULL AS agent FROM auth.membership ms JOIN auth.app_user u ON u.id = ms.user_id WHERE ms.account_id = $1`, [ACC]);
    expect(members.rows).toEqual([{ email: 'ann@crm.test', status: 1, agent: true }]);
    expect((await direct.query(`SELECT count(*)::int AS n FROM auth.dead_letter`)).rows[0].n).toBe(0);
    expect(t.mailbox.list().filter((m) => m.to === 'ann@crm.test')).toHaveLength(1);
    // the inbox is told who to place, by user id, with both profiles the address was listed with (names: the ids here)
    const [placed] = (await direct.query(`SELECT payload FROM auth.outbox WHERE type = 'auth.imported_agents.admitted'`)).rows as Array<{ payload: { data: Record<string, unknown> } }>;
    const [ann] = (await direct.query(`SELECT id::text FROM auth.app_user WHERE email = 'ann@crm.test'`)).rows as Array<{ id: string }>;
    expect(placed.payload.data).toMatchObject({ accountId: ACC, spaceName: null, importTeams: 'profiles', agents: [{ userId: ann.id, profiles: [{ id: '100', name: '100' }, { id: '200', name: '200' }] }] });
  });
});
