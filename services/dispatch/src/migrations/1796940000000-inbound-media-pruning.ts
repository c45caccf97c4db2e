import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Pruning of kept inbound media (docs/decisions/0058): each kept file's size, so the keeper bounds the total without
 * reading the bytes, and the order it prunes in (oldest kept first). `media_state` gains `pruned` (the kept bytes
 * were deleted; a read asks the provider again) and `refused` (the provider handed over a URL on a private address).
 */
export class InboundMediaPruning1796940000000 implements MigrationInterface {
  name = 'InboundMediaPruning1796940000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE dispatch.inbound_media_kept ADD COLUMN size integer NOT NULL DEFAULT 0`);
    await q.query(`UPDATE dispatch.inbound_media_kept SET size = octet_length(bytes)`);
    await q.query(`CREATE INDEX inbound_media_kept_kept_at_idx ON dispatch.inbound_media_kept (kept_at, message_uuid)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX dispatch.inbound_media_kept_kept_at_idx`);
    await q.query(`ALTER TABLE dispatch.inbound_media_kept DROP COLUMN size`);
  }
}
