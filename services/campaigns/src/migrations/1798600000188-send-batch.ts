import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A send request recorded once a batch (docs/decisions/0188): the runner's step writes one `send_batch` row (the
 * ordinals and the composer's choices as arrays) instead of updating every recipient to state 2; streams' answer
 * moves the recipients 0 → 3 with those choices and deletes the row. `open` is false once the batch was asked again
 * (its recipients wait again with a due time); the row stays for a late answer's choices until the campaign finishes.
 * Expand-only: a runner that does not know the table writes state 2 as before, and every runner of this release
 * reads both (in flight, stale requests, answers).
 */
export class CampaignsSendBatch1798600000188 implements MigrationInterface {
  name = 'CampaignsSendBatch1798600000188';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE campaigns.send_batch (
      campaign_id bigint NOT NULL,
      batch_id uuid NOT NULL,
      account_id bigint NOT NULL,
      requested_at timestamptz NOT NULL,
      open boolean NOT NULL DEFAULT true,
      size int NOT NULL,
      ordinals int[] NOT NULL,
      variants bigint[] NOT NULL,
      senders bigint[] NOT NULL,
      segments int[] NOT NULL,
      PRIMARY KEY (campaign_id, batch_id)
    )`);
    await q.query(`CREATE INDEX send_batch_open_idx ON campaigns.send_batch (campaign_id, requested_at) WHERE open`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE campaigns.send_batch`);
  }
}
