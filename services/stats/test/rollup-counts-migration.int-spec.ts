import type { DashboardMainDto, StreamsStatisticsDto, TopDestinationsDto } from '@switchboard/contracts';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { STATS_CONNECTION } from '../src';
import { RollupStatusColumns1796500000010 } from '../src/migrations/1796500000010-rollup-status-columns';
import { accepted, customer, message, refunded, rng, startStats, statusChanged, type Msg, type StatsTestApp } from './support';

/**
 * Migration 1796500000010 (docs/decisions/0132): the statuses as count columns of each message rollup row, expand then
 * contract. Its up carries status-keyed rows over exactly; while the previous release still runs, everything that
 * release writes into the status-keyed tables is mirrored into the count-shaped ones; its down puts the status-keyed
 * tables back from the message states. Checked in a +05:30 and a -03:00 account.
 */
const STATUSES = ['accepted', 'sent', 'delivered', 'sent_failed', 'undelivered', 'no_routes', 'rejected'];
const N = STATUSES.map((s) => `n_${s}`);

/** The count-shaped tables, their status-keyed predecessors, the bucket from a message state and the key's other fields. */
const TABLES: Array<[string, string, string, string | null]> = [
  ['rollup_counts_hour', 'rollup_hour', 'hour_bucket', 'sender, iso2'],
  ['rollup_counts_day_stream', 'rollup_day_stream', 'day_bucket', null],
  ['rollup_counts_day_country', 'rollup_day_country', 'day_bucket', 'iso2'],
  ['rollup_counts_month_stream', 'rollup_month_stream', "date_trunc('month', day_bucket)::date", null],
  ['rollup_counts_month_country', 'rollup_month_country', "date_trunc('month', day_bucket)::date", 'iso2'],
];
/** The count-shaped tables the consumer keeps (the per-stream ones are no longer written since docs/decisions/0175). */
const KEPT = TABLES.filter(([t]) => t !== 'rollup_counts_day_stream' && t !== 'rollup_counts_month_stream');

describe('stats: the status count columns migration (1796500000010)', () => {
  let s: StatsTestApp;
  let ds: DataSource;
  const A = '611';
  const B = '612';

  beforeAll(async () => {
    s = await startStats({ cacheMs: 0 });
    ds = s.t.app.get<DataSource>(getDataSourceToken(STATS_CONNECTION));
  });
  afterAll(async () => s?.close());

  const migrate = async (direction: 'up' | 'down') => {
    const q = ds.createQueryRunner();
    try {
      await q.startTransaction();
      await new RollupStatusColumns1796500000010()[direction](q);
      await q.commitTransaction();
    } finally {
      await q.release();
    }
  };

  /** Rows of each count-shaped table that differ from its recomputation from the message states (sums and every count, by key). */
  const countsDiffer = async (): Promise<Record<string, number>> => {
    const out: Record<string, number> = {};
    for (const [table, , bucket, key] of KEPT) {
      const k = `account_id, bucket, stream_id, ${key ? `${key}, ` : ''}currency`;
      const cols = ['messages', 'parts', 'cost_micros', ...N];
      const [{ bad }] = await s.sql<{ bad: number }>(
        `WITH r AS (SELECT account_id, ${bucket} AS bucket, coalesce(stream_id, 0) AS stream_id, ${key ? `${key}, ` : ''}currency, count(*)::bigint, sum(segments)::bigint, sum(price_micros - refunded_micros)::bigint,
                           ${STATUSES.map((x) => `count(*) FILTER (WHERE status = '${x}')::bigint`).join(', ')}
                      FROM stats.message_state WHERE accepted_at IS NOT NULL GROUP BY 1, 2, 3, ${key ? `${key}, ` : ''}currency),
              t AS (SELECT ${k}, ${cols.map((c) => `${c}::bigint`).join(', ')} FROM stats.${table} WHERE ${cols.map((c) => `${c} <> 0`).join(' OR ')})
         SELECT count(*)::int AS bad FROM ((SELECT * FROM t EXCEPT ALL SELECT * FROM r) UNION ALL (SELECT * FROM r EXCEPT ALL SELECT * FROM t)) x`,
      );
      out[table] = bad;
    }
    return out;
  };
  const none = Object.fromEntries(KEPT.map(([t]) => [t, 0]));

  /** Rows of each status-keyed table that differ from its recomputation from the message states (by key with the status). */
  const legacyDiffer = async (): Promise<Record<string, number>> => {
    const out: Record<string, number> = {};
    for (const [, table, bucket, key] of TABLES) {
      const k = `account_id, bucket, stream_id, ${key ? `${key}, ` : ''}status, currency`;
      const [{ bad }] = await s.sql<{ bad: number }>(
        `WITH r AS (SELECT account_id, ${bucket} AS bucket, coalesce(stream_id, 0) AS stream_id, ${key ? `${key}, ` : ''}status, currency, count(*)::bigint, sum(segments)::bigint, sum(price_micros - refunded_micros)::bigint
                      FROM stats.message_state WHERE accepted_at IS NOT NULL GROUP BY 1, 2, 3, ${key ? `${key}, ` : ''}status, currency),
              t AS (SELECT ${k}, messages, parts, cost_micros FROM stats.${table} WHERE messages <> 0 OR parts <> 0 OR cost_micros <> 0)
         SELECT count(*)::int AS bad FROM ((SELECT * FROM t EXCEPT ALL SELECT * FROM r) UNION ALL (SELECT * FROM r EXCEPT ALL SELECT * FROM t)) x`,
      );
      out[table] = bad;
    }
    return out;
  };

  /** Every report of the message rollups over everything, for both accounts. */
  const reports = async () => {
    const out: unknown[] = [];
    for (const acc of [A, B]) {
      const token = s.token(acc);
      for (const type of ['all', 'custom']) {
        const body = type === 'all' ? { type } : { type, start: '2026-03-01', end: '2026-04-15T13:00:00Z' };
        const main = await s.call<DashboardMainDto>('POST', '/dashboard_statistics/main', { token, body });
        const top = await s.call<TopDestinationsDto>('POST', '/dashboard_statistics/top_destinations', { token, body: { ...body, limit: 250 } });
        expect([main.status, top.status]).toEqual([200, 200]);
        out.push({ ...main.body, cached: null }, { ...top.body, cached: null });
      }
      const st = await s.call<StreamsStatisticsDto>('GET', '/streams/statistics?start=2026-01-01&end=2026-12-31', { token });
      out.push(st.body);
    }
    return out;
  };

  it('carries status-keyed rows over exactly, mirrors the previous release\'s writes, and goes down to the status-keyed shape', async () => {
    const r = rng(61);
    await s.publish([customer(A, 'Asia/Kolkata', 'INR'), customer(B, 'America/Sao_Paulo', 'BRL')]);
    const msgs: Msg[] = [];
    const events = [];
    for (let i = 0; i < 600; i++) {
      const account = r() < 0.5 ? A : B;
      const m = message({
        account,
        acceptedAt: new Date(Date.parse('2026-03-01T00:00:00Z') + Math.floor(r() * 60 * 86_400_000)).toISOString(),
        stream: String(1 + Math.floor(r() * 3)),
        sender: r() < 0.5 ? 'Acme' : 'Shop "Nord"',
        iso2: ['GB', 'IN', 'BR', 'DE'][Math.floor(r() * 4)],
        segments: 1 + Math.floor(r() * 3),
        priceMicros: Math.floor(r() * 1_000_000),
        // a second currency in each account
        currency: r() < 0.2 ? 'EUR' : account === A ? 'INR' : 'BRL',
      });
      msgs.push(m);
      if (r() < 0.95) events.push(accepted(m));
      const end = r();
      const st = end < 0.2 ? null : end < 0.35 ? 'sent' : end < 0.65 ? 'delivered' : end < 0.75 ? 'undelivered' : end < 0.85 ? 'sent_failed' : end < 0.93 ? 'no_routes' : 'rejected';
      if (st) events.push(statusChanged(m, st));
      if ((st === 'no_routes' || st === 'rejected') && r() < 0.7) events.push(refunded(m, m.priceMicros));
    }
    await s.publish(events);
    expect(await countsDiffer()).toEqual(none);
    const before = await reports();

    // down: the status-keyed tables from the message states, the count-shaped ones gone
    await migrate('down');
    expect(await s.sql(`SELECT to_regclass('stats.rollup_counts_hour') AS t`)).toEqual([{ t: null }]);
    expect(await legacyDiffer()).toEqual(Object.fromEntries(TABLES.map(([, t]) => [t, 0])));
    // status-keyed rows a message left when it moved on (zero sums), as the previous release leaves them: not carried
    await s.sql(`INSERT INTO stats.rollup_hour (account_id, bucket, stream_id, sender, iso2, status, currency, messages, parts, cost_micros) VALUES ($1, '2026-03-02T00:00:00Z', 1, 'Acme', 'GB', 'sent', 'INR', 0, 0, 0)`, [A]);

    // up: every status-keyed row carried over, the reports the same as before
    await migrate('up');
    expect(await countsDiffer()).toEqual(none);
    const [{ n }] = await s.sql<{ n: number }>(`SELECT count(*)::int AS n FROM stats.rollup_counts_hour WHERE messages = 0 AND parts = 0 AND cost_micros = 0`);
    expect(n).toBe(0);
    expect(await reports()).toEqual(before);

    // the previous release goes on writing the status-keyed tables while it runs: a late status moves a message, a new
    // message is counted, a refund lowers a cost (its upserts of deltas), and each lands in the count-shaped tables
    const moved = msgs.find((m) => m.account === A);
    const [state] = await s.sql<{ u: string; status: string }>(`SELECT message_uuid::text AS u, status FROM stats.message_state WHERE message_uuid = $1`, [moved?.uuid]);
    const next = state.status === 'delivered' ? 'undelivered' : 'delivered';
    await s.sql(`UPDATE stats.message_state SET status = $2, rank = 2 WHERE message_uuid = $1`, [state.u, next]);
    await s.sql(`UPDATE stats.message_state SET refunded_micros = refunded_micros + 1 WHERE message_uuid = $1`, [msgs[1].uuid]);
    await s.sql(`
      INSERT INTO stats.message_state (message_uuid, account_id, stream_id, sender, iso2, status, rank, accepted_at, hour_bucket, day_bucket, segments, price_micros, refunded_micros, currency)
      VALUES (gen_random_uuid(), $1, 2, 'Acme', 'FR', 'sent', 1, '2026-06-10T10:20:00Z', '2026-06-10T10:00:00Z', '2026-06-10', 2, 70000, 0, 'BRL')`, [B]);
    for (const [, table, bucket, key] of TABLES) {
      const k = `account_id, bucket, stream_id, ${key ? `${key}, ` : ''}status, currency`;
      // the old consumer's upsert: the affected keys' deltas, recomputed here as the difference to the states
      await s.sql(`
        WITH r AS (SELECT account_id, ${bucket} AS bucket, coalesce(stream_id, 0) AS stream_id, ${key ? `${key}, ` : ''}status, currency, count(*)::bigint AS messages, sum(segments)::bigint AS parts, sum(price_micros - refunded_micros)::bigint AS cost_micros
                     FROM stats.message_state WHERE accepted_at IS NOT NULL GROUP BY 1, 2, 3, ${key ? `${key}, ` : ''}status, currency),
             d AS (SELECT ${k}, coalesce(r.messages, 0) - coalesce(t.messages, 0) AS m, coalesce(r.parts, 0) - coalesce(t.parts, 0) AS p, coalesce(r.cost_micros, 0) - coalesce(t.cost_micros, 0) AS c
                     FROM r FULL JOIN stats.${table} t USING (${k}))
        INSERT INTO stats.${table} AS x (${k}, messages, parts, cost_micros) SELECT ${k}, m, p, c FROM d WHERE m <> 0 OR p <> 0 OR c <> 0
        ON CONFLICT (${k}) DO UPDATE SET messages = x.messages + EXCLUDED.messages, parts = x.parts + EXCLUDED.parts, cost_micros = x.cost_micros + EXCLUDED.cost_micros`);
    }
    expect(await legacyDiffer()).toEqual(Object.fromEntries(TABLES.map(([, t]) => [t, 0])));
    expect(await countsDiffer()).toEqual(none);
    // the previous release's rebuild (truncate, then insert from the states) and a deleted row: mirrored too
    for (const [, table, bucket, key] of TABLES) {
      await s.sql(`TRUNCATE stats.${table}`);
      await s.sql(`
        INSERT INTO stats.${table} (account_id, bucket, stream_id, ${key ? `${key}, ` : ''}status, currency, messages, parts, cost_micros)
        SELECT account_id, ${bucket}, coalesce(stream_id, 0), ${key ? `${key}, ` : ''}status, currency, count(*), sum(segments), sum(price_micros - refunded_micros)
          FROM stats.message_state WHERE accepted_at IS NOT NULL GROUP BY 1, 2, 3, ${key ? `${key}, ` : ''}status, currency`);
    }
    expect(await countsDiffer()).toEqual(none);
    await s.sql(`DELETE FROM stats.rollup_hour WHERE account_id = $1 AND iso2 = 'FR'`, [B]);
    const [gone] = await s.sql<{ m: string }>(`SELECT coalesce(sum(messages), 0)::text AS m FROM stats.rollup_counts_hour WHERE account_id = $1 AND iso2 = 'FR'`, [B]);
    expect(gone.m).toBe('0');
  });
});
