import { createEnvelope } from '../bus/event-bus';
import { InMemoryEventBus } from '../bus/in-memory-event-bus';
import { silentLogger } from '../bus/test-support';
import { AccountStatus, BalanceAdjustedV1, CustomerCreatedV1, CustomerUpdatedV1, type CustomerSnapshot } from '@switchboard/contracts';
import type { Principal } from '../context/request-context';
import { AppError } from '../errors/app-error';
import type { AccessRule } from '../http/decorators';
import { applyAccountEvent, assertAccountOpen, InMemoryAccountDirectory, isClosedAccountStatus, registerAccountDirectoryConsumer } from './account-directory';

const snapshot = (accountId: string, status: CustomerSnapshot['status']): CustomerSnapshot => ({
  accountId,
  name: `Account ${accountId}`,
  shortName: null,
  status,
  active: 1,
  currency: 'EUR',
  tps: 10,
  dailyLimit: null,
  customSettings: {},
  genSettings: {},
  createdAt: '2030-01-01T00:00:00.000Z',
});

const meta = (at: string) => ({ accountId: null, source: 'accounts', occurredAt: new Date(at) });

describe('InMemoryAccountDirectory', () => {
  it('knows nothing of an account it has not heard of', () => {
    expect(new InMemoryAccountDirectory().status('1')).toBeUndefined();
  });

  it('follows created and updated snapshots', () => {
    const d = new InMemoryAccountDirectory();
    expect(applyAccountEvent(d, createEnvelope(CustomerCreatedV1, snapshot('7', 'active'), meta('2030-01-01T00:00:00Z')))).toBe(true);
    expect(d.status('7')).toBe('active');
    applyAccountEvent(d, createEnvelope(CustomerUpdatedV1, { ...snapshot('7', 'disable'), previousStatus: 'active' }, meta('2030-01-01T00:01:00Z')));
    expect(d.status('7')).toBe('disable');
  });

  it('keeps the newer status when an older snapshot arrives late', () => {
    const d = new InMemoryAccountDirectory();
    applyAccountEvent(d, createEnvelope(CustomerUpdatedV1, snapshot('7', 'delete'), meta('2030-01-01T00:02:00Z')));
    expect(applyAccountEvent(d, createEnvelope(CustomerUpdatedV1, snapshot('7', 'active'), meta('2030-01-01T00:01:00Z')))).toBe(false);
    expect(d.status('7')).toBe('delete');
  });

  it('ignores other events, other versions and malformed snapshots', () => {
    const d = new InMemoryAccountDirectory();
    const balance = createEnvelope(BalanceAdjustedV1, { accountId: '7', adjustmentId: '3b241101-e2bb-4255-8caf-4136c566a962', amountMicros: 5, currency: 'EUR', reason: 'x' }, meta('2030-01-01T00:00:00Z'));
    expect(applyAccountEvent(d, balance)).toBe(false);
    const v2 = { ...createEnvelope(CustomerCreatedV1, snapshot('7', 'active'), meta('2030-01-01T00:00:00Z')), version: 2 };
    expect(applyAccountEvent(d, v2)).toBe(false);
    expect(applyAccountEvent(d, { type: CustomerUpdatedV1.type, version: 1, occurredAt: '2030-01-01T00:00:00Z', data: { accountId: '7', status: 'frozen' } })).toBe(false);
    expect(d.size).toBe(0);
  });

  it('calls disabled and deleted accounts closed, and nothing else', () => {
    expect([AccountStatus.Active, AccountStatus.Restrict, AccountStatus.Disable, AccountStatus.Delete, undefined].map(isClosedAccountStatus)).toEqual([false, false, true, true, false]);
  });

  it('is fed by the accounts topic once registered on a bus', async () => {
    const bus = new InMemoryEventBus({ logger: silentLogger() });
    const d = new InMemoryAccountDirectory();
    await registerAccountDirectoryConsumer(bus, d, 'test.account-directory');
    await bus.start();
    await bus.publish([
      createEnvelope(CustomerCreatedV1, snapshot('1', 'active'), meta('2030-01-01T00:00:00Z')),
      createEnvelope(CustomerCreatedV1, snapshot('2', 'restrict'), meta('2030-01-01T00:00:00Z')),
      createEnvelope(CustomerUpdatedV1, snapshot('1', 'disable'), meta('2030-01-01T00:00:01Z')),
    ]);
    await bus.drain();
    expect([d.status('1'), d.status('2')]).toEqual(['disable', 'restrict']);
    await bus.stop();
  });
});

describe('assertAccountOpen (the access guard check)', () => {
  const directory = new InMemoryAccountDirectory();
  directory.apply('1', 'active', 1);
  directory.apply('2', 'disable', 1);
  directory.apply('3', 'delete', 1);
  directory.apply('4', 'restrict', 1);
  const member = (accountId: string | null, superAdmin = false): Principal => ({
    kind: 'user',
    userId: '9',
    email: 'm@example.com',
    accountId,
    permissions: ['STREAM_VIEW'],
    roles: ['ROLE_USER'],
    superAdmin,
  });
  const gated: AccessRule = { kind: 'permissions', permissions: ['STREAM_VIEW'] };
  const refusal = (fn: () => void): unknown => {
    try {
      fn();
      return null;
    } catch (e) {
      return e instanceof AppError ? { status: e.status, code: e.code } : e;
    }
  };

  it('refuses a member in a disabled or deleted account with 403 ACCESS_DENIED', () => {
    expect(refusal(() => assertAccountOpen(directory, gated, member('2')))).toEqual({ status: 403, code: 'ACCESS_DENIED' });
    expect(refusal(() => assertAccountOpen(directory, { kind: 'authenticated', accountRequired: true }, member('3')))).toEqual({ status: 403, code: 'ACCESS_DENIED' });
  });

  it('lets active, restricted and not-yet-known accounts through', () => {
    for (const id of ['1', '4', '99']) expect(refusal(() => assertAccountOpen(directory, gated, member(id)))).toBeNull();
  });

  it('lets super admins into closed accounts, and leaves routes without an account open', () => {
    expect(refusal(() => assertAccountOpen(directory, gated, member('2', true)))).toBeNull();
    expect(refusal(() => assertAccountOpen(directory, { kind: 'authenticated', accountRequired: false }, member('2')))).toBeNull();
    expect(refusal(() => assertAccountOpen(directory, { kind: 'public' }, member('2')))).toBeNull();
    expect(refusal(() => assertAccountOpen(undefined, gated, member('2')))).toBeNull();
  });
});
