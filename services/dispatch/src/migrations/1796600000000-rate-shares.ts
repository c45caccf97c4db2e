import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Shares of account and stream rates across dispatch replicas (docs/decisions/0047-limits-across-replicas.md): one row
 * per limit (`a:<accountId>`, `s:<streamId>`) and replica, granted under one advisory lock. A few rows per active
 * limit; rows of stopped replicas expire with their lease.
 */
export class RateShares1796600000000 implements MigrationInterface {
  name = 'RateShares1796600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE dispatch.rate_share (
        key text NOT NULL,
        instance_id uuid NOT NULL,
        rate double precision NOT NULL,
        share double precision NOT NULL,
        prior_share double precision NOT NULL DEFAULT 0,
        prior_until timestamptz NULL,
        demand double precision NOT NULL DEFAULT 0,
        saturated boolean NOT NULL DEFAULT false,
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (key, instance_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE dispatch.rate_share`);
  }
}
