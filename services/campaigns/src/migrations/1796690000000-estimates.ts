import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a campaign shows before it starts (docs/decisions/0032-campaign-runner.md): the account's prices (a read model
 * of `accounts.price.changed`, own prices over the global ones) and the audience counted per country and time zone by
 * contacts (`contacts.audience.counted`), from which `get_estimated_cost` and `get_unreachable_timezones` answer.
 */
export class CampaignsEstimates1796690000000 implements MigrationInterface {
  name = 'CampaignsEstimates1796690000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE campaigns.price (
        account_id bigint NOT NULL DEFAULT 0,
        iso2 text NOT NULL,
        price_micros bigint NOT NULL,
        currency text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, iso2)
      )`);
    await q.query(`
      CREATE TABLE campaigns.audience_estimate (
        campaign_id bigint PRIMARY KEY,
        account_id bigint NOT NULL,
        request_id uuid NOT NULL,
        audience_key text NOT NULL,
        total integer,
        by_country jsonb,
        by_timezone jsonb,
        error text,
        requested_at timestamptz NOT NULL DEFAULT now(),
        counted_at timestamptz
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE campaigns.audience_estimate, campaigns.price`);
  }
}
