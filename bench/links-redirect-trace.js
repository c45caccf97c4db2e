'use strict';
/**
 * A stall trace of each redirect process (bench/links-redirect.ts, `TRACE=1`): preloaded with `--require` into the
 * primary and its cluster workers (they inherit the node arguments). Per process, from the first request of a phase
 * to its end: the event loop's delay (a histogram at 1 ms resolution: how long a ready answer could wait for the loop)
 * and every GC pause by kind (count, total, longest, how many over 10 ms); in a worker also every answer that waited
 * for room in the click buffer (ClickRecorder.whenRoom: how many, how long) and every click group's round trip (from
 * handing it to the primary to its commit's acknowledgement, and its size). The bench asks for a snapshot between
 * phases with SIGUSR2; each process writes its figures as one JSON line to `$LINKS_TRACE_DIR/<pid>.jsonl` and starts
 * over.
 */
const fs = require('node:fs');
const path = require('node:path');
const { monitorEventLoopDelay, PerformanceObserver, constants } = require('node:perf_hooks');
const cluster = require('node:cluster');

const dir = process.env.LINKS_TRACE_DIR;
if (dir) {
  const KINDS = { [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge', [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact', [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental', [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak' };
  let loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  let gc = {};
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = KINDS[e.detail?.kind ?? e.kind] ?? 'other';
      const g = (gc[kind] ??= { n: 0, totalMs: 0, maxMs: 0, over10: 0 });
      g.n++;
      g.totalMs += e.duration;
      g.maxMs = Math.max(g.maxMs, e.duration);
      if (e.duration > 10) g.over10++;
    }
  });
  obs.observe({ entryTypes: ['gc'] });
  const ms = (ns) => Math.round(ns / 1e4) / 100;
  // the worker's click recorder, the same module instance main-redirect.js loads next
  let waits = [];
  let commits = [];
  let sizes = 0;
  try {
    const { ClickRecorder } = require(path.join(__dirname, '../services/links/src/redirect/click-recorder.js'));
    const whenRoom = ClickRecorder.prototype.whenRoom;
    ClickRecorder.prototype.whenRoom = function (then) {
      const t0 = performance.now();
      return whenRoom.call(this, () => {
        waits.push(performance.now() - t0);
        then();
      });
    };
    const flush = ClickRecorder.prototype.flush;
    ClickRecorder.prototype.flush = function () {
      const already = this.writing;
      const n = this.buffer.length;
      const p = flush.call(this);
      if (!already && n > 0) {
        const t0 = performance.now();
        p.then(() => {
          commits.push(performance.now() - t0);
          sizes += Math.min(n, this.options.batchMax);
        });
      }
      return p;
    };
  } catch {
    // not the redirect
  }
  const pct = (xs, q) => (xs.length ? Math.round(xs.sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * q) / 100))] * 100) / 100 : null);
  process.on('SIGUSR2', () => {
    const line = {
      pid: process.pid,
      role: cluster.isWorker ? 'worker' : 'primary',
      loop: { p50: ms(loop.percentile(50)), p99: ms(loop.percentile(99)), p999: ms(loop.percentile(99.9)), max: ms(loop.max) },
      gc,
      waits: { n: waits.length, p50: pct(waits, 50), p99: pct(waits, 99), max: pct(waits, 100) },
      commits: { n: commits.length, p50: pct(commits, 50), p99: pct(commits, 99), max: pct(commits, 100), meanSize: commits.length ? Math.round(sizes / commits.length) : 0 },
      heapMB: Math.round(process.memoryUsage().heapUsed / 1e6),
    };
    for (const g of Object.values(gc)) g.totalMs = Math.round(g.totalMs * 10) / 10, g.maxMs = Math.round(g.maxMs * 10) / 10;
    fs.appendFileSync(path.join(dir, `${process.pid}.jsonl`), JSON.stringify(line) + '\n');
    loop.disable();
    loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    gc = {};
    waits = [];
    commits = [];
    sizes = 0;
  });
}
