// node docs/decisions/patches/0150-range-pages-micro.js <tree> [batches] (VV=1: variables as values, 0150 trees only): RangePages.add + value of 1000-item batches as bench/links-mint.ts builds them; node CPU µs a link, 5 rounds
const { randomUUID } = require('crypto');
const tree = process.argv[2]; const B = Number(process.argv[3] || 300);
const { RangePages, varsKeys } = require(`${tree}/dist/services/links/src/mint/link-range.js`);
const items = JSON.parse(JSON.stringify(Array.from({ length: 1000 }, (_, i) => ({ ref: String(i), messageUuid: randomUUID(), contactId: String(5000000 + i), destination: `+49151${String(i).padStart(8, '0')}`, vars: { code: `C${i}`, firstName: 'Zoë' }, variantId: '1' }))));
const domains = ['1001', '1002', '1003']; const assignment = new Uint16Array(1000).map((_, i) => i % 3);
const used = ['code', 'firstName']; const vars = { used, keys: varsKeys(used), values: process.env.VV === "1" };
const now = new Date(); const exp = new Date(now.getTime() + 86400000 * 30);
const newApi = RangePages.prototype.add.length >= 7;
function run(n) { let bytes = 0; for (let b = 0; b < n; b++) { const p = new RangePages('1', '1', '3', now, 1000); if (newApi) p.add(b, '77', exp, items, domains, assignment, vars); else p.add(b, '77', exp, items, (i) => domains[assignment[i]], vars); bytes += p.value(123).length; } return bytes; }
run(200);
const out = [];
for (let r = 0; r < 5; r++) { const c0 = process.cpuUsage(); const bytes = run(B); const c = process.cpuUsage(c0); out.push(((c.user + c.system) / (B * 1000)).toFixed(3)); if (r === 0) out.push(`(${(bytes / B / 1000).toFixed(1)} B/link)`); }
console.log(tree.split('/').pop(), out.join(' '));
