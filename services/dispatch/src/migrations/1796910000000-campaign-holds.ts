import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A paused (or aborted) campaign's messages are held in dispatch (docs/decisions/0051-campaign-send-speed-and-pause.md):
 * `campaign_hold` is fed by `campaigns.campaign.status_changed`; the campaign's messages not yet written to a
 * provider wait in `send_state = 'held'` (out of the queue's index, never claimed) until play puts them back in the
 * queue. The partial index finds them on release and is empty while nothing is held.
 */
export class CampaignHolds1796910000000 implements MigrationInterface {
  name = 'CampaignHolds1796910000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE dispatch.campaign_hold (
        campaign_id bigint NOT NULL,
        account_id bigint NOT NULL,
        held boolean NOT NULL,
        changed_at timestamptz NOT NULL,
        PRIMARY KEY (campaign_id, account_id)
      )`);
    await q.query(`ALTER TABLE dispatch.message DROP CONSTRAINT message_send_state_check`);
    await q.query(`ALTER TABLE dispatch.message ADD CONSTRAINT message_send_state_check CHECK (send_state IN ('queued', 'submitting', 'submitted', 'done', 'held')) NOT VALID`);
    await q.query(`CREATE INDEX message_held ON dispatch.message (campaign_id) WHERE send_state = 'held'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE dispatch.message SET send_state = 'queued' WHERE send_state = 'held'`);
    await q.query(`DROP INDEX dispatch.message_held`);
    await q.query(`ALTER TABLE dispatch.message DROP CONSTRAINT message_send_state_check`);
    await q.query(`ALTER TABLE dispatch.message ADD CONSTRAINT message_send_state_check CHECK (send_state IN ('queued', 'submitting', 'submitted', 'done'))`);
    await q.query(`DROP TABLE dispatch.campaign_hold`);
  }
}
