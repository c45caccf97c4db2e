// docs/decisions/0172: node --max-old-space-size=8000 docs/decisions/patches/0172-heap-holders.js <file.heapsnapshot>
// Reads a .heapsnapshot: self size by constructor, and for objects shaped like envelopes / event data, who holds them.
const fs = require('fs');
const snap = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const m = snap.snapshot.meta;
const NF = m.node_fields.length, EF = m.edge_fields.length;
const nTypes = m.node_types[0], eTypes = m.edge_types[0];
const nodes = snap.nodes, edges = snap.edges, strings = snap.strings;
const N = nodes.length / NF;
const iType = m.node_fields.indexOf('type'), iName = m.node_fields.indexOf('name'), iSize = m.node_fields.indexOf('self_size'), iEC = m.node_fields.indexOf('edge_count');
const eType = m.edge_fields.indexOf('type'), eName = m.edge_fields.indexOf('name_or_index'), eTo = m.edge_fields.indexOf('to_node');
const firstEdge = new Uint32Array(N + 1);
for (let i = 0, e = 0; i < N; i++) { firstEdge[i] = e; e += nodes[i * NF + iEC] * EF; firstEdge[i + 1] = e; }
const name = (i) => strings[nodes[i * NF + iName]];
const type = (i) => nTypes[nodes[i * NF + iType]];
// reverse edges
const retainers = new Map();
const props = new Array(N);
for (let i = 0; i < N; i++) {
  const ps = [];
  for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += EF) {
    const to = edges[e + eTo] / NF;
    const et = eTypes[edges[e + eType]];
    const en = et === 'element' || et === 'hidden' ? `[${edges[e + eName]}]` : strings[edges[e + eName]];
    if (et === 'property') ps.push(en);
    if (et === 'weak') continue;
    let r = retainers.get(to); if (!r) retainers.set(to, (r = []));
    r.push([i, en]);
  }
  props[i] = ps;
}
const bySize = new Map();
for (let i = 0; i < N; i++) { const k = `${type(i)}:${name(i)}`; const v = bySize.get(k) ?? { n: 0, b: 0 }; v.n++; v.b += nodes[i * NF + iSize]; bySize.set(k, v); }
console.log('top self sizes:');
for (const [k, v] of [...bySize].sort((a, b) => b[1].b - a[1].b).slice(0, 20)) console.log(`  ${(v.b / 1048576).toFixed(1)} MB ${v.n} ${k.slice(0, 80)}`);
const shape = (i) => props[i].slice(0, 6).join(',');
const kinds = { envelope: (i) => props[i].includes('occurredAt') && props[i].includes('data') && props[i].includes('type'), data: (i) => props[i].includes('messageUuid') };
for (const [kind, test] of Object.entries(kinds)) {
  const holders = new Map(); let count = 0, bytes = 0;
  for (let i = 0; i < N; i++) {
    if (type(i) !== 'object' || !test(i)) continue;
    count++; bytes += nodes[i * NF + iSize];
    const rs = (retainers.get(i) ?? []).map(([r, en]) => `${type(r)}:${name(r)}{${shape(r)}}.${en}`).sort().join(' + ');
    holders.set(rs, (holders.get(rs) ?? 0) + 1);
  }
  console.log(`${kind}: ${count} objects, ${(bytes / 1048576).toFixed(1)} MB self; held by:`);
  for (const [k, v] of [...holders].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log(`  ${v}  ${k.slice(0, 300)}`);
}
