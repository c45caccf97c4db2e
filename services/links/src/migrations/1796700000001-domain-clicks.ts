import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A domain's clicks for the console's CTR: the redirect role's click rollup (`links.click_stats`, its own migration)
 * summed for the domain when that table exists, never less than the domain's own counter. The table is looked up at
 * call time, so the admin role does not depend on the redirect role's schema being there.
 */
export class DomainClicks1796700000001 implements MigrationInterface {
  name = 'DomainClicks1796700000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION links.domain_clicks(acc bigint, dom bigint, counted bigint) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
      DECLARE n bigint;
      BEGIN
        IF to_regclass('links.click_stats') IS NULL THEN RETURN counted; END IF;
        EXECUTE 'SELECT coalesce(sum(clicks), 0) FROM links.click_stats WHERE account_id = $1 AND domain_id = $2' INTO n USING acc, dom;
        RETURN greatest(n, counted);
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION links.domain_clicks(bigint, bigint, bigint)`);
  }
}
