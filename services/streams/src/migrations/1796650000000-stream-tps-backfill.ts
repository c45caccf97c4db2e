import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Streams whose own rate (`params.tps`, docs/decisions/0017) was set before their snapshot events carried it: dispatch
 * learnt it only at their next change. Marked here; the backfill at start (InboundBackfillService) sends each one's
 * snapshot once, so dispatch's `stream_channel.tps` gets it (docs/decisions/0047-limits-across-replicas.md).
 */
export class StreamTpsBackfill1796650000000 implements MigrationInterface {
  name = 'StreamTpsBackfill1796650000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE streams.stream ADD COLUMN tps_backfill boolean NOT NULL DEFAULT false`);
    await q.query(`UPDATE streams.stream SET tps_backfill = true WHERE deleted_at IS NULL AND params ? 'tps'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE streams.stream DROP COLUMN tps_backfill`);
  }
}
