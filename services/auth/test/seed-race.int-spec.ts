import { CustomerCreatedV1 } from '@switchboard/contracts';
import { createEnvelope } from '@switchboard/platform';
import { AccountsReadModelConsumer } from '../src';
import { AccountRepository } from '../src/repositories';
import { startAuth, type AuthTestApp } from './support';

/**
 * Distributed mode starts auth and accounts together: auth's seed records the demo account by name while the accounts
 * service's snapshot of the same account may be on its way. Seen in CI under load: the snapshot was applied between
 * the seed's look-up and its insert, the seed recorded a second "Demo account", and the super administrator (owner of
 * the second, seeing two) signed in with no account, so nothing after the sign-in worked.
 */
describe('the seed and the accounts service recording the demo account at the same moment', () => {
  let a: AuthTestApp;

  beforeAll(async () => {
    a = await startAuth();
  });
  afterAll(async () => {
    await a?.close();
  });

  it('leave one account, owned by the administrator, with the accounts service id', async () => {
    const accounts = a.t.app.get(AccountRepository);
    const consumer = a.t.app.get(AccountsReadModelConsumer);
    const [{ next }] = await a.sql<{ next: string }>(`SELECT (COALESCE(max(id), 0) + 1)::text AS next FROM auth.account`);
    const event = createEnvelope(
      CustomerCreatedV1,
      { accountId: next, name: 'Demo account', shortName: 'DA', status: 'active', active: 1, currency: 'EUR', tps: 10, dailyLimit: null, customSettings: {}, genSettings: {}, createdAt: new Date().toISOString() },
      { accountId: next, source: 'accounts' },
    );
    // the snapshot arrives right after the seed looked the name up: it either completes at once (the seed then inserts
    // behind it) or waits for the seed's transaction (an advisory lock wait); the look-up answers once either is seen
    let applied: Promise<boolean> | undefined;
    const findByName = accounts.findByName.bind(accounts);
    const spy = jest.spyOn(accounts, 'findByName').mockImplementationOnce(async (name, m) => {
      const found = await findByName(name, m);
      applied = consumer.handle(event);
      let settled = false;
      void applied.finally(() => (settled = true));
      for (let i = 0; !settled; i++) {
        const [{ waiting }] = await a.sql<{ waiting: number }>(`SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND wait_event = 'advisory'`);
        if (waiting > 0) break;
        if (i > 400) throw new Error('the snapshot neither completed nor waited');
        await new Promise((r) => setTimeout(r, 25));
      }
      return found;
    });
    try {
      const seeded = await a.seed.seed({ adminEmail: 'ops@example.com', adminPassword: 'correct horse battery', demoAccountName: 'Demo account' });
      expect(await applied).toBe(true);
      const rows = await a.sql<{ id: string; short_name: string; from_accounts: boolean }>(
        `SELECT id::text, short_name, snapshot_at IS NOT NULL AS from_accounts FROM auth.account WHERE name = 'Demo account'`,
      );
      expect(rows).toEqual([{ id: next, short_name: 'DA', from_accounts: true }]);
      expect(seeded.demoAccountId).toBe(next);
      expect(await a.sql(`SELECT account_id::text FROM auth.membership WHERE user_id = $1`, [seeded.adminUserId])).toEqual([{ account_id: next }]);
    } finally {
      spy.mockRestore();
    }
  });
});
