/**
 * CPU by thread of this process, from /proc/self/task (Linux only; elsewhere every figure is empty), and the main
 * isolate's garbage collector pauses (perf_hooks' `gc` entries) — node's CPU beyond what STAGES=1 attributes
 * (docs/decisions/0211).
 *
 * Node 20 names every thread `node`, so threads are told apart by when they appear:
 * - the threads that exist when this module is loaded (import it first): the main thread, then V8's platform (its
 *   delayed-task scheduler and `--v8-pool-size` workers: parallel scavenge, concurrent marking, concurrent compilation,
 *   all isolates' alike) and node's inspector signal thread;
 * - libuv's pool: the threads that appear at the first request queued to it, which `start()` makes (an fs read), or,
 *   if none appears, the threads started between this module's load and `start()`;
 * - named threads (`name(tid, 'SMSC worker')`: a worker_threads Worker reports its own tid);
 * - anything else is `other`.
 */
import * as fs from 'node:fs';
import { PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';

const linux = process.platform === 'linux';

function tids(): number[] {
  if (!linux) return [];
  try {
    return fs
      .readdirSync('/proc/self/task')
      .map(Number)
      .sort((a, b) => a - b);
  } catch {
    return [];
  }
}

/** Threads alive when this module was loaded (before any worker or pool request of the bench). */
const atLoad = tids();

/** CPU seconds (user + system) of one thread of this process; 0 once it has exited. */
export function threadCpuSeconds(tid: number): number {
  try {
    const s = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}

export interface ThreadSample {
  /** CPU seconds by tid */
  cpu: Map<number, number>;
  /** main-thread GC pauses since start(), ms by kind, and their counts */
  gc: Map<string, { ms: number; count: number }>;
}

const GC_KIND: Record<number, string> = { 1: 'scavenge', 2: 'mark-compact', 4: 'incremental marking', 8: 'weak callbacks', 16: 'minor mark-sweep' };

export class ThreadCpu {
  private readonly names = new Map<number, string>();
  private pool = new Set<number>();
  private readonly gc = new Map<string, { ms: number; count: number }>();
  private observer: PerformanceObserver | null = null;

  /** Finds libuv's pool (one fs read) and starts counting the main isolate's GC pauses. */
  async start(): Promise<void> {
    const before = tids();
    await fs.promises.readFile(__filename);
    const created = tids().filter((t) => !before.includes(t));
    // no thread appeared: the pool was started before (a module's load queued a request), and it is then every thread
    // that came after this module's load and before this call (call it before starting any worker)
    this.pool = new Set(created.length > 0 ? created : before.filter((t) => !atLoad.includes(t)));
    this.observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries() as Array<PerformanceEntry & { detail?: { kind?: number } }>) {
        const kind = GC_KIND[e.detail?.kind ?? 0] ?? `kind ${e.detail?.kind}`;
        const g = this.gc.get(kind) ?? { ms: 0, count: 0 };
        g.ms += e.duration;
        g.count++;
        this.gc.set(kind, g);
      }
    });
    this.observer.observe({ entryTypes: ['gc'] });
  }

  stop(): void {
    this.observer?.disconnect();
  }

  /** Names a thread (a worker's own tid, e.g. the SMSC worker's). */
  name(tid: number, name: string): void {
    if (tid) this.names.set(tid, name);
  }

  sample(): ThreadSample {
    const cpu = new Map<number, number>();
    for (const t of tids()) cpu.set(t, threadCpuSeconds(t));
    return { cpu, gc: new Map([...this.gc].map(([k, v]) => [k, { ...v }])) };
  }

  private group(tid: number): string {
    if (tid === process.pid) return 'main';
    const named = this.names.get(tid);
    if (named) return named;
    if (atLoad.includes(tid)) return 'V8 platform';
    if (this.pool.has(tid)) return 'libuv pool';
    return 'other';
  }

  /**
   * CPU seconds by thread group since `from` (and each V8 platform thread's, largest first), and the main isolate's GC
   * pauses since then (ms and count by kind). A thread that exited between the samples is left out (its CPU is gone
   * from /proc).
   */
  since(from: ThreadSample): { total: number; groups: Map<string, number>; v8: number[]; gc: Map<string, { ms: number; count: number }> } {
    const to = this.sample();
    const groups = new Map<string, number>();
    const v8: number[] = [];
    let total = 0;
    for (const [tid, s] of to.cpu) {
      const d = s - (from.cpu.get(tid) ?? 0);
      const g = this.group(tid);
      groups.set(g, (groups.get(g) ?? 0) + d);
      total += d;
      if (g === 'V8 platform' && d > 0) v8.push(d);
    }
    const gc = new Map<string, { ms: number; count: number }>();
    for (const [kind, g] of to.gc) {
      const was = from.gc.get(kind) ?? { ms: 0, count: 0 };
      if (g.count > was.count) gc.set(kind, { ms: g.ms - was.ms, count: g.count - was.count });
    }
    return { total, groups, v8: v8.sort((a, b) => b - a), gc };
  }

  /** One line: CPU µs a unit by thread group since `from`, and the main isolate's GC pauses (wall µs) a unit. */
  line(from: ThreadSample, units: number): string {
    if (!linux) return 'per-thread CPU: not on Linux';
    const { total, groups, v8, gc } = this.since(from);
    const us = (s: number) => ((s / units) * 1e6).toFixed(0);
    const order = ['main', 'SMSC worker', 'V8 platform', 'libuv pool', 'other'];
    const rank = (g: string) => (order.includes(g) ? order.indexOf(g) : 1); // other named threads beside the SMSC worker
    const parts = [...groups].sort((a, b) => rank(a[0]) - rank(b[0])).map(([g, s]) => (g === 'V8 platform' ? `V8 platform ${us(s)} (${v8.map(us).join(' + ')})` : `${g} ${us(s)}`));
    const gcMs = [...gc.values()].reduce((t, g) => t + g.ms, 0);
    const gcParts = [...gc].map(([kind, g]) => `${g.count} ${kind} ${((g.ms * 1000) / units).toFixed(0)}`);
    return `per-thread CPU µs a message: all ${us(total)} = ${parts.join(', ')}; main-thread GC pauses ${((gcMs * 1000) / units).toFixed(0)} µs (${gcParts.join(', ') || 'none'})`;
  }
}
