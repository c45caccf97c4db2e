import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A blacklist entry added because the contact replied an opt-out keyword (`dispatch.contact.opted_out`) records the
 * keyword; an opt-in reply (START) removes only such entries, never one an operator added (docs/decisions/0021).
 */
export class BlackListOptOut1796100000000 implements MigrationInterface {
  name = 'BlackListOptOut1796100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE contacts.black_list ADD COLUMN opt_out_keyword text NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE contacts.black_list DROP COLUMN opt_out_keyword`);
  }
}
