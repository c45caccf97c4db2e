import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Zoho Inbox single sign-on (docs/decisions/0042): `sso_flow`, one row per started sign-on (single use, short-lived,
 * bound to the browser that started it), and `sso_identity`, the provider's user mapped to exactly one member of
 * exactly one account once an admin of that account approves it.
 */
export class ZohoSso1797000000000 implements MigrationInterface {
  name = 'ZohoSso1797000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE auth.sso_identity (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        provider text NOT NULL,
        subject text NOT NULL,
        email text NOT NULL DEFAULT '',
        email_verified boolean NOT NULL DEFAULT false,
        name text NOT NULL DEFAULT '',
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
        user_id bigint REFERENCES auth.app_user (id) ON DELETE CASCADE,
        account_id bigint,
        decided_by bigint,
        decided_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((status = 'approved') = (user_id IS NOT NULL AND account_id IS NOT NULL))
      )`);
    await q.query(`CREATE UNIQUE INDEX sso_identity_subject_key ON auth.sso_identity (provider, subject)`);
    // exclusive both ways: a member is mapped from at most one provider identity
    await q.query(`CREATE UNIQUE INDEX sso_identity_user_key ON auth.sso_identity (provider, user_id) WHERE status = 'approved'`);
    await q.query(`CREATE INDEX sso_identity_email_idx ON auth.sso_identity (email) WHERE status = 'pending' AND email_verified`);

    await q.query(`
      CREATE TABLE auth.sso_flow (
        id uuid PRIMARY KEY,
        provider text NOT NULL,
        cross_key_hash text NOT NULL,
        binding_hash text NOT NULL,
        state_hash text NOT NULL,
        code_verifier text NOT NULL,
        status text NOT NULL DEFAULT 'started' CHECK (status IN ('started', 'success', 'pending', 'error', 'redeemed')),
        identity_id bigint REFERENCES auth.sso_identity (id) ON DELETE CASCADE,
        message text,
        claimed_by text,
        ip text,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        completed_at timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX sso_flow_cross_key ON auth.sso_flow (cross_key_hash)`);
    await q.query(`CREATE UNIQUE INDEX sso_flow_state ON auth.sso_flow (state_hash)`);
    await q.query(`CREATE INDEX sso_flow_expires_idx ON auth.sso_flow (expires_at)`);
    await q.query(`CREATE INDEX sso_flow_ip_idx ON auth.sso_flow (ip, expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE auth.sso_flow`);
    await q.query(`DROP TABLE auth.sso_identity`);
  }
}
