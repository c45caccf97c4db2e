import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The CRM users each integration last imported as inbox agents (decision 0064): the users step compares the CRM's
 * chosen users with it, so an incremental run publishes only who was added, changed profile or left (deactivated,
 * deleted, or no longer in a chosen profile). One row per address (lower-cased), with every profile it is listed in.
 */
export class IntegrationsCrmUsers1797400000000 implements MigrationInterface {
  name = 'IntegrationsCrmUsers1797400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE integrations.crm_user (
        integration_id bigint NOT NULL REFERENCES integrations.integration (id) ON DELETE CASCADE,
        email text NOT NULL,
        external_id text NOT NULL,
        -- [{ id, name }] sorted by id
        profiles jsonb NOT NULL,
        hash text NOT NULL,
        PRIMARY KEY (integration_id, email)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS integrations.crm_user`);
  }
}
