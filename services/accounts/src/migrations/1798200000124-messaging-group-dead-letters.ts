import type { MigrationInterface, QueryRunner } from 'typeorm';

const FORMER = ['accounts.balance-ledger', 'accounts.daily-usage'];
const MERGED = 'accounts.messaging';

/**
 * The dead letters of the two consumer groups that `accounts.messaging` replaced (docs/decisions/0124) move to its name:
 * a replay is handed to a group this process runs, and no process runs the old names any more, so their letters would
 * wait for ever. The new group's handler takes every type the two took. An event with an open letter under the new
 * name already (dead-lettered again by the new group during a rolling deploy) keeps that one; of two open letters of
 * one event under the old names (an unreadable record both groups gave up on) the first moves. Letters written by
 * replicas of the old version after this ran keep their names: the decision gives the statement to run again.
 */
export class MessagingGroupDeadLetters1798200000124 implements MigrationInterface {
  name = 'MessagingGroupDeadLetters1798200000124';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `UPDATE accounts.dead_letter d SET group_name = $2
        WHERE d.group_name = ANY($1::text[])
          AND (d.status = 'replayed' OR d.event_id IS NULL OR d.id IN (
                SELECT DISTINCT ON (o.event_id) o.id FROM accounts.dead_letter o
                 WHERE o.group_name = ANY($1::text[]) AND o.status <> 'replayed' AND o.event_id IS NOT NULL
                   AND NOT EXISTS (SELECT 1 FROM accounts.dead_letter n WHERE n.group_name = $2 AND n.event_id = o.event_id AND n.status <> 'replayed')
                 ORDER BY o.event_id, o.id))`,
      [FORMER, MERGED],
    );
  }

  async down(q: QueryRunner): Promise<void> {
    // back to the group that took the event's type (charges and refunds the ledger, accepted messages the usage)
    await q.query(
      `UPDATE accounts.dead_letter d SET group_name = CASE WHEN d.event_type = 'streams.message.accepted' THEN $2 ELSE $1 END
        WHERE d.group_name = $3
          AND (d.status = 'replayed' OR d.event_id IS NULL OR NOT EXISTS (
                SELECT 1 FROM accounts.dead_letter o WHERE o.group_name = ANY(ARRAY[$1, $2]) AND o.event_id = d.event_id AND o.status <> 'replayed'))`,
      [FORMER[0], FORMER[1], MERGED],
    );
  }
}
