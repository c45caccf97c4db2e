import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { listRoutes } from '@switchboard/platform';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { GatewayModule } from '@switchboard/gateway';
import { embeddedServiceModules } from '../src/embedded-server';

/** Every route of every service, as embedded mode mounts them, declares who may call it. */
describe('routes of the whole platform', () => {
  let t: TestApp;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-routes-'));

  beforeAll(async () => {
    t = await createTestApp(({ keys }) => ({
      imports: [...embeddedServiceModules({ privateKey: keys.privateKey, dataDir, appUrl: 'http://127.0.0.1:3000' }), GatewayModule.register({ mode: 'embedded' })],
    }));
  }, 120000);

  afterAll(async () => {
    await t?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('declares an access rule on every registered route', () => {
    const routes = listRoutes(t.app);
    expect(routes.length).toBeGreaterThan(5);
    const undeclared = routes.filter((r) => !r.rule).map((r) => `${r.method} ${r.path} (${r.controller}.${r.handler})`);
    expect(undeclared).toEqual([]);
  });

  it('refuses an anonymous call to every route that is not public', async () => {
    const gated = listRoutes(t.app).filter((r) => r.rule && r.rule.kind !== 'public' && r.path !== '/realtime');
    const open: string[] = [];
    for (const r of gated) {
      const url = `${t.url}/api${r.path.replace(/:[^/]+/g, '1')}`;
      const res = await fetch(url, { method: r.method === 'ALL' ? 'GET' : r.method, headers: { 'content-type': 'application/json' }, body: ['GET', 'HEAD', 'ALL'].includes(r.method) ? undefined : '{}' });
      if (res.status !== 401) open.push(`${r.method} ${r.path} -> ${res.status}`);
    }
    expect(open).toEqual([]);
  });
});
