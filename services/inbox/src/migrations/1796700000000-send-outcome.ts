import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What streams answered for an inbox send (accepted, refused, not_authenticated), so the HTTP request that made it can
 * answer OK or SENT_FAILED whichever replica consumed the answer; the timeline by time; the my_closed filter's index.
 */
export class SendOutcome1796700000000 implements MigrationInterface {
  name = 'SendOutcome1796700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE inbox.event ADD COLUMN send_outcome text CHECK (send_outcome IN ('accepted', 'refused', 'not_authenticated'))`);
    // the timeline in the order things happened (dispatch's receive time), whatever order the events were consumed in
    await q.query(`DROP INDEX inbox.event_timeline_idx`);
    await q.query(`CREATE INDEX event_timeline_idx ON inbox.event (conversation_id, message_time DESC, id DESC)`);
    await q.query(`CREATE INDEX conversation_closed_by_idx ON inbox.conversation (account_id, space_id, closed_by) WHERE status = 'closed'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX inbox.conversation_closed_by_idx`);
    await q.query(`DROP INDEX inbox.event_timeline_idx`);
    await q.query(`CREATE INDEX event_timeline_idx ON inbox.event (conversation_id, id DESC)`);
    await q.query(`ALTER TABLE inbox.event DROP COLUMN send_outcome`);
  }
}
