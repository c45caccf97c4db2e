import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The recipients a campaign has asked streams or links about and not heard back on yet (state 1 or 2), by campaign
 * and request time (docs/decisions/0108): the runner's step counts them and takes the stale ones again from this
 * index, so it reads at most about a second of the TPS instead of every recipient the campaign still has to send.
 */
export class CampaignsRecipientInFlight1797900000000 implements MigrationInterface {
  name = 'CampaignsRecipientInFlight1797900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX recipient_in_flight_idx ON campaigns.recipient (campaign_id, requested_at) WHERE state IN (1, 2)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX campaigns.recipient_in_flight_idx`);
  }
}
