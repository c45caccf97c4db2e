import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * More room on a campaign recipient's page for its later versions (docs/decisions/0215). Since 0209 none of the
 * table's indexes names a column streams' answer or the status group changes, so each of a recipient's updates (the
 * answer, `sent` on a real carrier's path, the final status) is heap-only whenever its page has room for the new
 * version. At fillfactor 50 (0207) the audience's COPY leaves half a page free, but the answer's version is wider than
 * the COPY's (request time, batch, price, choices) and a page's old versions are pruned only once no snapshot can see
 * them: with receipts seconds after the submit (three updates a recipient) a quarter of the updates found no room.
 * At 30 nearly all stay on their page.
 *
 * `ALTER TABLE ... SET (fillfactor)` rewrites nothing and takes a SHARE UPDATE EXCLUSIVE lock (reads and writes go on):
 * it applies to pages written from now on (new audiences); existing recipients keep their pages. Older processes are
 * unaffected, so no process needs stopping.
 */
export class CampaignsRecipientFillfactor1799000000215 implements MigrationInterface {
  name = 'CampaignsRecipientFillfactor1799000000215';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaigns.recipient SET (fillfactor = 30)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaigns.recipient SET (fillfactor = 50)`);
  }
}
