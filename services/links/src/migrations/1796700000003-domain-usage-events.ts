import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `links.domain.changed` for the state changes the usage counter makes: minting (the redirect role) moves
 * `total_usages`, the limit trigger turns a configured domain into reached limit (6), and this trigger writes the
 * event to the outbox in the same transaction, the envelope as `Outbox.add` writes it. The console's own changes
 * (DNS checks, limits, archive) never move `total_usages` and emit their events themselves, so nothing is published
 * twice.
 */
export class DomainUsageEvents1796700000003 implements MigrationInterface {
  name = 'DomainUsageEvents1796700000003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION links.domain_usage_state_event() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        ev uuid := gen_random_uuid();
        at text := to_char(NEW.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
      BEGIN
        INSERT INTO links.outbox (event_id, topic, key, type, payload) VALUES (
          ev, 'switchboard.links', NEW.id::text, 'links.domain.changed',
          jsonb_build_object(
            'id', ev, 'type', 'links.domain.changed', 'version', 1, 'occurredAt', at, 'source', 'links',
            'accountId', NEW.account_id::text, 'traceId', NULL, 'key', NEW.id::text,
            'data', jsonb_build_object(
              'accountId', NEW.account_id::text, 'domainId', NEW.id::text, 'name', NEW.name, 'state', NEW.state,
              'declinedReason', NEW.declined_reason, 'messagesLimit', NEW.messages_limit, 'usable', NEW.state = 1,
              'deleted', false, 'changedAt', at)));
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER domain_usage_state_event AFTER UPDATE OF total_usages ON links.domain FOR EACH ROW
      WHEN (OLD.state IS DISTINCT FROM NEW.state AND OLD.total_usages IS DISTINCT FROM NEW.total_usages)
      EXECUTE FUNCTION links.domain_usage_state_event()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER domain_usage_state_event ON links.domain`);
    await q.query(`DROP FUNCTION links.domain_usage_state_event()`);
  }
}
