// 0202: a campaign send-batch request (1,000 items, ~215 kB) as a jsonb outbox row against packed text (EXTERNAL): insert, the relay's read as text, delete;
// backend CPU from /proc/<pid>/schedstat, µs per item. Run from the repository root after `node scripts/build.mjs --server-only`:
// node docs/decisions/patches/0202-outbox-jsonb-vs-packed-micro.js
const fs = require('fs'); const os = require('os'); const path = require('path');
const { startEmbeddedPostgres } = require(path.resolve('dist/libs/platform/src/database/embedded-postgres.js'));
const { Client } = require('pg');
(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jm-')); fs.chmodSync(dir, 0o755);
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), persistent: false });
  const c = new Client({ connectionString: pg.localUrl() }); await c.connect();
  await c.query(`CREATE TABLE ob (id bigserial PRIMARY KEY, event_id uuid NOT NULL UNIQUE, payload jsonb NOT NULL, packed text NULL, published_at timestamptz)`);
  await c.query(`ALTER TABLE ob ALTER COLUMN packed SET STORAGE EXTERNAL`);
  const pid = (await c.query('SELECT pg_backend_pid() AS p')).rows[0].p;
  const cpu = () => Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
  const N = 1000;
  const items = []; for (let i = 0; i < N; i++) items.push({ ref: String(2800 + i), text: `Hi Name${2800 + i}, the spring sale starts today!`, sender: 'SHOP', payload: null, notBefore: null, variantId: '1', destination: `+49151100${String(i).padStart(5, '0')}`, messageUuid: `00000000-0001-8000-8000-${String(i).padStart(12, '0')}` });
  const env = { id: '0190b0f0-0000-7000-8000-000000000001', type: 'campaigns.send_batch.requested', version: 1, occurredAt: new Date().toISOString(), source: 'campaigns', accountId: '1', data: { batchId: 'b', accountId: '1', streamId: '2', campaignId: '3', items } };
  const json = JSON.stringify(env); console.log('bytes', json.length, 'per item', (json.length / N).toFixed(0));
  let k = 0;
  const uuid = () => `00000000-0000-4000-8000-${String(++k).padStart(12, '0')}`;
  async function turn(mode, rounds) {
    const t0 = cpu();
    for (let r = 0; r < rounds; r++) {
      if (mode === 'jsonb') {
        await c.query('INSERT INTO ob (event_id, payload) VALUES ($1, $2::jsonb)', [uuid(), json]);
        const rows = (await c.query('SELECT id, payload::text AS p FROM ob WHERE published_at IS NULL ORDER BY id LIMIT 10')).rows;
        await c.query('DELETE FROM ob WHERE id = ANY($1::bigint[])', [rows.map((x) => x.id)]);
      } else {
        await c.query(`INSERT INTO ob (event_id, payload, packed) VALUES ($1, '{}', $2)`, [uuid(), json]);
        const rows = (await c.query('SELECT id, packed AS p FROM ob WHERE published_at IS NULL ORDER BY id LIMIT 10')).rows;
        await c.query('DELETE FROM ob WHERE id = ANY($1::bigint[])', [rows.map((x) => x.id)]);
      }
    }
    return (cpu() - t0) / rounds / N / 1000; // µs per item
  }
  await turn('jsonb', 20); await turn('text', 20);
  for (let t = 0; t < 6; t++) {
    const a = await turn(t % 2 ? 'text' : 'jsonb', 60); const b = await turn(t % 2 ? 'jsonb' : 'text', 60);
    console.log(t % 2 ? `text ${a.toFixed(2)} jsonb ${b.toFixed(2)}` : `jsonb ${a.toFixed(2)} text ${b.toFixed(2)}`, 'µs/item backend CPU');
  }
  await c.end(); await pg.stop(); fs.rmSync(dir, { recursive: true, force: true });
})().catch((e) => { console.error(e); process.exit(1); });
