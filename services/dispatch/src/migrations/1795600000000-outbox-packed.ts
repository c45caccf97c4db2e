import type { MigrationInterface, QueryRunner } from 'typeorm';
import { addPackedOutboxColumn, dropPackedOutboxColumn } from '@switchboard/platform';

/** The outbox's `packed` column (Outbox.addPacked), for schemas created before it existed. */
export class OutboxPacked1795600000000 implements MigrationInterface {
  name = 'OutboxPacked1795600000000';

  async up(q: QueryRunner): Promise<void> {
    await addPackedOutboxColumn(q, 'dispatch');
  }

  async down(q: QueryRunner): Promise<void> {
    await dropPackedOutboxColumn(q, 'dispatch');
  }
}
