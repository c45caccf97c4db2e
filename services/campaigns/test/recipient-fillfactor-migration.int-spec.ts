import { randomUUID } from 'node:crypto';
import { openServiceDataSource } from '@switchboard/platform';
import { createTestDatabase } from '@switchboard/platform/testing';
import { CAMPAIGNS_MIGRATIONS } from '../src';
import { CampaignsRecipientFillfactor1799000000215 } from '../src/migrations/1799000000215-recipient-fillfactor';

/** The migrations up to and including 0215's. */
const UP_TO_0215 = CAMPAIGNS_MIGRATIONS.indexOf(CampaignsRecipientFillfactor1799000000215) + 1;

/**
 * docs/decisions/0215: `campaigns.recipient` gets fillfactor 30 without a rewrite (its file stays, its rows with it),
 * so an upgrade needs no process stopped; the down migration puts 0207's 50 back.
 */
describe('recipient fillfactor: the migration', () => {
  it('sets fillfactor 30 without rewriting the table, and goes back down to 50', async () => {
    const db = await createTestDatabase('crecipff');
    let ds = await openServiceDataSource({ name: 'campaigns-ff-old', url: db.url, schema: 'campaigns', entities: [], migrations: CAMPAIGNS_MIGRATIONS.slice(0, UP_TO_0215 - 1), migrationsRun: true });
    try {
      await ds.query(`INSERT INTO campaigns.campaign (id, account_id, name, status) OVERRIDING SYSTEM VALUE VALUES (1, 77, 'c1', 6)`);
      for (let ordinal = 1; ordinal <= 3; ordinal++) {
        await ds.query(
          `INSERT INTO campaigns.recipient (campaign_id, ordinal, account_id, contact_id, occurrence, message_uuid, phone, state, status) VALUES (1, $1::int, 77, $1::bigint, 0, $2, '+4915100000001', 3, $3)`,
          [ordinal, randomUUID(), ordinal === 1 ? 'sent' : null],
        );
      }
      const table = async () =>
        (await ds.query<Array<{ node: string; options: string[] | null }>>(`SELECT relfilenode::text AS node, reloptions AS options FROM pg_class WHERE oid = 'campaigns.recipient'::regclass`))[0];
      const before = await table();
      expect(before.options).toEqual(['fillfactor=50']);

      await ds.destroy();
      ds = await openServiceDataSource({ name: 'campaigns-ff-new', url: db.url, schema: 'campaigns', entities: [], migrations: CAMPAIGNS_MIGRATIONS.slice(0, UP_TO_0215), migrationsRun: true });
      const after = await table();
      expect(after.options).toEqual(['fillfactor=30']);
      // no rewrite: the same file, so no exclusive lock held while the table is copied
      expect(after.node).toBe(before.node);
      expect(await ds.query(`SELECT ordinal, state, status FROM campaigns.recipient ORDER BY ordinal`)).toEqual([
        { ordinal: 1, state: 3, status: 'sent' },
        { ordinal: 2, state: 3, status: null },
        { ordinal: 3, state: 3, status: null },
      ]);

      await ds.undoLastMigration();
      expect((await table()).options).toEqual(['fillfactor=50']);
      expect((await table()).node).toBe(before.node);
    } finally {
      await ds.destroy();
      await db.drop();
    }
  }, 120_000);
});
