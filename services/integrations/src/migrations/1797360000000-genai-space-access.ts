import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Who may use the AI assistant in which space of an account, as the inbox publishes it (InboxSpaceAccessChangedV1, a
 * read model; docs/decisions/0050): the latest snapshot per account, a later one wins.
 */
export class IntegrationsGenAiSpaceAccess1797360000000 implements MigrationInterface {
  name = 'IntegrationsGenAiSpaceAccess1797360000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE integrations.genai_space_access (
        account_id bigint PRIMARY KEY,
        -- [{ spaceId, members: [user ids], aiRefused: [user ids] }]
        spaces jsonb NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS integrations.genai_space_access`);
  }
}
