// Report-side cost of reading the per-stream figures from the country rollups instead of the stream rollups:
// the same rows as stats-latency's year (Berlin, 5 streams, 10 countries, status mix), the statements the reports run,
// backend CPU per call from /proc (load-independent), alternating A/B.
// Run after a build: node docs/decisions/patches/0126-report-reads-micro.js (docs/decisions/0126, "Report latency").
const { benchDatabase } = require('../../../dist/bench/bench-database.js');
const { Client } = require('pg');
const fs = require('fs');
const cpu = (pid) => { const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8'); const f = s.slice(s.lastIndexOf(')') + 2).split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
(async () => {
  const db = await benchDatabase('stats-micro-');
  const pg = new Client({ connectionString: db.url }); await pg.connect();
  for (const [t, iso] of [['day_country', true], ['day_stream', false], ['month_country', true], ['month_stream', false]]) {
    await pg.query(`CREATE TABLE ${t} (account_id bigint NOT NULL, bucket date NOT NULL, ${iso ? 'iso2 text NOT NULL,' : ''} stream_id bigint NOT NULL, status text NOT NULL, currency text NOT NULL, messages bigint NOT NULL, parts bigint NOT NULL, cost_micros bigint NOT NULL, PRIMARY KEY (account_id, bucket, ${iso ? 'iso2, ' : ''}stream_id, status, currency)) WITH (fillfactor = 70)`);
  }
  await pg.query('SELECT setseed(0.16)');
  await pg.query(`INSERT INTO day_country SELECT 1, d::date, c, st, s, 'EUR', m, m + m/4, m * 50000 FROM generate_series(current_date - 365, current_date, interval '1 day') d
    CROSS JOIN generate_series(1,5) st CROSS JOIN unnest(ARRAY['DE','GB','FR','ES','IT','NL','PL','US','BR','IN']) c CROSS JOIN unnest(ARRAY['delivered','undelivered','no_routes','sent']) s CROSS JOIN LATERAL (SELECT (100 + floor(random()*300))::bigint AS m) x`);
  await pg.query(`INSERT INTO day_stream SELECT account_id, bucket, stream_id, status, currency, sum(messages), sum(parts), sum(cost_micros) FROM day_country GROUP BY 1,2,3,4,5`);
  await pg.query(`INSERT INTO month_country SELECT account_id, date_trunc('month', bucket)::date, iso2, stream_id, status, currency, sum(messages), sum(parts), sum(cost_micros) FROM day_country GROUP BY 1,2,3,4,5,6`);
  await pg.query(`INSERT INTO month_stream SELECT account_id, bucket, stream_id, status, currency, sum(messages), sum(parts), sum(cost_micros) FROM month_country GROUP BY 1,2,3,4,5`);
  await pg.query('ANALYZE');
  const [{ pid }] = (await pg.query('SELECT pg_backend_pid() AS pid')).rows;
  const lo = (await pg.query(`SELECT (current_date - 365)::text AS d`)).rows[0].d, hi = (await pg.query(`SELECT (current_date + 1)::text AS d`)).rows[0].d;
  const m0 = (await pg.query(`SELECT (date_trunc('month', current_date - 365) + interval '1 month')::date::text AS d`)).rows[0].d, m1 = (await pg.query(`SELECT date_trunc('month', current_date)::date::text AS d`)).rows[0].d;
  const q = {
    // the main series of a year: one point per local day (day rows only)
    series: (day) => [`SELECT to_char(x.b, 'YYYY-MM-DD') AS b, status, n::text, cost::text FROM (SELECT b, status, sum(messages)::bigint AS n, sum(cost_micros) AS cost FROM (SELECT bucket AS b, status, messages, cost_micros FROM ${day} WHERE account_id = $1::bigint AND bucket >= $2::date AND bucket < $3::date) u GROUP BY b, status) x ORDER BY x.b`, ['1', lo, hi]],
    // the main figures of a year: whole months from month rows, the ends from day rows
    main: (day, month) => [`SELECT stream_id::text AS stream, status, currency, sum(messages)::bigint::text AS n, sum(parts)::bigint::text AS parts, sum(cost_micros)::text AS cost FROM (
        SELECT stream_id, status, currency, messages, parts, cost_micros FROM ${month} WHERE account_id = $1::bigint AND bucket >= $2::date AND bucket < $3::date
        UNION ALL SELECT stream_id, status, currency, messages, parts, cost_micros FROM ${day} WHERE account_id = $1::bigint AND bucket >= $4::date AND bucket < $2::date
        UNION ALL SELECT stream_id, status, currency, messages, parts, cost_micros FROM ${day} WHERE account_id = $1::bigint AND bucket >= $3::date AND bucket < $5::date) x GROUP BY stream_id, status, currency`, ['1', m0, m1, lo, hi]],
  };
  const variants = { main_before: q.main('day_stream', 'month_stream'), main_after: q.main('day_country', 'month_country'), series_before: q.series('day_stream'), series_after: q.series('day_country') };
  const res = {}; for (const k in variants) res[k] = { cpu: [], wall: [] };
  for (const k in variants) for (let i = 0; i < 5; i++) await pg.query(...variants[k]); // warm
  for (let round = 0; round < 20; round++) for (const k of (round % 2 ? Object.keys(variants).reverse() : Object.keys(variants))) {
    const c0 = cpu(pid), t0 = performance.now();
    for (let i = 0; i < 10; i++) await pg.query(...variants[k]);
    res[k].wall.push((performance.now() - t0) / 10); res[k].cpu.push((cpu(pid) - c0) / 10);
  }
  const ex = {};
  for (const k in variants) { const r = await pg.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${variants[k][0]}`, variants[k][1]); const p = r.rows[0]['QUERY PLAN'][0]; ex[k] = { exec: p['Execution Time'].toFixed(1), buffers: p.Plan['Shared Hit Blocks'] + p.Plan['Shared Read Blocks'] }; }
  const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };
  console.log(`load ${require('os').loadavg()[0].toFixed(1)}; rows: day_country ${(await pg.query('SELECT count(*) FROM day_country')).rows[0].count}, day_stream ${(await pg.query('SELECT count(*) FROM day_stream')).rows[0].count}, month_country ${(await pg.query('SELECT count(*) FROM month_country')).rows[0].count}, month_stream ${(await pg.query('SELECT count(*) FROM month_stream')).rows[0].count}`);
  for (const k in res) console.log(`${k.padEnd(14)} backend CPU ms a call: median ${med(res[k].cpu).toFixed(1)} (${Math.min(...res[k].cpu).toFixed(1)}–${Math.max(...res[k].cpu).toFixed(1)}); wall ms median ${med(res[k].wall).toFixed(1)}; EXPLAIN ANALYZE exec ${ex[k].exec} ms, ${ex[k].buffers} buffers`);
  await pg.end(); await db.stop();
})().catch((e) => { console.error(e); process.exit(1); });
