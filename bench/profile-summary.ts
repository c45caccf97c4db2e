/**
 * Summaries of a V8 profile written by a bench (`CPUPROF=<dir>` gives `.cpuprofile`, `HEAPPROF=<dir>` `.heapprofile`),
 * per unit of work (a message, a click): where a unit's CPU time or allocated bytes go.
 *
 *   node dist/bench/profile-summary.js <file> <units> [by=package|function] [top=30] [callers=<regex>]
 *
 * by=package: CPU µs (or bytes) a unit by package or workspace project (node_modules/<pkg>, services/<name>, ...) and
 * V8's own entries ((garbage collector), (idle), (program)). by=function: by function and line. callers=<regex>: for
 * the frames whose function or file matches, the time or bytes under them by the first frame up the stack that does not
 * match (who calls zod, pg's array encoding, ...).
 */
import * as fs from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface CpuNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: CpuNode[];
  samples: number[];
  timeDeltas: number[];
}
interface HeapNode {
  callFrame: CallFrame;
  selfSize: number;
  children: HeapNode[];
}

const [file, unitsArg, ...rest] = process.argv.slice(2);
if (!file || !unitsArg) {
  console.error('usage: node dist/bench/profile-summary.js <file.cpuprofile|file.heapprofile> <units> [by=package|function] [top=30] [callers=<regex>]');
  process.exit(2);
}
const units = Number(unitsArg);
const opts = Object.fromEntries(rest.map((a) => a.split(/=(.*)/s).slice(0, 2)));
const by: string = opts.by ?? 'package';
const top = Number(opts.top ?? 30);
const callers = opts.callers ? new RegExp(opts.callers) : null;

const where = (cf: CallFrame): string => `${cf.functionName || '(anonymous)'} ${cf.url.replace(/.*\/(dist|node_modules)\//, '$1/')}:${cf.lineNumber + 1}`;
function bucket(cf: CallFrame): string {
  if (by === 'function') return where(cf);
  const pkg = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(cf.url);
  if (pkg) return pkg[1];
  if (cf.url.includes('/dist/')) return cf.url.replace(/.*\/dist\//, '').split('/').slice(0, 2).join('/');
  if (cf.url.startsWith('node:')) return `node:${cf.url.slice(5).split('/')[0]}`;
  return cf.functionName || cf.url || '(vm)';
}

const totals = new Map<string, number>();
const byCaller = new Map<string, number>();
const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
let total = 0;

const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile | { head: HeapNode };
if ('head' in raw) {
  // heap profile: a tree of allocation sites with the sampled bytes allocated there
  const walk = (n: HeapNode, stack: string[]) => {
    const here = where(n.callFrame);
    total += n.selfSize;
    add(totals, bucket(n.callFrame), n.selfSize);
    if (callers && callers.test(here) && n.selfSize) add(byCaller, stack.findLast((s) => !callers.test(s)) ?? '?', n.selfSize);
    for (const c of n.children) walk(c, [...stack, here]);
  };
  walk(raw.head, []);
} else {
  const nodes = new Map(raw.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of raw.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  for (let i = 0; i < raw.samples.length; i++) add(self as unknown as Map<string, number>, raw.samples[i] as unknown as string, raw.timeDeltas[i + 1] ?? 0);
  for (const [id, t] of self) {
    const n = nodes.get(id)!;
    total += t;
    add(totals, bucket(n.callFrame), t);
    if (callers && callers.test(where(n.callFrame))) {
      let up = parent.get(id);
      let who = '?';
      while (up !== undefined) {
        const w = where(nodes.get(up)!.callFrame);
        if (!callers.test(w)) {
          who = w;
          break;
        }
        up = parent.get(up);
      }
      add(byCaller, who, t);
    }
  }
}

const unit = 'head' in raw ? 'bytes' : 'µs';
const print = (m: Map<string, number>) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .forEach(([k, v]) => console.log(`${(v / units).toFixed(1).padStart(9)}  ${k}`));
console.log(`${file}: ${(total / units).toFixed(1)} ${unit} a unit (${units} units), by ${by}`);
print(totals);
if (callers) {
  console.log(`under frames matching ${callers}, by their first caller that does not match:`);
  print(byCaller);
}
