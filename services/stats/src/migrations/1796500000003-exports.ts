import type { MigrationInterface, QueryRunner } from 'typeorm';
import { outboxTableSql } from '@switchboard/platform';

/**
 * Message exports (docs/decisions/0046-campaign-reports.md, "Message exports"): the exports stats was asked for, the
 * outbox their progress leaves through, each message's destination in its state (the export's phone column) and the
 * incoming messages (`dispatch.message.received`) for the incoming-messages export.
 */
export class MessageExports1796500000003 implements MigrationInterface {
  name = 'MessageExports1796500000003';

  async up(q: QueryRunner): Promise<void> {
    // the platform's outbox DDL, without its processed_events table (stats has had one from the start)
    const ddl = outboxTableSql('stats');
    await q.query(ddl.slice(0, ddl.lastIndexOf('CREATE TABLE', ddl.indexOf('.processed_events'))));
    await q.query(`ALTER TABLE stats.message_state ADD COLUMN destination text`);
    await q.query(`
      CREATE TABLE stats.export (
        task_id bigint PRIMARY KEY,
        account_id bigint NOT NULL,
        type text NOT NULL,
        params jsonb NOT NULL,
        status text NOT NULL DEFAULT 'pending',
        total bigint NOT NULL DEFAULT 0,
        processed bigint NOT NULL DEFAULT 0,
        file_name text,
        file_path text,
        error text,
        attempts integer NOT NULL DEFAULT 0,
        lease_owner text,
        lease_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz
      )`);
    await q.query(`CREATE INDEX export_pending_idx ON stats.export (task_id) WHERE status IN ('pending', 'running')`);
    await q.query(`
      CREATE TABLE stats.inbound_message (
        message_uuid uuid PRIMARY KEY,
        account_id bigint NOT NULL,
        stream_id bigint NOT NULL,
        channel text NOT NULL,
        account_phone text NOT NULL,
        contact_phone text NOT NULL,
        contact_name text,
        message_type text NOT NULL,
        body text NOT NULL,
        received_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX inbound_message_account_idx ON stats.inbound_message (account_id, received_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS stats.inbound_message, stats.export`);
    await q.query(`ALTER TABLE stats.message_state DROP COLUMN IF EXISTS destination`);
    await q.query(`DROP TABLE IF EXISTS stats.outbox`);
  }
}
