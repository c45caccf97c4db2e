import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/decisions/0021-inbound-ownership-and-provider-secrets.md:
 * - `inbound_owner`: the one account (and stream) each claimed inbound address belongs to, from streams'
 *   `streams.inbound_route.changed`; inbound messages go to the owner only.
 * - `inbound_unclaimed`: what arrived for an address nobody owns, kept for the super administrator.
 * - `stream_channel.sealed_credentials`: provider secrets only sealed; the plaintext ones are removed from
 *   `credentials` (streams sends every provider stream's settings again, sealed, when it starts).
 * - `opt_out`: contacts who replied an opt-out keyword, per account and our sender (`*`: every sender).
 * - `account_limit.opt_keywords`: the account's own opt-out and opt-in keywords.
 */
export class InboundOwnership1796100000000 implements MigrationInterface {
  name = 'InboundOwnership1796100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE dispatch.inbound_owner (
        channel text NOT NULL,
        address text NOT NULL,
        account_id bigint NOT NULL,
        stream_id bigint NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (channel, address)
      )`);
    await q.query(`
      CREATE TABLE dispatch.inbound_unclaimed (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        channel text NOT NULL,
        vendor_id bigint NULL,
        address text NOT NULL,
        account_phone text NOT NULL,
        contact_phone text NOT NULL,
        contact_name text NULL,
        message_type text NOT NULL,
        body text NOT NULL,
        media jsonb NULL,
        provider_message_id text NOT NULL,
        reason text NOT NULL,
        received_at timestamptz NOT NULL,
        held_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (channel, account_phone, provider_message_id)
      )`);
    await q.query(`CREATE INDEX inbound_unclaimed_address ON dispatch.inbound_unclaimed (channel, address, id DESC)`);
    await q.query(`ALTER TABLE dispatch.stream_channel ADD COLUMN sealed_credentials text NULL`);
    await q.query(`UPDATE dispatch.stream_channel SET credentials = credentials - 'accessToken' - 'botToken' - 'verifyToken' WHERE credentials ?| array['accessToken', 'botToken', 'verifyToken']`);
    await q.query(`
      CREATE TABLE dispatch.opt_out (
        account_id bigint NOT NULL,
        sender text NOT NULL,
        phone text NOT NULL,
        keyword text NOT NULL,
        stream_id bigint NULL,
        opted_out_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, phone, sender)
      )`);
    await q.query(`ALTER TABLE dispatch.account_limit ADD COLUMN opt_keywords jsonb NOT NULL DEFAULT '{}'::jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE dispatch.account_limit DROP COLUMN opt_keywords`);
    await q.query(`DROP TABLE dispatch.opt_out`);
    await q.query(`ALTER TABLE dispatch.stream_channel DROP COLUMN sealed_credentials`);
    await q.query(`DROP TABLE dispatch.inbound_unclaimed`);
    await q.query(`DROP TABLE dispatch.inbound_owner`);
  }
}
