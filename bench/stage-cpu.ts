/**
 * Where a bench's CPU goes, by stage, in one process running many modules (bench/campaign-send.ts with STAGES=1).
 *
 * Node: an async hook notes, for every callback the main thread runs, the stage it belongs to (a bus handler's group,
 * a relay's schema, a loop started by a module, a PostgreSQL connection's socket by its application name), inherited
 * by everything the callback schedules, and adds up the time spent inside callbacks per stage. That time includes
 * preemption on a loaded machine, so it is used only as shares: each stage's share of the main thread's own CPU time
 * (/proc/self/task/<tid>/stat, so the SMSC worker thread and the libuv pool are not in it). The hook itself slows the
 * process; the shares, not the absolute times of a STAGES run, are the figure.
 *
 * PostgreSQL: CPU of each server process (/proc/<pid>/stat), summed by the `application_name` of the session
 * (pg_stat_activity), so every service's pool is its own line.
 */
import { createHook } from 'node:async_hooks';
import * as fs from 'node:fs';
import type { Client } from 'pg';

const TICK = 100; // USER_HZ

type Fn = (...args: never[]) => unknown;

export class StageCpu {
  private readonly stageOf = new Map<number, string>();
  private readonly spent = new Map<string, number>();
  private readonly stack: string[] = [];
  private current = 'outside';
  private since = performance.now();
  private mainCpu0 = 0;
  private pg0 = new Map<string, number>();

  constructor() {
    createHook({
      init: (id) => {
        this.stageOf.set(id, this.current);
      },
      before: (id) => {
        this.stack.push(this.current);
        this.switchTo(this.stageOf.get(id) ?? 'other');
      },
      after: () => this.switchTo(this.stack.pop() ?? 'outside'),
      destroy: (id) => {
        this.stageOf.delete(id);
      },
    }).enable();
  }

  private switchTo(stage: string): void {
    const now = performance.now();
    this.spent.set(this.current, (this.spent.get(this.current) ?? 0) + (now - this.since));
    this.since = now;
    this.current = stage;
  }

  /** Runs `fn` as `stage`: what it schedules belongs to the stage too. */
  run<T>(stage: string, fn: () => T): T {
    const prev = this.current;
    this.switchTo(stage);
    try {
      return fn();
    } finally {
      this.switchTo(prev);
    }
  }

  /** Wraps `proto[method]` so each call runs as `stageOf(this)`. */
  wrap(proto: object, method: string, stageOf: (self: never) => string): void {
    const target = proto as Record<string, Fn>;
    const orig = target[method];
    const run = <T>(stage: string, fn: () => T): T => this.run(stage, fn);
    target[method] = function (this: never, ...args: never[]) {
      return run(stageOf(this), () => orig.apply(this, args));
    } as Fn;
  }

  /**
   * The bus: each subscription's handler runs as `h:<group>`, and so does its batch handler (statistics' rollup,
   * accounts' ledger), which would otherwise count as the publisher's stage (the lane's drain runs in its context).
   */
  wrapBus(bus: { subscribe: (o: { group: string; handler: Fn; batchHandler?: Fn }) => Promise<void> }): void {
    const orig = bus.subscribe.bind(bus);
    bus.subscribe = (o) => {
      const stage = `h:${o.group}`;
      const handler = ((e: never, d: never) => this.run(stage, () => o.handler(e, d))) as Fn;
      const batch = o.batchHandler;
      const batchHandler = batch ? (((es: never, c: never) => this.run(stage, () => batch(es, c))) as Fn) : undefined;
      return orig({ ...o, handler, ...(batchHandler ? { batchHandler } : {}) });
    };
  }

  /** pg clients: a connection's socket callbacks (reading and parsing answers) run as `pg:<application_name>`. */
  wrapPg(client: { prototype: Client }): void {
    this.wrap(client.prototype, 'connect', (c: { connectionParameters?: { application_name?: string } }) => `pg-client:${c.connectionParameters?.application_name ?? '?'}`);
  }

  private static mainThreadCpu(): number {
    const s = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / TICK;
  }

  private static async postgresByApp(pg: Client): Promise<Map<string, number>> {
    const rows = (await pg.query<{ pid: number; app: string }>(`SELECT pid, coalesce(nullif(application_name, ''), backend_type) AS app FROM pg_stat_activity`)).rows;
    const out = new Map<string, number>();
    for (const r of rows) {
      try {
        const s = fs.readFileSync(`/proc/${r.pid}/stat`, 'utf8');
        const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
        out.set(`${r.pid}`, (Number(f[11]) + Number(f[12])) / TICK);
        out.set(`app:${r.pid}`, r.app as unknown as number);
      } catch {
        // gone meanwhile
      }
    }
    return out;
  }

  async reset(pg: Client): Promise<void> {
    this.switchTo(this.current);
    this.spent.clear();
    this.mainCpu0 = StageCpu.mainThreadCpu();
    this.pg0 = await StageCpu.postgresByApp(pg);
  }

  /** Node CPU per stage (µs per unit, main thread's CPU split by the stages' shares) and PostgreSQL CPU per application. */
  async report(pg: Client, units: number, group: (stage: string) => string): Promise<{ node: Map<string, number>; pg: Map<string, number>; mainCpu: number }> {
    this.switchTo(this.current);
    const mainCpu = StageCpu.mainThreadCpu() - this.mainCpu0;
    const inside = [...this.spent].filter(([k]) => k !== 'outside');
    const total = inside.reduce((s, [, v]) => s + v, 0);
    const node = new Map<string, number>();
    for (const [stage, ms] of inside) {
      const g = group(stage);
      node.set(g, (node.get(g) ?? 0) + (((ms / total) * mainCpu) / units) * 1e6);
    }
    const now = await StageCpu.postgresByApp(pg);
    const pgBy = new Map<string, number>();
    for (const [k, v] of now) {
      if (k.startsWith('app:')) continue;
      const app = String(now.get(`app:${k}`));
      pgBy.set(app, (pgBy.get(app) ?? 0) + ((v - (this.pg0.get(k) ?? 0)) / units) * 1e6);
    }
    return { node, pg: pgBy, mainCpu };
  }
}
