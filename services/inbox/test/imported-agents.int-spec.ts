import { ALL_PERMISSIONS, ImportedAgentsAdmittedV1, type EventData } from '@switchboard/contracts';
import { createEnvelope, DATABASE_URL, InMemoryEventBus, isInfrastructureError } from '@switchboard/platform';
import { createTestApp, CuttableLink, recordHandleFailures, serviceHarness, type ServiceHarness } from '@switchboard/platform/testing';
import { InboxImportedAgentsConsumer, InboxModule } from '../src';
import { memberEvent, type Json } from './support';

type Admitted = EventData<typeof ImportedAgentsAdmittedV1>;

/**
 * CRM users an integration imported join the inbox space its config names and a team per CRM profile
 * (docs/decisions/0063): created once, found again by name, per account, and through a database outage.
 */
describe('imported CRM agents placed in the space and teams of the integration config', () => {
  let h: ServiceHarness;
  let link: CuttableLink;
  let consumer: InboxImportedAgentsConsumer;
  const admin = (acc: string) => h.t.token({ sub: `${acc}00`, acc, perms: [...ALL_PERMISSIONS] });
  const event = (d: Partial<Admitted> & Pick<Admitted, 'accountId' | 'agents'>, envelopeAccount = d.accountId) => {
    const data: Admitted = { integrationKey: '3f2b8c1e-5d4a-4e6f-9a10-7b2c3d4e5f60', type: 'hubspot', sourceEventId: 'e1', spaceName: 'Sales floor', importTeams: 'profiles', ...d };
    return createEnvelope(ImportedAgentsAdmittedV1, data, { source: 'auth', accountId: envelopeAccount });
  };
  /** The account's spaces with their teams and each team's agents, as the console reads them. */
  const layout = async (acc: string): Promise<Record<string, Record<string, string[]>>> => {
    const out: Record<string, Record<string, string[]>> = {};
    for (const s of (await h.call<Json>('GET', '/spaces', { token: admin(acc) })).body.items as Json[]) {
      const teams = (await h.call<Json>('GET', `/teams?space=${s.id}`, { token: admin(acc) })).body.items as Json[];
      out[s.name] = Object.fromEntries(teams.map((t) => [t.name, (t.agents as string[]).map((a) => a.replace('/api/agents/', '')).sort()]));
    }
    return out;
  };

  beforeAll(async () => {
    link = await new CuttableLink().start();
    const bus = new InMemoryEventBus();
    const t = await createTestApp(({ db }) => {
      const u = new URL(db.url);
      link.target = { host: u.hostname, port: Number(u.port) };
      u.host = `127.0.0.1:${link.port}`;
      // the inbox reaches PostgreSQL through the link
      return { imports: [InboxModule.register({})], bus, override: (b) => b.overrideProvider(DATABASE_URL).useValue(u.toString()) };
    });
    h = await serviceHarness(t, bus);
    consumer = t.app.get(InboxImportedAgentsConsumer);
    await h.publish(['11', '12', '13', '14'].map((u) => memberEvent('1', u)).concat([memberEvent('2', '21')]));
  }, 60_000);

  afterAll(async () => {
    await h?.close();
    await link?.stop();
  });

  it('creates the space of the config with a team per CRM profile; agents without a profile join the team named after the space', async () => {
    await h.publish([
      event({
        accountId: '1',
        agents: [
          { userId: '11', profiles: [{ id: '100', name: 'Sales' }] },
          { userId: '12', profiles: [{ id: '100', name: 'Sales' }, { id: '200', name: 'Support' }] },
          { userId: '13', profiles: [] },
        ],
      }),
    ]);
    expect(await layout('1')).toEqual({ 'Sales floor': { Sales: ['11', '12'], Support: ['12'], 'Sales floor': ['13'] } });
    // an agent sees the space (a team member of it), and the AI routes learn its members (decision 0050)
    const mine = await h.call<Json>('GET', '/spaces', { token: h.t.token({ sub: '13', acc: '1', perms: ['INBOX_VIEW'] }) });
    expect((mine.body.items as Json[]).map((s) => s.name)).toEqual(['Sales floor']);
    const [access] = await h.sql(`SELECT payload FROM inbox.outbox WHERE type = 'inbox.space_access.changed' AND key = '1' ORDER BY id DESC LIMIT 1`);
    expect((access.payload as Json).data.spaces[0].members).toEqual(['11', '12', '13']);
    // the other account has no space
    expect(await layout('2')).toEqual({});
  });

  it('adds nobody twice and creates nothing twice: a redelivery, a later import, the space name in another case', async () => {
    const again = event({ accountId: '1', agents: [{ userId: '11', profiles: [{ id: '100', name: 'Sales' }] }] });
    expect(await consumer.handle(again)).not.toBeNull();
    expect(await consumer.handle(again)).toBeNull();
    await h.publish([
      event({ accountId: '1', spaceName: 'SALES FLOOR', agents: [{ userId: '11', profiles: [{ id: '100', name: 'sales' }] }, { userId: '14', profiles: [{ id: '300', name: 'Billing' }] }] }),
    ]);
    expect(await layout('1')).toEqual({ 'Sales floor': { Sales: ['11', '12'], Support: ['12'], 'Sales floor': ['13'], Billing: ['14'] } });
    expect(await h.sql(`SELECT count(*)::int AS n FROM inbox.team_agent WHERE account_id = 1`)).toEqual([{ n: 5 }]);
  });

  it('joins a space the account already has; without teams every agent joins the team named after the space', async () => {
    const space = await h.call<Json>('POST', '/spaces', { body: { name: 'Night shift' }, token: admin('2') });
    expect(space.status).toBe(201);
    await h.publish([event({ accountId: '2', spaceName: 'Night shift', importTeams: 'none', agents: [{ userId: '21', profiles: [{ id: '100', name: 'Sales' }] }] })]);
    expect(await layout('2')).toEqual({ 'Night shift': { 'Night shift': ['21'] } });
    expect(await h.sql(`SELECT count(*)::int AS n FROM inbox.space WHERE account_id = 2`)).toEqual([{ n: 1 }]);
  });

  it('refuses an event whose envelope names another account than its data', async () => {
    const before = await layout('2');
    expect(await consumer.handle(event({ accountId: '2', spaceName: 'Taken over', agents: [{ userId: '11', profiles: [] }] }, '1'))).toBeNull();
    expect(await layout('2')).toEqual(before);
    expect(Object.keys(await layout('1'))).toEqual(['Sales floor']);
  });

  it("moves an agent who changed profile and takes a removed one out of the integration's teams only: an admin's own membership stays, another account is untouched", async () => {
    const K = '9d1c2b3a-4e5f-4a6b-8c7d-0e1f2a3b4c5d';
    await h.publish(['31', '32', '33'].map((u) => memberEvent('3', u)).concat([memberEvent('4', '41')]));
    await h.publish([
      event({ accountId: '3', integrationKey: K, spaceName: 'Desk', agents: [{ userId: '31', profiles: [{ id: '1', name: 'Sales' }] }, { userId: '32', profiles: [{ id: '1', name: 'Sales' }] }, { userId: '33', profiles: [{ id: '2', name: 'Support' }] }] }),
      event({ accountId: '4', integrationKey: K, spaceName: 'Desk', agents: [{ userId: '41', profiles: [{ id: '1', name: 'Sales' }] }] }),
    ]);
    expect(await layout('3')).toEqual({ Desk: { Sales: ['31', '32'], Support: ['33'] } });
    // the account's admin puts 33 in Sales too, and 31 in a team of their own
    const teams = (await h.call<Json>('GET', '/teams', { token: admin('3') })).body.items as Json[];
    const sales = teams.find((t) => t.name === 'Sales') as Json;
    expect((await h.call('PUT', `/teams/${sales.id}`, { body: { agents: ['31', '32', '33'] }, token: admin('3') })).status).toBe(200);
    const desk = (await h.call<Json>('GET', '/spaces', { token: admin('3') })).body.items[0] as Json;
    expect((await h.call('POST', '/teams', { body: { name: 'Night', space: String(desk.id), agents: ['31'] }, token: admin('3') })).status).toBe(201);

    // the next sync of users: 32 moved to Support, 31 left (deactivated in the CRM); 41 named by account 3 is not its to take
    const change = event({ accountId: '3', integrationKey: K, spaceName: 'Desk', agents: [{ userId: '32', profiles: [{ id: '2', name: 'Support' }] }], removed: ['31', '41'] });
    expect(await consumer.handle(change)).not.toBeNull();
    expect(await layout('3')).toEqual({ Desk: { Sales: ['33'], Support: ['32', '33'], Night: ['31'] } });
    expect(await layout('4')).toEqual({ Desk: { Sales: ['41'] } });
    // once: the same event again changes nothing
    expect(await consumer.handle(change)).toBeNull();
    expect(await layout('3')).toEqual({ Desk: { Sales: ['33'], Support: ['32', '33'], Night: ['31'] } });
    // an event naming account 4 in its data under account 3's envelope is refused
    expect(await consumer.handle(event({ accountId: '4', integrationKey: K, spaceName: 'Desk', agents: [], removed: ['41'] }, '3'))).toBeNull();
    expect(await layout('4')).toEqual({ Desk: { Sales: ['41'] } });
    // the AI routes learn that 31 left the Support/Sales teams but is still in the space through the admin's team
    const [access] = await h.sql(`SELECT payload FROM inbox.outbox WHERE type = 'inbox.space_access.changed' AND key = '3' ORDER BY id DESC LIMIT 1`);
    expect((access.payload as Json).data.spaces[0].members).toEqual(['31', '32', '33']);
    // a removal alone (no agents listed) still applies: 33 leaves Support, keeps the admin's Sales
    await h.publish([event({ accountId: '3', integrationKey: K, spaceName: 'Desk', agents: [], removed: ['33'] })]);
    expect(await layout('3')).toEqual({ Desk: { Sales: ['33'], Support: ['32'], Night: ['31'] } });
  });

  it('retries a removal while the database cannot be reached, then applies it once', async () => {
    const K = '9d1c2b3a-4e5f-4a6b-8c7d-0e1f2a3b4c5d';
    const { failures, atLeast, restore } = recordHandleFailures(consumer);
    link.cut();
    await h.bus.publish([event({ accountId: '3', integrationKey: K, spaceName: 'Desk', agents: [], removed: ['32'] })]);
    await atLeast(3);
    link.restore();
    await h.bus.drain();
    restore();
    expect(failures.length).toBeGreaterThanOrEqual(3);
    expect(failures.every((f) => isInfrastructureError(f))).toBe(true);
    expect(await layout('3')).toEqual({ Desk: { Sales: ['33'], Support: [], Night: ['31'] } });
    expect(await h.sql(`SELECT count(*)::int AS n FROM inbox.dead_letter`)).toEqual([{ n: 0 }]);
  });

  it('retries the same event while the database cannot be reached, then applies it once', async () => {
    const { failures, atLeast } = recordHandleFailures(consumer);
    link.cut();
    await h.bus.publish([event({ accountId: '1', spaceName: 'Weekend', agents: [{ userId: '12', profiles: [{ id: '200', name: 'Support' }] }] })]);
    await atLeast(3);
    expect(failures.length).toBeGreaterThanOrEqual(3);
    expect(failures.every((f) => isInfrastructureError(f))).toBe(true);
    link.restore();
    await h.bus.drain();
    expect((await layout('1')).Weekend).toEqual({ Support: ['12'] });
    expect(await h.sql(`SELECT count(*)::int AS n FROM inbox.dead_letter`)).toEqual([{ n: 0 }]);
  });
});
