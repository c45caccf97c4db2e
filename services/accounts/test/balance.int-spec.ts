import { randomUUID } from 'node:crypto';
import { MessageAcceptedV1, MessageChargedV1, MessageRefundDueV1, Permission, type EventData } from '@switchboard/contracts';
import { createEnvelope } from '@switchboard/platform';
import type { QueryRunner } from 'typeorm';
import { ACCOUNTS_GROUPS } from '../src';
import { MessagingGroupDeadLetters1798200000124 } from '../src/migrations/1798200000124-messaging-group-dead-letters';
import { LedgerEntryAccountKey1798900000222 } from '../src/migrations/1798900000222-ledger-entry-account-key';
import { acceptedMessage, startAccounts, violationPaths, type AccountsTestApp } from './support';

describe('balance ledger and daily usage', () => {
  let a: AccountsTestApp;

  beforeAll(async () => {
    a = await startAccounts({ syncCountries: false });
  });
  afterAll(async () => {
    await a?.close();
  });

  const balanceOf = async (id: string) => (await a.call('GET', `/customers/${id}`, { token: a.member(id) })).body as { balance: number; balanceMicros: string };
  const charge = (accountId: string, messageUuid: string, amountMicros: number): EventData<typeof MessageChargedV1> => ({ messageUuid, accountId, amountMicros, currency: 'EUR', balanceAfterMicros: 0 });

  it('adjusts the balance in decimal units, stores micros, emits BalanceAdjustedV1 and tells the account live', async () => {
    const id = await a.customer();
    const res = await a.call('POST', `/customers/${id}/balance`, { token: a.superAdmin(), body: { amount: '25.125', reason: 'top-up' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ balance: 25.125, balanceMicros: '25125000', currency: 'EUR', currencySign: '€', entry: expect.objectContaining({ kind: 'adjustment', amount: 25.125, reason: 'top-up' }) });
    const off = await a.call('POST', `/customers/${id}/balance`, { token: a.superAdmin(), body: { amount: -5, reason: 'correction' } });
    expect(off.body).toMatchObject({ balance: 20.125 });
    expect(await balanceOf(id)).toMatchObject({ balance: 20.125, balanceMicros: '20125000' });

    const events = (await a.events()).filter((e) => e.type === 'accounts.balance.adjusted' && e.accountId === id);
    expect(events.map((e) => e.data)).toEqual([
      expect.objectContaining({ accountId: id, amountMicros: 25_125_000, currency: 'EUR', reason: 'top-up' }),
      expect.objectContaining({ amountMicros: -5_000_000, reason: 'correction' }),
    ]);
    expect(a.live).toContainEqual(expect.objectContaining({ subject: `rt.${id}.accounts`, type: 'balance.changed', data: expect.objectContaining({ balance: 20.125 }) }));
  });

  it('refuses amounts that are zero, not decimal or too precise, and a blank reason', async () => {
    const id = await a.customer();
    for (const amount of [0, '1e3', '0.0000001', 'ten', null]) {
      const res = await a.call('POST', `/customers/${id}/balance`, { token: a.superAdmin(), body: { amount, reason: 'x' } });
      expect([amount, res.status, violationPaths(res.body)]).toEqual([amount, 400, ['amount']]);
    }
    const blank = await a.call('POST', `/customers/${id}/balance`, { token: a.superAdmin(), body: { amount: 1, reason: ' ' } });
    expect(violationPaths(blank.body)).toEqual(['reason']);
    expect((await balanceOf(id)).balance).toBe(0);
    expect((await a.call('POST', '/customers/987654/balance', { token: a.superAdmin(), body: { amount: 1, reason: 'x' } })).status).toBe(404);
  });

  it('takes a charge once however often its event is delivered, and once per message', async () => {
    const id = await a.customer();
    await a.call('POST', `/customers/${id}/balance`, { token: a.superAdmin(), body: { amount: 10, reason: 'top-up' } });
    const message = randomUUID();
    const eventId = randomUUID();
    await a.deliver(MessageChargedV1, charge(id, message, 45_000), { id: eventId, accountId: id });
    await a.deliver(MessageChargedV1, charge(id, message, 45_000), { id: eventId, accountId: id });
    // the same message charged again under another event id (a producer retry) is not taken twice either
    await a.deliver(MessageChargedV1, charge(id, message, 45_000), { accountId: id });
    expect(await balanceOf(id)).toMatchObject({ balance: 9.955, balanceMicros: '9955000' });

    await a.deliver(MessageChargedV1, charge(id, randomUUID(), 45_000), { accountId: id });
    expect((await balanceOf(id)).balance).toBe(9.91);
  });

  it('takes a burst of charges, refunds and redeliveries for one account in batches, with a running balance on every entry', async () => {
    const id = await a.customer();
    await a.call('POST', `/customers/${id}/balance`, { token: a.superAdmin(), body: { amount: 100, reason: 'top-up' } });
    const messages = Array.from({ length: 300 }, () => randomUUID());
    const events = messages.map((m, i) => createEnvelope(MessageChargedV1, charge(id, m, 10_000 + i), { accountId: id, source: 'test' }));
    const refunds = messages
      .slice(0, 20)
      .map((m, i) => createEnvelope(MessageRefundDueV1, { messageUuid: m, accountId: id, amountMicros: 10_000 + i, currency: 'EUR', reason: 'no route' }, { accountId: id, source: 'test' }));
    // every event twice, all in one publish: the consumer's chunks and batches see duplicates side by side
    await a.publishAll([...events, ...refunds, ...events.slice(0, 50), ...refunds]);

    const charged = messages.reduce((sum, _m, i) => sum + 10_000 + i, 0);
    const refunded = refunds.reduce((sum, _r, i) => sum + 10_000 + i, 0);
    expect((await balanceOf(id)).balanceMicros).toBe(String(100_000_000 - charged + refunded));
    const rows = await a.sql<{ amount_micros: string; balance_after_micros: string }>(
      `SELECT amount_micros::text, balance_after_micros::text FROM accounts.balance_entry WHERE account_id = $1 ORDER BY id`,
      [id],
    );
    expect(rows).toHaveLength(1 + 300 + 20);
    for (let i = 1; i < rows.length; i++) {
      expect(BigInt(rows[i].balance_after_micros)).toBe(BigInt(rows[i - 1].balance_after_micros) + BigInt(rows[i].amount_micros));
    }
  });

  it('dead-letters alone a charge of an account that does not exist, and of a version not handled, and books nothing for them', async () => {
    const id = await a.customer();
    const missing = String(9_000_000_000 + Math.floor(Math.random() * 1_000_000));
    const good = Array.from({ length: 40 }, (_, i) => createEnvelope(MessageChargedV1, charge(id, randomUUID(), 1_000 + i), { accountId: id, source: 'test' }));
    const orphan = createEnvelope(MessageChargedV1, charge(missing, randomUUID(), 5_000), { accountId: missing, source: 'test' });
    const orphanRefund = createEnvelope(MessageRefundDueV1, { messageUuid: randomUUID(), accountId: missing, amountMicros: 7_000, currency: 'EUR', reason: 'no route' }, { accountId: missing, source: 'test' });
    const future = { ...createEnvelope(MessageChargedV1, charge(id, randomUUID(), 9_999), { accountId: id, source: 'test' }), version: 2 };
    // one publish: they reach the ledger as one chunk, whose batch fails and is retried event by event
    await a.publishAll([...good.slice(0, 20), orphan, future, orphanRefund, ...good.slice(20)]);

    const total = good.reduce((sum, _e, i) => sum + 1_000 + i, 0);
    expect((await balanceOf(id)).balanceMicros).toBe(String(-total));
    const entries = await a.sql<{ account_id: string; n: number }>(
      `SELECT account_id::text, count(*)::int AS n FROM accounts.balance_entry WHERE account_id = ANY($1::bigint[]) GROUP BY account_id`,
      [[id, missing]],
    );
    expect(entries).toEqual([{ account_id: id, n: 40 }]);
    const dead = await a.sql<{ event_id: string; error: string }>(`SELECT event_id, error FROM accounts.dead_letter WHERE group_name = 'accounts.messaging' AND event_id = ANY($1::text[])`, [
      [orphan.id, orphanRefund.id, future.id, ...good.map((e) => e.id)],
    ]);
    expect(dead.map((d) => d.event_id).sort()).toEqual([orphan.id, orphanRefund.id, future.id].sort());
    expect(dead.find((d) => d.event_id === orphan.id)?.error).toContain(`account ${missing} does not exist`);
  });

  it("moves the two former groups' dead letters to the merged group, so a replay finds a group that runs (one open letter an event)", async () => {
    const letter = (group: string, eventId: string, eventType: string, status = 'dead') =>
      a.sql<{ id: string }>(
        `INSERT INTO accounts.dead_letter (group_name, topic, event_id, event_type, payload, error, attempts, status) VALUES ($1, 'switchboard.streams', $2, $3, '{}', 'x', 4, $4) RETURNING id::text AS id`,
        [group, eventId, eventType, status],
      );
    const [charge, accepted, again, replayed] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const [c] = await letter('accounts.balance-ledger', charge, MessageChargedV1.type);
    const [u] = await letter('accounts.daily-usage', accepted, MessageAcceptedV1.type);
    // dead-lettered by both the old group and the new one (a rolling deploy): the new group's letter stays the open one
    const [oldAgain] = await letter('accounts.balance-ledger', again, MessageChargedV1.type);
    const [newAgain] = await letter(ACCOUNTS_GROUPS.messaging, again, MessageChargedV1.type);
    const [r] = await letter('accounts.daily-usage', replayed, MessageAcceptedV1.type, 'replayed');
    await new MessagingGroupDeadLetters1798200000124().up({ query: (text: string, params?: unknown[]) => a.sql(text, params) } as unknown as QueryRunner);
    const rows = await a.sql<{ id: string; group_name: string }>(`SELECT id::text AS id, group_name FROM accounts.dead_letter WHERE id = ANY($1::bigint[]) ORDER BY id`, [[c.id, u.id, oldAgain.id, newAgain.id, r.id]]);
    expect(rows).toEqual([
      { id: c.id, group_name: ACCOUNTS_GROUPS.messaging },
      { id: u.id, group_name: ACCOUNTS_GROUPS.messaging },
      { id: oldAgain.id, group_name: 'accounts.balance-ledger' },
      { id: newAgain.id, group_name: ACCOUNTS_GROUPS.messaging },
      { id: r.id, group_name: ACCOUNTS_GROUPS.messaging },
    ]);
  });

  it('gives a refund back once and lists the ledger newest first', async () => {
    const id = await a.customer();
    const message = randomUUID();
    await a.deliver(MessageChargedV1, charge(id, message, 70_000), { accountId: id });
    const refund = { messageUuid: message, accountId: id, amountMicros: 70_000, currency: 'EUR', reason: 'no route' };
    await a.deliver(MessageRefundDueV1, refund, { accountId: id });
    await a.deliver(MessageRefundDueV1, refund, { accountId: id });
    expect((await balanceOf(id)).balanceMicros).toBe('0');

    const entries = await a.call<{ items: Array<{ kind: string; amount: number; balanceAfter: number; sourceId: string }>; total: number }>('GET', `/customers/${id}/balance_entries`, {
      token: a.member(id, [Permission.CostView]),
    });
    expect(entries.status).toBe(200);
    expect(entries.body.total).toBe(2);
    expect(entries.body.items.map((e) => [e.kind, e.amount, e.balanceAfter, e.sourceId])).toEqual([
      ['refund', 0.07, 0, message],
      ['charge', -0.07, -0.07, message],
    ]);
  });

  it("keeps each account's ledger under the key (account, id): pages newest first, adjustments, charges and redeliveries exact, before and after the key's migration (0222)", async () => {
    const [x, y] = [await a.customer(), await a.customer()];
    const page = async (id: string, n: number) =>
      (
        await a.call<{ items: Array<{ kind: string; amount: number; balanceAfter: number; sourceId: string }>; total: number }>('GET', `/customers/${id}/balance_entries?page=${n}&itemsPerPage=4`, {
          token: a.member(id, [Permission.CostView]),
        })
      ).body;
    const ledger = (id: string) =>
      a.sql<{ kind: string; amount: string; after: string }>(
        `SELECT kind, amount_micros::text AS amount, balance_after_micros::text AS after FROM accounts.balance_entry WHERE account_id = $1 ORDER BY id`,
        [id],
      );
    const keys = async () =>
      (await a.sql<{ indexname: string; indexdef: string }>(`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'accounts' AND tablename = 'balance_entry' ORDER BY indexname`)).map(
        (r) => `${r.indexname}: ${r.indexdef.replace(/^.* USING btree /, '')}`,
      );
    const migrated = ['balance_entry_account_id_kind_source_id_key: (account_id, kind, source_id)', 'balance_entry_pkey: (account_id, id)'];
    expect(await keys()).toEqual(migrated);
    const runner = { query: (text: string, params?: unknown[]) => a.sql(text, params) } as unknown as QueryRunner;

    // the two accounts' entries interleave in id order: adjustments (one entry each, the single-entry path), then a
    // batch of charges of both with redeliveries (the batch path)
    const earlier: ReturnType<typeof createEnvelope>[] = [];
    const book = async (round: number) => {
      for (const id of [x, y]) await a.call('POST', `/customers/${id}/balance`, { token: a.superAdmin(), body: { amount: 10 + round, reason: `top-up ${round}` } });
      const charges = [...Array.from({ length: 6 }, (_, i) => [x, 1_000 * (round + 1) + i] as const), ...Array.from({ length: 3 }, (_, i) => [y, 2_000 * (round + 1) + i] as const)];
      const events = charges.map(([id, amount]) => createEnvelope(MessageChargedV1, charge(id, randomUUID(), amount), { accountId: id, source: 'test' }));
      // the earlier round's first charges delivered again among the new ones: booked once, the running balances
      // of the new entries set again over the new entries alone
      await a.publishAll([...earlier.slice(0, 4), ...events.slice(0, 3), ...events]);
      earlier.push(...events);
    };
    const check = async (round: number) => {
      const rows = await ledger(x);
      expect(rows).toHaveLength((round + 1) * 7);
      for (let i = 1; i < rows.length; i++) expect(BigInt(rows[i].after)).toBe(BigInt(rows[i - 1].after) + BigInt(rows[i].amount));
      const all = [...(await page(x, 1)).items, ...(await page(x, 2)).items, ...(await page(x, 3)).items, ...(await page(x, 4)).items];
      expect((await page(x, 1)).total).toBe(rows.length);
      expect(all.map((e) => e.balanceAfter)).toEqual([...rows].reverse().map((r) => Number(r.after) / 1e6));
      const last = rows[rows.length - 1].after;
      expect((await balanceOf(x)).balanceMicros).toBe(last);
      expect((await ledger(y)).map((r) => r.kind)).toEqual(Array.from({ length: round + 1 }, () => ['adjustment', 'charge', 'charge', 'charge']).flat());
    };
    await book(0);
    await check(0);
    // the key's migration undone (the previous release's table) and done again: nothing of the ledger moves
    await new LedgerEntryAccountKey1798900000222().down(runner);
    expect(await keys()).toEqual(['balance_entry_account_id_kind_source_id_key: (account_id, kind, source_id)', 'balance_entry_account_idx: (account_id, id DESC)', 'balance_entry_pkey: (id)']);
    await check(0);
    await new LedgerEntryAccountKey1798900000222().up(runner);
    expect(await keys()).toEqual(migrated);
    await book(1);
    await check(1);
  });

  it('counts accepted messages per account and UTC day against the daily limit', async () => {
    const id = await a.customer({ customSettings: { streams_max_messages_per_day: 3 } });
    const other = await a.customer();
    const now = new Date();
    const accepted = (accountId: string, acceptedAt: Date): EventData<typeof MessageAcceptedV1> =>
      acceptedMessage({ messageUuid: randomUUID(), accountId, acceptedAt: acceptedAt.toISOString() });
    const today = accepted(id, now);
    const eventId = await a.deliver(MessageAcceptedV1, today, { accountId: id });
    await a.deliver(MessageAcceptedV1, today, { id: eventId, accountId: id }); // redelivery
    await a.deliver(MessageAcceptedV1, accepted(id, now), { accountId: id });
    await a.deliver(MessageAcceptedV1, accepted(id, new Date(now.getTime() - 2 * 86_400_000)), { accountId: id });
    await a.deliver(MessageAcceptedV1, accepted(other, now), { accountId: other });

    const res = await a.call('GET', '/daily_usage_and_limit', { token: a.member(id, []) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ dailyLimit: 3, dailyUsage: 2 });
    expect((await a.call('GET', '/daily_usage_and_limit', { token: a.member(other, []) })).body).toEqual({ dailyLimit: 10_000, dailyUsage: 1 });
    const [row] = await a.sql<{ segments: string }>('SELECT segments FROM accounts.daily_usage WHERE account_id = $1 AND day = $2', [id, now.toISOString().slice(0, 10)]);
    expect(row.segments).toBe('4');
  });

  it('shows no limit when the account has none', async () => {
    const id = await a.customer({ customSettings: { streams_max_messages_per_day: null } });
    expect((await a.call('GET', '/daily_usage_and_limit', { token: a.member(id, []) })).body).toEqual({ dailyLimit: null, dailyUsage: 0 });
  });
});
