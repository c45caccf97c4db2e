import type { MigrationInterface, QueryRunner } from 'typeorm';
import { addPackedOutboxColumn, createDeadLetterTable, createOutboxTables, dropDeadLetterTable, dropOutboxTables } from '@switchboard/platform';

/**
 * The integrations schema (docs/decisions/0040-integrations.md): the account's integrations (credentials sealed with
 * AES-256-GCM, bound to the integration's key), the integration lists contacts asked us to keep in sync, a mirror
 * of each CRM's contacts (for incremental diffs, the inbox's lookup by phone and list filters), the dialer's
 * one-click requests, and the outbox, processed events and dead letters.
 */
export class IntegrationsInit1797000000000 implements MigrationInterface {
  name = 'IntegrationsInit1797000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE integrations.integration (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        key uuid NOT NULL UNIQUE,
        account_id bigint NOT NULL,
        type text NOT NULL,
        name text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'authorised', 'syncing', 'active', 'paused', 'error', 'disconnected')),
        auth_mode text NOT NULL CHECK (auth_mode IN ('oauth', 'api_key')),
        base_url text,
        domain text,
        company_name text,
        credentials_sealed text,
        access_expires_at timestamptz,
        oauth_state_hash text UNIQUE,
        -- the dialer's integration token (sha256): the dialer presents the token, we keep only its hash
        token_hash text UNIQUE,
        oauth_state_expires_at timestamptz,
        config jsonb,
        sync jsonb NOT NULL DEFAULT '{}'::jsonb,
        cursor jsonb NOT NULL DEFAULT '{}'::jsonb,
        next_run_at timestamptz,
        lease_until timestamptz,
        failures integer NOT NULL DEFAULT 0,
        last_synced_at timestamptz,
        created_by bigint,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX integration_account_idx ON integrations.integration (account_id, id) WHERE status <> 'disconnected'`);
    await q.query(`CREATE INDEX integration_due_idx ON integrations.integration (next_run_at) WHERE next_run_at IS NOT NULL AND status <> 'disconnected'`);

    await q.query(`
      CREATE TABLE integrations.synced_list (
        integration_id bigint NOT NULL REFERENCES integrations.integration (id) ON DELETE CASCADE,
        list_id bigint NOT NULL,
        account_id bigint NOT NULL,
        import_list_id bigint,
        filters jsonb NOT NULL DEFAULT '[]'::jsonb,
        seq bigint NOT NULL DEFAULT 0,
        full_sync_pending boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (integration_id, list_id)
      )`);

    await q.query(`
      CREATE TABLE integrations.crm_contact (
        integration_id bigint NOT NULL REFERENCES integrations.integration (id) ON DELETE CASCADE,
        external_id text NOT NULL,
        account_id bigint NOT NULL,
        phone text NOT NULL,
        first_name text,
        last_name text,
        email text,
        fields jsonb NOT NULL DEFAULT '{}'::jsonb,
        hash text NOT NULL,
        seen_sync text,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (integration_id, external_id)
      )`);
    await q.query(`CREATE INDEX crm_contact_phone_idx ON integrations.crm_contact (account_id, phone)`);

    await q.query(`
      CREATE TABLE integrations.dialer_contact (
        contact_key uuid PRIMARY KEY,
        account_id bigint NOT NULL,
        integration_id bigint NOT NULL REFERENCES integrations.integration (id) ON DELETE CASCADE,
        phone text NOT NULL,
        name text,
        created_at timestamptz NOT NULL
      )`);

    await createOutboxTables(q, 'integrations');
    await addPackedOutboxColumn(q, 'integrations');
    await createDeadLetterTable(q, 'integrations');
  }

  async down(q: QueryRunner): Promise<void> {
    await dropDeadLetterTable(q, 'integrations');
    await dropOutboxTables(q, 'integrations');
    for (const t of ['dialer_contact', 'crm_contact', 'synced_list', 'integration']) await q.query(`DROP TABLE IF EXISTS integrations.${t}`);
  }
}
