// top self-time frames, inclusive time of named functions, and components (innermost matching ancestor)
const fs = require('fs');
const p = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const mode = process.argv[3] || 'self';
const byId = new Map(p.nodes.map((x) => [x.id, x])); const parent = new Map();
for (const x of p.nodes) for (const c of x.children || []) parent.set(c, x.id);
const short = (cf) => `${cf.functionName || '(anon)'} ${cf.url.replace(/.*\/(node_modules|dist)\//, '$1/')}:${cf.lineNumber + 1}`;
let total = 0, idle = 0; const self = new Map(); const incl = new Map();
for (let i = 0; i < p.samples.length; i++) {
  const d = p.timeDeltas[i] || 0; total += d; const n0 = byId.get(p.samples[i]);
  if (n0.callFrame.functionName === '(idle)') { idle += d; continue; }
  const k = short(n0.callFrame); self.set(k, (self.get(k) || 0) + d);
  const seen = new Set(); let cur = p.samples[i];
  while (cur !== undefined) { const kk = short(byId.get(cur).callFrame); if (!seen.has(kk)) { seen.add(kk); incl.set(kk, (incl.get(kk) || 0) + d); } cur = parent.get(cur); }
}
const busy = total - idle;
console.log(`busy ${(busy / 1000).toFixed(0)} ms of ${(total / 1000).toFixed(0)} ms`);
const m = mode === 'self' ? self : incl;
const filt = process.argv[4] ? new RegExp(process.argv[4]) : null;
[...m].filter(([k]) => !filt || filt.test(k)).sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[5] || 40)).forEach(([k, t]) => console.log(`${(100 * t / busy).toFixed(1).padStart(5)}% ${k}`));
