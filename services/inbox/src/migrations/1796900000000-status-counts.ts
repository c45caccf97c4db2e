import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Conversations per space and status, kept by a trigger on every insert, delete and change of status or space: the
 * list's totals (all, active, unanswered, closed) without counting a million rows on every page.
 */
export class StatusCounts1796900000000 implements MigrationInterface {
  name = 'StatusCounts1796900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE inbox.space_status_count (space_id bigint NOT NULL, status text NOT NULL, n bigint NOT NULL DEFAULT 0, PRIMARY KEY (space_id, status))`);
    await q.query(`INSERT INTO inbox.space_status_count (space_id, status, n) SELECT space_id, status, count(*) FROM inbox.conversation WHERE space_id IS NOT NULL GROUP BY 1, 2`);
    await q.query(`
      CREATE FUNCTION inbox.conversation_status_count() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' AND OLD.space_id IS NOT NULL THEN
          UPDATE inbox.space_status_count SET n = n - 1 WHERE space_id = OLD.space_id AND status = OLD.status;
        END IF;
        IF TG_OP <> 'DELETE' AND NEW.space_id IS NOT NULL THEN
          INSERT INTO inbox.space_status_count (space_id, status, n) VALUES (NEW.space_id, NEW.status, 1)
          ON CONFLICT (space_id, status) DO UPDATE SET n = inbox.space_status_count.n + 1;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER conversation_status_count_ins_del AFTER INSERT OR DELETE ON inbox.conversation FOR EACH ROW EXECUTE FUNCTION inbox.conversation_status_count()`);
    await q.query(
      `CREATE TRIGGER conversation_status_count_upd AFTER UPDATE OF status, space_id ON inbox.conversation FOR EACH ROW
       WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.space_id IS DISTINCT FROM NEW.space_id) EXECUTE FUNCTION inbox.conversation_status_count()`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER conversation_status_count_upd ON inbox.conversation`);
    await q.query(`DROP TRIGGER conversation_status_count_ins_del ON inbox.conversation`);
    await q.query(`DROP FUNCTION inbox.conversation_status_count()`);
    await q.query(`DROP TABLE inbox.space_status_count`);
  }
}
