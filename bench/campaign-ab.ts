/**
 * Two builds of the campaign bench in interleaved pairs, and what the pairs resolve (docs/decisions/0216).
 *
 *   node dist/bench/campaign-ab.js <dirA> <dirB> [pairs=8] [-- <campaign-send args: 20000 memory>]
 *
 * `dirA` and `dirB` are checkouts with their own `dist/` (built with `node scripts/build.mjs --server-only`); the same
 * directory twice is an A/A, the way to see this machine's noise. Pair i runs A then B when i is odd, B then A when it
 * is even, each `node dist/bench/campaign-send.js` in its own directory with this process's environment (PAUSE=0 and
 * IDLE_SECONDS=0 unless set: ROUNDS, STAGES, RECEIPT_DELAY_MS… pass through). AB_LOG_DIR=<dir> keeps every run's output.
 *
 * For every figure of every campaign round (messages/s, node, main thread, SMSC worker and PostgreSQL µs a message,
 * and with STAGES=1 each stage and PostgreSQL session) it prints both medians, the median of the pairs' differences,
 * in how many pairs B was lower, and the two-sided exact sign test's p. Four pairs cannot resolve anything: their
 * smallest p is 0.125 (all four one way). Eight pairs all one way give p = 0.008; seven of eight, 0.07.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** One campaign round of a run: figure name → value (µs a message, or messages/s). */
export type Round = Map<string, number>;

export interface Run {
  /** Rounds by label: `campaign`, `campaign 2`… (the ceiling is a round too when the bench prints one). */
  rounds: Map<string, Round>;
  /** Numbers the SMSC received more than once, summed over rounds (the bench's exactly-once check). */
  duplicates: number;
}

const num = (s: string) => Number(s.replace(/,/g, ''));

/** Reads campaign-send's output into figures by round. Lines it does not know are ignored. */
export function parseCampaignSend(text: string): Run {
  const rounds = new Map<string, Round>();
  let duplicates = 0;
  let current: Round | undefined;
  let block: { round: Round; part: 'stage' | 'pg' } | undefined;
  const round = (label: string) => {
    let r = rounds.get(label);
    if (!r) rounds.set(label, (r = new Map()));
    return r;
  };
  for (const line of text.split('\n')) {
    let m: RegExpMatchArray | null;
    if (block) {
      if ((m = line.match(/^ {4}PostgreSQL by session [\d,]+:/))) {
        block.part = 'pg';
        continue;
      }
      if ((m = line.match(/^ {6,}(-?[\d,]+) {2}(.+)$/))) {
        block.round.set(`${block.part === 'pg' ? 'pg session' : 'stage'}: ${m[2].trim()}`, num(m[1]));
        continue;
      }
      block = undefined;
    }
    if ((m = line.match(/^ {2}(campaign(?: \d+)?): [\d,]+ messages from start to delivered in [\d.]+ s: ([\d,]+) messages\/s/))) {
      current = round(m[1]);
      current.set('messages/s', num(m[2]));
    } else if ((m = line.match(/^ {2}ceiling, dispatch's own path[^:]*: ([\d,]+) messages\/s; CPU per message node (\d+) µs \(main thread (\d+), the SMSC worker (\d+)\), PostgreSQL (\d+) µs/))) {
      const r = round('ceiling');
      r.set('messages/s', num(m[1]));
      r.set('node µs', num(m[2]));
      r.set('main thread µs', num(m[3]));
      r.set('SMSC worker µs', num(m[4]));
      r.set('PostgreSQL µs', num(m[5]));
      current = undefined;
    } else if (current && (m = line.match(/^ {2}CPU per message: node (\d+) µs \(.*main thread (\d+), the SMSC worker (\d+)\), PostgreSQL (\d+) µs/))) {
      current.set('node µs', num(m[1]));
      current.set('main thread µs', num(m[2]));
      current.set('SMSC worker µs', num(m[3]));
      current.set('PostgreSQL µs', num(m[4]));
      current.set('node + PostgreSQL µs', num(m[1]) + num(m[4]));
    } else if ((m = line.match(/numbers sent more than once: (\d+)/))) {
      duplicates += num(m[1]);
    } else if ((m = line.match(/^ {2}(ceiling|campaign(?: \d+)?), CPU µs per message by stage/))) {
      block = { round: round(m[1]), part: 'stage' };
    }
  }
  return { rounds, duplicates };
}

/** Two-sided exact sign test: the chance of a split at least as uneven as `lower` of `n` under no difference. */
export function signTestP(lower: number, n: number): number {
  if (n === 0) return 1;
  const k = Math.min(lower, n - lower);
  let tail = 0;
  let c = 1; // C(n, 0)
  for (let i = 0; i <= k; i++) {
    tail += c;
    c = (c * (n - i)) / (i + 1);
  }
  return Math.min(1, (2 * tail) / 2 ** n);
}

export const median = (xs: readonly number[]) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const h = s.length >> 1;
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
};

export interface Comparison {
  round: string;
  figure: string;
  pairs: number;
  medianA: number;
  medianB: number;
  /** Median of B − A over the pairs. */
  medianDiff: number;
  /** Pairs where B was lower than A (ties counted in neither). */
  lower: number;
  higher: number;
  p: number;
}

/** Every figure both sides of a pair have, compared over the pairs that have it. */
export function compare(pairs: ReadonlyArray<readonly [Run, Run]>): Comparison[] {
  const keys = new Map<string, Set<string>>();
  for (const [a] of pairs) for (const [label, r] of a.rounds) for (const f of r.keys()) (keys.get(label) ?? keys.set(label, new Set()).get(label)!).add(f);
  const out: Comparison[] = [];
  for (const [label, figures] of keys) {
    for (const figure of figures) {
      const as: number[] = [];
      const bs: number[] = [];
      for (const [a, b] of pairs) {
        const x = a.rounds.get(label)?.get(figure);
        const y = b.rounds.get(label)?.get(figure);
        if (x === undefined || y === undefined) continue;
        as.push(x);
        bs.push(y);
      }
      if (as.length === 0) continue;
      const diffs = as.map((x, i) => bs[i] - x);
      const lower = diffs.filter((d) => d < 0).length;
      const higher = diffs.filter((d) => d > 0).length;
      out.push({ round: label, figure, pairs: as.length, medianA: median(as), medianB: median(bs), medianDiff: median(diffs), lower, higher, p: signTestP(lower, lower + higher) });
    }
  }
  return out;
}

/** The comparison as text: headline figures first, then stages and sessions whose medians are at least `minUs`. */
export function formatComparison(rows: readonly Comparison[], minUs = 5): string {
  const lines: string[] = [];
  const pct = (r: Comparison) => (r.medianA ? `${((r.medianDiff / r.medianA) * 100).toFixed(1)} %` : '');
  const fmt = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(1));
  let last = '';
  for (const r of rows) {
    const headline = !r.figure.includes(': ');
    if (!headline && Math.max(r.medianA, r.medianB) < minUs) continue;
    if (r.round !== last) {
      lines.push(`  ${r.round}:`);
      lines.push(`    ${'figure'.padEnd(46)} ${'A'.padStart(7)} ${'B'.padStart(7)} ${'B−A'.padStart(8)} ${''.padStart(8)}  B lower  p`);
      last = r.round;
    }
    const sig = r.p <= 0.05 ? ' *' : '';
    lines.push(
      `    ${r.figure.slice(0, 46).padEnd(46)} ${fmt(r.medianA).padStart(7)} ${fmt(r.medianB).padStart(7)} ${fmt(r.medianDiff).padStart(8)} ${pct(r).padStart(8)}  ${`${r.lower}/${r.pairs}`.padStart(7)}  ${r.p.toFixed(3)}${sig}`,
    );
  }
  return lines.join('\n');
}

function runOnce(dir: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const env = { PAUSE: '0', IDLE_SECONDS: '0', ...process.env };
    const child = spawn(process.execPath, [path.join(dir, 'dist/bench/campaign-send.js'), ...args], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20 * 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`campaign-send in ${dir} exited ${code}:\n${out.split('\n').slice(-20).join('\n')}`));
    });
  });
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const dash = argv.indexOf('--');
  const own = dash < 0 ? argv : argv.slice(0, dash);
  const benchArgs = dash < 0 ? ['20000', 'memory'] : argv.slice(dash + 1);
  const [a, b, n] = own;
  if (!a || !b) throw new Error('usage: node dist/bench/campaign-ab.js <dirA> <dirB> [pairs=8] [-- <campaign-send args>]');
  const dirs = { A: path.resolve(a), B: path.resolve(b) };
  for (const d of Object.values(dirs)) if (!fs.existsSync(path.join(d, 'dist/bench/campaign-send.js'))) throw new Error(`${d}: no dist/bench/campaign-send.js (build it first)`);
  const pairsWanted = Math.max(1, Number(n ?? 8));
  const logDir = process.env.AB_LOG_DIR;
  if (logDir) fs.mkdirSync(logDir, { recursive: true });
  const kind = dirs.A === dirs.B ? 'A/A (one build twice)' : 'A/B';
  console.log(`campaign-ab: ${kind}, ${pairsWanted} pairs of campaign-send ${benchArgs.join(' ')}; A ${dirs.A}, B ${dirs.B}; ${os.cpus().length} x ${os.cpus()[0]?.model.trim()}, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  const pairs: Array<[Run, Run]> = [];
  let duplicates = 0;
  for (let i = 1; i <= pairsWanted; i++) {
    const order: Array<'A' | 'B'> = i % 2 ? ['A', 'B'] : ['B', 'A'];
    const got: Partial<Record<'A' | 'B', Run>> = {};
    for (const side of order) {
      const load = os.loadavg()[0].toFixed(1);
      const text = await runOnce(dirs[side], benchArgs);
      if (logDir) fs.writeFileSync(path.join(logDir, `pair${i}-${side}.log`), text);
      const run = parseCampaignSend(text);
      got[side] = run;
      duplicates += run.duplicates;
      const figures = [...run.rounds].filter(([l]) => l !== 'ceiling').map(([l, r]) => `${l} ${r.get('messages/s') ?? '?'}/s node ${r.get('node µs') ?? '?'} PostgreSQL ${r.get('PostgreSQL µs') ?? '?'} µs`);
      console.log(`  pair ${i} ${side} (load ${load} before): ${figures.join('; ')}${run.duplicates ? `; ${run.duplicates} numbers sent more than once` : ''}`);
    }
    pairs.push([got.A!, got.B!]);
  }
  console.log(`\nmedians over ${pairs.length} pairs; B−A is the median of the pairs' differences; p: two-sided exact sign test (* at ≤ 0.05)`);
  console.log(formatComparison(compare(pairs), Number(process.env.AB_MIN_US ?? 5)));
  console.log(`numbers sent more than once, all runs: ${duplicates}; load now ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
}

if (require.main === module) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
