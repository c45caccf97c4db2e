import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Room on `stats.message_state`'s pages for a message's later states (docs/decisions/0201). A campaign message's state
 * is inserted narrow by its send-batch request (account, campaign, variant), then rewritten wide by its acceptance
 * (stream, sender, destination, buckets, price) and moved by its statuses, each in a later batch; the only index is the
 * primary key, so an update stays on its page (heap-only, no new primary-key entry) whenever the page has room for the
 * new version. At fillfactor 80 (0083) a page held about four times the rows its free fifth could take new versions of
 * in one batch: 38 % of the campaign phase's updates were heap-only. At 40 nearly all are (the bench: 99.7 % at 30,
 * 86 % at 50). Pages written from now on keep the room; existing rows move as they are updated. No figure changes: only
 * where the rows lie.
 */
export class MessageStateFillfactor1796500000012 implements MigrationInterface {
  name = 'MessageStateFillfactor1796500000012';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE stats.message_state SET (fillfactor = 40)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE stats.message_state SET (fillfactor = 80)`);
  }
}
