import type { MigrationInterface, QueryRunner } from 'typeorm';
import { addPackedOutboxColumn } from '@switchboard/platform';

/**
 * The outbox's `packed` column (Outbox.addPacked) for a campaigns schema created before the outbox's DDL had it: the
 * runner's send-batch requests go out as packed rows (docs/decisions/0202). Idempotent (`IF NOT EXISTS`): a schema
 * created since has it already.
 */
export class CampaignsOutboxPacked1798700000202 implements MigrationInterface {
  name = 'CampaignsOutboxPacked1798700000202';

  async up(q: QueryRunner): Promise<void> {
    await addPackedOutboxColumn(q, 'campaigns');
  }

  async down(): Promise<void> {
    // nothing: the column is part of the outbox's own DDL (createOutboxTables), which every relay reads
  }
}
