import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The AI routes of the integrations service check who may use the assistant in which space against the inbox's
 * snapshots (InboxSpaceAccessChangedV1, docs/decisions/0050). The inbox publishes one on every change from now on;
 * this publishes the first one of every account that already has spaces, through the outbox like any other.
 */
export class SpaceAccess1797350000000 implements MigrationInterface {
  name = 'SpaceAccess1797350000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      WITH snap AS (
        SELECT s.account_id::text AS account_id,
          jsonb_agg(jsonb_build_object(
            'spaceId', s.id::text,
            'members', to_jsonb(COALESCE((SELECT array_agg(DISTINCT ta.user_id::text ORDER BY ta.user_id::text) FROM inbox.team t JOIN inbox.team_agent ta ON ta.team_id = t.id WHERE t.space_id = s.id), '{}')),
            'aiRefused', to_jsonb(COALESCE((SELECT array_agg(sp.user_id::text ORDER BY sp.user_id::text) FROM inbox.space_permission sp WHERE sp.space_id = s.id AND sp.permissions->>'INBOX_AI_ASSISTANT' = 'false'), '{}'))
          ) ORDER BY s.id) AS spaces
        FROM inbox.space s GROUP BY s.account_id
      ), ev AS (SELECT gen_random_uuid() AS id, account_id, spaces FROM snap)
      INSERT INTO inbox.outbox (event_id, topic, key, type, payload)
      SELECT id, 'switchboard.inbox', account_id, 'inbox.space_access.changed',
        jsonb_build_object('id', id, 'type', 'inbox.space_access.changed', 'version', 1,
          'occurredAt', to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          'source', 'inbox', 'accountId', account_id, 'traceId', NULL, 'key', account_id,
          'data', jsonb_build_object('accountId', account_id, 'spaces', spaces))
      FROM ev`);
  }

  async down(): Promise<void> {
    // nothing to undo: the events are published (or will be) like any other
  }
}
