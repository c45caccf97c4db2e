import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Inbound media kept in the background (docs/decisions/0053): a WhatsApp or Telegram message's file is fetched from the
 * provider soon after it arrives, before the provider's retention ends, and kept here. `media_state` on the message:
 * null (nothing to keep), pending, kept, gone, too_large; `media_next_at` when the keeper tries next (retries after an
 * outage back off). Nullable and defaulted columns: adding them does not rewrite the table.
 */
export class InboundMediaKept1796900000000 implements MigrationInterface {
  name = 'InboundMediaKept1796900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE dispatch.inbound_message ADD COLUMN media_state text NULL, ADD COLUMN media_attempts integer NOT NULL DEFAULT 0, ADD COLUMN media_next_at timestamptz NULL`);
    await q.query(`CREATE INDEX inbound_message_media_pending_idx ON dispatch.inbound_message (media_next_at) WHERE media_state = 'pending'`);
    await q.query(`
      CREATE TABLE dispatch.inbound_media_kept (
        message_uuid uuid PRIMARY KEY,
        account_id bigint NOT NULL,
        bytes bytea NOT NULL,
        provider_mime text,
        file_name text,
        kept_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE dispatch.inbound_media_kept`);
    await q.query(`DROP INDEX dispatch.inbound_message_media_pending_idx`);
    await q.query(`ALTER TABLE dispatch.inbound_message DROP COLUMN media_next_at, DROP COLUMN media_attempts, DROP COLUMN media_state`);
  }
}
