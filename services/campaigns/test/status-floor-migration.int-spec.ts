import { randomUUID } from 'node:crypto';
import { openServiceDataSource } from '@switchboard/platform';
import { createTestDatabase } from '@switchboard/platform/testing';
import { CAMPAIGNS_MIGRATIONS } from '../src';
import { CampaignsRecipientStatusFloor1798800000207 } from '../src/migrations/1798800000207-recipient-status-floor';

/** The migrations up to and including 0207's (later ones are not its subject). */
const UP_TO_0207 = CAMPAIGNS_MIGRATIONS.indexOf(CampaignsRecipientStatusFloor1798800000207) + 1;

/**
 * The migration of docs/decisions/0207 over campaigns of the previous release: each run's status floor starts at its
 * oldest recipient still waiting for a final status, its oldest send batch or recipient in flight, or an hour ago,
 * whichever is first; an ended campaign with nothing left to ask about starts at `infinity`, one still waiting does not.
 */
// 0207's migration alone (0209, the next, replaced the floor by `campaigns.status_due`: status-due.int-spec.ts)
describe('campaign status floor: the migration over campaigns of an older release', () => {
  it('starts each run below everything it may still have to ask about, ended ones with nothing left at infinity, and goes back down', async () => {
    const db = await createTestDatabase('cfloorup');
    let ds = await openServiceDataSource({ name: 'campaigns-floor-old', url: db.url, schema: 'campaigns', entities: [], migrations: CAMPAIGNS_MIGRATIONS.slice(0, UP_TO_0207 - 1), migrationsRun: true });
    try {
      let ordinal = 0;
      const campaign = async (id: number, status: number) => {
        await ds.query(`INSERT INTO campaigns.campaign (id, account_id, name, status) OVERRIDING SYSTEM VALUE VALUES ($1, 77, $2, $3)`, [id, `c${id}`, status]);
        await ds.query(`INSERT INTO campaigns.run (campaign_id, account_id, request_id, batch_size) VALUES ($1, 77, $2, 100)`, [id, randomUUID()]);
      };
      /** A recipient in `state` with `status`, requested and asked about these many hours ago. */
      const recipient = async (id: number, state: number, status: string | null, requestedHoursAgo: number | null, askedHoursAgo: number | null = null) =>
        ds.query(
          `INSERT INTO campaigns.recipient (campaign_id, ordinal, account_id, contact_id, occurrence, message_uuid, phone, state, status, requested_at, status_asked_at)
           VALUES ($1, $2::int, 77, $2::bigint, 0, $3, '+4915100000001', $4, $5, now() - $6::float8 * interval '1 hour', now() - $7::float8 * interval '1 hour')`,
          [id, ++ordinal, randomUUID(), state, status, requestedHoursAgo, askedHoursAgo],
        );
      const batch = async (id: number, hoursAgo: number) =>
        ds.query(
          `INSERT INTO campaigns.send_batch (campaign_id, batch_id, account_id, requested_at, open, size, ordinals, variants, senders, segments)
           VALUES ($1, $2, 77, now() - $3::float8 * interval '1 hour', true, 1, '{1}', '{1}', '{1}', '{1}')`,
          [id, randomUUID(), hoursAgo],
        );

      // 1: sending, an accepted recipient still at `sent` for 3 hours (and a delivered one older still)
      await campaign(1, 6);
      await recipient(1, 3, 'sent', 3);
      await recipient(1, 3, 'delivered', 9);
      // 2: sending, a send batch open for 5 hours and a recipient in flight for 4
      await campaign(2, 6);
      await batch(2, 5);
      await recipient(2, 2, null, 4);
      // 3: finished, every recipient final or never sent
      await campaign(3, 7);
      await recipient(3, 3, 'delivered', 8);
      await recipient(3, 4, null, 8);
      // 4: aborted, one accepted recipient without a status, asked about 2 hours ago (requested 6 hours ago)
      await campaign(4, 4);
      await recipient(4, 3, null, 6, 2);
      // 5: paused, nothing sent yet
      await campaign(5, 3);
      // 6: finished, but a recipient still at `sent`
      await campaign(6, 7);
      await recipient(6, 3, 'sent', 30);

      await ds.destroy();
      ds = await openServiceDataSource({ name: 'campaigns-floor-new', url: db.url, schema: 'campaigns', entities: [], migrations: CAMPAIGNS_MIGRATIONS.slice(0, UP_TO_0207), migrationsRun: true });
      const floors = await ds.query<Array<{ id: string; hours: number | null; floor: string }>>(
        `SELECT campaign_id::text AS id, status_floor::text AS floor,
                CASE WHEN isfinite(status_floor) THEN round(extract(epoch FROM now() - status_floor)::numeric / 3600, 1)::float8 END AS hours
           FROM campaigns.run ORDER BY campaign_id`,
      );
      expect(floors.map((f) => [f.id, f.hours ?? f.floor])).toEqual([
        ['1', 3],
        ['2', 5],
        ['3', 'infinity'],
        ['4', 2],
        ['5', 1],
        ['6', 30],
      ]);
      const indexes = async () =>
        (await ds.query<Array<{ n: string }>>(`SELECT indexname AS n FROM pg_indexes WHERE schemaname = 'campaigns' AND tablename = 'recipient' ORDER BY 1`)).map((r) => r.n);
      expect(await indexes()).toContain('recipient_accepted_idx');
      expect(await indexes()).not.toContain('recipient_status_due_idx');
      await ds.undoLastMigration();
      expect(await indexes()).toContain('recipient_status_due_idx');
      expect(await indexes()).not.toContain('recipient_accepted_idx');
      expect(await ds.query(`SELECT count(*)::int AS n FROM information_schema.columns WHERE table_schema = 'campaigns' AND table_name = 'run' AND column_name = 'status_floor'`)).toEqual([{ n: 0 }]);
    } finally {
      await ds.destroy();
      await db.drop();
    }
  });
});
