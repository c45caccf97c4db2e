import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The status update of a campaign recipient made heap-only (docs/decisions/0207). `recipient_status_due_idx` named
 * `status` in its predicate, so every status change of a recipient wrote a new row version and an entry into each of
 * the table's indexes. It goes; the status sweep (StatusReconciler) reads instead:
 *
 * - `recipient_accepted_idx (campaign_id, coalesce(status_asked_at, requested_at)) WHERE state = 3`: every accepted
 *   recipient (the answer's update, which changes `state`, adds its entry as it added the old index's), by when it is
 *   due to be asked about; no column the status update changes;
 * - `campaigns.run.status_floor`: per campaign, below it every accepted recipient has a final status or will be read
 *   above it (the sweep moves it; `infinity` once a finished or aborted campaign has nothing left to ask about);
 *   `-infinity` (the default) reads the campaign from its first accepted recipient;
 * - fillfactor 50: room on the accepted version's page for its status version (0182: without room no update is HOT).
 *
 * Running campaigns start from their oldest recipient without a final status (read through the old index before it
 * goes), their oldest request still unanswered, or an hour ago, whichever is first; finished and aborted ones with
 * nothing left at `infinity`. The index is built inside the migration's transaction (writes to the recipients wait).
 */
export class CampaignsRecipientStatusFloor1798800000207 implements MigrationInterface {
  name = 'CampaignsRecipientStatusFloor1798800000207';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaigns.run ADD COLUMN status_floor timestamptz NOT NULL DEFAULT '-infinity'`);
    await q.query(
      `UPDATE campaigns.run r SET status_floor = CASE WHEN x.pending IS NULL AND x.batch IS NULL AND x.flight IS NULL AND c.status IN (4, 7) THEN 'infinity'::timestamptz
                                                      ELSE least(x.pending, x.batch, x.flight, now() - interval '1 hour') END
         FROM campaigns.campaign c,
              LATERAL (SELECT (SELECT min(coalesce(p.status_asked_at, p.requested_at)) FROM campaigns.recipient p WHERE p.campaign_id = c.id AND p.state = 3 AND (p.status IS NULL OR p.status = 'sent')) AS pending,
                              (SELECT min(b.requested_at) FROM campaigns.send_batch b WHERE b.campaign_id = c.id) AS batch,
                              (SELECT min(f.requested_at) FROM campaigns.recipient f WHERE f.campaign_id = c.id AND f.state IN (1, 2)) AS flight) x
        WHERE c.id = r.campaign_id`,
    );
    await q.query(`CREATE INDEX run_status_floor_idx ON campaigns.run (status_floor)`);
    await q.query(`CREATE INDEX recipient_accepted_idx ON campaigns.recipient (campaign_id, (coalesce(status_asked_at, requested_at))) WHERE state = 3`);
    await q.query(`DROP INDEX campaigns.recipient_status_due_idx`);
    await q.query(`ALTER TABLE campaigns.recipient SET (fillfactor = 50)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaigns.recipient RESET (fillfactor)`);
    await q.query(`CREATE INDEX recipient_status_due_idx ON campaigns.recipient ((coalesce(status_asked_at, requested_at))) WHERE state = 3 AND (status IS NULL OR status = 'sent')`);
    await q.query(`DROP INDEX campaigns.recipient_accepted_idx`);
    await q.query(`DROP INDEX campaigns.run_status_floor_idx`);
    await q.query(`ALTER TABLE campaigns.run DROP COLUMN status_floor`);
  }
}
