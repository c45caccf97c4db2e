import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Code numbers come in blocks of 1024 from a sequence (docs/decisions/0034): `nextval` takes no row lock and needs no
 * commit of its own, so minting a batch is one transaction and concurrent batches never wait for one another. Block
 * b is the numbers [1024 b, 1024 b + 1024), all inside [0, 62^7); the sequence starts past what the counter handed out.
 */
export class LinksCodeBlocks1796700000002 implements MigrationInterface {
  name = 'LinksCodeBlocks1796700000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SEQUENCE links.code_block_seq AS bigint MINVALUE 0 MAXVALUE 3439076762 START 0 NO CYCLE`);
    await q.query(`SELECT setval('links.code_block_seq', (SELECT (next_seq + 1023) / 1024 FROM links.code_counter WHERE id = 1), false)`);
    await q.query(`DROP TABLE links.code_counter`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE links.code_counter (id smallint PRIMARY KEY CHECK (id = 1), next_seq bigint NOT NULL CHECK (next_seq BETWEEN 0 AND 3521614606208))`);
    await q.query(`INSERT INTO links.code_counter (id, next_seq) SELECT 1, (last_value + 1) * 1024 FROM links.code_block_seq`);
    await q.query(`DROP SEQUENCE links.code_block_seq`);
  }
}
