import type { DataSource, EntityManager } from 'typeorm';
import { COUNT_TABLES, STATUS_COLUMNS, STATUSES } from './rollup-shape';

/** The status-keyed message rollups the release before docs/decisions/0132 reads, kept until the contract step. */
const LEGACY_TABLES = ['rollup_hour', 'rollup_day_stream', 'rollup_day_country', 'rollup_month_stream', 'rollup_month_country'];

/**
 * Recomputes every rollup from `stats.message_state` (each message's furthest status, parts, price, refunds and
 * acceptance time), in one transaction: the hour and day buckets again from the acceptance time in each account's
 * current time zone, then the rollups (the month ones, the campaign hour, day, day-total and month ones too, and the click day rollup from the click hour one) grouped from the states.
 * The per-stream day and month tables are no longer kept (docs/decisions/0175): left as they are. For a changed rollup definition or time zone
 * (docs/decisions/0028). The state table is locked against writes meanwhile, so the consumers wait and resume after.
 */
export async function rebuildRollups(ds: DataSource): Promise<{ messages: number }> {
  return ds.transaction(async (m: EntityManager) => {
    await m.query(`LOCK TABLE stats.message_state IN EXCLUSIVE MODE`);
    await m.query(`
      UPDATE stats.message_state s SET hour_bucket = s.accepted_at - (l.local - date_trunc('hour', l.local)), day_bucket = l.local::date
        FROM (SELECT s2.message_uuid, s2.accepted_at AT TIME ZONE coalesce(a.time_zone, 'UTC') AS local
                FROM stats.message_state s2 LEFT JOIN stats.account a ON a.account_id = s2.account_id WHERE s2.accepted_at IS NOT NULL) l
       WHERE l.message_uuid = s.message_uuid`);
    // the status-keyed message rollups of the previous release, while they exist (until the contract step of
    // docs/decisions/0132): filled too, without their mirror into the count-shaped ones, which are filled below
    const [{ legacy }] = await m.query<Array<{ legacy: boolean }>>(`SELECT to_regclass('stats.rollup_hour') IS NOT NULL AS legacy`);
    await m.query(`SET LOCAL stats.rollup_mirror = 'off'`);
    const counted = `FROM stats.message_state WHERE accepted_at IS NOT NULL`;
    const sums = `count(*), sum(segments), sum(price_micros - refunded_micros)`;
    await m.query(
      `TRUNCATE ${[...Object.values(COUNT_TABLES), ...(legacy ? LEGACY_TABLES : [])].map((t) => `stats.${t}`).join(', ')}, stats.rollup_campaign_hour, stats.rollup_campaign_day, stats.rollup_campaign_day_total, stats.rollup_campaign_month, stats.campaign_click_day`,
    );
    // the message rollups: one row per key without the status, a count per status (docs/decisions/0131, 0132), written
    // in (account, bucket) order as the consumer leaves them (its batches go in time order, each ordered by account and
    // bucket): a report over a day reads that day's rows from a few heap pages, not one page a row (docs/decisions/0137)
    const counts = `${sums}, ${STATUSES.map((s) => `count(*) FILTER (WHERE status = '${s}')`).join(', ')}`;
    const NC = STATUS_COLUMNS.join(', ');
    await m.query(`INSERT INTO stats.${COUNT_TABLES.hour} (account_id, bucket, stream_id, sender, iso2, currency, messages, parts, cost_micros, ${NC})
                   SELECT account_id, hour_bucket, coalesce(stream_id, 0), sender, iso2, currency, ${counts} ${counted} GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`);
    await m.query(`INSERT INTO stats.${COUNT_TABLES.dayCountry} (account_id, bucket, stream_id, iso2, currency, messages, parts, cost_micros, ${NC})
                   SELECT account_id, day_bucket, coalesce(stream_id, 0), iso2, currency, ${counts} ${counted} GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5`);
    await m.query(`INSERT INTO stats.${COUNT_TABLES.monthCountry} (account_id, bucket, iso2, stream_id, currency, messages, parts, cost_micros, ${NC})
                   SELECT account_id, date_trunc('month', day_bucket)::date, iso2, coalesce(stream_id, 0), currency, ${counts} ${counted} GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5`);
    if (legacy) {
      await m.query(`INSERT INTO stats.rollup_hour (account_id, bucket, stream_id, sender, iso2, status, currency, messages, parts, cost_micros)
                     SELECT account_id, hour_bucket, coalesce(stream_id, 0), sender, iso2, status, currency, ${sums} ${counted} GROUP BY 1, 2, 3, 4, 5, 6, 7`);
      await m.query(`INSERT INTO stats.rollup_day_stream (account_id, bucket, stream_id, status, currency, messages, parts, cost_micros)
                     SELECT account_id, day_bucket, coalesce(stream_id, 0), status, currency, ${sums} ${counted} GROUP BY 1, 2, 3, 4, 5`);
      await m.query(`INSERT INTO stats.rollup_day_country (account_id, bucket, stream_id, iso2, status, currency, messages, parts, cost_micros)
                     SELECT account_id, day_bucket, coalesce(stream_id, 0), iso2, status, currency, ${sums} ${counted} GROUP BY 1, 2, 3, 4, 5, 6`);
      await m.query(`INSERT INTO stats.rollup_month_stream (account_id, bucket, stream_id, status, currency, messages, parts, cost_micros)
                     SELECT account_id, date_trunc('month', day_bucket)::date, coalesce(stream_id, 0), status, currency, ${sums} ${counted} GROUP BY 1, 2, 3, 4, 5`);
      await m.query(`INSERT INTO stats.rollup_month_country (account_id, bucket, iso2, stream_id, status, currency, messages, parts, cost_micros)
                     SELECT account_id, date_trunc('month', day_bucket)::date, iso2, coalesce(stream_id, 0), status, currency, ${sums} ${counted} GROUP BY 1, 2, 3, 4, 5, 6`);
    }
    await m.query(`INSERT INTO stats.rollup_campaign_hour (account_id, campaign_id, bucket, variant_id, iso2, status, currency, messages, parts, cost_micros)
                   SELECT account_id, campaign_id, hour_bucket, coalesce(variant_id, 0), iso2, status, currency, ${sums} ${counted} AND campaign_id IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6, 7`);
    await m.query(`INSERT INTO stats.rollup_campaign_day (account_id, campaign_id, bucket, variant_id, iso2, status, currency, messages, parts, cost_micros)
                   SELECT account_id, campaign_id, day_bucket, coalesce(variant_id, 0), iso2, status, currency, ${sums} ${counted} AND campaign_id IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6, 7`);
    await m.query(`INSERT INTO stats.rollup_campaign_day_total (account_id, campaign_id, bucket, status, currency, messages, parts, cost_micros)
                   SELECT account_id, campaign_id, day_bucket, status, currency, ${sums} ${counted} AND campaign_id IS NOT NULL GROUP BY 1, 2, 3, 4, 5`);
    await m.query(`INSERT INTO stats.rollup_campaign_month (account_id, campaign_id, bucket, status, currency, messages, parts, cost_micros)
                   SELECT account_id, campaign_id, date_trunc('month', day_bucket)::date, status, currency, ${sums} ${counted} AND campaign_id IS NOT NULL GROUP BY 1, 2, 3, 4, 5`);
    // clicks are not kept per click: their day rollup is summed again from the hour rollup, on local dates of the current zone
    await m.query(`INSERT INTO stats.campaign_click_day (account_id, campaign_id, bucket, variant_id, domain_id, clicks, unique_clicks, opted_out)
                   SELECT h.account_id, h.campaign_id, (h.bucket AT TIME ZONE coalesce(a.time_zone, 'UTC'))::date, h.variant_id, h.domain_id, sum(h.clicks), sum(h.unique_clicks), sum(h.opted_out)
                     FROM stats.campaign_click_hour h LEFT JOIN stats.account a ON a.account_id = h.account_id GROUP BY 1, 2, 3, 4, 5`);
    const [{ n }] = await m.query<Array<{ n: number }>>(`SELECT count(*)::int AS n ${counted}`);
    return { messages: n };
  });
}
