// 0197: a receipt (deliver_sm) and a submit_sm_resp decoded by the smpp package and by hand, CPU a pair. From the repo root after a build: node docs/decisions/patches/0197-smpp-decode-micro.js
const { smpp } = require('' + require('node:path').resolve('dist') + '/services/dispatch/src/adapters/smpp-lib.js');
const { decodePdu } = require('' + require('node:path').resolve('dist') + '/services/dispatch/src/adapters/smpp-reader.js');
const receipt = new smpp.PDU('deliver_sm', { sequence_number: 7, source_addr: '4915112345678', destination_addr: 'ACME', esm_class: 4, data_coding: 0, short_message: Buffer.from('id:0a1b2c3d4e sub:001 dlvrd:001 submit date:2611281950 done date:2611281951 stat:DELIVRD err:000 text:Hello'), receipted_message_id: '0a1b2c3d4e', message_state: 2 }).toBuffer();
const resp = new smpp.PDU('submit_sm_resp', { sequence_number: 8, message_id: '0a1b2c3d4e' }).toBuffer();
const N = 200000;
for (let round = 0; round < 5; round++) {
  for (const [name, f] of [['package', (b) => new smpp.PDU(Buffer.from(b))], ['hand', decodePdu]]) {
    const t0 = process.cpuUsage();
    for (let i = 0; i < N; i++) { f(receipt); f(resp); }
    const t = process.cpuUsage(t0);
    console.log(round, name, ((t.user + t.system) / N).toFixed(2), 'µs a receipt + a response');
  }
}
