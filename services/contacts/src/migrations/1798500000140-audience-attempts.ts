import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The attempts of a campaign audience snapshot (docs/decisions/0140). A `copy` snapshot publishes its chunks as it reads
 * them, before its transaction commits; a transaction that rolls back (a crash, a broken reader) leaves chunks on the
 * bus that the redelivered request's next attempt replaces. Each attempt takes a number from this sequence after it
 * claimed the request: a sequence is not transactional, so a later attempt always has the larger number, and campaigns
 * keeps the chunks of a request's highest attempt only. Expand-only: nothing else reads or writes it.
 */
export class AudienceAttempts1798500000140 implements MigrationInterface {
  name = 'AudienceAttempts1798500000140';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SEQUENCE contacts.audience_attempt_seq AS bigint`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP SEQUENCE contacts.audience_attempt_seq`);
  }
}
