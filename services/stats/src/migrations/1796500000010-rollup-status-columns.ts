import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Frozen with this migration (the code's list is services/stats/src/rollup-shape.ts). */
const STATUSES = ['accepted', 'sent', 'delivered', 'sent_failed', 'undelivered', 'no_routes', 'rejected'];

/** The status-keyed message rollups, their count-shaped successors and the keys besides the status (primary key order). */
const TABLES: Array<{ old: string; counts: string; bucket: 'timestamptz' | 'date'; key: string[] }> = [
  { old: 'rollup_hour', counts: 'rollup_counts_hour', bucket: 'timestamptz', key: ['account_id', 'bucket', 'stream_id', 'sender', 'iso2', 'currency'] },
  { old: 'rollup_day_stream', counts: 'rollup_counts_day_stream', bucket: 'date', key: ['account_id', 'bucket', 'stream_id', 'currency'] },
  { old: 'rollup_day_country', counts: 'rollup_counts_day_country', bucket: 'date', key: ['account_id', 'bucket', 'iso2', 'stream_id', 'currency'] },
  { old: 'rollup_month_stream', counts: 'rollup_counts_month_stream', bucket: 'date', key: ['account_id', 'bucket', 'stream_id', 'currency'] },
  { old: 'rollup_month_country', counts: 'rollup_counts_month_country', bucket: 'date', key: ['account_id', 'bucket', 'iso2', 'stream_id', 'currency'] },
];

const type = (col: string, bucket: string) => (col === 'bucket' ? bucket : col.endsWith('_id') ? 'bigint' : 'text');
const N = STATUSES.map((s) => `n_${s}`);

/**
 * The mirror of one status-keyed row into its count-shaped row: `sign` times the row's messages, parts and cost, and its
 * messages on its status's count. `rec` is OLD or NEW.
 */
function mirror(t: (typeof TABLES)[number], rec: 'OLD' | 'NEW', sign: '+' | '-'): string {
  const v = (c: string) => `${sign}${rec}.${c}`;
  return `INSERT INTO stats.${t.counts} AS r (${t.key.join(', ')}, messages, parts, cost_micros, ${N.join(', ')})
      VALUES (${t.key.map((c) => `${rec}.${c}`).join(', ')}, ${v('messages')}, ${v('parts')}, ${v('cost_micros')},
              ${STATUSES.map((s) => `CASE WHEN ${rec}.status = '${s}' THEN ${v('messages')} ELSE 0 END`).join(', ')})
      ON CONFLICT (${t.key.join(', ')}) DO UPDATE SET ${['messages', 'parts', 'cost_micros', ...N].map((c) => `${c} = r.${c} + EXCLUDED.${c}`).join(', ')};`;
}

/**
 * The statuses as count columns of each message rollup row (docs/decisions/0131, landed by 0132): five new tables,
 * `stats.rollup_counts_hour`, `_day_stream`, `_day_country`, `_month_stream` and `_month_country`, keyed like the
 * status-keyed `rollup_*` tables without the status, holding messages, parts and cost over every status and a count per
 * status (`integer` in the hour rollup, whose row counts one hour's messages; `bigint` in the others).
 *
 * Expand only (docs/decisions/0030): the status-keyed tables stay, so a replica of the previous release that meets this
 * schema goes on writing and reading them (a dropped column or table would be SQLSTATE 42703/42P01, not an outage: its
 * batches would be dead-lettered). Meanwhile:
 * - the existing rows are carried over, summed per key without the status (all-zero keys dropped), under locks that
 *   hold both releases' writers back (every rollup write also writes `message_state` in the same statement);
 * - a trigger on each status-keyed table mirrors every change the previous release makes (insert, update, delete,
 *   truncate) into its count-shaped table, so the new tables stay complete while both releases run; a session that
 *   sets `stats.rollup_mirror = 'off'` (the new rebuild, filling both shapes) is not mirrored.
 * The contract step (a later release's migration, once no replica of the previous release is left) drops the triggers,
 * their functions and the status-keyed tables.
 *
 * Down: the count-shaped tables and the mirror dropped, the status-keyed tables filled again from the message states
 * (the new release did not write them; their parts and cost per status are not in the count rows).
 */
export class RollupStatusColumns1796500000010 implements MigrationInterface {
  name = 'RollupStatusColumns1796500000010';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`LOCK TABLE stats.message_state IN EXCLUSIVE MODE`);
    await q.query(`LOCK TABLE ${TABLES.map((t) => `stats.${t.old}`).join(', ')} IN EXCLUSIVE MODE`);
    for (const t of TABLES) {
      await q.query(`
        CREATE TABLE stats.${t.counts} (
          ${t.key.map((c) => `${c} ${type(c, t.bucket)} NOT NULL`).join(', ')},
          messages bigint NOT NULL DEFAULT 0, parts bigint NOT NULL DEFAULT 0, cost_micros bigint NOT NULL DEFAULT 0,
          ${N.map((c) => `${c} ${t.old === 'rollup_hour' ? 'integer' : 'bigint'} NOT NULL DEFAULT 0`).join(', ')},
          PRIMARY KEY (${t.key.join(', ')})
        ) WITH (fillfactor = 70)`);
      const n = STATUSES.map((s) => `coalesce(sum(messages) FILTER (WHERE status = '${s}'), 0)`);
      await q.query(`
        INSERT INTO stats.${t.counts} (${t.key.join(', ')}, messages, parts, cost_micros, ${N.join(', ')})
        SELECT ${t.key.join(', ')}, sum(messages), sum(parts), sum(cost_micros), ${n.join(', ')}
          FROM stats.${t.old} GROUP BY ${t.key.join(', ')}
        HAVING sum(messages) <> 0 OR sum(parts) <> 0 OR sum(cost_micros) <> 0 OR ${n.map((x) => `${x} <> 0`).join(' OR ')}
         ORDER BY ${t.key.join(', ')}`);
      const same = t.key.map((c) => `OLD.${c} = NEW.${c}`).join(' AND ');
      await q.query(`
        CREATE FUNCTION stats.${t.old}_mirror() RETURNS trigger LANGUAGE plpgsql AS $f$
        BEGIN
          IF current_setting('stats.rollup_mirror', true) = 'off' THEN RETURN NULL; END IF;
          IF TG_OP = 'TRUNCATE' THEN
            TRUNCATE stats.${t.counts};
            RETURN NULL;
          END IF;
          IF TG_OP = 'UPDATE' AND ${same} AND OLD.status = NEW.status THEN
            -- the previous release's upserts change the sums of a row in place: one upsert of the difference
            INSERT INTO stats.${t.counts} AS r (${t.key.join(', ')}, messages, parts, cost_micros, ${N.join(', ')})
            VALUES (${t.key.map((c) => `NEW.${c}`).join(', ')}, NEW.messages - OLD.messages, NEW.parts - OLD.parts, NEW.cost_micros - OLD.cost_micros,
                    ${STATUSES.map((s) => `CASE WHEN NEW.status = '${s}' THEN NEW.messages - OLD.messages ELSE 0 END`).join(', ')})
            ON CONFLICT (${t.key.join(', ')}) DO UPDATE SET ${['messages', 'parts', 'cost_micros', ...N].map((c) => `${c} = r.${c} + EXCLUDED.${c}`).join(', ')};
            RETURN NULL;
          END IF;
          IF TG_OP IN ('UPDATE', 'DELETE') THEN
            ${mirror(t, 'OLD', '-')}
          END IF;
          IF TG_OP IN ('UPDATE', 'INSERT') THEN
            ${mirror(t, 'NEW', '+')}
          END IF;
          RETURN NULL;
        END $f$`);
      await q.query(`CREATE TRIGGER ${t.old}_mirror AFTER INSERT OR UPDATE OR DELETE ON stats.${t.old} FOR EACH ROW EXECUTE FUNCTION stats.${t.old}_mirror()`);
      await q.query(`CREATE TRIGGER ${t.old}_mirror_truncate AFTER TRUNCATE ON stats.${t.old} FOR EACH STATEMENT EXECUTE FUNCTION stats.${t.old}_mirror()`);
      await q.query(`COMMENT ON TABLE stats.${t.old} IS 'status-keyed: written and read by the release before docs/decisions/0132 only, mirrored into stats.${t.counts}; to be dropped by a later release'`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`LOCK TABLE stats.message_state IN EXCLUSIVE MODE`);
    for (const t of TABLES) {
      await q.query(`DROP TRIGGER IF EXISTS ${t.old}_mirror ON stats.${t.old}`);
      await q.query(`DROP TRIGGER IF EXISTS ${t.old}_mirror_truncate ON stats.${t.old}`);
      await q.query(`DROP FUNCTION IF EXISTS stats.${t.old}_mirror()`);
      await q.query(`COMMENT ON TABLE stats.${t.old} IS NULL`);
      await q.query(`DROP TABLE stats.${t.counts}`);
      await q.query(`TRUNCATE stats.${t.old}`);
      const pk = [...t.key.slice(0, -1), 'status', 'currency'];
      const b = t.old === 'rollup_hour' ? 'hour_bucket' : t.old.startsWith('rollup_month') ? `date_trunc('month', day_bucket)::date` : 'day_bucket';
      const src = pk.map((c) => (c === 'bucket' ? b : c === 'stream_id' ? 'coalesce(stream_id, 0)' : c));
      await q.query(`
        INSERT INTO stats.${t.old} (${pk.join(', ')}, messages, parts, cost_micros)
        SELECT ${src.join(', ')}, count(*), sum(segments), sum(price_micros - refunded_micros)
          FROM stats.message_state WHERE accepted_at IS NOT NULL GROUP BY ${src.map((_, j) => j + 1).join(', ')}`);
    }
  }
}
