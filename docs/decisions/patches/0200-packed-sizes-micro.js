// 0200 micro: node docs/decisions/patches/0200-packed-sizes-micro.js <tree> (a tree with the 0200 patch applied and built).
// CPU time (process.cpuUsage) a event of a 3,000-event packed row: eventBytes (serialise each) vs packedEnvelopeBytes (read the text).
const { eventBytes, packedEnvelopeBytes } = require(process.argv[2] + '/dist/libs/platform/src/outbox/packed-sizes.js');
const ev = (i) => ({ id: '018f' + i, type: 'dispatch.message.edr', version: 1, occurredAt: new Date().toISOString(), source: 'dispatch', accountId: '1', traceId: null, key: 'k' + i,
  data: { messageUuid: 'm' + i, accountId: '1', streamId: '3', streamUid: 'abc', campaignId: '5', sender: 'SB', destination: '+4479' + i, status: 'delivered', sentAt: new Date().toISOString(), deliveredAt: new Date().toISOString(), mcc: '234', mnc: '10', network: 'x', messageLength: 120, messagePartsCount: 1, utf8: false, costMicros: 1000, rateMicros: 1000, currency: 'EUR' }, topic: 'dispatch.edr' });
const events = Array.from({ length: 3000 }, (_, i) => ev(i));
const text = JSON.stringify(events); const tb = Buffer.byteLength(text); const parsed = JSON.parse(text);
for (let r = 0; r < 5; r++) {
  let t0 = process.cpuUsage(); let s = 0; for (let k = 0; k < 20; k++) s += parsed.map(eventBytes).length; let u = process.cpuUsage(t0); const a = (u.user + u.system) * 1000 / 20 / 3000;
  t0 = process.cpuUsage(); for (let k = 0; k < 20; k++) s += packedEnvelopeBytes(text, tb, parsed).length; u = process.cpuUsage(t0); const b = (u.user + u.system) * 1000 / 20 / 3000;
  console.log(`text ${tb} B; eventBytes ${(a/1000).toFixed(2)} µs an event, packedEnvelopeBytes ${(b/1000).toFixed(2)} µs an event`);
}
{ const m = require(process.argv[2] + '/dist/libs/platform/src/outbox/packed-sizes.js');
for (let r = 0; r < 3; r++) { let t0 = process.cpuUsage(); for (let k = 0; k < 20; k++) m.arrayElementSpans(text); let u = process.cpuUsage(t0);
 let t1 = process.cpuUsage(); for (let k = 0; k < 20; k++) JSON.parse(text); let u1 = process.cpuUsage(t1);
 let t2 = process.cpuUsage(); let x=0; for (let k = 0; k < 20; k++) { let i=-1; while((i=text.indexOf('"',i+1))>=0) x++; } let u2 = process.cpuUsage(t2);
 console.log('spans', (u.user+u.system)/20/3000, 'parse', (u1.user+u1.system)/20/3000, 'indexOf quotes', (u2.user+u2.system)/20/3000, x); } }
