// docs/decisions/0151: the messageUuid index written as rows come, random (today's v5) against ordered uuids, and a side
// table filled sorted when the audience completes. Run from a built tree (node scripts/build.mjs --server-only):
//   node docs/decisions/patches/0151-uuid-order.js [rows a campaign = 500000] [rounds = 3]
// Backend CPU from /proc (10 ms ticks) of the one connection doing the work, and the WAL it writes, a row.
const path = require('path');
const { benchDatabase } = require(path.resolve('dist/bench/bench-database.js'));
const { Client } = require(path.resolve('node_modules/pg'));
const { from: copyFrom } = require(path.resolve('node_modules/pg-copy-streams'));
const { hash } = require('crypto');
const fs = require('fs');

const ROWS = Number(process.argv[2] ?? 500000);
const ROUNDS = Number(process.argv[3] ?? 3);
const CHUNK = 6000; // about a copy chunk's lines (800 KB at about 125 B a line)

const random = (campaign, contact, occurrence) => {
  const x = hash('sha1', `switchboard.campaign:${campaign}:${contact}:${occurrence}`, 'hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-5${x.slice(13, 16)}-${'89ab'[parseInt(x[16], 16) & 3]}${x.slice(17, 20)}-${x.slice(20, 32)}`;
};
// campaign (48 bits) | version 8 | contact (60 bits around the variant) | occurrence (12 bits): ascending in the audience's order
const ordered = (campaign, contact, occurrence) => {
  const c = BigInt(campaign).toString(16).padStart(12, '0');
  const k = BigInt(contact).toString(16).padStart(15, '0');
  const o = occurrence.toString(16).padStart(3, '0');
  return `${c.slice(0, 8)}-${c.slice(8, 12)}-8${k.slice(0, 3)}-${'89ab'[0]}${k.slice(3, 6)}-${k.slice(6, 15)}${o}`;
};

(async () => {
  const db = await benchDatabase('sb-uuidix-micro-');
  const c = new Client({ connectionString: db.url });
  await c.connect();
  const cols = `campaign_id bigint NOT NULL, ordinal int NOT NULL, account_id bigint NOT NULL, message_uuid uuid NOT NULL, contact_id bigint NOT NULL,
    occurrence smallint NOT NULL, phone text NOT NULL, timezone text, variables jsonb, state smallint NOT NULL DEFAULT 0, PRIMARY KEY (campaign_id, ordinal)`;
  await c.query(`CREATE TABLE r (${cols})`);
  await c.query(`CREATE UNIQUE INDEX r_uuid ON r (message_uuid)`);
  await c.query(`CREATE TABLE s (${cols})`);
  await c.query(`CREATE TABLE s_uuid (message_uuid uuid PRIMARY KEY, campaign_id bigint NOT NULL, ordinal int NOT NULL)`);
  const [{ pid }] = (await c.query('SELECT pg_backend_pid() AS pid')).rows;
  const cpu = () => {
    const st = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  };
  const lsn = async () => (await c.query('SELECT pg_current_wal_lsn()::text AS l')).rows[0].l;
  const walBytes = async (a, b) => Number((await c.query('SELECT pg_wal_lsn_diff($2, $1)::bigint AS d', [a, b])).rows[0].d);
  const copy = (table, text) => new Promise((resolve, reject) => {
    const s = c.query(copyFrom(`COPY ${table} (campaign_id, ordinal, account_id, message_uuid, contact_id, occurrence, phone, timezone, variables) FROM STDIN`));
    s.on('finish', resolve);
    s.on('error', reject);
    s.end(text);
  });
  const lines = (campaign, from, n, uuid) => {
    let out = '';
    for (let i = from; i < from + n; i++) {
      const contact = 1000 + i * 3;
      out += `${campaign}\t${i}\t7\t${uuid(campaign, contact, 0)}\t${contact}\t0\t+4915${String(100000000 + i)}\tEurope/Berlin\t{"first_name": "Name${i}"}\n`;
    }
    return out;
  };
  const store = async (table, campaign, uuid) => {
    for (let at = 0; at < ROWS; at += CHUNK) {
      const text = lines(campaign, at, Math.min(CHUNK, ROWS - at), uuid);
      await c.query('BEGIN');
      await copy(table, text);
      await c.query('COMMIT');
    }
  };
  // earlier campaigns' recipients (today's random uuids) already in both tables and the index
  let campaign = 1;
  for (const t of ['r', 's']) await store(t, campaign++, random);
  await c.query(`INSERT INTO s_uuid SELECT message_uuid, campaign_id, ordinal FROM s ORDER BY message_uuid`);
  for (const q of ['VACUUM ANALYZE r', 'VACUUM ANALYZE s', 'VACUUM ANALYZE s_uuid', 'CHECKPOINT']) await c.query(q);
  const kinds = {
    random: (id) => store('r', id, random),
    ordered: (id) => store('r', id, ordered),
    side: async (id) => {
      await store('s', id, random);
      await c.query(`INSERT INTO s_uuid SELECT message_uuid, campaign_id, ordinal FROM s WHERE campaign_id = $1 ORDER BY message_uuid`, [id]);
    },
  };
  const names = Object.keys(kinds);
  const res = Object.fromEntries(names.map((k) => [k, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? [...names].reverse() : names;
    for (const k of order) {
      const id = 1000 + campaign++;
      const w0 = await lsn();
      const c0 = cpu();
      const t0 = performance.now();
      await kinds[k](id);
      const ms = cpu() - c0;
      const wal = await walBytes(w0, await lsn());
      res[k].push(`${((ms * 1000) / ROWS).toFixed(2)} µs ${(wal / ROWS).toFixed(0)} B ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      console.log(k, res[k][res[k].length - 1], fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '));
    }
  }
  const size = async (rel) => (await c.query(`SELECT pg_size_pretty(pg_relation_size($1)) AS s`, [rel])).rows[0].s;
  console.log(JSON.stringify(res, null, 1));
  console.log('r_uuid', await size('r_uuid'), 's_uuid_pkey', await size('s_uuid_pkey'));
  await c.end();
  await db.stop();
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
