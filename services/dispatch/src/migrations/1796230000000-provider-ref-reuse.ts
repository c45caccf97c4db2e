import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Carriers reuse their message ids (a restart numbering from 1 again, several binds, wrap-around): a provider id
 * names a message only together with when it was sent and to whom. `provider_ref` keeps every (vendor, provider id)
 * a message part was given, with when (`sent_at`); a receipt is matched to the newest one of a message still waiting
 * (docs/decisions/0023-carrier-quirks.md). The key becomes the part's, and the lookup an index by provider id and
 * time. Receipts kept until their id is known carry the destination they name, to be matched by it later.
 */
export class ProviderRefReuse1796230000000 implements MigrationInterface {
  name = 'ProviderRefReuse1796230000000';

  async up(q: QueryRunner): Promise<void> {
    // now() is stable: existing rows get the migration's time without a table rewrite; the refs still waiting for a
    // receipt then take their message's send time, so "newest" stays true for them.
    await q.query(`ALTER TABLE dispatch.provider_ref ADD COLUMN sent_at timestamptz NOT NULL DEFAULT now()`);
    await q.query(`
      UPDATE dispatch.provider_ref r SET sent_at = m.sent_at
        FROM dispatch.message m
       WHERE m.id = r.message_id AND r.outcome IS NULL AND m.sent_at IS NOT NULL`);
    await q.query(`ALTER TABLE dispatch.provider_ref DROP CONSTRAINT provider_ref_pkey`);
    await q.query(`ALTER TABLE dispatch.provider_ref ADD CONSTRAINT provider_ref_pkey PRIMARY KEY (message_id, part, vendor_id, provider_message_id)`);
    await q.query(`DROP INDEX dispatch.provider_ref_message`);
    await q.query(`CREATE INDEX provider_ref_lookup ON dispatch.provider_ref (vendor_id, provider_message_id, sent_at DESC)`);
    await q.query(`ALTER TABLE dispatch.pending_receipt ADD COLUMN destination text NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE dispatch.pending_receipt DROP COLUMN destination`);
    await q.query(`DROP INDEX dispatch.provider_ref_lookup`);
    // one row per (vendor, provider id) again: the newest is kept
    await q.query(`
      DELETE FROM dispatch.provider_ref r USING dispatch.provider_ref n
       WHERE n.vendor_id = r.vendor_id AND n.provider_message_id = r.provider_message_id
         AND (n.sent_at, n.message_id, n.part) > (r.sent_at, r.message_id, r.part)`);
    await q.query(`ALTER TABLE dispatch.provider_ref DROP CONSTRAINT provider_ref_pkey`);
    await q.query(`ALTER TABLE dispatch.provider_ref ADD CONSTRAINT provider_ref_pkey PRIMARY KEY (vendor_id, provider_message_id)`);
    await q.query(`CREATE INDEX provider_ref_message ON dispatch.provider_ref (message_id)`);
    await q.query(`ALTER TABLE dispatch.provider_ref DROP COLUMN sent_at`);
  }
}
