import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which team memberships an integration's import made (decision 0064): a CRM user who leaves a profile, or is
 * deactivated or deleted in the CRM, leaves the teams the import put them in, never a team an admin put them in.
 * A row per (integration, team, user); the team's membership goes when no import holds it any more. Memberships
 * imported before this table existed are not known here: they stay as if an admin had made them.
 */
export class ImportedPlacements1797400000000 implements MigrationInterface {
  name = 'ImportedPlacements1797400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE inbox.imported_placement (
        integration_key text NOT NULL,
        team_id bigint NOT NULL REFERENCES inbox.team (id) ON DELETE CASCADE,
        user_id bigint NOT NULL,
        account_id bigint NOT NULL,
        PRIMARY KEY (integration_key, team_id, user_id)
      )`);
    await q.query(`CREATE INDEX imported_placement_user_idx ON inbox.imported_placement (account_id, integration_key, user_id)`);
    await q.query(`CREATE INDEX imported_placement_team_idx ON inbox.imported_placement (team_id, user_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS inbox.imported_placement`);
  }
}
