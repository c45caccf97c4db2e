import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The row type minting sends a batch's range rows in (docs/decisions/0141): `links.link_range_row[]` in PostgreSQL's
 * binary format, one element a range row, inserted as they come (no array literal parsed, no slice of a batch-wide
 * array sought). A type of its own, not the table's row type: a column added to `links.link_range` later leaves this
 * type, and the minters that send it, as they are.
 */
export class LinkRangeRowType1798500000141 implements MigrationInterface {
  name = 'LinkRangeRowType1798500000141';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TYPE links.link_range_row AS (
        page bigint,
        account_id bigint,
        target_id bigint,
        campaign_id bigint,
        stream_id bigint,
        expires_at timestamptz,
        created_at timestamptz,
        domains bigint[],
        variants bigint[],
        contacts bigint[],
        messages uuid[],
        destinations text[],
        vars text[]
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TYPE links.link_range_row`);
  }
}
