import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The request log's `status=failed|timeout` filter (the usual debugging question) walks a narrow index of the failing
 * attempts in id order, so a keyset page never scans the account's successes to find a few failures.
 * docs/decisions/0027-webhooks.md, "Request log paging".
 */
export class LogFailuresIndex1796600000000 implements MigrationInterface {
  name = 'LogFailuresIndex1796600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX request_log_account_failures_idx ON webhooks.request_log (account_id, status, id) WHERE status <> 'success'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX webhooks.request_log_account_failures_idx`);
  }
}
