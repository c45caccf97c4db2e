// 0155: random (v4) against time-ordered (v7) keys in large btrees after a checkpoint: WAL (full-page images included) and
// backend CPU a row (from /proc: run on the database's machine). DATABASE_URL=... PRE=1000000 N=500 ROUNDS=2 node docs/decisions/patches/0155-uuid-order-wal.js
const { Client } = require('pg');
const { randomUUID, randomFillSync } = require('crypto');
const fs = require('fs');
const url = process.env.DATABASE_URL; // any PostgreSQL 13+ (gen_random_uuid); makes and drops public.k
const ticks = (pid) => { const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
let last = 0, seq = 0;
function v7() { const b = randomFillSync(Buffer.alloc(16)); const ms = Date.now(); b.writeUIntBE(ms, 0, 6); b[6] = 0x70 | (b[6] & 0x0f); b[8] = 0x80 | (b[8] & 0x3f); const h = b.toString('hex'); return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`; }
const PRE = Number(process.env.PRE ?? 2000000), N = Number(process.env.N ?? 500), B = 40;
(async () => {
  const c = new Client({ connectionString: url }); await c.connect();
  const pid = (await c.query('SELECT pg_backend_pid() AS p')).rows[0].p;
  await c.query(`DROP TABLE IF EXISTS public.k; CREATE TABLE public.k (u uuid NOT NULL, room text NOT NULL, seq bigint NOT NULL, at timestamptz NOT NULL)`);
  await c.query(`INSERT INTO public.k SELECT u, '42|conversation:' || u, 1, now() FROM (SELECT gen_random_uuid() AS u FROM generate_series(1, ${PRE})) x`);
  await c.query(`CREATE UNIQUE INDEX k_u ON public.k (u); CREATE UNIQUE INDEX k_room ON public.k (room, seq)`); await c.query(`VACUUM ANALYZE public.k`);
  const out = {};
  for (let round = 0; round < Number(process.env.ROUNDS ?? 2); round++) for (const kind of ['v4', 'v7']) {
    await c.query('CHECKPOINT');
    const w0 = (await c.query(`SELECT pg_current_wal_insert_lsn() AS l`)).rows[0].l;
    const t0 = ticks(pid);
    for (let i = 0; i < N; i++) {
      const us = Array.from({ length: B }, () => (kind === 'v4' ? randomUUID() : v7()));
      await c.query({ name: 'ins', text: `INSERT INTO public.k SELECT u, '42|conversation:' || u, 1, now() FROM unnest($1::uuid[]) u`, values: [us] });
    }
    const t1 = ticks(pid);
    const w = (await c.query(`SELECT (pg_current_wal_insert_lsn() - $1::pg_lsn)::bigint AS b`, [w0])).rows[0].b;
    (out[kind] ??= []).push(`${((t1 - t0) * 1000 / (N * B)).toFixed(1)} µs / ${(w / (N * B)).toFixed(0)} B`);
  }
  for (const [k, r] of Object.entries(out)) console.log(k, r.join('   '));
  await c.query('DROP TABLE public.k');
  await c.end();
})();
