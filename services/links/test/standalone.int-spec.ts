import { Client } from 'pg';
import { startStandaloneService, type StandaloneService } from '@switchboard/platform/testing';
import { LINKS_MIGRATIONS, linksModuleOptionsFromConfig, loadLinksConfig } from '../src';
import { startLinksService, type RunningLinksService } from '../src/bootstrap';

/** Distributed mode: the links process on Kafka (librdkafka's mock cluster) and NATS, migrated by the Job's code first. */
describe('standalone links service', () => {
  let sa: StandaloneService<RunningLinksService>;
  let db: StandaloneService<RunningLinksService>['db'];
  let service: RunningLinksService;
  /** The environment the service was started with. */
  const base = (): Record<string, string> => ({ ...sa.env });

  beforeAll(async () => {
    sa = await startStandaloneService({ schema: 'links', migrations: LINKS_MIGRATIONS, load: loadLinksConfig, start: (config) => startLinksService(config, { logger: ['error'] }) });
    ({ db, service } = sa);
  }, 60_000);

  afterAll(async () => {
    await sa?.close();
  });

  it('reports ready with its schema migrated: domains, pools, offers, the outbox and dead letters', async () => {
    expect((await fetch(`${service.url}/api/health`)).status).toBe(200);
    const c = new Client({ connectionString: db.url });
    await c.connect();
    const { rows } = await c.query<{ table_name: string }>(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'links' ORDER BY 1`);
    await c.end();
    expect(rows.map((r) => r.table_name)).toEqual(expect.arrayContaining(['domain', 'domain_pool', 'domain_pool_member', 'offer', 'account_settings', 'outbox', 'processed_events', 'dead_letter']));
  });

  it('runs the roles PROCESS_ROLES names: the console API by default, the redirect server only when asked', () => {
    expect(linksModuleOptionsFromConfig(loadLinksConfig(base())).roles).toEqual({ admin: true, redirect: false });
    expect(linksModuleOptionsFromConfig(loadLinksConfig({ ...base(), PROCESS_ROLES: 'redirect,consumers' })).roles).toEqual({ admin: false, redirect: true });
    expect(() => loadLinksConfig({ ...base(), PROCESS_ROLES: 'http,workers' })).toThrow(/PROCESS_ROLES/);
  });

  it('refuses a configuration without its database, or an A record target that is not an IPv4 address', () => {
    const { DATABASE_URL: _omit, ...rest } = base();
    expect(() => loadLinksConfig(rest)).toThrow(/DATABASE_URL/);
    expect(() => loadLinksConfig({ ...base(), LINKS_DNS_A_TARGET: 'not-an-ip' })).toThrow(/LINKS_DNS_A_TARGET/);
  });
});
