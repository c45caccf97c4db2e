// Merged in-flight row (claim + receipt wait in one row) against 0212's two tables: WAL bytes and backend CPU a message.
require(process.env.ROOT + '/node_modules/reflect-metadata');
const { Client } = require(process.env.ROOT + '/node_modules/pg');
const { benchDatabase } = require(process.env.ROOT + '/dist/bench/bench-database.js');
const fs = require('fs');
const N = Number(process.argv[2] ?? 20000), B = 250, ROUNDS = Number(process.argv[3] ?? 3);
async function main() {
  const db = await benchDatabase('sb-refoutcome-inflight-');
  const c = new Client({ connectionString: db.url }); await c.connect();
  const pid = (await c.query('SELECT pg_backend_pid() p')).rows[0].p;
  const cpu = () => { const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(s[11]) + Number(s[12])) * 10000; }; // µs
  const lsn = async () => (await c.query('SELECT pg_current_wal_insert_lsn() l')).rows[0].l;
  const walSince = async (l) => Number((await c.query('SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1) d', [l])).rows[0].d);
  await c.query(`CREATE SCHEMA x;
    CREATE TABLE x.message_claim (message_id bigint PRIMARY KEY, claimed_by uuid);
    CREATE TABLE x.message_awaiting (message_id bigint PRIMARY KEY, vendor_id bigint NOT NULL, sent_at timestamptz NOT NULL);
    CREATE INDEX message_awaiting_sent ON x.message_awaiting (sent_at, message_id);
    CREATE TABLE x.inflight (message_id bigint PRIMARY KEY, claimed_by uuid, vendor_id bigint, sent_at timestamptz);
    CREATE INDEX inflight_sent ON x.inflight (sent_at, message_id) WHERE sent_at IS NOT NULL;
    CREATE INDEX inflight_claimed ON x.inflight (message_id) WHERE sent_at IS NULL;
    CREATE TABLE x.inflight2 (message_id bigint PRIMARY KEY, claimed_by uuid, vendor_id bigint, sent_at timestamptz);
    CREATE INDEX inflight2_sent ON x.inflight2 (sent_at, message_id) WHERE sent_at IS NOT NULL;`);
  const variants = {
    two_tables: {
      ins: `INSERT INTO x.message_claim SELECT id, gen_random_uuid() FROM unnest($1::bigint[]) id`,
      sent: `WITH d AS (DELETE FROM x.message_claim k WHERE k.message_id = ANY($1::bigint[]) RETURNING message_id)
             INSERT INTO x.message_awaiting SELECT message_id, 2, now() FROM d ON CONFLICT (message_id) DO UPDATE SET vendor_id = excluded.vendor_id, sent_at = excluded.sent_at`,
      fin: `DELETE FROM x.message_awaiting w WHERE w.message_id = ANY($1::bigint[])`,
    },
    merged_claim_index: {
      ins: `INSERT INTO x.inflight SELECT id, gen_random_uuid() FROM unnest($1::bigint[]) id`,
      sent: `UPDATE x.inflight SET claimed_by = NULL, vendor_id = 2, sent_at = now() WHERE message_id = ANY($1::bigint[])`,
      fin: `DELETE FROM x.inflight w WHERE w.message_id = ANY($1::bigint[])`,
    },
    merged_no_claim_index: {
      ins: `INSERT INTO x.inflight2 SELECT id, gen_random_uuid() FROM unnest($1::bigint[]) id`,
      sent: `UPDATE x.inflight2 SET claimed_by = NULL, vendor_id = 2, sent_at = now() WHERE message_id = ANY($1::bigint[])`,
      fin: `DELETE FROM x.inflight2 w WHERE w.message_id = ANY($1::bigint[])`,
    },
  };
  let base = 1;
  for (let r = 1; r <= ROUNDS; r++) {
    for (const [name, v] of Object.entries(variants)) {
      const ids = Array.from({ length: N }, (_, i) => base + i); base += N;
      const res = {};
      for (const step of ['ins', 'sent', 'fin']) {
        
        const l = await lsn(); const c0 = cpu(); const t0 = performance.now();
        for (let i = 0; i < N; i += B) await c.query(v[step], [ids.slice(i, i + B)]);
        const t = performance.now() - t0; const w = await walSince(l);
        res[step] = `${((cpu() - c0) / N).toFixed(1)} µs cpu, ${(t * 1000 / N).toFixed(1)} µs wall, ${(w / N).toFixed(0)} B`;
      }
      console.log(`round ${r} ${name.padEnd(22)} insert: ${res.ins} | markSent part: ${res.sent} | finalize part: ${res.fin}`);
    }
  }
  await c.end(); await db.stop?.(); await db.close?.();
}
main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
