import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The stream API's TPS buckets shared by every streams replica (docs/decisions/0067): one row per account (`a:<id>`)
 * and per stream with its own rate (`s:<id>`); replicas take tokens from it in small grants.
 */
export class SharedTps1797300000000 implements MigrationInterface {
  name = 'SharedTps1797300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE streams.tps_bucket (key text PRIMARY KEY, rate integer NOT NULL, tokens double precision NOT NULL, at_ms bigint NOT NULL, granted integer NOT NULL DEFAULT 0)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE streams.tps_bucket`);
  }
}
