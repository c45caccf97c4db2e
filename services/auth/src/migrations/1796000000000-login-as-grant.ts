import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A login-as session family records what it was granted: the account it was opened for and the permissions the user
 * had there (issue 10, item 2). Login-as sessions opened before this have no grant and are ended (reason logout):
 * the admin logs in as the user again.
 */
export class LoginAsGrant1796000000000 implements MigrationInterface {
  name = 'LoginAsGrant1796000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE auth.session_family ADD COLUMN grant_account_id bigint, ADD COLUMN grant_permissions text[]`);
    await q.query(`UPDATE auth.session_family SET revoked_at = now(), revoked_reason = 'logout' WHERE impersonator_id IS NOT NULL AND revoked_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE auth.session_family DROP COLUMN grant_account_id, DROP COLUMN grant_permissions`);
  }
}
