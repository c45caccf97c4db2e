// like prof.js, but only samples between the first and last sample of the consumer's batch (the clock's window)
const fs = require('fs');
const p = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const byId = new Map(p.nodes.map((x) => [x.id, x])); const parent = new Map();
for (const x of p.nodes) for (const c of x.children || []) parent.set(c, x.id);
const stackHas = (id, re) => { let cur = id; while (cur !== undefined) { const n = byId.get(cur); if (re.test(n.callFrame.functionName + ' ' + n.callFrame.url)) return true; cur = parent.get(cur); } return false; };
let first = -1, last = -1;
for (let i = 0; i < p.samples.length; i++) if (stackHas(p.samples[i], /^(onMessageEvents|relayChunk) /)) { if (first < 0) first = i; last = i; }
const self = new Map(); const incl = new Map(); let total = 0;
const key = (n) => `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.replace(/.*\/(dist|node_modules)\//, '')}:${n.callFrame.lineNumber + 1}`;
for (let i = Math.max(0, first - 200); i <= last; i++) {
  const d = p.timeDeltas[i] || 0; const n0 = byId.get(p.samples[i]);
  if (n0.callFrame.functionName === '(idle)' || n0.callFrame.functionName === '(program)') continue;
  total += d;
  self.set(key(n0), (self.get(key(n0)) || 0) + d);
  const seen = new Set(); let cur = p.samples[i];
  while (cur !== undefined) { const k = key(byId.get(cur)); if (!seen.has(k)) { seen.add(k); incl.set(k, (incl.get(k) || 0) + d); } cur = parent.get(cur); }
}
console.log(`busy in window ${(total / 1000).toFixed(0)} ms`);
const top = (m, n) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `${(100 * v / total).toFixed(1).padStart(5)}% ${k}`).join('\n');
console.log('SELF\n' + top(self, Number(process.argv[3] || 35)));
console.log('INCLUSIVE\n' + top(new Map([...incl].filter(([k]) => /stats|platform|bench|pg-protocol|pg\//.test(k))), Number(process.argv[4] || 30)));
