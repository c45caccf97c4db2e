import { Pool } from 'pg';
import { AgentsImported, ALL_PERMISSIONS, ImportedAgentsAdmittedV1, type EventEnvelope } from '@switchboard/contracts';
import { createEnvelope, InMemoryEventBus } from '@switchboard/platform';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { AuthBootstrapService, AuthModule, ImportedAgentsConsumer } from '@switchboard/auth';
import { InboxImportedAgentsConsumer, InboxModule } from '@switchboard/inbox';
import { IntegrationsModule, IntegrationsOutboxRelay, ManualClock, SyncWorker } from '@switchboard/integrations';
import { HubSpotServer } from '@switchboard/integrations/testing';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers are read field by field

/**
 * CRM users chosen on the completion screen become inbox agents: integrations, auth and inbox booted together on the
 * bus, as the embedded server runs them, against a local HubSpot. The agents appear in the inbox's agent list of the
 * account that connected the CRM, and of no other.
 */
describe('CRM users imported as inbox agents', () => {
  let t: TestApp;
  let pool: Pool;
  let hs: HubSpotServer;
  const clock = new ManualClock(Date.parse('2026-03-02T10:00:00Z'));
  const imported: EventEnvelope[] = [];
  const admitted: EventEnvelope[] = [];
  let key = '';
  const [ACC, OTHER] = ['71', '72'];

  const token = (acc: string) => t.token({ sub: `${acc}01`, acc, perms: [...ALL_PERMISSIONS] });
  const call = async (method: string, path: string, body?: unknown, acc = ACC): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${t.url}/api${path}`, { method, headers: { authorization: `Bearer ${token(acc)}`, accept: 'application/json', 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
  };
  const sql = async <R = Json>(text: string, values: unknown[] = []) => (await pool.query(text, values)).rows as R[];
  const agents = async (acc: string) => ((await call('GET', '/agents/manager', undefined, acc)).body.items as Json[]).map((a) => a.email as string).sort();
  /** The account's inbox spaces, their teams and each team's agents by address, as the console reads them. */
  const inboxLayout = async (acc: string): Promise<Record<string, Record<string, string[]>>> => {
    const emails = new Map(((await call('GET', '/agents/manager', undefined, acc)).body.items as Json[]).map((a) => [String(a.id), a.email as string]));
    const out: Record<string, Record<string, string[]>> = {};
    for (const s of (await call('GET', '/spaces', undefined, acc)).body.items as Json[]) {
      const teams = (await call('GET', `/teams?space=${s.id}`, undefined, acc)).body.items as Json[];
      out[s.name] = Object.fromEntries(teams.map((tm) => [tm.name, (tm.agents as string[]).map((a) => emails.get(a.replace('/api/agents/', '')) ?? a).sort()]));
    }
    return out;
  };
  const until = async <T>(read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> => {
    let v = await read();
    for (let i = 0; i < 100 && !ok(v); i++) {
      await (t.bus as InMemoryEventBus).drain();
      await new Promise((r) => setTimeout(r, 50));
      v = await read();
    }
    return v;
  };

  beforeAll(async () => {
    hs = await new HubSpotServer('hs-client', 'hs-secret-value', () => clock.now().getTime()).start();
    hs.users.push({ id: '14', email: 'Dee@Acme.test', firstName: 'Dee', lastName: 'Sales', roleId: '100', superAdmin: false });
    t = await createTestApp(({ keys }) => ({
      imports: [
        AuthModule.register({ privateKey: keys.privateKey, captcha: 'none', appUrl: 'http://console.test' }),
        InboxModule.register({}),
        IntegrationsModule.register({ secret: 'integration-agents-test-secret', appUrl: 'http://console.test', clock, allowPrivateUrls: true, pollMs: 0, endpoints: { hubspot: { apiUrl: hs.url } } }),
      ],
    }));
    const bus = t.bus as InMemoryEventBus;
    const original = bus.publish.bind(bus);
    bus.publish = async (events) => {
      imported.push(...(events as EventEnvelope[]).filter((e) => e.type === AgentsImported.type));
      admitted.push(...(events as EventEnvelope[]).filter((e) => e.type === ImportedAgentsAdmittedV1.type));
      return original(events);
    };
    pool = new Pool({ connectionString: t.db.url, max: 2 });
    const seed = t.app.get(AuthBootstrapService);
    await seed.createAccount({ id: ACC, name: 'Acme' });
    await seed.createAccount({ id: OTHER, name: 'Other' });
    // bob is already a member of the other account: his place there stays as it is
    const bob = await seed.createUser({ email: 'bob@acme.test', password: 'Another-Passw0rd!', firstName: 'Bob', lastName: 'Sales' });
    await seed.addMember({ userId: bob.id, accountId: OTHER, platformRoleId: null, inboxRoleId: null, status: 2 });
  }, 90000);

  afterAll(async () => {
    await pool?.end();
    await t?.close();
    await hs?.stop();
  });

  it('makes the chosen profiles inbox agents of the connecting account, invited, and of no other account', async () => {
    const r = await call('POST', '/integration_keys', { type: 'hubspot', apiKey: 'pat-na1-valid' });
    expect(r.status).toBe(201);
    key = r.body.key as string;
    expect((await call('POST', `/integration_config/${key}`, { space_name: 'CRM agents', import_users: { type: 'profiles', profiles: ['100'] } })).status).toBe(200);
    expect((await call('GET', `/integration_config/${key}/start`)).status).toBe(200);
    await t.app.get(SyncWorker).drain();
    await t.app.get(IntegrationsOutboxRelay).relay.flush();

    const listed = await until(() => agents(ACC), (v) => v.length === 2);
    expect(listed).toEqual(['bob@acme.test', 'dee@acme.test']);
    const items = (await call('GET', '/agents/manager')).body.items as Json[];
    expect(items.find((a) => a.email === 'dee@acme.test')).toMatchObject({ firstname: 'Dee', lastname: 'Sales', userRoles: ['Inbox Agent'] });
    // the admin and the support profile were not chosen; the other account gets nobody
    expect(await agents(OTHER)).toEqual([]);
    const places = await sql<{ email: string; account_id: string; status: number }>(
      `SELECT u.email, ms.account_id::text, ms.status FROM auth.membership ms JOIN auth.app_user u ON u.id = ms.user_id WHERE u.email LIKE '%@acme.test' ORDER BY u.email, ms.account_id`,
    );
    expect(places).toEqual([
      { email: 'bob@acme.test', account_id: ACC, status: 1 },
      { email: 'bob@acme.test', account_id: OTHER, status: 2 },
      { email: 'dee@acme.test', account_id: ACC, status: 1 },
    ]);
    // each is invited (pending: they cannot enter the account before they accept); the new address has no password yet
    const mails = t.mailbox.list().filter((m) => /inbox agent/.test(m.text));
    expect(mails.map((m) => m.to).sort()).toEqual(['bob@acme.test', 'dee@acme.test']);
    expect((await sql(`SELECT password_hash FROM auth.app_user WHERE email = 'dee@acme.test'`))[0].password_hash).toBe('');
  });

  it('puts them in the space of the config and a team per CRM profile, in the connecting account only', async () => {
    const layout = await until(() => inboxLayout(ACC), (v) => Object.keys(v).length > 0);
    expect(layout).toEqual({ 'CRM agents': { Sales: ['bob@acme.test', 'dee@acme.test'] } });
    expect(await inboxLayout(OTHER)).toEqual({});

    // a second import with every user: the same space and team, the admin (no profile) in the space's own team, the
    // support profile in its own; nobody twice
    expect((await call('POST', `/integration_config/${key}`, { space_name: 'CRM agents', import_users: { type: 'all' }, import_teams: { type: 'profiles' } })).status).toBe(200);
    expect((await call('GET', `/integration_config/${key}/start`)).status).toBe(200);
    await t.app.get(SyncWorker).drain();
    await t.app.get(IntegrationsOutboxRelay).relay.flush();
    const all = await until(() => inboxLayout(ACC), (v) => Object.keys(v['CRM agents'] ?? {}).length === 3);
    expect(all).toEqual({ 'CRM agents': { Sales: ['bob@acme.test', 'dee@acme.test'], Support: ['cid@acme.test'], 'CRM agents': ['ann@acme.test'] } });
    expect(await sql(`SELECT count(*)::int AS n FROM inbox.team_agent WHERE account_id = $1`, [ACC])).toEqual([{ n: 4 }]);
    expect(await inboxLayout(OTHER)).toEqual({});
    // a redelivered placement changes nothing
    expect(admitted.length).toBeGreaterThanOrEqual(2);
    expect(await t.app.get(InboxImportedAgentsConsumer).handle(admitted[0])).toBeNull();
  });

  it('at the next sync of users, moves a CRM user who changed profile to its team and takes one deleted in the CRM out of the teams, in the connecting account only', async () => {
    const before = await inboxLayout(ACC);
    expect(before).toEqual({ 'CRM agents': { Sales: ['bob@acme.test', 'dee@acme.test'], Support: ['cid@acme.test'], 'CRM agents': ['ann@acme.test'] } });
    const importedBefore = imported.length;
    const mailsBefore = t.mailbox.list(200).length;
    // in HubSpot: Dee moves from Sales to Support, Cid is deleted
    (hs.users.find((u) => u.id === '14') as { roleId: string | null }).roleId = '200';
    hs.users = hs.users.filter((u) => u.id !== '13');
    clock.advance(5 * 60_000 + 1000);
    await t.app.get(SyncWorker).drain();
    await t.app.get(IntegrationsOutboxRelay).relay.flush();
    const after = await until(() => inboxLayout(ACC), (v) => JSON.stringify(v['CRM agents']?.Support) === JSON.stringify(['dee@acme.test']));
    expect(after).toEqual({ 'CRM agents': { Sales: ['bob@acme.test'], Support: ['dee@acme.test'], 'CRM agents': ['ann@acme.test'] } });
    expect(await inboxLayout(OTHER)).toEqual({});
    // only the changes were published: Dee with her new profile, Cid removed; nobody was invited again
    const fresh = imported.slice(importedBefore).map((e) => e.data as Json);
    expect(fresh).toHaveLength(1);
    expect(fresh[0]).toMatchObject({ accountId: ACC, integrationKey: key, agents: [{ email: 'Dee@Acme.test', profile: '200', profileName: 'Support' }], removed: [{ externalId: '13', email: 'cid@acme.test' }] });
    expect(t.mailbox.list(200).length).toBe(mailsBefore);
    // Cid stays a member of the account (removing a member is the admin's decision)
    expect(await agents(ACC)).toContain('cid@acme.test');

    // an unchanged CRM publishes nothing at the next run
    clock.advance(5 * 60_000 + 1000);
    await t.app.get(SyncWorker).drain();
    await t.app.get(IntegrationsOutboxRelay).relay.flush();
    expect(imported.length).toBe(importedBefore + 1);
  });

  it('lets a new address register through the invite and join as an active agent', async () => {
    const mail = t.mailbox.list().find((m) => m.to === 'dee@acme.test');
    const [, customerID, inviteID, inviteToken] = /team-member-invite\/(\d+)\/(\d+)\/([\w-]+)/.exec(mail?.text ?? '') ?? [];
    const check = await fetch(`${t.url}/api/user_invites/check`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ customerID, inviteID, inviteToken }) });
    expect(await check.json()).toMatchObject({ status: 1, action: 1, email: 'dee@acme.test' });
    const reg = await fetch(`${t.url}/api/user_invites/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ customerID, inviteID, inviteToken, password: 'Dee-Strong-Passw0rd!', confirmPassword: 'Dee-Strong-Passw0rd!' }) });
    expect(reg.status).toBeLessThan(300);
    const [ms] = await sql<{ status: number; n: string }>(`SELECT ms.status, (SELECT count(*) FROM auth.app_user WHERE email = 'dee@acme.test') AS n FROM auth.membership ms JOIN auth.app_user u ON u.id = ms.user_id WHERE u.email = 'dee@acme.test' AND ms.account_id = $1`, [ACC]);
    expect(ms).toEqual({ status: 2, n: '1' });
    expect(await t.app.get(AuthBootstrapService).passwordWorks('dee@acme.test', 'Dee-Strong-Passw0rd!')).toBe(true);
  });

  it('applies a redelivered event once, and refuses an event whose envelope names another account', async () => {
    const consumer = t.app.get(ImportedAgentsConsumer);
    const mailsBefore = t.mailbox.list(200).length;
    expect(imported.length).toBeGreaterThan(0);
    expect(await consumer.handle(imported[0])).toEqual([]);
    expect(t.mailbox.list(200).length).toBe(mailsBefore);

    const d = { ...(imported[0].data as Json), agents: [{ externalId: '99', email: 'eve@evil.test', firstName: 'Eve', lastName: null, admin: true, profile: null }] };
    const forged = createEnvelope(AgentsImported, d as never, { accountId: OTHER, source: 'integrations' });
    expect(await consumer.handle(forged)).toEqual([]);
    expect(await sql(`SELECT 1 FROM auth.app_user WHERE email = 'eve@evil.test'`)).toEqual([]);
    expect(await agents(ACC)).not.toContain('eve@evil.test');
    expect(await agents(OTHER)).toEqual([]);
  });
});
