import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createDeadLetterTable, dropDeadLetterTable } from '@switchboard/platform';

/** `auth.dead_letter`: events this service's consumers or outbox relay gave up on, for operators to replay (0022). */
export class DeadLetters1796300000000 implements MigrationInterface {
  name = 'DeadLetters1796300000000';

  async up(q: QueryRunner): Promise<void> {
    await createDeadLetterTable(q, 'auth');
  }

  async down(q: QueryRunner): Promise<void> {
    await dropDeadLetterTable(q, 'auth');
  }
}
