/**
 * bench/thread-cpu.ts, the campaign bench's CPU by thread (docs/decisions/0211): in a fresh node process, as the bench
 * runs it, work done on a worker thread, on libuv's pool and on the main thread is each counted in its own group, the
 * groups add up to the process's CPU, and the main isolate's scavenges are counted.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { transformSync } from '@swc/core';

const linux = process.platform === 'linux';
const root = path.join(__dirname, '..');

/** Runs a script in a fresh node process with bench/thread-cpu.ts compiled next to it; returns its JSON answer. */
function runFresh(script: string): Record<string, unknown> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'thread-cpu-'));
  try {
    const source = fs.readFileSync(path.join(root, 'bench/thread-cpu.ts'), 'utf8');
    const js = transformSync(source, { filename: 'thread-cpu.ts', jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }).code;
    fs.writeFileSync(path.join(dir, 'thread-cpu.js'), js);
    fs.writeFileSync(path.join(dir, 'main.js'), script);
    const r = spawnSync(process.execPath, [path.join(dir, 'main.js')], { encoding: 'utf8', timeout: 60_000 });
    if (r.status !== 0) throw new Error(`exit ${r.status}: ${r.stderr}`);
    return JSON.parse(r.stdout.trim().split('\n').pop() as string) as Record<string, unknown>;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Spins the calling thread until it has used `seconds` of CPU by its own /proc count. */
const SPIN = `
function ownCpu(tid) {
  const s = require('fs').readFileSync('/proc/self/task/' + tid + '/stat', 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}
function spin(tid, seconds) {
  const end = ownCpu(tid) + seconds;
  let x = 0;
  while (ownCpu(tid) < end) for (let i = 0; i < 100000; i++) x += i;
  return x;
}
`;

(linux ? describe : describe.skip)('bench thread CPU (Linux /proc)', () => {
  it('counts a named worker, libuv pool and the main thread apart, and they add up to the process', () => {
    const out = runFresh(`
      const { ThreadCpu } = require('./thread-cpu.js'); // first, as the bench imports it
      const { Worker } = require('node:worker_threads');
      const crypto = require('node:crypto');
      ${SPIN}
      (async () => {
        const threads = new ThreadCpu();
        await threads.start();
        const from = threads.sample();
        const cpu0 = process.cpuUsage();
        // a worker that reports its own thread id, spins 0.3 s of CPU, then exits only when told
        const worker = new Worker(${JSON.stringify(SPIN)} + "const { parentPort } = require('worker_threads'); const tid = Number(require('fs').readlinkSync('/proc/thread-self').split('/').pop()); parentPort.postMessage({ tid }); spin(tid, 0.3); parentPort.postMessage({ done: true }); parentPort.on('message', () => process.exit(0));", { eval: true });
        const tid = await new Promise((r) => worker.once('message', (m) => r(m.tid)));
        threads.name(tid, 'named worker');
        await new Promise((r) => worker.once('message', r));
        // libuv's pool: key derivations, each run on a pool thread
        await Promise.all(Array.from({ length: 4 }, () => new Promise((r) => crypto.pbkdf2('secret', 'salt', 300000, 32, 'sha256', r))));
        // the main thread, and young-generation garbage for the collector
        spin(process.pid, 0.3);
        let keep = [];
        for (let i = 0; i < 2000000; i++) { keep.push({ i }); if (keep.length > 1000) keep = []; }
        await new Promise((r) => setTimeout(r, 50)); // the gc entries are delivered asynchronously
        const s = threads.since(from);
        const c = process.cpuUsage(cpu0);
        worker.postMessage('exit');
        console.log(JSON.stringify({ total: s.total, groups: Object.fromEntries(s.groups), gc: Object.fromEntries(s.gc), process: (c.user + c.system) / 1e6, line: threads.line(from, 1000) }));
      })();
    `);
    const groups = out.groups as Record<string, number>;
    expect(groups['named worker']).toBeGreaterThanOrEqual(0.28);
    expect(groups.main).toBeGreaterThanOrEqual(0.28);
    expect(groups['libuv pool']).toBeGreaterThan(0.05);
    // the worker's and the pool's CPU are not counted as the main thread's or V8's
    expect(groups['V8 platform'] ?? 0).toBeLessThan(groups['named worker']);
    expect(groups.other ?? 0).toBeLessThan(0.05);
    // the groups are the process's CPU (both in 10 ms ticks; a thread each may round down)
    expect(Math.abs((out.total as number) - (out.process as number))).toBeLessThan(0.1);
    expect((out.gc as Record<string, { count: number }>).scavenge.count).toBeGreaterThan(0);
    expect(out.line).toMatch(/^per-thread CPU µs a message: all \d+ = main \d+, named worker \d+, V8 platform \d+ \([\d +]*\), libuv pool \d+.*; main-thread GC pauses \d+ µs \(\d+ scavenge \d+/);
  });
});
