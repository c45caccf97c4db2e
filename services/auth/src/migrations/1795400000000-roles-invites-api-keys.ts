import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 3 part B: the account read model follows the accounts service's snapshots, system role order, invites,
 * password resets, API keys and the audit log.
 */
export class RolesInvitesApiKeys1795400000000 implements MigrationInterface {
  name = 'RolesInvitesApiKeys1795400000000';

  async up(q: QueryRunner): Promise<void> {
    // snapshot_at: occurredAt of the last accounts event applied; NULL for rows written by seeding, which any event overwrites.
    await q.query(`
      ALTER TABLE auth.account
        ADD COLUMN active smallint NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
        ADD COLUMN custom_settings jsonb NOT NULL DEFAULT '{}'::jsonb,
        ADD COLUMN snapshot_at timestamptz`);

    // Read-only first, then the spec's order of system roles (Tenant owner, Inbox Admin, Inbox Manager, Inbox Agent).
    await q.query(`ALTER TABLE auth.role ADD COLUMN sort_rank smallint NOT NULL DEFAULT 100`);
    await q.query(`CREATE INDEX role_account_id_idx ON auth.role (account_id) WHERE NOT is_deleted`);
    await q.query(`CREATE INDEX membership_platform_role_id_idx ON auth.membership (platform_role_id) WHERE platform_role_id IS NOT NULL`);
    await q.query(`CREATE INDEX membership_inbox_role_id_idx ON auth.membership (inbox_role_id) WHERE inbox_role_id IS NOT NULL`);

    await q.query(`
      CREATE TABLE auth.invite (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL REFERENCES auth.account (id) ON DELETE CASCADE,
        email text NOT NULL CHECK (email = lower(btrim(email)) AND email <> ''),
        first_name text NOT NULL DEFAULT '',
        last_name text NOT NULL DEFAULT '',
        platform_role_id bigint REFERENCES auth.role (id) ON DELETE SET NULL,
        inbox_role_id bigint REFERENCES auth.role (id) ON DELETE SET NULL,
        status smallint NOT NULL DEFAULT 1 CHECK (status IN (1, 2)),
        token_hash text NOT NULL UNIQUE,
        invited_by bigint REFERENCES auth.app_user (id) ON DELETE SET NULL,
        accepted_by bigint REFERENCES auth.app_user (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        accepted_at timestamptz
      )`);
    await q.query(`CREATE INDEX invite_account_id_idx ON auth.invite (account_id, id)`);
    // One open invite per address and account: a new invite replaces the pending one.
    await q.query(`CREATE UNIQUE INDEX invite_pending_email_key ON auth.invite (account_id, email) WHERE status = 1`);

    await q.query(`
      CREATE TABLE auth.password_reset (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        user_id bigint NOT NULL REFERENCES auth.app_user (id) ON DELETE CASCADE,
        token_hash text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      )`);
    await q.query(`CREATE INDEX password_reset_user_id_idx ON auth.password_reset (user_id, created_at)`);

    await q.query(`
      CREATE TABLE auth.api_key (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL REFERENCES auth.account (id) ON DELETE CASCADE,
        name text NOT NULL,
        key_prefix text NOT NULL,
        key_hash text NOT NULL UNIQUE,
        ip_acl text[] NOT NULL DEFAULT '{}',
        permissions text[] NOT NULL DEFAULT '{}',
        active boolean NOT NULL DEFAULT true,
        created_by bigint REFERENCES auth.app_user (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        last_used_at timestamptz
      )`);
    await q.query(`CREATE INDEX api_key_account_id_idx ON auth.api_key (account_id, id)`);

    await q.query(`
      CREATE TABLE auth.audit_log (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint,
        actor_id bigint,
        target_id bigint,
        action text NOT NULL,
        at timestamptz NOT NULL,
        ip text,
        details jsonb NOT NULL DEFAULT '{}'::jsonb
      )`);
    await q.query(`CREATE INDEX audit_log_account_id_idx ON auth.audit_log (account_id, at)`);
    await q.query(`CREATE INDEX audit_log_actor_id_idx ON auth.audit_log (actor_id, at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['audit_log', 'api_key', 'password_reset', 'invite']) await q.query(`DROP TABLE IF EXISTS auth.${t}`);
    await q.query(`DROP INDEX IF EXISTS auth.membership_inbox_role_id_idx`);
    await q.query(`DROP INDEX IF EXISTS auth.membership_platform_role_id_idx`);
    await q.query(`DROP INDEX IF EXISTS auth.role_account_id_idx`);
    await q.query(`ALTER TABLE auth.role DROP COLUMN sort_rank`);
    await q.query(`ALTER TABLE auth.account DROP COLUMN snapshot_at, DROP COLUMN custom_settings, DROP COLUMN active`);
  }
}
