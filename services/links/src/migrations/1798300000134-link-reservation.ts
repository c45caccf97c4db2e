import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A batch's domains reserved before its links are written (docs/decisions/0134): minting picks the domains and counts
 * their usages in a short transaction of its own, which keeps here the picks' inputs (the variables' targets and their
 * candidate domains as they were locked, JSON), then writes the links in a second transaction that deletes the row. A
 * row that stays is a batch whose process died between the two: its redelivery picks the same domains from it and
 * finishes the batch, so the usages already counted are the links'. Rows live for one batch's milliseconds.
 */
export class LinkReservation1798300000134 implements MigrationInterface {
  name = 'LinkReservation1798300000134';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE links.link_reservation (
        account_id bigint NOT NULL,
        batch_id text NOT NULL,
        targets jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (account_id, batch_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    // a reservation left here is a batch whose links were never written: its usages stay counted (the minter before
    // this change had no reservations; a redelivery mints the batch afresh)
    await q.query(`DROP TABLE links.link_reservation`);
  }
}
