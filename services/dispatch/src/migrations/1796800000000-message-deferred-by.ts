import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The replica that gave a message back to the queue because a rate held it back (docs/decisions/0047, "own backlog"):
 * it claims it back first, so a replica's backlog of a limit stays its own and its share of the limit follows it.
 * Nullable, no default: adding it does not rewrite the table.
 */
export class MessageDeferredBy1796800000000 implements MigrationInterface {
  name = 'MessageDeferredBy1796800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE dispatch.message ADD COLUMN deferred_by uuid NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE dispatch.message DROP COLUMN deferred_by`);
  }
}
