// docs/decisions/0210's micro-bench; run from the repository root after `node scripts/build.mjs --server-only`: node docs/decisions/patches/0210-parse-micro.js
const fs = require('node:fs');
const { Client } = require('pg');
const { openServiceDataSource, timeOrderedUuid } = require(process.cwd() + '/dist/libs/platform/src');
const { StreamType } = require(process.cwd() + '/dist/libs/contracts/src');
const { STREAMS_MIGRATIONS } = require(process.cwd() + '/dist/services/streams/src/migrations');
const { SendService } = require(process.cwd() + '/dist/services/streams/src/services/send.service');
const { benchDatabase } = require(process.cwd() + '/dist/bench/bench-database');
const backendMs = (pid) => { const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
(async () => {
  const db = await benchDatabase('sb-parse-');
  try {
    const ds = await openServiceDataSource({ name: 'streams', url: db.url, schema: 'streams', entities: [], migrations: STREAMS_MIGRATIONS, migrationsRun: true });
    await ds.destroy();
    const c = new Client({ connectionString: db.url }); await c.connect();
    const pid = (await c.query('SELECT pg_backend_pid() AS p')).rows[0].p;
    let captured;
    const sendDb = { prepared: async (name, text, values) => { captured = values; return Array.from({ length: 1000 }, (_, i) => ({ ord: i + 1, result: 'ok', amount_micros: '1', currency: 'EUR' })); } };
    const options = { sendBatchMax: 1000, sendBatchesInFlight: 1, sharedTps: false, duplicateWindowSeconds: 0, balanceSlots: 4, defaultPriceMicros: null, idempotencyTtlSeconds: 86400 };
    const service = new SendService(sendDb, {}, {}, { sent: () => undefined }, { now: () => new Date() }, options);
    const stream = { id: '10', accountId: '1', streamUid: 'campaign-stream-uid', name: 's', streamType: StreamType.Marketing, status: 1, enableSending: true, sender: 'SHOP', params: {}, acl: {}, checkIpAcl: false, providerReady: true };
    const customer = { accountId: '1', status: 'active', active: 1, currency: 'EUR', tps: 1e9, dailyLimit: null, settings: {} };
    const sends = Array.from({ length: 1000 }, (_, n) => ({ stream, customer, input: { destination: `+49151${String(10000000 + n)}`, iso2: 'DE', text: `Hello customer ${n}, our autumn sale starts today: 20% off everything with code AUTUMN.`, sender: 'SHOP', payload: null }, flags: { campaignId: '7', messageUuid: timeOrderedUuid(), notBefore: null, noFingerprint: true }, key: null, requestHash: null }));
    await service.writeAll(sends, c);
    const batch = captured[0];
    console.log('batch bytes', batch.length, 'sample', batch.slice(0, 600));
    const cases = Object.fromEntries((process.env.CASES || '').split(';;').filter(Boolean).map((s, i) => [i, s]));
    Object.assign(cases, {
      json: `SELECT count(*) FROM json_populate_recordset(NULL::streams.send_row, $1::json) x`,
      jsonb: `SELECT count(*) FROM jsonb_populate_recordset(NULL::streams.send_row, $1::jsonb) x`,
      jsonparse: `SELECT json_array_length($1::json)`,
      jsonbparse: `SELECT jsonb_array_length($1::jsonb)`,
      json_i: `SELECT sum(x.i) FROM json_populate_recordset(NULL::streams.send_row, $1::json) x`,
      jsonb_i: `SELECT sum(x.i) FROM jsonb_populate_recordset(NULL::streams.send_row, $1::jsonb) x`,
      json_v: `SELECT sum(length(x.v)) FROM json_populate_recordset(NULL::streams.send_row, $1::json) x`,
      jsonb_v: `SELECT sum(length(x.v)) FROM jsonb_populate_recordset(NULL::streams.send_row, $1::jsonb) x`,
    });
    const rounds = Number(process.argv[2] ?? 20);
    const tot = {};
    for (let r = 0; r < 3; r++) for (const [k, sql] of Object.entries(cases)) await c.query(sql, [batch]);
    for (let r = 0; r < rounds; r++) for (const [k, sql] of Object.entries(cases)) { const b0 = backendMs(pid); const t0 = process.hrtime.bigint(); await c.query(sql, [batch]); tot[k] = tot[k] || [0, 0]; tot[k][0] += backendMs(pid) - b0; tot[k][1] += Number(process.hrtime.bigint() - t0) / 1e6; }
    for (const [k, [b, w]] of Object.entries(tot)) console.log(k.padEnd(12), 'backend µs/msg', (b * 1000 / rounds / 1000).toFixed(1), 'wall µs/msg', (w * 1000 / rounds / 1000).toFixed(1));
    await c.end();
  } finally { await db.stop(); }
})().catch((e) => { console.error(e); process.exit(1); });
