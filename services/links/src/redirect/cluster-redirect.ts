import cluster, { type Worker } from 'node:cluster';
import { redirectPool } from './redirect-pool';
import { GroupCommitter, type ClickChunk } from './click-recorder';
import type { RedirectConfig } from './redirect.config';
import { redirectServerFor } from './standalone-redirect';

/** Worker to primary: a group of clicks to commit. Primary to worker: its commit's outcome, or stop. */
type ToPrimary = { t: 'clicks'; id: number; chunk: ClickChunk };
type ToWorker = { t: 'ack'; id: number; ok: boolean; error?: string } | { t: 'stop' };

/**
 * The redirect process as a cluster (docs/decisions/0057): `workers` processes accept on the one port (the primary
 * hands connections round-robin), each with its link cache and a small pool for lookups and opt-outs; their click
 * groups go to the primary over IPC, which commits whatever arrived meanwhile as one statement (one group commit for
 * all workers: bigger groups, and no two transactions waiting on each other's rollup rows). A worker counts a group
 * as pending until the primary acknowledges its commit, so the bound of a SIGKILL (LINKS_CLICK_BUFFER_MAX) holds per
 * worker; a failed commit is reported back and the worker retries it as a single process does.
 *
 * SIGTERM/SIGINT to the primary: each worker stops taking connections and sends its last clicks; the primary commits
 * them, then exits. A worker whose primary is gone exits.
 */
export function runRedirectPrimary(c: RedirectConfig, workers: number, log: (line: string) => void): void {
  cluster.setupPrimary({ serialization: 'advanced' });
  const pool = redirectPool(c.DATABASE_URL, 2, 'links-redirect-commit', log);
  const committer = new GroupCommitter(pool, c.LINKS_PUBLIC_SCHEME, c.LINKS_CLICK_COMMIT_INTERVAL_MS);
  let stopping = false;
  let listening = 0;

  const fork = (): Worker => {
    const w = cluster.fork();
    w.on('message', (m: ToPrimary) => {
      if (m?.t !== 'clicks') return;
      committer.commit(m.chunk).then(
        () => send(w, { t: 'ack', id: m.id, ok: true }),
        (e: unknown) => {
          log(`click group: ${(e as Error).message}`);
          send(w, { t: 'ack', id: m.id, ok: false, error: (e as Error).message });
        },
      );
    });
    w.once('listening', () => {
      if (++listening === workers) log(`short links served on http://${c.HOST === '0.0.0.0' ? '127.0.0.1' : c.HOST}:${c.PORT}/{code} by ${workers} workers`);
    });
    w.once('exit', (code, signal) => {
      if (stopping) return;
      log(`worker ${w.process.pid} exited (${signal ?? code}); starting another`);
      fork();
    });
    return w;
  };
  for (let i = 0; i < workers; i++) fork();

  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping ${workers} workers, committing their waiting clicks`);
    const all = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w);
    const exited = all.map((w) => new Promise<void>((resolve) => (w.isDead() ? resolve() : w.once('exit', () => resolve()))));
    for (const w of all) send(w, { t: 'stop' });
    const force = setTimeout(() => {
      for (const w of all) if (!w.isDead()) w.process.kill('SIGKILL');
    }, 25_000);
    force.unref();
    void Promise.all(exited)
      .then(async () => {
        while (!committer.idle) await new Promise((r) => setTimeout(r, 20));
        await pool.end();
      })
      .then(
        () => process.exit(0),
        (e: unknown) => {
          console.error(e);
          process.exit(1);
        },
      );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

function send(w: Worker, m: ToWorker): void {
  if (w.isConnected()) w.send(m);
}

/** A cluster worker: the redirect server on the shared port, its click groups committed by the primary. */
export async function runRedirectWorker(c: RedirectConfig, log: (line: string) => void): Promise<void> {
  const pool = redirectPool(c.DATABASE_URL, 4, 'links-redirect', log);
  const waiting = new Map<number, { resolve: () => void; reject: (e: unknown) => void }>();
  let next = 0;
  const server = redirectServerFor(c, pool, log, (chunk) =>
    new Promise<void>((resolve, reject) => {
      const id = ++next;
      waiting.set(id, { resolve, reject });
      process.send!({ t: 'clicks', id, chunk } satisfies ToPrimary);
    }),
  );
  let stopping = false;
  process.on('message', (m: ToWorker) => {
    if (m?.t === 'ack') {
      const w = waiting.get(m.id);
      waiting.delete(m.id);
      if (m.ok) w?.resolve();
      else w?.reject(new Error(m.error ?? 'click group not committed'));
    } else if (m?.t === 'stop' && !stopping) {
      stopping = true;
      server
        .close()
        .then(() => pool.end())
        .then(
          () => process.exit(0),
          (e: unknown) => {
            console.error(e);
            process.exit(1);
          },
        );
    }
  });
  // the primary decides when to stop (a terminal's Ctrl-C reaches the whole group)
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => undefined);
  process.on('disconnect', () => {
    if (!stopping) process.exit(1);
  });
  await server.listen();
}

export const isRedirectWorker = (): boolean => cluster.isWorker;
