import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createDeadLetterTable, createOutboxTables, dropDeadLetterTable, dropOutboxTables } from '@switchboard/platform';

/**
 * The webhooks schema: the webhooks themselves (the signing secret sealed), the delivery queue (one row per webhook
 * and event, claimed with FOR UPDATE SKIP LOCKED) and the request log (one row per attempt).
 * docs/decisions/0027-webhooks.md.
 */
export class Init1796200000000 implements MigrationInterface {
  name = 'Init1796200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhooks.webhook (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        uid uuid NOT NULL UNIQUE,
        account_id bigint NOT NULL,
        name text NOT NULL,
        url text NOT NULL,
        http_method text NOT NULL DEFAULT 'POST' CHECK (http_method IN ('GET', 'POST')),
        headers jsonb NOT NULL DEFAULT '{}'::jsonb,
        active boolean NOT NULL DEFAULT true,
        trigger text NOT NULL CHECK (trigger IN ('incoming_message', 'short_url_clicks', 'message_status_change', 'edr_info')),
        stream_ids bigint[] NOT NULL DEFAULT '{}',
        params jsonb NOT NULL DEFAULT '{}'::jsonb,
        secret_sealed text NOT NULL,
        previous_secret_sealed text,
        previous_secret_until timestamptz,
        failing_since timestamptz,
        disabled_reason text,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX webhook_account_trigger_idx ON webhooks.webhook (account_id, trigger) WHERE active`);

    // state: pending (due at next_attempt_at), delivering (leased until lease_until: a crashed worker's rows come
    // back), succeeded, failed (retries exhausted, 410, or the webhook was disabled).
    await q.query(`
      CREATE TABLE webhooks.delivery (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL,
        webhook_id bigint NOT NULL REFERENCES webhooks.webhook (id) ON DELETE CASCADE,
        event_id uuid NOT NULL,
        event_type text NOT NULL,
        payload text NOT NULL,
        state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivering', 'succeeded', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL,
        lease_until timestamptz,
        created_at timestamptz NOT NULL,
        finished_at timestamptz,
        UNIQUE (webhook_id, event_id)
      )`);
    await q.query(`CREATE INDEX delivery_due_idx ON webhooks.delivery (webhook_id, next_attempt_at, id) WHERE state = 'pending'`);
    await q.query(`CREATE INDEX delivery_leased_idx ON webhooks.delivery (lease_until) WHERE state = 'delivering'`);

    // status: success, failed, timeout (the webhook test's states, spec 4)
    await q.query(`
      CREATE TABLE webhooks.request_log (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL,
        webhook_id bigint NOT NULL REFERENCES webhooks.webhook (id) ON DELETE CASCADE,
        delivery_id bigint,
        event_id uuid,
        attempt integer NOT NULL,
        test boolean NOT NULL DEFAULT false,
        request jsonb NOT NULL,
        response jsonb,
        status text NOT NULL CHECK (status IN ('success', 'failed', 'timeout')),
        error text,
        duration_ms integer NOT NULL,
        sent_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX request_log_account_idx ON webhooks.request_log (account_id, id DESC)`);
    await q.query(`CREATE INDEX request_log_webhook_idx ON webhooks.request_log (webhook_id, id DESC)`);

    await createOutboxTables(q, 'webhooks');
    // events the consumer gave up on, for operators to replay (docs/decisions/0022)
    await createDeadLetterTable(q, 'webhooks');
  }

  async down(q: QueryRunner): Promise<void> {
    await dropDeadLetterTable(q, 'webhooks');
    await dropOutboxTables(q, 'webhooks');
    await q.query(`DROP TABLE webhooks.request_log`);
    await q.query(`DROP TABLE webhooks.delivery`);
    await q.query(`DROP TABLE webhooks.webhook`);
  }
}
