/**
 * The redirect's HTTP path alone (decision 0091): CPU per request of one redirect process parsing with the fast path
 * (node:net, `LINKS_REDIRECT_FAST_PATH` true) against one parsing with node:http (false), both loaded AT THE SAME TIME by
 * their own wrk over the same codes, so both see the same machine (a loaded machine moves both alike; run it a few
 * times). Each process is a RedirectServer of this build on a stand-in pool that knows every link (one domain, links
 * with variables to fill) and a click sink that only counts: no PostgreSQL, no cluster IPC; what differs is the parser
 * and the answer's writing. Run after `node scripts/build.mjs --server-only`:
 *
 *   node dist/bench/links-redirect-http.js [seconds] [connections] [rounds]
 *
 * BASE_DIST=<another build's dist> (docs/decisions/0122): that build's fast path against this build's fast path instead,
 * loaded at the same time in the same way (an A/B of the redirect process's own CPU that a loaded machine moves alike).
 *
 * Needs wrk (`apt-get install -y wrk`), as bench/links-redirect.ts.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { freePort } from '@switchboard/platform';
import type { Pool } from 'pg';
import { RedirectServer } from '../services/links/src/redirect/redirect-server';

const SECONDS = Number(process.argv[2] ?? 6);
const CONNECTIONS = Number(process.argv[3] ?? 100);
const ROUNDS = Number(process.argv[4] ?? 3);
const HOST = 'go.bench-shop.test';
const UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148';
const SCRIPT = path.join(__dirname, 'links-redirect.lua');

/** The child: a redirect server on a stand-in pool. */
async function serve(port: number, fast: boolean): Promise<void> {
  const pool = {
    query: async (q: string | { text: string; values?: unknown[] }, given?: unknown[]) => {
      const text = typeof q === 'string' ? q : q.text;
      const values = given ?? (typeof q === 'string' ? [] : q.values ?? []);
      if (text.includes('FROM links.domain')) return { rows: [{ id: '1', account_id: '1' }] };
      // the look-up's rows as LinkStore reads them (docs/decisions/0171): its keys as array literals, each row the head
      // (position, account, campaign, variant, stream, contact, message, kind, offer, expiry, creation, the offer's four)
      // and the destination, variables and URL
      const n = String(values[0]).split(',').length;
      return {
        rows: Array.from({ length: n }, (_, i) => [
          `${i + 1},1,1,1,,${i},${randomUUID()},0,,,${Date.now()},,,,`,
          '+4915100000000',
          JSON.stringify({ code: `C${i}`, firstName: 'Zoë' }),
          'https://shop.example/p?c={code}&n={firstName}',
        ]),
      };
    },
  } as unknown as Pool;
  let clicks = 0;
  const server = new RedirectServer({ pool, port, host: '127.0.0.1', fastPath: fast, cacheTtlMs: 3_600_000, clickSink: async (chunk) => void (clicks += chunk.n) });
  await server.listen();
  console.log('up');
  process.on('SIGTERM', () => process.exit(clicks >= 0 ? 0 : 1));
}

function cpuMs(pid: number): number {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const v = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return ((Number(v[11]) + Number(v[12])) * 1000) / 100;
}

function wrk(port: number, file: string, seconds: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const w = spawn('wrk', ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '-s', SCRIPT, `http://127.0.0.1:${port}`, '--', file, HOST, UA, '1'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    w.stdout.on('data', (d: Buffer) => (out += d.toString()));
    w.on('error', reject);
    w.on('exit', () => {
      const line = out.split('\n').find((l) => l.startsWith('WRK_RESULT '));
      if (!line) return reject(new Error(`wrk: ${out}`));
      const r = JSON.parse(line.slice(11)) as { requests: number; status: number };
      if (r.status > 0) return reject(new Error(`${r.status} answers were not redirects`));
      resolve(r.requests);
    });
  });
}

async function start(port: number, fast: boolean, script = __filename): Promise<ChildProcess> {
  const child = spawn(process.execPath, [script, 'serve', String(port), fast ? '1' : '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (c) => reject(new Error(`server exited ${c}`)));
  });
  return child;
}

async function main(): Promise<void> {
  if (spawnSync('sh', ['-c', 'command -v wrk']).status !== 0) throw new Error('this bench needs wrk (apt-get install -y wrk)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-links-http-'));
  const file = path.join(dir, 'paths.txt');
  const A = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  fs.writeFileSync(file, Array.from({ length: 20_000 }, () => `/${Array.from({ length: 7 }, () => A[Math.floor(Math.random() * 62)]).join('')}`).join('\n') + '\n');
  const base = process.env.BASE_DIST ? path.resolve(process.env.BASE_DIST, 'bench', path.basename(__filename)) : null;
  const [nameA, nameB] = base ? ['this build', `base (${process.env.BASE_DIST})`] : ['fast path', 'node:http'];
  console.log(`redirect HTTP path, ${nameA} against ${nameB} at the same time: ${SECONDS} s, ${CONNECTIONS} connections each, ${ROUNDS} rounds; ${os.cpus().length} x ${os.cpus()[0]?.model}, node ${process.version}`);
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      const [pf, ph] = [await freePort(), await freePort()];
      const [fast, plain] = base ? [await start(pf, true), await start(ph, true, base)] : [await start(pf, true), await start(ph, false)];
      try {
        await Promise.all([wrk(pf, file, 2), wrk(ph, file, 2)]); // JIT and the link cache warm
        const [f0, h0] = [cpuMs(fast.pid!), cpuMs(plain.pid!)];
        const [fn, hn] = await Promise.all([wrk(pf, file, SECONDS), wrk(ph, file, SECONDS)]);
        const fu = ((cpuMs(fast.pid!) - f0) * 1000) / fn;
        const hu = ((cpuMs(plain.pid!) - h0) * 1000) / hn;
        console.log(
          `round ${round}, load ${os.loadavg()[0].toFixed(2)}: ${nameA} ${Math.round(fn / SECONDS).toLocaleString()} /s, ${fu.toFixed(1)} µs CPU a request; ` +
            `${nameB} ${Math.round(hn / SECONDS).toLocaleString()} /s, ${hu.toFixed(1)} µs; ratio ${(fu / hu).toFixed(2)}`,
        );
      } finally {
        fast.kill('SIGTERM');
        plain.kill('SIGTERM');
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'serve') void serve(Number(process.argv[3]), process.argv[4] === '1');
else
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
