import type { MigrationInterface, QueryRunner } from 'typeorm';
import { addPackedOutboxColumn, createDeadLetterTable, createOutboxTables, dropDeadLetterTable, dropOutboxTables } from '@switchboard/platform';

/**
 * The inbox schema (docs/decisions/0035-inbox.md): the organisation (spaces, teams, per-space permissions, tags, sender
 * profiles, canned templates, goals, incoming routing), read models fed by events (agents and roles
 * from auth, streams from streams), conversations and their timeline (messages and events, internal notes among them),
 * contacts as the inbox knows them, media, the websocket rooms' replay log, and the outbox, processed events and dead
 * letters. Every tenant-owned row carries account_id.
 */
export class Init1796600000000 implements MigrationInterface {
  name = 'Init1796600000000';

  async up(q: QueryRunner): Promise<void> {
    // trigram indexes for names and phones (substring search); pg_trgm is a trusted extension (PostgreSQL 13+)
    // (kept where it already is when another schema installed it first)
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA inbox`);
    const [{ nspname: trgm }] = (await q.query(`SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'`)) as Array<{ nspname: string }>;
    const trgmOps = `"${trgm.replace(/"/g, '""')}".gin_trgm_ops`;

    // ---- read models (auth, streams) ----
    await q.query(`
      CREATE TABLE inbox.agent (
        account_id bigint NOT NULL,
        user_id bigint NOT NULL,
        email text NOT NULL,
        first_name text NOT NULL DEFAULT '',
        last_name text NOT NULL DEFAULT '',
        status integer NOT NULL,
        platform_role_id bigint,
        platform_role_name text,
        inbox_role_id bigint,
        inbox_role_name text,
        permissions text[] NOT NULL DEFAULT '{}',
        removed boolean NOT NULL DEFAULT false,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (account_id, user_id)
      )`);
    await q.query(`CREATE INDEX agent_inbox_idx ON inbox.agent (account_id) WHERE inbox_role_id IS NOT NULL AND NOT removed`);
    await q.query(`
      CREATE TABLE inbox.role (
        role_id bigint PRIMARY KEY,
        account_id bigint,
        name text NOT NULL,
        role_type text NOT NULL CHECK (role_type IN ('platform', 'inbox')),
        permissions text[] NOT NULL DEFAULT '{}',
        read_only boolean NOT NULL DEFAULT false,
        deleted boolean NOT NULL DEFAULT false
      )`);
    await q.query(`
      CREATE TABLE inbox.stream (
        stream_id bigint PRIMARY KEY,
        account_id bigint NOT NULL,
        stream_uid uuid NOT NULL UNIQUE,
        name text NOT NULL,
        stream_type integer NOT NULL,
        status integer NOT NULL,
        sender text,
        enable_sending boolean NOT NULL DEFAULT true,
        deleted boolean NOT NULL DEFAULT false,
        updated_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX stream_account_idx ON inbox.stream (account_id)`);

    // ---- organisation ----
    await q.query(`
      CREATE TABLE inbox.space (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL,
        key text NOT NULL,
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        settings jsonb NOT NULL DEFAULT '{"configured": false, "configuredRequired": true}'::jsonb,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        UNIQUE (account_id, key)
      )`);
    await q.query(`
      CREATE TABLE inbox.team (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL,
        space_id bigint NOT NULL REFERENCES inbox.space (id) ON DELETE CASCADE,
        key text NOT NULL,
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        UNIQUE (space_id, key)
      )`);
    await q.query(`CREATE INDEX team_account_idx ON inbox.team (account_id, space_id)`);
    await q.query(`
      CREATE TABLE inbox.team_agent (
        team_id bigint NOT NULL REFERENCES inbox.team (id) ON DELETE CASCADE,
        account_id bigint NOT NULL,
        user_id bigint NOT NULL,
        manager boolean NOT NULL DEFAULT false,
        PRIMARY KEY (team_id, user_id)
      )`);
    await q.query(`CREATE INDEX team_agent_user_idx ON inbox.team_agent (account_id, user_id)`);
    // update_permissions: per-space overrides of an agent's inbox permissions ({"INBOX_ASSIGN": false, ...})
    await q.query(`
      CREATE TABLE inbox.space_permission (
        space_id bigint NOT NULL REFERENCES inbox.space (id) ON DELETE CASCADE,
        account_id bigint NOT NULL,
        user_id bigint NOT NULL,
        permissions jsonb NOT NULL DEFAULT '{}'::jsonb,
        PRIMARY KEY (space_id, user_id)
      )`);
    await q.query(`
      CREATE TABLE inbox.conversation_tag (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL,
        space_id bigint NOT NULL REFERENCES inbox.space (id) ON DELETE CASCADE,
        key text NOT NULL,
        name varchar(64) NOT NULL,
        created_at timestamptz NOT NULL,
        UNIQUE (space_id, key)
      )`);
    await q.query(`CREATE UNIQUE INDEX conversation_tag_name_idx ON inbox.conversation_tag (space_id, lower(name))`);
    await q.query(`
      CREATE TABLE inbox.sender_profile (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL,
        space_id bigint NOT NULL REFERENCES inbox.space (id) ON DELETE CASCADE,
        name text NOT NULL,
        stream_id bigint NOT NULL,
        senders text[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX sender_profile_space_idx ON inbox.sender_profile (account_id, space_id)`);
    await q.query(`
      CREATE TABLE inbox.canned_template (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL,
        space_id bigint NOT NULL REFERENCES inbox.space (id) ON DELETE CASCADE,
        template_key text NOT NULL,
        name text NOT NULL,
        text text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        UNIQUE (space_id, template_key)
      )`);
    await q.query(`
      CREATE TABLE inbox.conversation_goal (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL,
        space_id bigint NOT NULL REFERENCES inbox.space (id) ON DELETE CASCADE,
        goal_key text NOT NULL,
        name text NOT NULL,
        text text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        UNIQUE (space_id, goal_key)
      )`);
    await q.query(`
      CREATE TABLE inbox.conversation_goal_team (
        goal_id bigint NOT NULL REFERENCES inbox.conversation_goal (id) ON DELETE CASCADE,
        team_id bigint NOT NULL REFERENCES inbox.team (id) ON DELETE CASCADE,
        account_id bigint NOT NULL,
        PRIMARY KEY (goal_id, team_id)
      )`);
    // which stream (and which of its senders: empty = all) lands in which space and team
    await q.query(`
      CREATE TABLE inbox.incoming_routing (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL,
        space_id bigint NOT NULL REFERENCES inbox.space (id) ON DELETE CASCADE,
        team_id bigint REFERENCES inbox.team (id) ON DELETE SET NULL,
        name text NOT NULL,
        stream_id bigint NOT NULL,
        senders text[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX incoming_routing_stream_idx ON inbox.incoming_routing (account_id, stream_id)`);

    // ---- contacts as the inbox knows them (name, key, phone) ----
    await q.query(`
      CREATE TABLE inbox.contact (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL,
        contact_key text NOT NULL UNIQUE,
        phone text NOT NULL,
        first_name text NOT NULL DEFAULT '',
        last_name text NOT NULL DEFAULT '',
        email text NOT NULL DEFAULT '',
        extra jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        UNIQUE (account_id, phone)
      )`);

    // ---- conversations: one per account, stream and contact address ----
    await q.query(`
      CREATE TABLE inbox.conversation (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        uuid uuid NOT NULL UNIQUE,
        account_id bigint NOT NULL,
        space_id bigint REFERENCES inbox.space (id) ON DELETE SET NULL,
        stream_id bigint NOT NULL,
        stream_uid uuid NOT NULL,
        stream_type integer NOT NULL,
        channel text NOT NULL,
        account_phone text NOT NULL,
        contact_phone text NOT NULL,
        contact_key text,
        contact_name text,
        status text NOT NULL CHECK (status IN ('active', 'unanswered', 'closed')),
        unread integer NOT NULL DEFAULT 0,
        temp boolean NOT NULL DEFAULT false,
        disabled boolean NOT NULL DEFAULT false,
        team_ids bigint[] NOT NULL DEFAULT '{}',
        agent_ids bigint[] NOT NULL DEFAULT '{}',
        tag_ids bigint[] NOT NULL DEFAULT '{}',
        start_time timestamptz NOT NULL,
        start_conversation_at timestamptz,
        last_incoming_at timestamptz,
        last_outgoing_at timestamptz,
        last_message text,
        last_message_type text,
        last_updated timestamptz NOT NULL,
        closed_by bigint,
        closed_at timestamptz,
        UNIQUE (account_id, stream_id, contact_phone)
      )`);
    // keyset pages (last_updated DESC, id DESC) per space, per status, per agent and team
    await q.query(`CREATE INDEX conversation_page_idx ON inbox.conversation (account_id, space_id, last_updated DESC, id DESC)`);
    await q.query(`CREATE INDEX conversation_status_page_idx ON inbox.conversation (account_id, space_id, status, last_updated DESC, id DESC)`);
    await q.query(`CREATE INDEX conversation_agents_idx ON inbox.conversation USING gin (agent_ids)`);
    await q.query(`CREATE INDEX conversation_teams_idx ON inbox.conversation USING gin (team_ids)`);
    await q.query(`CREATE INDEX conversation_contact_key_idx ON inbox.conversation (account_id, contact_key) WHERE contact_key IS NOT NULL`);
    await q.query(`CREATE INDEX conversation_contact_phone_idx ON inbox.conversation (account_id, contact_phone)`);
    await q.query(`CREATE INDEX conversation_name_trgm_idx ON inbox.conversation USING gin (contact_name ${trgmOps})`);
    await q.query(`CREATE INDEX conversation_phone_trgm_idx ON inbox.conversation USING gin (contact_phone ${trgmOps})`);

    // ---- the timeline: messages and events (internal notes are events of type internal_note) ----
    await q.query(`
      CREATE TABLE inbox.event (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        uuid uuid NOT NULL UNIQUE,
        account_id bigint NOT NULL,
        conversation_id bigint NOT NULL REFERENCES inbox.conversation (id) ON DELETE CASCADE,
        event_type text NOT NULL CHECK (event_type IN ('incoming_message', 'outgoing_message', 'preview_message', 'set_tag', 'assign_team', 'assign_agent', 'change_state', 'start_conversation', 'internal_note', 'call_permission')),
        message_uuid uuid UNIQUE,
        message_time timestamptz NOT NULL,
        read_at timestamptz,
        send_status text,
        send_error text,
        actor jsonb,
        content jsonb,
        event_data jsonb,
        body text,
        source text,
        destination text,
        message_type text,
        batch_id text
      )`);
    await q.query(`CREATE INDEX event_timeline_idx ON inbox.event (conversation_id, id DESC)`);
    // simple_search over message text: full-text (words, 'simple' configuration: no language stemming)
    await q.query(`CREATE INDEX event_body_fts_idx ON inbox.event USING gin (to_tsvector('simple', body)) WHERE body IS NOT NULL`);

    // ---- media (uploads and inbound media fetched from the providers) ----
    await q.query(`
      CREATE TABLE inbox.media (
        id uuid PRIMARY KEY,
        account_id bigint NOT NULL,
        stream_id bigint,
        kind text NOT NULL CHECK (kind IN ('image', 'video', 'document', 'audio', 'sticker', 'contact', 'location')),
        mime text NOT NULL,
        size bigint NOT NULL,
        file_name text,
        storage_key text NOT NULL,
        created_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX media_account_idx ON inbox.media (account_id, created_at)`);

    // ---- websocket rooms: a per-room sequence and a replay window, so a reconnect resumes without gaps ----
    await q.query(`
      CREATE TABLE inbox.room_event (
        room text NOT NULL,
        seq bigint NOT NULL,
        account_id bigint NOT NULL,
        event text NOT NULL,
        payload jsonb NOT NULL,
        at timestamptz NOT NULL,
        PRIMARY KEY (room, seq)
      )`);
    await q.query(`CREATE INDEX room_event_at_idx ON inbox.room_event (at)`);
    await q.query(`
      CREATE TABLE inbox.room_seq (
        room text PRIMARY KEY,
        seq bigint NOT NULL
      )`);

    await createOutboxTables(q, 'inbox');
    await addPackedOutboxColumn(q, 'inbox');
    // events the consumers gave up on, for operators to replay (docs/decisions/0022)
    await createDeadLetterTable(q, 'inbox');
  }

  async down(q: QueryRunner): Promise<void> {
    await dropDeadLetterTable(q, 'inbox');
    await dropOutboxTables(q, 'inbox');
    for (const t of [
      'room_seq',
      'room_event',
      'media',
      'event',
      'conversation',
      'contact',
      'incoming_routing',
      'conversation_goal_team',
      'conversation_goal',
      'canned_template',
      'sender_profile',
      'conversation_tag',
      'space_permission',
      'team_agent',
      'team',
      'space',
      'stream',
      'role',
      'agent',
    ]) {
      await q.query(`DROP TABLE inbox.${t}`);
    }
  }
}
