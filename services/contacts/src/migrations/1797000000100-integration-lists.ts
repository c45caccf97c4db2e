import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Integration lists (docs/decisions/0040-integrations.md): the account's integrations as contacts knows them (a read
 * model fed by `integrations.integration.changed`, so `POST /import_lists/integration` checks the key without a
 * call), and the members of each integration list by the CRM's contact id, so a CRM contact whose phone changes or
 * that is deleted leaves the list. Import lists of type `integration` have no file.
 */
export class IntegrationLists1797000000100 implements MigrationInterface {
  name = 'IntegrationLists1797000000100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE contacts.integration_ref (
        integration_key text PRIMARY KEY,
        account_id bigint NOT NULL,
        type text NOT NULL,
        name text NOT NULL,
        status text NOT NULL,
        changed_at timestamptz NOT NULL
      )`);
    await q.query(`
      CREATE TABLE contacts.integration_member (
        list_id bigint NOT NULL,
        external_id text NOT NULL,
        account_id bigint NOT NULL,
        contact_id bigint NOT NULL,
        sync_id text NOT NULL,
        PRIMARY KEY (list_id, external_id)
      )`);
    await q.query(`CREATE INDEX integration_member_contact_idx ON contacts.integration_member (list_id, contact_id)`);
    await q.query(`ALTER TABLE contacts.import_list DROP CONSTRAINT IF EXISTS import_list_type_check`);
    await q.query(`ALTER TABLE contacts.import_list ADD CONSTRAINT import_list_type_check CHECK (type IN ('contacts', 'blacklist', 'integration'))`);
    await q.query(`ALTER TABLE contacts.import_list DROP CONSTRAINT IF EXISTS import_list_file_format_check`);
    await q.query(`ALTER TABLE contacts.import_list ADD CONSTRAINT import_list_file_format_check CHECK (file_format IN ('csv', 'xlsx', 'none'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS contacts.integration_member`);
    await q.query(`DROP TABLE IF EXISTS contacts.integration_ref`);
  }
}
