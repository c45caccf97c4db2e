import { Logger } from '@nestjs/common';
import { CustomerCreatedV1, CustomerUpdatedV1, type CustomerSnapshot } from '@switchboard/contracts';
import { createEnvelope, InMemoryEventBus } from '@switchboard/platform';
import { ACCOUNTS_READ_MODEL_GROUP } from '../src';
import { claimsOf, startAuth, type AuthTestApp } from './support';

const snapshot = (accountId: string, over: Partial<CustomerSnapshot> = {}): CustomerSnapshot => ({
  accountId,
  name: `Account ${accountId}`,
  shortName: 'AC',
  status: 'active',
  active: 1,
  currency: 'USD',
  tps: 10,
  dailyLimit: null,
  customSettings: { allow_api_keys: true },
  genSettings: {},
  createdAt: '2030-01-01T00:00:00.000Z',
  ...over,
});

describe('the account read model follows the accounts service', () => {
  let a: AuthTestApp;
  const password = 'correct horse battery';
  let userId: string;
  let minute = 0;

  beforeAll(async () => {
    a = await startAuth();
    userId = (await a.seed.createUser({ email: 'member@example.com', password })).id;
  });
  afterAll(async () => {
    await a?.close();
  });

  const at = () => new Date(Date.UTC(2030, 0, 1, 0, ++minute));
  const publish = async (...events: ReturnType<typeof createEnvelope>[]) => {
    await a.t.bus.publish(events);
    await (a.t.bus as InMemoryEventBus).drain();
  };
  const created = (id: string, over: Partial<CustomerSnapshot> = {}, occurredAt = at()) => createEnvelope(CustomerCreatedV1, snapshot(id, over), { accountId: id, source: 'accounts', occurredAt });
  const updated = (id: string, over: Partial<CustomerSnapshot> = {}, occurredAt = at()) => createEnvelope(CustomerUpdatedV1, snapshot(id, over), { accountId: id, source: 'accounts', occurredAt });
  const row = async (id: string) => (await a.sql(`SELECT id::text, name, short_name, status, currency, active FROM auth.account WHERE id = $1`, [id]))[0];

  it('inserts a created customer with its own id, once per event', async () => {
    const e = created('501', { name: 'Globex' });
    await publish(e, e);
    expect(await row('501')).toEqual({ id: '501', name: 'Globex', short_name: 'AC', status: 'active', currency: 'USD', active: 1 });
    expect(await a.sql(`SELECT count(*)::int AS n FROM auth.processed_events WHERE consumer = $1 AND event_id = $2`, [ACCOUNTS_READ_MODEL_GROUP, e.id])).toEqual([{ n: 1 }]);
  });

  it('follows updates, and an older snapshot arriving late changes nothing', async () => {
    await publish(created('502', { name: 'Initech' }));
    const newer = updated('502', { name: 'Initech Global', status: 'restrict' });
    const older = updated('502', { name: 'Initech Old' }, new Date(Date.UTC(2029, 0, 1)));
    await publish(newer, older);
    expect(await row('502')).toMatchObject({ name: 'Initech Global', status: 'restrict' });
  });

  it('a disabled account cannot be switched into; a deleted one no longer exists for its members', async () => {
    await publish(created('503', { name: 'Hooli' }));
    await a.seed.addMember({ userId, accountId: '503', status: 2 });
    await publish(created('504', { name: 'Other' }));
    await a.seed.addMember({ userId, accountId: '504', status: 2 });
    const s = await a.signIn('member@example.com', password);
    const into = () => a.call('PUT', '/users/connected_update', { token: s.token, body: { customer: 503 } });
    expect((await into()).status).toBe(200);

    await publish(updated('503', { name: 'Hooli', status: 'disable' }));
    const refused = await into();
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('ACCESS_DENIED');
    const profile = await a.call<{ customers: Array<{ id: number; status: string; active: number }> }>('GET', '/users/connected', { token: s.token });
    expect(profile.body.customers.find((c) => c.id === 503)).toMatchObject({ status: 'disable', active: 0 });

    await publish(updated('503', { name: 'Hooli', status: 'delete' }));
    expect((await into()).status).toBe(404);
    await publish(updated('503', { name: 'Hooli', status: 'active' }));
    expect((await into()).status).toBe(200);
  });

  it('overwrites a row written by seeding, and seeding after projected ids does not collide', async () => {
    const seeded = await a.seed.createAccount({ id: '600', name: 'Seeded name' });
    expect(seeded.id).toBe('600');
    await publish(created('600', { name: 'The real name' }));
    expect(await row('600')).toMatchObject({ name: 'The real name' });
    const next = await a.seed.createAccount({ name: 'Made by seeding' });
    expect(Number(next.id)).toBeGreaterThan(600);
  });

  it('opens a session straight in the only account a member has, as the snapshot names it', async () => {
    const u = await a.seed.createUser({ email: 'solo@example.com', password });
    await publish(created('700', { name: 'Solo' }));
    await a.seed.addMember({ userId: u.id, accountId: '700', status: 0 });
    const s = await a.signIn('solo@example.com', password);
    expect(claimsOf(s.token).acc).toBe('700');
  });

  it('ignores events it does not know and malformed snapshots without stalling', async () => {
    const malformed = { ...created('800'), data: { accountId: '800', name: 'Broken' } };
    const unknown = { ...created('801'), type: 'accounts.customer.renamed' };
    const quiet = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      await publish(malformed as ReturnType<typeof created>, unknown as ReturnType<typeof created>, created('802', { name: 'After' }));
      expect(quiet).toHaveBeenCalledWith(expect.stringContaining('ignored malformed accounts.customer.created'));
    } finally {
      quiet.mockRestore();
    }
    expect(await row('800')).toBeUndefined();
    expect(await row('801')).toBeUndefined();
    expect(await row('802')).toMatchObject({ name: 'After' });
  });
});
