'use strict';
/**
 * A stall trace of each redirect process (bench/links-redirect.ts, `TRACE=1`): preloaded with `--require` into the
 * primary and its cluster workers (they inherit the node arguments). Per process, from the first request of a phase
 * to its end: the event loop's delay (a histogram at 1 ms resolution: how long a ready answer could wait for the loop)
 * and every GC pause by kind (count, total, longest, how many over 10 ms). The bench asks for a snapshot between
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
  process.on('SIGUSR2', () => {
    const line = {
      pid: process.pid,
      role: cluster.isWorker ? 'worker' : 'primary',
      loop: { p50: ms(loop.percentile(50)), p99: ms(loop.percentile(99)), p999: ms(loop.percentile(99.9)), max: ms(loop.max) },
      gc,
      heapMB: Math.round(process.memoryUsage().heapUsed / 1e6),
    };
    for (const g of Object.values(gc)) g.totalMs = Math.round(g.totalMs * 10) / 10, g.maxMs = Math.round(g.maxMs * 10) / 10;
    fs.appendFileSync(path.join(dir, `${process.pid}.jsonl`), JSON.stringify(line) + '\n');
    loop.disable();
    loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    gc = {};
  });
}
