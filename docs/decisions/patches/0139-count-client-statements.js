// 0139: every query the platform process sends in the wire phase (between the bench's two pg_stat_statements resets:
// run with PGSS=1), by prepared name or text. From the repo root after a server build:
//   PGSS=1 node -r ./docs/decisions/patches/0139-count-client-statements.js --expose-gc dist/bench/inbox-wire-ws.js 500 10
const { Client } = require('pg');
const UNITS = Number(process.argv[2] ?? 500) * Number(process.argv[3] ?? 20);
const orig = Client.prototype.query;
let counts = new Map(); let resets = 0; let bytes = 0;
Client.prototype.query = function (cfg, values, cb) {
  const text = typeof cfg === 'string' ? cfg : cfg && cfg.text;
  const name = cfg && typeof cfg === 'object' ? cfg.name : undefined;
  if (text && text.includes('pg_stat_statements_reset')) {
    resets++;
    if (resets === 2) {
      const arr = [...counts].sort((a, b) => b[1].n - a[1].n);
      let tot = 0; for (const [, v] of arr) tot += v.n;
      console.log(`[count] wire phase: ${tot} client queries, ${(tot/UNITS).toFixed(3)} a message (${UNITS} messages)`);
      for (const [k, v] of arr.slice(0, 40)) console.log(`[count] ${String(v.n).padStart(6)} ${(v.n/UNITS).toFixed(3)} ${k}`);
    }
    counts = new Map();
  }
  const key = (name ? `[${name}] ` : '') + String(text).replace(/\s+/g, ' ').slice(0, 110);
  const v = counts.get(key) ?? { n: 0 }; v.n++; counts.set(key, v);
  return orig.call(this, cfg, values, cb);
};
