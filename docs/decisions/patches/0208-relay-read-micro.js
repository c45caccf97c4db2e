/**
 * 0208: what the outbox relay's read costs PostgreSQL in CPU (not wall), by case, on one backend of an embedded server.
 *
 *   node scripts/build.mjs --server-only && node docs/decisions/patches/0208-relay-read-micro.js [rounds=2000]
 *
 * The relay's statement exactly as OutboxRelay prepares it (mark mode, try-lock), in a transaction of its own like a
 * pass (BEGIN, read, [mark,] COMMIT), CPU of the backend from /proc/<pid>/schedstat (ns), the client reading at once:
 * 0. the floor: a transaction of one trivial statement;
 * 1. an empty poll (nothing unpublished), and the branch's probe that replaces it when the poll timer wakes the relay;
 * 2. an empty poll with D published rows whose index entries are still in the partial index (not vacuumed): D = 1,000
 *    and 20,000, first while another session holds a snapshot older than the marks (no entry can be killed), then without;
 * 3. a pass that reads and marks one packed row of S bytes (S = 100 KB, 400 KB, 1 MB): µs a row and a KB;
 * 4. the keyset start (`AND id > $floor`) on case 2 with a held snapshot, the floor at the last marked id.
 */
const path = require('node:path');
const fs = require('node:fs');
const root = path.resolve(__dirname, '../../..');
const { startEmbeddedPostgres } = require(path.join(root, 'dist/libs/platform/src/database/embedded-postgres.js'));
const { Client } = require(path.join(root, 'node_modules/pg'));

const ROUNDS = Number(process.argv[2] ?? 2000);
const cpu = (pid) => Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);

const READ = (extra) => `WITH l AS MATERIALIZED (SELECT pg_try_advisory_xact_lock($3::bigint) AS locked),
         h AS (SELECT id, CASE WHEN type = ANY($2::text[]) THEN key::int ELSE 1 END AS n FROM m.outbox AS outbox_m
                WHERE published_at IS NULL ${extra} AND (SELECT locked FROM l) ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED),
         c AS (SELECT id, sum(n) OVER (ORDER BY id) AS upto, row_number() OVER (ORDER BY id) AS rn, count(*) OVER () AS heads FROM h)
         SELECT o.id, o.topic, o.type, CASE WHEN o.type = ANY($2::text[]) THEN NULL ELSE o.payload END AS payload,
                CASE WHEN o.type = ANY($2::text[]) THEN o.packed END AS packed, c.heads
           FROM c JOIN m.outbox o ON o.id = c.id WHERE c.rn = 1 OR c.upto <= $1 ORDER BY c.id`;

async function main() {
  const dir = fs.mkdtempSync('/tmp/relay-micro-');
  fs.chmodSync(dir, 0o755);
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), persistent: false, settings: { autovacuum: 'off' } });
  const c = new Client({ connectionString: pg.localUrl() });
  const other = new Client({ connectionString: pg.localUrl() });
  await c.connect();
  await other.connect();
  try {
    await c.query(`CREATE SCHEMA m;
      CREATE TABLE m.outbox (id bigserial PRIMARY KEY, event_id uuid NOT NULL UNIQUE, topic text NOT NULL, key text NOT NULL, type text NOT NULL,
        payload jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), published_at timestamptz NULL, attempts integer NOT NULL DEFAULT 0,
        packed text NULL);
      ALTER TABLE m.outbox ALTER COLUMN packed SET STORAGE EXTERNAL;
      CREATE INDEX outbox_unpublished_idx ON m.outbox (id) WHERE published_at IS NULL`);
    const pid = (await c.query('SELECT pg_backend_pid() AS p')).rows[0].p;
    const params = (floor) => (floor === undefined ? [100, ['$packed'], '42'] : [100, ['$packed'], '42', floor]);
    const pass = async (name, floor, mark) => {
      await c.query('BEGIN');
      const rows = (await c.query({ name, text: READ(floor === undefined ? '' : 'AND id > $4'), values: params(floor) })).rows;
      if (mark && rows.length) await c.query('UPDATE m.outbox AS outbox_m SET published_at = now(), attempts = attempts + 1 WHERE id = ANY($1::bigint[])', [rows.map((r) => r.id)]);
      await c.query('COMMIT');
      return rows;
    };
    const timed = async (label, n, fn) => {
      for (let i = 0; i < 50; i++) await fn(); // warm: prepared, generic plan
      const t0 = cpu(pid);
      for (let i = 0; i < n; i++) await fn();
      const us = (cpu(pid) - t0) / 1000 / n;
      console.log(`${label.padEnd(74)} ${us.toFixed(1).padStart(8)} µs a pass`);
      return us;
    };
    await timed('0. a transaction of one trivial statement (BEGIN, SELECT 1, COMMIT): the floor', ROUNDS, async () => {
      await c.query('BEGIN');
      await c.query({ name: 's1', text: 'SELECT 1' });
      await c.query('COMMIT');
    });
    await timed('1. empty poll', ROUNDS, () => pass('r0'));
    await timed("   the poll's probe instead (one prepared SELECT EXISTS, no transaction: the branch's idle poll)", ROUNDS, () =>
      c.query({ name: 'probe', text: 'SELECT EXISTS (SELECT 1 FROM m.outbox AS outbox_m WHERE published_at IS NULL) AS any' }),
    );
    await c.query("SET plan_cache_mode = 'force_custom_plan'");
    await timed('   empty poll, planned every time (force_custom_plan)', ROUNDS, () => pass('r0'));
    await c.query('RESET plan_cache_mode');
    await timed('   empty poll with the keyset start (id > floor)', ROUNDS, () => pass('k0', '0'));
    for (const dead of [1000, 20000]) {
      await c.query('TRUNCATE m.outbox');
      await other.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await other.query('SELECT 1'); // its snapshot now holds the horizon: the marks' old versions stay visible to it
      await c.query(`INSERT INTO m.outbox (event_id, topic, key, type, payload) SELECT gen_random_uuid(), 't', 'k', 'x', '{}' FROM generate_series(1, ${dead})`);
      await c.query('UPDATE m.outbox SET published_at = now()');
      const floor = (await c.query('SELECT max(id)::text AS m FROM m.outbox')).rows[0].m;
      await timed(`2. empty poll, ${dead} dead entries, horizon held`, Math.min(ROUNDS, 400), () => pass(`r${dead}h`));
      await timed(`4. the same, keyset start above them`, Math.min(ROUNDS, 400), () => pass(`k${dead}h`, floor));
      await other.query('COMMIT');
      await timed(`2. empty poll, ${dead} dead entries, horizon free (entries killed by the scan)`, Math.min(ROUNDS, 400), () => pass(`r${dead}f`));
      await c.query('VACUUM m.outbox');
      await timed(`   after VACUUM`, Math.min(ROUNDS, 400), () => pass(`r${dead}v`));
    }
    await c.query('TRUNCATE m.outbox');
    for (const kb of [100, 400, 1000]) {
      const text = JSON.stringify(Array.from({ length: Math.floor((kb * 1000) / 250) }, (_, i) => ({ id: `e${i}`, topic: 't', data: 'x'.repeat(220) })));
      const n = Math.max(20, Math.floor(ROUNDS / (kb / 10)));
      let rows = 0;
      // each round: insert (not timed: another session's cost in the product), then the pass (timed)
      let total = 0;
      for (let i = 0; i < n + 5; i++) {
        await other.query(`INSERT INTO m.outbox (event_id, topic, key, type, payload, packed) VALUES (gen_random_uuid(), '', '1', '$packed', '{}', $1)`, [text]);
        const t0 = cpu(pid);
        rows += (await pass(`p${kb}`, undefined, true)).length;
        if (i >= 5) total += cpu(pid) - t0;
      }
      const us = total / 1000 / n;
      // the same row read alone by its id (the detoasting and sending, no relay statement, no mark)
      await other.query(`INSERT INTO m.outbox (event_id, topic, key, type, payload, packed) VALUES (gen_random_uuid(), '', '1', '$packed', '{}', $1)`, [text]);
      const id = (await c.query('SELECT max(id) AS id FROM m.outbox')).rows[0].id;
      const alone = await timed(`   the row read alone (SELECT packed ... WHERE id = $1)`, n, () => c.query({ name: `a${kb}`, text: 'SELECT packed FROM m.outbox WHERE id = $1', values: [id] }));
      console.log(`      ${(alone / (Buffer.byteLength(text) / 1000)).toFixed(2)} µs a KB`);
      console.log(`${`3. read and mark one packed row of ${(Buffer.byteLength(text) / 1000).toFixed(0)} KB`.padEnd(74)} ${us.toFixed(1).padStart(8)} µs a pass, ${(us / (Buffer.byteLength(text) / 1000)).toFixed(2)} µs a KB (${rows} rows)`);
      await c.query('TRUNCATE m.outbox');
    }
  } finally {
    await other.end();
    await c.end();
    await pg.stop();
  }
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
