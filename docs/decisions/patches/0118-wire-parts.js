// CPU per message of the parts 0118 changes, old way vs new way, measured alone (process.cpuUsage), N messages
const path = require('path');
const root = process.argv[2];
const N = Number(process.argv[3] || 20000);
const { prepareValue } = require(path.join(root, 'node_modules/pg/lib/utils.js'));
const payload = (i) => ({
  conversation: { conversation_uuid: `6f1c2a4e-8d0b-4c1e-9a51-${String(i).padStart(12, '0')}`, conversation_status: 'unanswered', unread: 1, temp: false, stream_uuid: '0d6a3a8e-5a53-4a0e-8f0e-2f7c0c1b2d3e', stream_type: 4, channel: 'sms', space_id: 1, start_time: '2026-11-27T05:00:00.000Z', metadata: { team: [1], agent: [], tags: [] }, last_message: `w${i} where is my order?`, last_message_type: 'text', last_updated: '2026-11-27T05:00:00.000Z', start_conversation_time: null, last_incoming_time: '2026-11-27T05:00:00.000Z', last_outgoing_time: null, account_phone_number: '+4930111111', contact_phone_number: `+4917${60000000 + i}`, contact_phone_key: null, contact_name: null, just_added: true, isUpdated: false, isDisabled: false },
  message: { message_uuid: `1f1c2a4e-8d0b-4c1e-9a51-${String(i).padStart(12, '0')}`, event_uuid: `2f1c2a4e-8d0b-4c1e-9a51-${String(i).padStart(12, '0')}`, conversation_uuid: `6f1c2a4e-8d0b-4c1e-9a51-${String(i).padStart(12, '0')}`, event_type: 'incoming_message', message_time: '2026-11-27T05:00:00.000Z', read_at: null, send_status: null, send_error: null, actor: { type: 'contact', id: null, name: null }, content: { type: 'text', body: `w${i} where is my order?` }, event_data: null, source: `+4917${60000000 + i}`, destination: '+4930111111', message_type: 'text' },
});
const envelope = (i) => ({ id: `e${i}-8d0b-4c1e-9a51-aaaaaaaaaaaa`, type: 'dispatch.message.received', version: 1, source: 'dispatch', occurredAt: '2026-11-27T05:00:00.000Z', accountId: '1', key: `1|+4917${60000000 + i}`, data: { accountId: '1', streamId: '1', streamUid: '0d6a3a8e-5a53-4a0e-8f0e-2f7c0c1b2d3e', streamType: 4, channel: 'sms', accountPhone: '4930111111', contactPhone: `4917${60000000 + i}`, contactName: null, body: `w${i} where is my order?`, messageType: 'text', media: null, messageUuid: `1f1c2a4e-8d0b-4c1e-9a51-${String(i).padStart(12, '0')}`, receivedAt: '2026-11-27T05:00:00.000Z', providerMessageId: `p${i}` } });
const B = 25; // a batch, as at a quiet 500/s
const time = (label, fn) => { for (let w = 0; w < 2; w++) fn(); global.gc?.(); const c0 = process.cpuUsage(); fn(); global.gc?.(); const c = process.cpuUsage(c0); const us = (c.user + c.system) / N; console.log(`${label}: ${us.toFixed(2)} µs a message`); return us; };
const ps = Array.from({ length: N }, (_, i) => payload(i));
const es = Array.from({ length: N }, (_, i) => envelope(i));
console.log(`payload ${JSON.stringify(ps[0]).length} B, envelope ${JSON.stringify(es[0]).length} B; ${N} messages, batches of ${B}`);
// 1. room log payloads: json[] of texts (old) vs one json text (new); the stringify is the same on both sides
const pt = ps.map((p) => JSON.stringify(p));
const a = time('room log payloads as json[] (escaped)', () => { for (let i = 0; i < N; i += B) prepareValue(pt.slice(i, i + B)); });
const b = time('room log payloads as one json text', () => { for (let i = 0; i < N; i += B) prepareValue(`[${pt.slice(i, i + B).join(',')}]`); });
// 2. group commit envelopes: jsonb[] (old) vs one jsonb text (new)
const et = es.map((e) => JSON.stringify(e));
const c = time('group commit envelopes as jsonb[] (escaped)', () => { for (let i = 0; i < N; i += B) prepareValue(et.slice(i, i + B)); });
const d = time('group commit envelopes as one jsonb text', () => { for (let i = 0; i < N; i += B) prepareValue(`[${et.slice(i, i + B).join(',')}]`); });
// 3. the frame for one socket: the old send (JSON.stringify of the frame, ws encodes the string) vs a frame from the log's text
const frameOld = time('frame: stringify the frame, encode (old)', () => { for (let i = 0; i < N; i++) Buffer.from(JSON.stringify({ type: 'event', room: 'team:1', seq: i, event: 'incoming_message', payload: ps[i], at: '2026-11-27T05:00:00.000Z' })); });
const frameNew = time("frame: the log's payload text in a template, encode (new)", () => { for (let i = 0; i < N; i++) Buffer.from(`{"type":"event","room":${JSON.stringify('team:1')},"seq":${JSON.stringify(i)},"event":${JSON.stringify('incoming_message')},"payload":${pt[i]},"at":${JSON.stringify('2026-11-27T05:00:00.000Z')}}`); });
// 4. the replay buffer: 4 room events a message into a full account log (old) vs skipped (new)
const { ReplayBuffer } = require(path.join(root, 'dist/libs/platform/src/realtime/replay-buffer.js'));
const msgs = Array.from({ length: N * 4 }, (_, i) => ({ id: `${1700000000000 + i}-${i}`, subject: `rt.1.inboxws.team.${i % 4}`, accountId: '1', topic: 'inboxws', type: 'incoming_message', data: null, at: '2026-11-27T05:00:00.000Z' }));
const rb = new ReplayBuffer({});
const isNew = (() => { const t = new ReplayBuffer({}); t.add(msgs[0]); return t.stats().messages === 0; })();
const e1 = time(`replay buffer, 4 room events a message (${isNew ? 'new: skipped' : 'old: kept'})`, () => { for (const m of msgs) rb.add(m); });
console.log(`saved a message: room log ${(a - b).toFixed(2)} µs, group commit ${(c - d).toFixed(2)} µs, frame ${(frameOld - frameNew).toFixed(2)} µs`);
