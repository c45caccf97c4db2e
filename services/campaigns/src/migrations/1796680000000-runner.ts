import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The campaign runner (docs/decisions/0032-campaign-runner.md): a run per started campaign (its audience request,
 * progress and lease) and its recipients, snapshotted from contacts' audience batches by COPY. A recipient is
 * `(campaign, ordinal)`; its messageUuid is derived from the campaign, contact and copy, so a recipient re-requested
 * after a crash is the same message for streams. States: 0 waiting, 1 waiting for its links, 2 requested from
 * streams, 3 accepted, 4 refused, 5 skipped (a missing variable, a time zone the window never opens in).
 */
export class CampaignsRunner1796680000000 implements MigrationInterface {
  name = 'CampaignsRunner1796680000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE campaigns.run (
        campaign_id bigint PRIMARY KEY,
        account_id bigint NOT NULL,
        request_id uuid NOT NULL,
        batch_size integer NOT NULL,
        audience_total integer,
        audience_received integer NOT NULL DEFAULT 0,
        audience_error text,
        excluded integer NOT NULL DEFAULT 0,
        duplicates_removed integer NOT NULL DEFAULT 0,
        accepted bigint NOT NULL DEFAULT 0,
        auto_paused boolean NOT NULL DEFAULT false,
        pause_mark bigint NOT NULL DEFAULT 0,
        last_send_at timestamptz,
        lease_owner text,
        lease_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE campaigns.audience_batch (
        campaign_id bigint NOT NULL,
        request_id uuid NOT NULL,
        seq integer NOT NULL,
        PRIMARY KEY (campaign_id, request_id, seq)
      )`);
    await q.query(`
      CREATE TABLE campaigns.recipient (
        campaign_id bigint NOT NULL,
        ordinal integer NOT NULL,
        account_id bigint NOT NULL,
        contact_id bigint NOT NULL,
        occurrence smallint NOT NULL,
        message_uuid uuid NOT NULL,
        phone text NOT NULL,
        iso2 text,
        timezone text,
        variables jsonb NOT NULL DEFAULT '{}'::jsonb,
        state smallint NOT NULL DEFAULT 0,
        due_at timestamptz,
        batch_id uuid,
        requested_at timestamptz,
        links jsonb,
        variant_id bigint,
        sender_id bigint,
        segments smallint,
        price_micros bigint,
        reason text,
        status text,
        clicked boolean NOT NULL DEFAULT false,
        PRIMARY KEY (campaign_id, ordinal)
      )`);
    await q.query(`CREATE UNIQUE INDEX recipient_message_idx ON campaigns.recipient (message_uuid)`);
    await q.query(`CREATE INDEX recipient_open_idx ON campaigns.recipient (campaign_id, ordinal) WHERE state < 3`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE campaigns.recipient, campaigns.audience_batch, campaigns.run`);
  }
}
