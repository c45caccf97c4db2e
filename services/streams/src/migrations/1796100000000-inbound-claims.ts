import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Inbound ownership (docs/decisions/0021-inbound-ownership-and-provider-secrets.md): an address that receives (a
 * two-way number, a WhatsApp phone number id, a Telegram bot id, in `inboundAddress()` spelling) belongs to one
 * account (`inbound_claim`, its primary key), held by the account's streams and senders that use it
 * (`inbound_claim_holder`); the claim goes with its last holder. `provider_backfill` marks the streams whose claim
 * and sealed provider settings still have to be sent to dispatch once by the running service (it needs the key).
 */
export class InboundClaims1796100000000 implements MigrationInterface {
  name = 'InboundClaims1796100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE streams.inbound_claim (
        channel text NOT NULL CHECK (channel IN ('sms', 'whatsapp', 'telegram')),
        address text NOT NULL,
        account_id bigint NOT NULL,
        stream_id bigint NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (channel, address)
      )`);
    await q.query(`
      CREATE TABLE streams.inbound_claim_holder (
        channel text NOT NULL,
        address text NOT NULL,
        holder text NOT NULL,
        account_id bigint NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (channel, address, holder),
        FOREIGN KEY (channel, address) REFERENCES streams.inbound_claim (channel, address) ON DELETE CASCADE
      )`);
    await q.query(`CREATE UNIQUE INDEX inbound_claim_holder_one ON streams.inbound_claim_holder (holder)`);
    await q.query(`ALTER TABLE streams.stream ADD COLUMN provider_backfill boolean NOT NULL DEFAULT false`);
    await q.query(`UPDATE streams.stream SET provider_backfill = true WHERE deleted_at IS NULL AND stream_type IN (4, 5, 7, 8)`);
    await q.query(`ALTER TABLE streams.sender ADD COLUMN provider_backfill boolean NOT NULL DEFAULT false`);
    await q.query(`UPDATE streams.sender SET provider_backfill = true WHERE type IN ('inbound-outbound', 'inbound-only')`);
    // Events written before this version carried provider tokens in the clear: none stays in the outbox.
    await q.query(`UPDATE streams.outbox SET payload = jsonb_set(payload, '{data,credentials}', '{}'::jsonb) WHERE type = 'streams.stream.channel_configured'`);
    await q.query(`UPDATE streams.outbox SET payload = jsonb_set(jsonb_set(payload, '{data,code}', '""'::jsonb), '{data,password}', 'null'::jsonb) WHERE type = 'streams.telegram_auth.code_submitted'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE streams.sender DROP COLUMN provider_backfill`);
    await q.query(`ALTER TABLE streams.stream DROP COLUMN provider_backfill`);
    await q.query(`DROP TABLE streams.inbound_claim_holder`);
    await q.query(`DROP TABLE streams.inbound_claim`);
  }
}
