import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The undispatched sweeper reads above a floor instead of a partial index of the messages still `accepted`
 * (docs/decisions/0204). `message_undispatched_idx` named `status` in its predicate, so no status update of
 * `streams.message` could be heap-only (HOT): every one wrote a new entry into all four indexes (0193).
 *
 * - `message_sweep_idx ((coalesce(reconciled_at, created_at)), uuid)` names no column the status projector changes.
 *   Every message enters it at insert, as it entered the partial index; only the sweeper's question (`reconciled_at`)
 *   moves a message in it.
 * - `streams.undispatched_floor`, one row: the key below which every message has been read by a sweep that no
 *   transaction open at the time could have missed, the current pass's position, and the last pass's end with the
 *   bound of the xids that could still write below it (how the floor passes a late-committed message only after it has
 *   been read).
 * - The first floor is the oldest message still `accepted` (read from the partial index before it goes), and at most
 *   an hour before the migration: the first sweep reads from there.
 * - `fillfactor = 50`: the projector moves every message of a page in one statement (dispatch's batches), so each
 *   page needs room for all its new versions at once; at 50 nearly all of them stay on their page (0193, 0204).
 *   Pages written before keep theirs until rewritten.
 *
 * Upgrade order (README): an older streams process's sweep has no partial index any more and reads streams.message from
 * its oldest message up to its age; roll streams out before it matters (0204).
 */
export class UndispatchedFloor1798700000204 implements MigrationInterface {
  name = 'UndispatchedFloor1798700000204';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX message_sweep_idx ON streams.message ((coalesce(reconciled_at, created_at)), uuid)`);
    await q.query(`
      CREATE TABLE streams.undispatched_floor (
        id smallint PRIMARY KEY CHECK (id = 1),
        floor_at timestamptz NOT NULL,
        floor_uuid uuid NOT NULL,
        cursor_at timestamptz,
        cursor_uuid uuid,
        checks_at timestamptz,
        checks_uuid uuid,
        skipped boolean NOT NULL DEFAULT false,
        pending_at timestamptz,
        pending_uuid uuid,
        pending_xmax xid8,
        swept_at timestamptz
      )`);
    await q.query(`
      INSERT INTO streams.undispatched_floor (id, floor_at, floor_uuid)
      SELECT 1, least((SELECT min(coalesce(reconciled_at, created_at)) FROM streams.message WHERE status = 'accepted'), now() - interval '1 hour') - interval '1 microsecond',
             '00000000-0000-0000-0000-000000000000'`);
    await q.query(`DROP INDEX streams.message_undispatched_idx`);
    await q.query(`ALTER TABLE streams.message SET (fillfactor = 50)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE streams.message RESET (fillfactor)`);
    await q.query(`CREATE INDEX message_undispatched_idx ON streams.message ((coalesce(reconciled_at, created_at))) WHERE status = 'accepted'`);
    await q.query(`DROP TABLE streams.undispatched_floor`);
    await q.query(`DROP INDEX streams.message_sweep_idx`);
  }
}
