import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Campaign, variant and domain reports (docs/decisions/0046-campaign-reports.md): each message's campaign and variant
 * in its state, the campaign rollup per hour, variant, country, status and currency, the clicks and opt-outs per
 * campaign, variant, domain and hour, the links minted per campaign and domain, and what stats knows of campaigns and
 * domains (names, owner). Messages counted before this migration have no campaign until the topics are replayed.
 */
export class CampaignReports1796500000002 implements MigrationInterface {
  name = 'CampaignReports1796500000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE stats.message_state ADD COLUMN campaign_id bigint, ADD COLUMN variant_id bigint`);
    await q.query(`
      CREATE TABLE stats.campaign (
        campaign_id bigint PRIMARY KEY,
        account_id bigint NOT NULL,
        name text NOT NULL DEFAULT '',
        status integer NOT NULL DEFAULT 0,
        stream_id bigint,
        deleted boolean NOT NULL DEFAULT false,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX campaign_account_idx ON stats.campaign (account_id)`);
    await q.query(`
      CREATE TABLE stats.domain (
        domain_id bigint PRIMARY KEY,
        account_id bigint NOT NULL,
        name text NOT NULL,
        deleted boolean NOT NULL DEFAULT false
      )`);
    await q.query(`CREATE INDEX domain_account_name_idx ON stats.domain (account_id, name)`);
    // variant 0: not known (a message sent outside a campaign batch, or before its variant was announced)
    await q.query(`
      CREATE TABLE stats.rollup_campaign_hour (
        account_id bigint NOT NULL,
        campaign_id bigint NOT NULL,
        bucket timestamptz NOT NULL,
        variant_id bigint NOT NULL,
        iso2 text NOT NULL,
        status text NOT NULL,
        currency text NOT NULL,
        messages bigint NOT NULL DEFAULT 0,
        parts bigint NOT NULL DEFAULT 0,
        cost_micros bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (account_id, campaign_id, bucket, variant_id, iso2, status, currency)
      )`);
    // campaign 0: clicks on links made outside a campaign; domain 0: opt-outs (no domain in the event)
    await q.query(`
      CREATE TABLE stats.campaign_click_hour (
        account_id bigint NOT NULL,
        campaign_id bigint NOT NULL,
        bucket timestamptz NOT NULL,
        variant_id bigint NOT NULL,
        domain_id bigint NOT NULL,
        clicks bigint NOT NULL DEFAULT 0,
        unique_clicks bigint NOT NULL DEFAULT 0,
        opted_out bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (account_id, campaign_id, bucket, variant_id, domain_id)
      )`);
    await q.query(`
      CREATE TABLE stats.campaign_domain_usage (
        account_id bigint NOT NULL,
        campaign_id bigint NOT NULL,
        domain_name text NOT NULL,
        usages bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (account_id, campaign_id, domain_name)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS stats.campaign_domain_usage, stats.campaign_click_hour, stats.rollup_campaign_hour, stats.domain, stats.campaign`);
    await q.query(`ALTER TABLE stats.message_state DROP COLUMN IF EXISTS campaign_id, DROP COLUMN IF EXISTS variant_id`);
  }
}
