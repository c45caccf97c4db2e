const { Client } = require('/work/wt/inboxcpu/node_modules/pg');
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
      console.log(`[count] wire phase: ${tot} client queries, ${(tot/5000).toFixed(3)} a message (if 5000)`);
      for (const [k, v] of arr.slice(0, 40)) console.log(`[count] ${String(v.n).padStart(6)} ${(v.n/5000).toFixed(3)} ${k}`);
    }
    counts = new Map();
  }
  const key = (name ? `[${name}] ` : '') + String(text).replace(/\s+/g, ' ').slice(0, 110);
  const v = counts.get(key) ?? { n: 0 }; v.n++; counts.set(key, v);
  return orig.call(this, cfg, values, cb);
};
