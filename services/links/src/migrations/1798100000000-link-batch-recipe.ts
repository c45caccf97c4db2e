import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A minted batch's stored answer keeps how to write its links again, not their text (docs/decisions/0123): the items'
 * refs in batch order, the variables in the answer's order and each variable's code block. A repeated request (a
 * redelivery after a crash) rebuilds the same links from these, the range rows' domains and the code key; the first
 * answer's text is written once a batch, into the outbox event, not a second time into `link_batch`. Answers stored
 * before keep their jsonb (`links`) or text (`links_text`); each row holds exactly one of the three forms.
 */
export class LinkBatchRecipe1798100000000 implements MigrationInterface {
  name = 'LinkBatchRecipe1798100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE links.link_batch ADD COLUMN refs text[], ADD COLUMN variables text[], ADD COLUMN blocks bigint[]`);
    await dropChecks(q);
    await q.query(
      `ALTER TABLE links.link_batch ADD CHECK (num_nonnulls(links, links_text, refs) = 1 AND (refs IS NULL) = (variables IS NULL) AND (refs IS NULL) = (blocks IS NULL))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    // the links' text of a batch stored as its recipe cannot be written here (the code key is not in the database):
    // its stored answer goes, so a batch asked again is minted afresh (its first links keep resolving)
    await q.query(`DELETE FROM links.link_batch WHERE refs IS NOT NULL`);
    await dropChecks(q);
    await q.query(`ALTER TABLE links.link_batch DROP COLUMN refs, DROP COLUMN variables, DROP COLUMN blocks`);
    await q.query(`ALTER TABLE links.link_batch ADD CHECK ((links IS NULL) <> (links_text IS NULL))`);
  }
}

/** The table's check constraints (the one-form-of-answer rule; PostgreSQL named it). */
async function dropChecks(q: QueryRunner): Promise<void> {
  const rows = (await q.query(`SELECT conname FROM pg_constraint WHERE conrelid = 'links.link_batch'::regclass AND contype = 'c'`)) as Array<{ conname: string }>;
  for (const r of rows) await q.query(`ALTER TABLE links.link_batch DROP CONSTRAINT "${r.conname}"`);
}
