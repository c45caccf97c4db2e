// 0133: inclusive share of busy samples by frame (syscall frames' self time set apart): node docs/decisions/patches/0133-profile-inclusive.js <wire.cpuprofile> [rows]
const fs = require('fs');
const p = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n])); const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const counts = new Map(); for (const s of p.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
const sys = /^(writev|writeBuffer|close|writeUtf8String|read|readFile|open|\(idle\))$/;
const incl = new Map(); let busy = 0, sysN = 0;
for (const [id, k] of counts) { const n = byId.get(id); const fn = n.callFrame.functionName; if (fn === '(idle)') continue; busy += k; if (sys.test(fn)) { sysN += k; continue; }
  const seen = new Set(); let c = id; while (c) { const f = byId.get(c).callFrame; const key = `${f.functionName || '(anon)'} ${f.url.replace(/.*\/(dist|node_modules)\//, '')}:${f.lineNumber}`; if (!seen.has(key)) { seen.add(key); incl.set(key, (incl.get(key) ?? 0) + k); } c = parent.get(c); } }
console.log('busy', busy, 'syscall self', sysN);
for (const [k, v] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[3] ?? 60))) console.log((100 * v / busy).toFixed(1).padStart(5), k);
