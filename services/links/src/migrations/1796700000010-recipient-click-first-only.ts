import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A recipient's row holds their first counted click only (docs/decisions/0104): a repeat click no longer adds to a
 * count there, so it writes no new row version (no heap tuple, no WAL) in the click group statement. How many times a
 * recipient clicked is their counted rows in `links.click` (account, message uuid, not a preview), which every click
 * writes anyway. The spec shows no per-recipient count (campaign figures are `links.click_stats` and the stats rollups).
 */
export class RecipientClickFirstOnly1796700000010 implements MigrationInterface {
  name = 'RecipientClickFirstOnly1796700000010';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE links.recipient_click DROP COLUMN clicks`);
    // rows are written once now: full pages (0071's room was for the updates)
    await q.query(`ALTER TABLE links.recipient_click RESET (fillfactor)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE links.recipient_click SET (fillfactor = 70)`);
    await q.query(`ALTER TABLE links.recipient_click ADD COLUMN clicks bigint`);
    await q.query(`
      UPDATE links.recipient_click r SET clicks = (SELECT count(*) FROM links.click c WHERE c.account_id = r.account_id AND c.message_uuid = r.message_uuid AND NOT c.preview)`);
    await q.query(`ALTER TABLE links.recipient_click ALTER COLUMN clicks SET NOT NULL`);
  }
}
