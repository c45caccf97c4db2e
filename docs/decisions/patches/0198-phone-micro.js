// Decision 0198: µs a call of streams' normalizePhone (fast path) against the library's rule (normalizeByLibrary).
// Run after `node scripts/build.mjs --server-only`: node docs/decisions/patches/0198-phone-micro.js [rounds]
const path = require('path');
const { normalizePhone, normalizeByLibrary } = require(path.join(__dirname, '../../../dist/services/streams/src/rules/phone.js'));
const N = 100_000;
const sets = {
  'DE mobile (the bench)': Array.from({ length: N }, (_, i) => `+49151${String(10_000_000 + i).padStart(8, '0')}`),
  'FR mobile': Array.from({ length: N }, (_, i) => `+336${String(10_000_000 + i).padStart(8, '0')}`),
  'US (+1 shared: library)': Array.from({ length: N }, (_, i) => `+1415${String(2_000_000 + i).padStart(7, '0')}`),
};
const rounds = Number(process.argv[2] ?? 5);
for (const [name, xs] of Object.entries(sets)) {
  for (const n of xs.slice(0, 2000)) if (JSON.stringify(normalizePhone(n)) !== JSON.stringify(normalizeByLibrary(n))) throw new Error(`differs: ${n}`);
  const res = { fast: [], library: [] };
  for (let r = 0; r < rounds; r++) {
    for (const [k, f] of [['library', normalizeByLibrary], ['fast', normalizePhone]]) {
      let ok = 0;
      const t = process.hrtime.bigint();
      for (const n of xs) if (f(n)) ok++;
      res[k].push(Number(process.hrtime.bigint() - t) / 1000 / xs.length);
      if (ok !== xs.length && !name.startsWith('US')) throw new Error(`${name}: ${ok} valid`);
    }
  }
  const med = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1].toFixed(3);
  console.log(`${name}: library ${med(res.library)} µs, normalizePhone ${med(res.fast)} µs (medians of ${rounds})`);
}
