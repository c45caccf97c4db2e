const fs = require('fs');
const p = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const cats = [
  ['http:express/router/body-parser', /node_modules\/(router|express|body-parser|raw-body|finalhandler|on-finished|type-is|content-type|send|serve-static|qs|depd|accepts|negotiator|mime|etag|fresh|statuses|vary|path-to-regexp|parseurl|cookie|proxy-addr|forwarded)\//],
  ['http:nest', /node_modules\/@nestjs\//],
  ['http:platform-mw', /platform\/src\/(http|metrics|tracing|context)\//],
  ['dispatch-webhook', /dispatch\/src\/services\/webhooks|dispatch\/src\/controllers/],
  ['dispatch-smpp-adapter', /dispatch\/src\/adapters\/smpp/],
  ['dispatch-inbound', /dispatch\/src\/services\/inbound/],
  ['dispatch-other', /services\/dispatch\//],
  ['relay', /platform\/src\/outbox\/outbox-relay/],
  ['outbox/batched', /platform\/src\/outbox\//],
  ['bus', /platform\/src\/bus\//],
  ['inbox-rooms', /inbox\/src\/services\/rooms/],
  ['inbox-consumer', /inbox\/src\/services\/messaging/],
  ['inbox-other', /services\/inbox\//],
  ['realtime', /platform\/src\/realtime\//],
  ['gateway-ws', /gateway\/src\//],
  ['webhooks-svc', /services\/webhooks\//],
  ['stats', /services\/stats\//],
  ['streams', /services\/streams\//],
  ['other-services', /\/dist\/(services|apps)\//],
  ['platform-db', /platform\/src\/database\//],
  ['platform-other', /\/dist\/libs\//],
  ['ws-lib', /node_modules\/ws\//],
  ['pg-lib', /node_modules\/(pg|pg-protocol|pg-pool|pg-types|postgres-date|postgres-array)\//],
  ['typeorm', /node_modules\/typeorm\//],
  ['smpp-lib', /node_modules\/smpp\//],
  ['zod', /node_modules\/zod\//],
  ['node:http', /node:_http|node:http/],
];
const byId = new Map(p.nodes.map((x) => [x.id, x])); const parent = new Map();
for (const x of p.nodes) for (const c of x.children || []) parent.set(c, x.id);
const out = new Map(); let total = 0, idle = 0;
for (let i = 0; i < p.samples.length; i++) {
  const d = p.timeDeltas[i] || 0; total += d; const n0 = byId.get(p.samples[i]);
  if (n0.callFrame.functionName === '(idle)') { idle += d; continue; }
  let cur = p.samples[i]; let cat = null;
  if (n0.callFrame.functionName === '(garbage collector)') cat = 'GC';
  while (!cat && cur !== undefined) { const u = byId.get(cur).callFrame.url; for (const [c, re] of cats) if (re.test(u)) { cat = c; break; } cur = parent.get(cur); }
  cat = cat || 'unattributed:' + (n0.callFrame.functionName || n0.callFrame.url);
  out.set(cat, (out.get(cat) || 0) + d);
}
const busy = total - idle; const msgs = Number(process.argv[3] || 0);
console.log(`busy ${(busy/1000).toFixed(0)} ms`);
[...out].sort((a, b) => b[1] - a[1]).slice(0, 30).forEach(([k, t]) => console.log(`${(100 * t / busy).toFixed(1).padStart(5)}%${msgs ? ' ' + (t / msgs).toFixed(0).padStart(5) + ' µs/msg' : ''} ${k}`));
