import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fewer index entries per recipient the audience snapshot stores (docs/decisions/0136). The snapshot's COPY into
 * `campaigns.recipient` wrote an entry into four indexes a recipient; each cost about as much PostgreSQL CPU as the
 * row itself, and about 80 bytes of WAL:
 *
 * - `recipient_open_idx (campaign_id, ordinal) WHERE state < 3` goes. Since 0116 no statement reads it: the step's
 *   fresh recipients come from the primary key at the run's cursor, the due ones from `recipient_due_idx`, the ones in
 *   flight from `recipient_in_flight_idx`; the end's one check behind the cursor is a scan of the campaign once. Every
 *   recipient's row, and each of its versions while it was sent (a non-HOT update, `state` being in partial indexes'
 *   predicates), wrote an entry into it.
 * - `recipient_phone_idx (account_id, phone)` keeps only the recipients streams accepted (`WHERE state = 3`): its one
 *   reader, a number's opt-out counting the campaigns that sent to it, asks for `state = 3` only. A recipient's entry
 *   is written when it is accepted (an update that wrote one anyway), not at the snapshot nor at each step before.
 *
 * Built without CONCURRENTLY (migrations run in a transaction): writes to `campaigns.recipient` wait for the build of
 * the partial index, which reads the table once.
 */
export class CampaignsRecipientSnapshotIndexes1798400000136 implements MigrationInterface {
  name = 'CampaignsRecipientSnapshotIndexes1798400000136';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX campaigns.recipient_open_idx`);
    await q.query(`DROP INDEX campaigns.recipient_phone_idx`);
    await q.query(`CREATE INDEX recipient_phone_idx ON campaigns.recipient (account_id, phone) WHERE state = 3`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX campaigns.recipient_phone_idx`);
    await q.query(`CREATE INDEX recipient_phone_idx ON campaigns.recipient (account_id, phone)`);
    await q.query(`CREATE INDEX recipient_open_idx ON campaigns.recipient (campaign_id, ordinal) WHERE state < 3`);
  }
}
