// Read-side cost of the statuses as count columns (docs/decisions/0131) against main's status-keyed rows: the latency
// bench's year of day and month rows per stream (5 streams x 10 countries summed, 4 statuses as in stats-latency), the
// main figures' and the main series' statements in both shapes, backend CPU per call from /proc, alternating rounds.
// Run after a build: node docs/decisions/patches/0131-report-reads-micro.js
const { benchDatabase } = require('../../../dist/bench/bench-database.js');
const { Client } = require('pg');
const fs = require('fs');
const cpu = (pid) => { const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8'); const f = s.slice(s.lastIndexOf(')') + 2).split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
const ST = ['accepted', 'sent', 'delivered', 'sent_failed', 'undelivered', 'no_routes', 'rejected'];
const N = ST.map((s) => `n_${s}`);
(async () => {
  const db = await benchDatabase('stats-reads-micro-');
  const pg = new Client({ connectionString: db.url }); await pg.connect();
  for (const t of ['day_country', 'month_country']) {
    await pg.query(`CREATE TABLE ${t} (account_id bigint NOT NULL, bucket date NOT NULL, iso2 text NOT NULL, stream_id bigint NOT NULL, status text NOT NULL, currency text NOT NULL, messages bigint NOT NULL, parts bigint NOT NULL, cost_micros bigint NOT NULL, PRIMARY KEY (account_id, bucket, iso2, stream_id, status, currency)) WITH (fillfactor = 70)`);
  }
  for (const t of ['day_stream', 'month_stream']) {
    await pg.query(`CREATE TABLE ${t} (account_id bigint NOT NULL, bucket date NOT NULL, stream_id bigint NOT NULL, status text NOT NULL, currency text NOT NULL, messages bigint NOT NULL, parts bigint NOT NULL, cost_micros bigint NOT NULL, PRIMARY KEY (account_id, bucket, stream_id, status, currency)) WITH (fillfactor = 70)`);
    await pg.query(`CREATE TABLE ${t}_c (account_id bigint NOT NULL, bucket date NOT NULL, stream_id bigint NOT NULL, currency text NOT NULL, messages bigint NOT NULL, parts bigint NOT NULL, cost_micros bigint NOT NULL, ${N.map((c) => `${c} bigint NOT NULL DEFAULT 0`).join(', ')}, PRIMARY KEY (account_id, bucket, stream_id, currency)) WITH (fillfactor = 70)`);
  }
  await pg.query('SELECT setseed(0.16)');
  await pg.query(`INSERT INTO day_country SELECT 1, d::date, c, st, s, 'EUR', m, m + m/4, m * 50000 FROM generate_series(current_date - 365, current_date, interval '1 day') d
    CROSS JOIN generate_series(1,5) st CROSS JOIN unnest(ARRAY['DE','GB','FR','ES','IT','NL','PL','US','BR','IN']) c CROSS JOIN unnest(ARRAY['delivered','undelivered','no_routes','sent']) s CROSS JOIN LATERAL (SELECT (100 + floor(random()*300))::bigint AS m) x`);
  await pg.query(`INSERT INTO day_stream SELECT account_id, bucket, stream_id, status, currency, sum(messages), sum(parts), sum(cost_micros) FROM day_country GROUP BY 1,2,3,4,5`);
  await pg.query(`INSERT INTO month_stream SELECT account_id, date_trunc('month', bucket)::date, stream_id, status, currency, sum(messages), sum(parts), sum(cost_micros) FROM day_stream GROUP BY 1,2,3,4,5`);
  const pivot = ST.map((s) => `coalesce(sum(messages) FILTER (WHERE status = '${s}'), 0)`).join(', ');
  await pg.query(`INSERT INTO day_stream_c SELECT account_id, bucket, stream_id, currency, sum(messages), sum(parts), sum(cost_micros), ${pivot} FROM day_stream GROUP BY 1,2,3,4`);
  await pg.query(`INSERT INTO month_stream_c SELECT account_id, bucket, stream_id, currency, sum(messages), sum(parts), sum(cost_micros), ${pivot} FROM month_stream GROUP BY 1,2,3,4`);
  await pg.query('VACUUM ANALYZE');
  const [{ pid }] = (await pg.query('SELECT pg_backend_pid() AS pid')).rows;
  const lo = (await pg.query(`SELECT (current_date - 365)::text AS d`)).rows[0].d, hi = (await pg.query(`SELECT (current_date + 1)::text AS d`)).rows[0].d;
  const m0 = (await pg.query(`SELECT (date_trunc('month', current_date - 365) + interval '1 month')::date::text AS d`)).rows[0].d, m1 = (await pg.query(`SELECT date_trunc('month', current_date)::date::text AS d`)).rows[0].d;
  const range = (t) => `FROM ${t} WHERE account_id = $1::bigint AND bucket >= $2::date AND bucket < $3::date`;
  const variants = {
    // main's statements (report.service.ts: computeMain and series), the status-keyed rows
    main_status: [`SELECT stream_id::text AS stream, status, currency, sum(messages)::bigint::text AS n, sum(parts)::bigint::text AS parts, sum(cost_micros)::text AS cost FROM (
        SELECT stream_id, status, currency, messages, parts, cost_micros ${range('month_stream')}
        UNION ALL SELECT stream_id, status, currency, messages, parts, cost_micros FROM day_stream WHERE account_id = $1::bigint AND bucket >= $4::date AND bucket < $2::date
        UNION ALL SELECT stream_id, status, currency, messages, parts, cost_micros FROM day_stream WHERE account_id = $1::bigint AND bucket >= $3::date AND bucket < $5::date) x GROUP BY stream_id, status, currency`, ['1', m0, m1, lo, hi]],
    main_columns: [`SELECT stream_id::text AS stream, currency, sum(messages)::bigint::text AS n, sum(parts)::bigint::text AS parts, sum(cost_micros)::text AS cost, ${N.map((c) => `sum(${c})::bigint::text AS ${c}`).join(', ')} FROM (
        SELECT stream_id, currency, messages, parts, cost_micros, ${N.join(', ')} ${range('month_stream_c')}
        UNION ALL SELECT stream_id, currency, messages, parts, cost_micros, ${N.join(', ')} FROM day_stream_c WHERE account_id = $1::bigint AND bucket >= $4::date AND bucket < $2::date
        UNION ALL SELECT stream_id, currency, messages, parts, cost_micros, ${N.join(', ')} FROM day_stream_c WHERE account_id = $1::bigint AND bucket >= $3::date AND bucket < $5::date) x GROUP BY stream_id, currency`, ['1', m0, m1, lo, hi]],
    series_status: [`SELECT to_char(x.b, 'YYYY-MM-DD') AS b, status, n::text, cost::text FROM (SELECT b, status, sum(messages)::bigint AS n, sum(cost_micros) AS cost FROM (SELECT bucket AS b, status, messages, cost_micros ${range('day_stream')}) u GROUP BY b, status) x ORDER BY x.b`, ['1', lo, hi]],
    series_columns: [`SELECT to_char(x.b, 'YYYY-MM-DD') AS b, n::text, cost::text, ${N.map((c) => `${c}::text`).join(', ')} FROM (SELECT b, sum(messages)::bigint AS n, sum(cost_micros) AS cost, ${N.map((c) => `sum(${c})::bigint AS ${c}`).join(', ')} FROM (SELECT bucket AS b, messages, cost_micros, ${N.join(', ')} ${range('day_stream_c')}) u GROUP BY b) x ORDER BY x.b`, ['1', lo, hi]],
  };
  const res = {}; for (const k in variants) res[k] = { cpu: [], wall: [] };
  for (const k in variants) for (let i = 0; i < 5; i++) await pg.query(...variants[k]);
  for (let round = 0; round < 20; round++) for (const k of (round % 2 ? Object.keys(variants).reverse() : Object.keys(variants))) {
    const c0 = cpu(pid), t0 = performance.now();
    for (let i = 0; i < 10; i++) await pg.query(...variants[k]);
    res[k].wall.push((performance.now() - t0) / 10); res[k].cpu.push((cpu(pid) - c0) / 10);
  }
  const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };
  const count = async (t) => (await pg.query(`SELECT count(*)::int AS n FROM ${t}`)).rows[0].n;
  console.log(`load ${require('os').loadavg()[0].toFixed(1)}; rows: day_stream ${await count('day_stream')} -> ${await count('day_stream_c')}, month_stream ${await count('month_stream')} -> ${await count('month_stream_c')}`);
  for (const k in res) console.log(`${k.padEnd(15)} backend CPU ms a call: median ${med(res[k].cpu).toFixed(1)} (${Math.min(...res[k].cpu).toFixed(1)}–${Math.max(...res[k].cpu).toFixed(1)}); wall ms median ${med(res[k].wall).toFixed(1)}`);
  await pg.end(); await db.stop();
})().catch((e) => { console.error(e); process.exit(1); });
