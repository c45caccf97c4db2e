import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createDeadLetterTable, createOutboxTables, dropDeadLetterTable, dropOutboxTables } from '@switchboard/platform';

/**
 * The links schema's admin side: domains (verified in DNS, claimed by one account), domain pools and their members,
 * offers, the account's global messages limit. The redirect role's tables (links, clicks) come in their own
 * migration. docs/decisions/0033-links-domains.md.
 */
export class LinksInit1796600000000 implements MigrationInterface {
  name = 'LinksInit1796600000000';

  async up(q: QueryRunner): Promise<void> {
    // state (spec 4): 0 not configured, 1 configured, 2 pending, 3 valid-pending, 4 declined, 5 archived,
    // 6 reached limit, 7 blocked. `claimed` marks the one row per name whose account proved the ownership token:
    // at most one account holds a name (the partial unique index), whatever its rows' states.
    await q.query(`
      CREATE TABLE links.domain (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL,
        name text NOT NULL CHECK (name = lower(name) AND length(name) BETWEEN 3 AND 253),
        type text NOT NULL DEFAULT 'CNAME' CHECK (type IN ('CNAME', 'A')),
        ip text,
        state smallint NOT NULL DEFAULT 2 CHECK (state BETWEEN 0 AND 7),
        state_before_archive smallint,
        declined_reason text,
        verification_token text NOT NULL,
        claimed boolean NOT NULL DEFAULT false,
        blocked boolean NOT NULL DEFAULT false,
        messages_limit bigint CHECK (messages_limit IS NULL OR messages_limit >= 0),
        total_usages bigint NOT NULL DEFAULT 0,
        total_clicks bigint NOT NULL DEFAULT 0,
        last_used_at timestamptz,
        checked_at timestamptz,
        next_check_at timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        UNIQUE (account_id, name)
      )`);
    await q.query(`CREATE UNIQUE INDEX domain_claim_idx ON links.domain (name) WHERE claimed`);
    await q.query(`CREATE INDEX domain_account_state_idx ON links.domain (account_id, state, id)`);
    await q.query(`CREATE INDEX domain_due_idx ON links.domain (next_check_at) WHERE state <> 5`);

    // distribution (spec 9): 10 spread evenly, 1 one by one
    await q.query(`
      CREATE TABLE links.domain_pool (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL,
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
        description text NOT NULL DEFAULT '',
        distribution smallint NOT NULL DEFAULT 10 CHECK (distribution IN (1, 10)),
        usages bigint NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX domain_pool_account_idx ON links.domain_pool (account_id, id)`);
    await q.query(`
      CREATE TABLE links.domain_pool_member (
        pool_id bigint NOT NULL REFERENCES links.domain_pool (id) ON DELETE CASCADE,
        domain_id bigint NOT NULL REFERENCES links.domain (id) ON DELETE CASCADE,
        account_id bigint NOT NULL,
        position integer NOT NULL,
        usages bigint NOT NULL DEFAULT 0,
        added_at timestamptz NOT NULL,
        PRIMARY KEY (pool_id, domain_id)
      )`);
    await q.query(`CREATE INDEX domain_pool_member_domain_idx ON links.domain_pool_member (domain_id)`);

    // state: disabled, active (expired and about to expire are computed from created_at and expire_in_days, spec 4)
    await q.query(`
      CREATE TABLE links.offer (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL,
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
        original_url text NOT NULL CHECK (length(original_url) BETWEEN 1 AND 2048),
        description text NOT NULL DEFAULT '',
        expire_in_days integer CHECK (expire_in_days IS NULL OR expire_in_days > 0),
        expire_method text NOT NULL DEFAULT 'never' CHECK (expire_method IN ('never', 'offer_creation', 'link_creation')),
        disabled boolean NOT NULL DEFAULT false,
        variables text[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX offer_account_idx ON links.offer (account_id, id)`);

    // the global limit (spec 2: global limit modal; /domains/messages_limit): the account's default for its domains
    await q.query(`
      CREATE TABLE links.account_settings (
        account_id bigint PRIMARY KEY,
        messages_limit bigint CHECK (messages_limit IS NULL OR messages_limit >= 0),
        updated_at timestamptz NOT NULL
      )`);

    await createOutboxTables(q, 'links');
    // events the consumers gave up on, for operators to replay (docs/decisions/0022)
    await createDeadLetterTable(q, 'links');
  }

  async down(q: QueryRunner): Promise<void> {
    await dropDeadLetterTable(q, 'links');
    await dropOutboxTables(q, 'links');
    await q.query(`DROP TABLE links.account_settings`);
    await q.query(`DROP TABLE links.offer`);
    await q.query(`DROP TABLE links.domain_pool_member`);
    await q.query(`DROP TABLE links.domain_pool`);
    await q.query(`DROP TABLE links.domain`);
  }
}
