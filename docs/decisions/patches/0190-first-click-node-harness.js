// docs/decisions/0190: after `node scripts/build.mjs --server-only`, from the repository:
//   node --expose-gc docs/decisions/patches/0190-first-click-node-harness.js dist 300000 full
//   CACHE_MAX=2000 node --expose-gc docs/decisions/patches/0190-first-click-node-harness.js dist 300000 tiny
// (a cache of 2,000 links: the links die young, the warm pass is skipped). Process CPU (GC threads included) a link.
// first-click Node work without HTTP: LinkStore look-up decode/fill + cache + ClickRecorder encode; CPU a link, heap a link
const dist = require("node:path").resolve(process.argv[2]);
const N = Number(process.argv[3] ?? 300000);
const { LinkStore } = require(dist + '/services/links/src/redirect/link-store.js');
const { ClickRecorder } = require(dist + '/services/links/src/redirect/click-recorder.js');
const { CodeCipher } = require(dist + '/services/links/src/mint/codes.js');
const { randomUUID } = require('node:crypto');
const t0 = Date.now();
const pool = {
  query: async (q) => {
    const keys = String(q.values[0]);
    const n = keys.split(',').length;
    const rows = new Array(n);
    for (let i = 0; i < n; i++) {
      // fresh flat strings, as pg's utf8Slice makes them
      const head = Buffer.from(`${i + 1},1,1000,1,,${i},${randomUUID()},0,,,${t0 + 0.123},,,,`).toString();
      rows[i] = [head, Buffer.from('+4915100000000').toString(), Buffer.from(JSON.stringify({ code: `C${i}`, firstName: 'Zoë' })).toString(), Buffer.from('https://shop.example/p?c={code}&n={firstName}').toString()];
    }
    return { rows };
  },
};
const store = new LinkStore(pool, { cacheTtlMs: 3600000, negativeTtlMs: 10000, cacheMax: Number(process.env.CACHE_MAX ?? 500000), now: Date.now, cipher: new CodeCipher('bench-code-secret-of-length') });
let sunk = 0;
const rec = new ClickRecorder(null, { flushMs: 20, batchMax: 5000, bufferMax: 1e9 }, 'https', async (c) => { sunk += c.n; });
const BATCH = 43;
let done = 0;
const codes = new Float64Array(N);
for (let i = 0; i < N; i++) codes[i] = 2500000000000 + i * 7919;
async function main() {
  const c0 = process.cpuUsage();
  let next = 0;
  while (next < N) {
    const m = Math.min(BATCH, N - next);
    await new Promise((res) => {
      let left = m;
      for (let j = 0; j < m; j++) {
        const code = codes[next + j];
        store.readLink('1', code, {
          resolve(link) {
            rec.record({ link, codeText: 'abcdefg', host: 'go.bench-shop.test', at: Date.now(), uaClass: 1, preview: false, ip: '127.0.0.1', userAgent: 'Mozilla/5.0 (iPhone)' });
            if (--left === 0) res();
          },
          reject(e) { throw e; },
        });
      }
    });
    next += m;
  }
  await rec.drain();
  const c1 = process.cpuUsage(c0);
  global.gc && global.gc();
  const mu = process.memoryUsage(); const heap = mu.heapUsed; console.log(`rss ${(mu.rss / 1048576).toFixed(0)} MB, heapTotal ${(mu.heapTotal / 1048576).toFixed(0)} MB`);
  // warm: every link again from the cache, and its click encoded
  const w0 = process.cpuUsage();
  for (let r = 0; r < (process.env.CACHE_MAX ? 0 : 1); r++) for (let i = 0; i < N; i++) {
    const link = store.cachedLink('1', codes[i]);
    rec.record({ link, codeText: 'abcdefg', host: 'go.bench-shop.test', at: Date.now(), uaClass: 1, preview: false, ip: '127.0.0.1', userAgent: 'Mozilla/5.0 (iPhone)' });
    if ((i & 1023) === 0) await new Promise(setImmediate);
  }
  await rec.drain();
  const w1 = process.cpuUsage(w0);
  console.log(`${process.argv[4] ?? ''} first ${((c1.user + c1.system) / N).toFixed(2)} µs a link, warm ${((w1.user + w1.system) / N).toFixed(2)} µs, heap ${(heap / N).toFixed(0)} B a link, sunk ${sunk}`);
}
main();
