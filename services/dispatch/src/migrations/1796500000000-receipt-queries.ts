import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When dispatch last asked the carrier (SMPP query_sm) about a message whose receipt is overdue, so each such message
 * is asked about once per repeat interval by one replica (docs/decisions/0023-carrier-quirks.md). Nullable, no
 * default: adding it does not rewrite the table.
 */
export class ReceiptQueries1796500000000 implements MigrationInterface {
  name = 'ReceiptQueries1796500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE dispatch.message ADD COLUMN receipt_queried_at timestamptz NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE dispatch.message DROP COLUMN receipt_queried_at`);
  }
}
