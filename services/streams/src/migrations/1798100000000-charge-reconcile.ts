import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Accounts' reconciliation of charges (docs/decisions/0114): streams sums and lists an account's messages per window
 * of acceptance time. The account's time index becomes a covering one, `(account_id, created_at, uuid)` with the
 * price, refund and currency, so both answers are index-only scans; it replaces `message_account_time_idx` (same
 * leading columns, so every query that used it can use this one), and the table keeps its number of indexes.
 */
export class ChargeReconcile1798100000000 implements MigrationInterface {
  name = 'ChargeReconcile1798100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX message_account_charges_idx ON streams.message (account_id, created_at, uuid) INCLUDE (price_micros, refunded_micros, currency)`);
    await q.query(`DROP INDEX streams.message_account_time_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX message_account_time_idx ON streams.message (account_id, created_at)`);
    await q.query(`DROP INDEX streams.message_account_charges_idx`);
  }
}
