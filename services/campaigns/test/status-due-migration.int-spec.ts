import { randomUUID } from 'node:crypto';
import { openServiceDataSource } from '@switchboard/platform';
import { createTestDatabase } from '@switchboard/platform/testing';
import { CAMPAIGNS_MIGRATIONS } from '../src';
import { CampaignsRecipientAnswerHot1798900000209 } from '../src/migrations/1798900000209-recipient-answer-hot';

/** The migrations up to and including 0209's (later ones are not its subject). */
const UP_TO_0209 = CAMPAIGNS_MIGRATIONS.indexOf(CampaignsRecipientAnswerHot1798900000209) + 1;

/**
 * The migration of docs/decisions/0209 over recipients of the previous release: the ones in flight (state 1 or 2) get
 * their `flight_at`, the accepted ones without a final status their groups for the status sweep (by campaign and when
 * each is due), and no index is left that names `state` or `requested_at`; the down migration puts 0207's back.
 */
describe('recipient answer heap-only: the migration over recipients of an older release', () => {
  it('records what is in flight and what waits for a final status, and goes back down', async () => {
    const db = await createTestDatabase('cansweruphot');
    let ds = await openServiceDataSource({ name: 'campaigns-answer-old', url: db.url, schema: 'campaigns', entities: [], migrations: CAMPAIGNS_MIGRATIONS.slice(0, UP_TO_0209 - 1), migrationsRun: true });
    try {
      let ordinal = 0;
      const at = new Date();
      await ds.query(`INSERT INTO campaigns.campaign (id, account_id, name, status) OVERRIDING SYSTEM VALUE VALUES (1, 77, 'c1', 6), (2, 77, 'c2', 7)`);
      /** A recipient in `state` with `status`, requested and asked about these many hours ago. */
      const recipient = async (id: number, state: number, status: string | null, requestedHoursAgo: number | null, askedHoursAgo: number | null = null) =>
        ds.query(
          `INSERT INTO campaigns.recipient (campaign_id, ordinal, account_id, contact_id, occurrence, message_uuid, phone, state, status, requested_at, status_asked_at)
           VALUES ($1, $2::int, 77, $2::bigint, 0, $3, '+4915100000001', $4, $5, $8::timestamptz - $6::float8 * interval '1 hour', $8::timestamptz - $7::float8 * interval '1 hour')`,
          [id, ++ordinal, randomUUID(), state, status, requestedHoursAgo, askedHoursAgo, at],
        );
      await recipient(1, 3, 'sent', 3); // 1: waits, due since 3 hours
      await recipient(1, 3, null, 3); // 2: waits, the same group
      await recipient(1, 3, 'delivered', 3); // 3: final
      await recipient(1, 2, null, 1); // 4: in flight (an unbatched request)
      await recipient(1, 1, null, 0.5); // 5: in flight (links)
      await recipient(1, 0, null, null); // 6: waiting
      await recipient(2, 3, null, 6, 2); // 7: asked about 2 hours ago
      await recipient(2, 4, null, 6); // 8: refused

      await ds.destroy();
      ds = await openServiceDataSource({ name: 'campaigns-answer-new', url: db.url, schema: 'campaigns', entities: [], migrations: CAMPAIGNS_MIGRATIONS.slice(0, UP_TO_0209), migrationsRun: true });
      const flight = await ds.query<Array<{ ordinal: number; same: boolean }>>(`SELECT ordinal, flight_at = requested_at AS same FROM campaigns.recipient WHERE flight_at IS NOT NULL ORDER BY ordinal`);
      expect(flight).toEqual([
        { ordinal: 4, same: true },
        { ordinal: 5, same: true },
      ]);
      const groups = await ds.query<Array<{ campaign: string; hours: number; ordinals: number[] }>>(
        `SELECT campaign_id::text AS campaign, round(extract(epoch FROM now() - due_at)::numeric / 3600, 1)::float8 AS hours, ordinals FROM campaigns.status_due ORDER BY campaign_id`,
      );
      expect(groups).toEqual([
        { campaign: '1', hours: 3, ordinals: [1, 2] },
        { campaign: '2', hours: 2, ordinals: [7] },
      ]);
      const indexes = async () =>
        ds.query<Array<{ n: string; d: string }>>(`SELECT indexname AS n, indexdef AS d FROM pg_indexes WHERE schemaname = 'campaigns' AND tablename = 'recipient' ORDER BY 1`);
      const now = await indexes();
      expect(now.map((i) => i.n)).toEqual(['recipient_due_idx', 'recipient_flight_idx', 'recipient_message_idx', 'recipient_number_idx', 'recipient_pkey']);
      // no index keyed on or filtered by a column streams' answer changes: its update can be heap-only
      for (const i of now) expect(i.d).not.toMatch(/\b(state|requested_at|price_micros|batch_id|variant_id|sender_id|segments|reason|status)\b/);
      await ds.undoLastMigration();
      expect((await indexes()).map((i) => i.n)).toEqual(['recipient_accepted_idx', 'recipient_due_idx', 'recipient_in_flight_idx', 'recipient_message_idx', 'recipient_phone_idx', 'recipient_pkey']);
      expect(await ds.query(`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'campaigns' AND table_name = 'status_due'`)).toEqual([{ n: 0 }]);
    } finally {
      await ds.destroy();
      await db.drop();
    }
  });
});
