// docs/decisions/0223: node's side of a click group (encodeClicks, and GroupCommitter's parameters with a fake pool), two builds in turns:
//   [ENC_ONLY=1] node docs/decisions/patches/0223-click-encode-node-micro.js <base worktree> <this worktree> 20 500
// node's side of a click group: encodeClicks (the redirect) + GroupCommitter's parameters (the primary), a fake pool
// usage: node node-micro.js <base worktree> <this worktree> [rounds] [group]
const path = require('node:path');
const builds = process.argv.slice(2, 4).map((wt) => ({ wt, rec: require(path.join(path.resolve(wt), 'dist/services/links/src/redirect/click-recorder')) }));
const ROUNDS = Number(process.argv[4] ?? 20), G = Number(process.argv[5] ?? 500);
const UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148';
const mk = (c) => { const h = c.toString(16).padStart(15, '0'); return { domainId: '7', code: 1000000 + c, seq: c, accountId: '42', campaignId: '1000', variantId: '1', streamId: null, contactId: String(c), messageUuid: `00000000-03e8-8${h.slice(0, 3)}-8${h.slice(3, 6)}-${h.slice(6)}000`, destination: '+4915112345678', kind: 0, offerId: null, location: 'https://shop.example.com/spring-sale?utm_source=sms', template: 'https://shop.example.com/spring-sale?utm_source=sms', expiresAtMs: Infinity, disabled: false, createdAtMs: Date.now() - 3600e3, offerStamp: null, clickCommitted: true }; };
(async () => {
  let sink = 0;
  const pool = { query: async (q) => { for (const v of q.values) sink += v === null ? 0 : typeof v === 'string' ? v.length : typeof v === 'number' ? 1 : v.length; return { rows: [] }; } };
  const sides = builds.map((b) => ({ ...b, links: Array.from({ length: 20000 }, (_, i) => mk(i)), committer: new b.rec.GroupCommitter(pool, 'https', 0), us: [] }));
  const groupOf = (s) => Array.from({ length: G }, (_, i) => { const l = s.links[(Math.random() * s.links.length) | 0]; return { link: l, codeText: 'a' + l.code.toString(36), host: 'go.example.com', at: Date.now(), uaClass: 2, preview: false, ip: `10.1.${i & 255}.${(i >> 8) & 255}`, userAgent: UA }; });
  for (let r = 0; r < ROUNDS + 3; r++) for (const s of r % 2 ? [...sides].reverse() : sides) {
    const groups = Array.from({ length: 40 }, () => groupOf(s));
    const t0 = process.cpuUsage();
    for (const g of groups) { const ch = s.rec.encodeClicks(g, "https"); if (process.env.ENC_ONLY) sink += ch.n; else await s.committer.commit(ch); }
    const d = process.cpuUsage(t0);
    if (r >= 3) s.us.push((d.user + d.system) / (40 * G));
  }
  for (const s of sides) { const v = [...s.us].sort((a, b) => a - b); console.log(s.wt.padEnd(30), 'µs a click: median', v[v.length >> 1].toFixed(2), 'min', v[0].toFixed(2), 'rounds', s.us.map((x) => x.toFixed(2)).join(' ')); }
  const lower = sides[1].us.filter((x, i) => x < sides[0].us[i]).length;
  console.log(`this lower in ${lower} of ${ROUNDS}`, sink > 0 ? '' : '');
})();
