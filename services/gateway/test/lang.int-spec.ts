import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { GatewayModule, ReadinessService } from '../src';

/** GET /api/lang/{locale}.json: the console's catalogues, answered by the gateway itself in both modes. */
describe('gateway: the translations of the console', () => {
  let adminDir: string;
  const apps: TestApp[] = [];

  beforeAll(() => {
    adminDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-lang-'));
    fs.writeFileSync(path.join(adminDir, 'index.html'), '<!doctype html><title>Switchboard</title>');
    fs.mkdirSync(path.join(adminDir, 'lang'));
    fs.writeFileSync(path.join(adminDir, 'lang', 'en.json'), JSON.stringify({ ra: { action: { save: 'Save' } } }));
    fs.writeFileSync(path.join(adminDir, 'lang', 'ru.json'), JSON.stringify({ ra: { action: { save: 'Сохранить' } } }));
    fs.writeFileSync(path.join(adminDir, 'secret.json'), '{"not":"a catalogue"}');
  });

  afterAll(async () => {
    for (const t of apps) await t.close();
    fs.rmSync(adminDir, { recursive: true, force: true });
  });

  const start = async (options: Parameters<typeof GatewayModule.register>[0]) => {
    const t = await createTestApp(() => ({ imports: [GatewayModule.register(options)] }));
    t.app.get(ReadinessService).markReady();
    apps.push(t);
    return t;
  };

  it('serves each locale without a token, revalidated on every load, also in distributed mode where /api is proxied', async () => {
    // no upstream serves /api/lang: were it proxied, the answer would be the proxy's 404 "no service serves"
    const t = await start({ mode: 'distributed', adminDistDir: adminDir, routes: { auth: 'http://127.0.0.1:1' } });
    const en = await fetch(`${t.url}/api/lang/en.json`);
    expect(en.status).toBe(200);
    expect(en.headers.get('content-type')).toMatch(/^application\/json/);
    expect(en.headers.get('cache-control')).toBe('no-cache');
    expect(en.headers.get('etag')).toBeTruthy();
    expect(await en.json()).toEqual({ ra: { action: { save: 'Save' } } });
    expect(await (await fetch(`${t.url}/api/lang/ru.json`)).json()).toEqual({ ra: { action: { save: 'Сохранить' } } });
  });

  it('answers 404 with the error body for a locale it has no catalogue of, and never reads outside the catalogues', async () => {
    const t = await start({ mode: 'embedded', adminDistDir: adminDir });
    for (const file of ['de.json', 'secret.json', '..%2Fsecret.json', '%2E%2E%2Fsecret.json', 'en.js', 'EN.json', 'en.json.bak']) {
      const res = await fetch(`${t.url}/api/lang/${file}`);
      expect([file, res.status]).toEqual([file, 404]);
      expect(((await res.json()) as { code: unknown }).code).toBe('NOT_FOUND');
    }
  });

  it('answers 404 when it serves no admin build', async () => {
    const t = await start({ mode: 'embedded' });
    expect((await fetch(`${t.url}/api/lang/en.json`)).status).toBe(404);
  });
});
