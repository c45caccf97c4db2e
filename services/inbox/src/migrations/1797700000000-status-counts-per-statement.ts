import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The per-space status counters are moved once per statement, not once per row (docs/decisions/0089): the inbox's
 * batch of incoming messages upserts hundreds of conversations of one space in one statement, and the row trigger ran
 * a function and bumped the same `(space, status)` row once per conversation (a new row version each time). Now three
 * statement triggers (one per operation: a trigger with transition tables fires on one event) read what the statement
 * changed (its transition tables) and move each counter it touched once, by the net change, in key order. Same counts:
 * an insert adds, a delete takes away, an update moves the rows whose status or space changed; a decrement never
 * creates a counter row (as before).
 */
export class StatusCountsPerStatement1797700000000 implements MigrationInterface {
  name = 'StatusCountsPerStatement1797700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER conversation_status_count_upd ON inbox.conversation`);
    await q.query(`DROP TRIGGER conversation_status_count_ins_del ON inbox.conversation`);
    await q.query(`
      CREATE FUNCTION inbox.conversation_status_count_moves() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO inbox.space_status_count AS s (space_id, status, n)
            SELECT space_id, status, count(*) FROM new_rows WHERE space_id IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2
          ON CONFLICT (space_id, status) DO UPDATE SET n = s.n + EXCLUDED.n;
        ELSIF TG_OP = 'DELETE' THEN
          UPDATE inbox.space_status_count s SET n = s.n - d.n
            FROM (SELECT space_id, status, count(*) AS n FROM old_rows WHERE space_id IS NOT NULL GROUP BY 1, 2) d
           WHERE s.space_id = d.space_id AND s.status = d.status;
        ELSE
          WITH moved AS (
                 SELECT o.space_id AS old_space, o.status AS old_status, w.space_id AS new_space, w.status AS new_status
                   FROM old_rows o JOIN new_rows w ON w.id = o.id
                  WHERE o.status IS DISTINCT FROM w.status OR o.space_id IS DISTINCT FROM w.space_id),
               d AS (
                 SELECT space_id, status, sum(n)::bigint AS n FROM (
                     SELECT old_space AS space_id, old_status AS status, -1 AS n FROM moved WHERE old_space IS NOT NULL
                     UNION ALL
                     SELECT new_space, new_status, 1 FROM moved WHERE new_space IS NOT NULL) x
                  GROUP BY 1, 2 HAVING sum(n) <> 0),
               down AS (
                 UPDATE inbox.space_status_count s SET n = s.n + d.n FROM d WHERE d.n < 0 AND s.space_id = d.space_id AND s.status = d.status)
          INSERT INTO inbox.space_status_count AS s (space_id, status, n)
            SELECT space_id, status, n FROM d WHERE n > 0 ORDER BY 1, 2
          ON CONFLICT (space_id, status) DO UPDATE SET n = s.n + EXCLUDED.n;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(
      `CREATE TRIGGER conversation_status_count_ins AFTER INSERT ON inbox.conversation REFERENCING NEW TABLE AS new_rows
       FOR EACH STATEMENT EXECUTE FUNCTION inbox.conversation_status_count_moves()`,
    );
    await q.query(
      `CREATE TRIGGER conversation_status_count_upd AFTER UPDATE ON inbox.conversation REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
       FOR EACH STATEMENT EXECUTE FUNCTION inbox.conversation_status_count_moves()`,
    );
    await q.query(
      `CREATE TRIGGER conversation_status_count_del AFTER DELETE ON inbox.conversation REFERENCING OLD TABLE AS old_rows
       FOR EACH STATEMENT EXECUTE FUNCTION inbox.conversation_status_count_moves()`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER conversation_status_count_del ON inbox.conversation`);
    await q.query(`DROP TRIGGER conversation_status_count_upd ON inbox.conversation`);
    await q.query(`DROP TRIGGER conversation_status_count_ins ON inbox.conversation`);
    await q.query(`DROP FUNCTION inbox.conversation_status_count_moves()`);
    await q.query(`CREATE TRIGGER conversation_status_count_ins_del AFTER INSERT OR DELETE ON inbox.conversation FOR EACH ROW EXECUTE FUNCTION inbox.conversation_status_count()`);
    await q.query(
      `CREATE TRIGGER conversation_status_count_upd AFTER UPDATE OF status, space_id ON inbox.conversation FOR EACH ROW
       WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.space_id IS DISTINCT FROM NEW.space_id) EXECUTE FUNCTION inbox.conversation_status_count()`,
    );
  }
}
