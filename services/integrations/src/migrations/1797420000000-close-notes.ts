import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Notes written on CRM contacts for a closed inbox conversation (inbox.conversation.closed, decision 0065): each
 * (event, integration, contact) whose note the vendor took, so that a delivery retried after an outage writes only the
 * notes still missing. The rows of an event go once it is claimed in processed_events.
 */
export class IntegrationsCloseNotes1797420000000 implements MigrationInterface {
  name = 'IntegrationsCloseNotes1797420000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE integrations.close_note (
        event_id text NOT NULL,
        integration_id bigint NOT NULL REFERENCES integrations.integration (id) ON DELETE CASCADE,
        external_id text NOT NULL,
        account_id bigint NOT NULL,
        sent_at timestamptz NOT NULL,
        PRIMARY KEY (event_id, integration_id, external_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS integrations.close_note`);
  }
}
