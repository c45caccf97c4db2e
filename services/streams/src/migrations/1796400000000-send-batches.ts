import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Send batches from campaigns and inbox (docs/decisions/0032-campaign-runner.md): the numbers the account must not be
 * sent to, kept from contacts' events (`contacts.black_list.changed`: kind `blacklist`; `contacts.contact.opted_out`:
 * kind `optout`), so a batch item to a blocked number is refused just before it is sent. A repeated batch's
 * items are answered from `streams.message`, whose key is the requester's messageUuid.
 */
export class SendBatches1796400000000 implements MigrationInterface {
  name = 'SendBatches1796400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE streams.blocked_destination (
        account_id bigint NOT NULL,
        phone text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('blacklist', 'optout')),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, phone, kind)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE streams.blocked_destination`);
  }
}
