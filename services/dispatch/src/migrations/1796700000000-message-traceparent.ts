import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The trace context of a message's accepted event, stored with the message while tracing (null otherwise), so the
 * receipt's status events join the send's trace after a dispatch restart or on another replica
 * (docs/decisions/0039-observability.md). Nullable, no default: adding it does not rewrite the table.
 */
export class MessageTraceparent1796700000000 implements MigrationInterface {
  name = 'MessageTraceparent1796700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE dispatch.message ADD COLUMN traceparent text NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE dispatch.message DROP COLUMN traceparent`);
  }
}
