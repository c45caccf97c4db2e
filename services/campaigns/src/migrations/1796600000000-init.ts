import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createDeadLetterTable, createOutboxTables, dropDeadLetterTable, dropOutboxTables } from '@switchboard/platform';

/**
 * The campaigns schema (docs/decisions/0031-campaigns.md): campaigns with their variants, senders, variable links and
 * tags; templates with their variants; word lists and words; the status history; and the read models campaigns keeps
 * from other services' events (accounts, streams, senders, stream events, malicious keywords, contact lists).
 * Every row is account-scoped (`account_id`) except the global malicious keyword list.
 */
export class CampaignsInit1796600000000 implements MigrationInterface {
  name = 'CampaignsInit1796600000000';

  async up(q: QueryRunner): Promise<void> {
    await createOutboxTables(q, 'campaigns');
    await createDeadLetterTable(q, 'campaigns');

    // ---- read models (fed by events; never written by the API) ----
    await q.query(`
      CREATE TABLE campaigns.account (
        account_id bigint PRIMARY KEY,
        name text NOT NULL DEFAULT '',
        status text NOT NULL DEFAULT 'active',
        active boolean NOT NULL DEFAULT true,
        currency text NOT NULL DEFAULT 'EUR',
        time_zone text NOT NULL DEFAULT 'UTC',
        tps integer NOT NULL DEFAULT 0,
        daily_limit integer,
        enable_spam_restriction boolean NOT NULL DEFAULT false,
        allow_spintax boolean NOT NULL DEFAULT true,
        allow_transactional_campaign boolean NOT NULL DEFAULT false,
        allow_campaign_whatsapp boolean NOT NULL DEFAULT false,
        custom_settings jsonb NOT NULL DEFAULT '{}'::jsonb,
        gen_settings jsonb NOT NULL DEFAULT '{}'::jsonb,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE campaigns.stream (
        stream_id bigint PRIMARY KEY,
        account_id bigint NOT NULL,
        stream_uid uuid NOT NULL,
        name text NOT NULL DEFAULT '',
        stream_type integer NOT NULL DEFAULT 0,
        status integer NOT NULL DEFAULT 0,
        sender text,
        enable_sending boolean NOT NULL DEFAULT true,
        tps integer NOT NULL DEFAULT 0,
        deleted boolean NOT NULL DEFAULT false,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX stream_account_idx ON campaigns.stream (account_id)`);
    await q.query(`
      CREATE TABLE campaigns.sender (
        sender_id bigint PRIMARY KEY,
        account_id bigint NOT NULL,
        name text NOT NULL DEFAULT '',
        value text NOT NULL,
        type text NOT NULL DEFAULT '',
        country text,
        approved integer NOT NULL DEFAULT 0,
        deleted boolean NOT NULL DEFAULT false,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX sender_account_idx ON campaigns.sender (account_id)`);
    await q.query(`
      CREATE TABLE campaigns.stream_event (
        stream_event_id bigint PRIMARY KEY,
        account_id bigint NOT NULL,
        stream_id bigint NOT NULL,
        name text NOT NULL DEFAULT '',
        text text NOT NULL DEFAULT '',
        event_key text NOT NULL DEFAULT '',
        active boolean NOT NULL DEFAULT true,
        deleted boolean NOT NULL DEFAULT false
      )`);
    await q.query(`CREATE INDEX stream_event_account_idx ON campaigns.stream_event (account_id)`);
    await q.query(`
      CREATE TABLE campaigns.malicious_keyword (
        keyword_id bigint PRIMARY KEY,
        word text NOT NULL,
        type integer NOT NULL DEFAULT 0
      )`);
    await q.query(`
      CREATE TABLE campaigns.contact_list (
        contact_list_id bigint PRIMARY KEY,
        account_id bigint NOT NULL,
        type text NOT NULL DEFAULT 'list',
        name text NOT NULL DEFAULT '',
        num_of_contacts integer NOT NULL DEFAULT 0,
        ready_at timestamptz,
        deleted boolean NOT NULL DEFAULT false
      )`);
    await q.query(`CREATE INDEX contact_list_account_idx ON campaigns.contact_list (account_id)`);

    // ---- templates, word lists, tags ----
    await q.query(`
      CREATE TABLE campaigns.template (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL,
        name text NOT NULL,
        description text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX template_account_idx ON campaigns.template (account_id, id)`);
    await q.query(`
      CREATE TABLE campaigns.variant (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL,
        template_id bigint NOT NULL REFERENCES campaigns.template (id) ON DELETE CASCADE,
        name text NOT NULL,
        text text NOT NULL,
        ratio integer NOT NULL CHECK (ratio BETWEEN 0 AND 100),
        color text NOT NULL DEFAULT '#ff9600',
        position integer NOT NULL DEFAULT 0
      )`);
    await q.query(`CREATE INDEX variant_template_idx ON campaigns.variant (template_id, position)`);
    await q.query(`
      CREATE TABLE campaigns.word_list (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // a word list is referenced from spintax by name: unique per account, whatever the case
    await q.query(`CREATE UNIQUE INDEX word_list_account_name_idx ON campaigns.word_list (account_id, lower(name))`);
    await q.query(`
      CREATE TABLE campaigns.word (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL,
        word_list_id bigint NOT NULL REFERENCES campaigns.word_list (id) ON DELETE CASCADE,
        value text NOT NULL
      )`);
    await q.query(`CREATE INDEX word_list_idx ON campaigns.word (word_list_id, id)`);
    await q.query(`
      CREATE TABLE campaigns.tag (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL,
        value text NOT NULL CHECK (char_length(value) BETWEEN 1 AND 64),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX tag_account_value_idx ON campaigns.tag (account_id, lower(value))`);

    // ---- campaigns ----
    await q.query(`
      CREATE TABLE campaigns.campaign (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL,
        name text NOT NULL,
        description text,
        type smallint NOT NULL DEFAULT 0 CHECK (type BETWEEN 0 AND 4),
        status smallint NOT NULL DEFAULT 8 CHECK (status BETWEEN 0 AND 11),
        country text,
        stream_id bigint,
        currency text NOT NULL DEFAULT 'EUR',
        has_short_url boolean NOT NULL DEFAULT false,
        unsubscribe_auto_add boolean NOT NULL DEFAULT false,
        send_duplicates boolean NOT NULL DEFAULT false,
        contact_list_ids bigint[] NOT NULL DEFAULT '{}',
        -- spec 3 activityTime and campaignSettings, as the API takes them; the columns below are what the runner reads
        activity_time jsonb NOT NULL DEFAULT '{}'::jsonb,
        campaign_settings jsonb NOT NULL DEFAULT '{}'::jsonb,
        timezone_mode text NOT NULL DEFAULT 'recipient' CHECK (timezone_mode IN ('recipient', 'local', 'selected')),
        timezone text,
        working_days smallint[] NOT NULL DEFAULT '{1,2,3,4,5,6,7}',
        working_hours_start time,
        working_hours_end time,
        start_date timestamptz,
        end_date timestamptz,
        scheduled_at timestamptz,
        -- the WhatsApp template of a stream event (campaign/stream_events)
        stream_event_id bigint,
        variables_mapping jsonb NOT NULL DEFAULT '{}'::jsonb,
        declined_reason text,
        halt_reason_id smallint,
        spam_keywords text[] NOT NULL DEFAULT '{}',
        -- statistics (spec 3 stats fields); money in micro-units of currency
        total bigint NOT NULL DEFAULT 0,
        created bigint NOT NULL DEFAULT 0,
        sent bigint NOT NULL DEFAULT 0,
        delivered bigint NOT NULL DEFAULT 0,
        sent_failed bigint NOT NULL DEFAULT 0,
        undelivered bigint NOT NULL DEFAULT 0,
        dlr_failed bigint NOT NULL DEFAULT 0,
        opted_out bigint NOT NULL DEFAULT 0,
        clicked bigint NOT NULL DEFAULT 0,
        register bigint NOT NULL DEFAULT 0,
        ftd bigint NOT NULL DEFAULT 0,
        click_time_total_ms bigint NOT NULL DEFAULT 0,
        cost_micros bigint NOT NULL DEFAULT 0,
        status_changed_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        finished_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      )`);
    await q.query(`CREATE INDEX campaign_account_idx ON campaigns.campaign (account_id, id DESC) WHERE deleted_at IS NULL`);
    await q.query(`CREATE INDEX campaign_account_started_idx ON campaigns.campaign (account_id, started_at DESC NULLS LAST) WHERE deleted_at IS NULL`);
    await q.query(`CREATE INDEX campaign_scheduled_idx ON campaigns.campaign (scheduled_at) WHERE status = 0 AND deleted_at IS NULL`);
    await q.query(`CREATE INDEX campaign_suspended_idx ON campaigns.campaign (id) WHERE status = 9 AND deleted_at IS NULL`);
    await q.query(`
      CREATE TABLE campaigns.campaign_variant (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL,
        campaign_id bigint NOT NULL REFERENCES campaigns.campaign (id) ON DELETE CASCADE,
        name text NOT NULL,
        text text NOT NULL,
        color text NOT NULL DEFAULT '#ff9600',
        ratio integer NOT NULL CHECK (ratio BETWEEN 0 AND 100),
        position integer NOT NULL DEFAULT 0,
        sent bigint NOT NULL DEFAULT 0,
        delivered bigint NOT NULL DEFAULT 0,
        sent_failed bigint NOT NULL DEFAULT 0,
        undelivered bigint NOT NULL DEFAULT 0,
        dlr_failed bigint NOT NULL DEFAULT 0,
        opted_out bigint NOT NULL DEFAULT 0,
        clicked bigint NOT NULL DEFAULT 0,
        cost_micros bigint NOT NULL DEFAULT 0
      )`);
    await q.query(`CREATE INDEX campaign_variant_campaign_idx ON campaigns.campaign_variant (campaign_id, position)`);
    await q.query(`
      CREATE TABLE campaigns.campaign_sender (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL,
        campaign_id bigint NOT NULL REFERENCES campaigns.campaign (id) ON DELETE CASCADE,
        sender_id bigint NOT NULL,
        ratio integer NOT NULL CHECK (ratio BETWEEN 0 AND 100),
        position integer NOT NULL DEFAULT 0,
        sent bigint NOT NULL DEFAULT 0,
        delivered bigint NOT NULL DEFAULT 0,
        sent_failed bigint NOT NULL DEFAULT 0,
        undelivered bigint NOT NULL DEFAULT 0,
        cost_micros bigint NOT NULL DEFAULT 0,
        UNIQUE (campaign_id, sender_id)
      )`);
    await q.query(`
      CREATE TABLE campaigns.campaign_variable (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL,
        campaign_id bigint NOT NULL REFERENCES campaigns.campaign (id) ON DELETE CASCADE,
        variable_id bigint NOT NULL,
        variable_name text NOT NULL,
        default_value text,
        missing_rule smallint NOT NULL DEFAULT 0 CHECK (missing_rule IN (0, 1)),
        params jsonb NOT NULL DEFAULT '{}'::jsonb,
        UNIQUE (campaign_id, variable_id)
      )`);
    await q.query(`
      CREATE TABLE campaigns.campaign_tags (
        campaign_id bigint NOT NULL REFERENCES campaigns.campaign (id) ON DELETE CASCADE,
        tag_id bigint NOT NULL REFERENCES campaigns.tag (id) ON DELETE CASCADE,
        account_id bigint NOT NULL,
        PRIMARY KEY (campaign_id, tag_id)
      )`);
    await q.query(`CREATE INDEX campaign_tags_tag_idx ON campaigns.campaign_tags (tag_id)`);
    // every status change, written by CampaignStatusService in the transaction that changes the status
    await q.query(`
      CREATE TABLE campaigns.status_history (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL,
        campaign_id bigint NOT NULL REFERENCES campaigns.campaign (id) ON DELETE CASCADE,
        from_status smallint NOT NULL,
        to_status smallint NOT NULL,
        action text NOT NULL,
        reason text,
        halt_reason_id smallint,
        actor_user_id bigint,
        changed_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX status_history_campaign_idx ON campaigns.status_history (campaign_id, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE IF EXISTS campaigns.status_history, campaigns.campaign_tags, campaigns.campaign_variable, campaigns.campaign_sender,
        campaigns.campaign_variant, campaigns.campaign, campaigns.tag, campaigns.word, campaigns.word_list, campaigns.variant,
        campaigns.template, campaigns.contact_list, campaigns.malicious_keyword, campaigns.stream_event, campaigns.sender,
        campaigns.stream, campaigns.account`);
    await dropDeadLetterTable(q, 'campaigns');
    await dropOutboxTables(q, 'campaigns');
  }
}
