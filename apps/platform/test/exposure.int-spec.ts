import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Logger } from '@nestjs/common';
import { AuthBootstrapService } from '@switchboard/auth';
import { createTestDatabase, type TestDatabase } from '@switchboard/platform/testing';
import { startEmbeddedServer, type EmbeddedServer } from '../src/embedded-server';
import { isLoopbackHost, WELL_KNOWN_ADMIN_PASSWORD } from '../src/exposure';
import { loadPlatformConfig } from '../src/platform.config';

/** Embedded mode reachable from the network (issue 10, item 10): no default super admin password, no open mailbox. */
describe('embedded mode on a network', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-exposure-'));
  const dbs: TestDatabase[] = [];
  const log = new Logger('exposure-test');
  let server: EmbeddedServer | null = null;

  const start = (db: TestDatabase, env: Record<string, string>) =>
    startEmbeddedServer(loadPlatformConfig({ DATABASE_URL: db.url, SWITCHBOARD_DATA_DIR: dataDir, PORT: '0', ...env }), log);
  const database = async () => {
    const db = await createTestDatabase('exposure');
    dbs.push(db);
    return db;
  };
  const stop = async () => {
    await server?.close();
    server = null;
  };
  const passwordCheck = (s: EmbeddedServer, password: string) =>
    fetch(`${s.url}/api/login_check`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: s.adminEmail, password, gCaptchaToken: 'x' }) });

  afterEach(stop);
  afterAll(async () => {
    for (const db of dbs) await db.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('tells loopback from the network', () => {
    expect(['127.0.0.1', '127.0.1.1', 'localhost', '::1', '[::1]'].map(isLoopbackHost)).toEqual([true, true, true, true, true]);
    expect(['0.0.0.0', '::', '192.168.1.10', '10.0.0.1', 'example.com'].map(isLoopbackHost)).toEqual([false, false, false, false, false]);
  });

  it('refuses to start on 0.0.0.0 with the default admin password configured, before anything starts', async () => {
    const db = await database();
    await expect(start(db, { HOST: '0.0.0.0', SWITCHBOARD_ADMIN_PASSWORD: WELL_KNOWN_ADMIN_PASSWORD })).rejects.toThrow(/refusing to listen on 0\.0\.0\.0 .*default/);
  });

  it('refuses to start on 0.0.0.0 when the data directory was seeded with the default password', async () => {
    const db = await database();
    server = await start(db, { HOST: '127.0.0.1', SWITCHBOARD_ADMIN_PASSWORD: WELL_KNOWN_ADMIN_PASSWORD });
    await stop();
    await expect(start(db, { HOST: '0.0.0.0' })).rejects.toThrow(/refusing to listen on 0\.0\.0\.0 .*default/);
    // a configured password does not change an existing admin's, so it is refused as well
    await expect(start(db, { HOST: '0.0.0.0', SWITCHBOARD_ADMIN_PASSWORD: 'a password of my own' })).rejects.toThrow(/default/);
  }, 120000);

  it('generates the admin password on the first loopback start and answers it only then; the mailbox is open on loopback', async () => {
    const db = await database();
    server = await start(db, { HOST: '127.0.0.1' });
    const generated = server.adminPassword as string;
    expect(generated).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect((await passwordCheck(server, generated)).status).toBe(200);
    expect((await passwordCheck(server, WELL_KNOWN_ADMIN_PASSWORD)).status).toBe(401);
    expect(server.mailboxToken).toBeNull();
    expect((await fetch(`${server.url}/api/dev/mailbox`)).status).toBe(200);
    await stop();
    server = await start(db, { HOST: '127.0.0.1' });
    expect(server.adminPassword).toBeNull();
    expect(await server.app.get(AuthBootstrapService).passwordWorks(server.adminEmail, generated)).toBe(true);
  }, 120000);

  it('requires the printed token for the dev mailbox on 0.0.0.0, in the query or the X-Mailbox-Token header', async () => {
    const db = await database();
    server = await start(db, { HOST: '0.0.0.0', SWITCHBOARD_ADMIN_PASSWORD: 'a password of my own' });
    const token = server.mailboxToken as string;
    expect(token).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(server.mailboxUrl).toBe(`${server.url}/api/dev/mailbox?token=${token}`);
    // a PIN is in the mailbox
    expect((await passwordCheck(server, 'a password of my own')).status).toBe(200);
    const bare = await fetch(`${server.url}/api/dev/mailbox`);
    expect(bare.status).toBe(401);
    expect(JSON.stringify(await bare.json())).not.toMatch(/\d{6}/);
    expect((await fetch(`${server.url}/api/dev/mailbox?token=${token.slice(1)}x`)).status).toBe(401);
    expect((await fetch(`${server.url}/api/dev/mailbox`, { headers: { 'x-mailbox-token': 'wrong' } })).status).toBe(401);
    const viaQuery = await fetch(server.mailboxUrl);
    expect(viaQuery.status).toBe(200);
    expect(((await viaQuery.json()) as Array<{ to: string }>)[0].to).toBe(server.adminEmail);
    expect((await fetch(`${server.url}/api/dev/mailbox`, { headers: { 'x-mailbox-token': token } })).status).toBe(200);
  }, 120000);
});
