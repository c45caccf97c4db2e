// docs/decisions/0210's micro-bench; run from the repository root after `node scripts/build.mjs --server-only`: node docs/decisions/patches/0210-unpack-micro.js
const { SEND_ROWS_UNPACK } = require(process.cwd() + '/dist/services/streams/src/services/accept-batches');
const { compactEventsText, compactGroup } = require(process.cwd() + '/dist/services/streams/src/services/compact-sends');
const { headPieces, acceptedMiddle, joinHeads } = require(process.cwd() + '/dist/services/streams/src/services/event-heads');
const { randomUUID } = require('node:crypto');
const at = new Date().toISOString();
const stream = { id: '10', accountId: '1', streamUid: 'campaign-stream-uid', streamType: 1 };
const trace = { traceId: null, traceparent: undefined };
const p = headPieces(stream, 'sms', at, trace);
const n = 1000;
const sends = Array.from({ length: n }, (_, i) => ({ g: 0, aid: randomUUID(), cid: randomUUID(), uuid: randomUUID(), middle: acceptedMiddle({ sender: 'SHOP', destination: '+4915110000' + i, iso2: 'DE', text: `Hello customer ${i}, our autumn sale starts today: 20% off everything with code AUTUMN.`, encoding: 'GSM7', segments: 1, payload: null, campaignId: '7', notBefore: null }) }));
let full = [];
let bal = 1e12;
for (const s of sends) { const h = joinHeads(p, s.aid, s.cid, s.uuid, s.middle); bal -= 50000; full.push(h.accepted + '50000,"currency":"EUR"}}', h.charged + '50000,"currency":"EUR","balanceAfterMicros":' + bal + '}}'); }
const fullText = '[' + full.join(',') + ']';
const e = compactEventsText('$streams.sends', at, [compactGroup(stream, 'sms', trace, p)], sends);
const compactText = `{"e":${e},"i":${JSON.stringify(sends.map((_, i) => i + 1))},"a":${JSON.stringify(sends.map(() => 50000))},"b":${JSON.stringify(sends.map((_, i) => 1e12 - 50000 * (i + 1)))},"c":${JSON.stringify(sends.map(() => 'EUR'))}}`;
console.log('bytes a message full', (Buffer.byteLength(fullText) / n).toFixed(0), 'compact', (Buffer.byteLength(compactText) / n).toFixed(0));
const A = () => SEND_ROWS_UNPACK['$streams.sends'](JSON.parse(fullText));
const B = () => SEND_ROWS_UNPACK['$streams.sends.compact'](JSON.parse(compactText));
if (JSON.stringify(A().map(x => ({...x, id: 0}))) .length !== JSON.stringify(B().map(x => ({...x, id: 0}))).length) console.log('length differs');
const t = (f) => { const c0 = process.cpuUsage(); for (let k = 0; k < 40; k++) f(); const c = process.cpuUsage(c0); return ((c.user + c.system) / 40 / n).toFixed(2); };
for (let r = 0; r < 4; r++) console.log('full', t(A), 'compact', t(B), 'µs a message');
