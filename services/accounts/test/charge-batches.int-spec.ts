import { randomUUID } from 'node:crypto';
import { MessageChargedV1, MessagesChargedV1, type EventData } from '@switchboard/contracts';
import { createEnvelope, timeOrderedUuid, type OutgoingEvent } from '@switchboard/platform';
import { startAccounts, type AccountsTestApp } from './support';

/**
 * docs/decisions/0178: streams may publish a send batch's charges as one `streams.messages.charged` event per account.
 * The ledger takes it as it takes the per-message events it stands for: each item once (its message's source key), under
 * its own account, a redelivered batch or the per-message form after it booking nothing again, and a poison item failing
 * alone (its batch dead-lettered, naming it) without losing the batch's others.
 */
describe('charge batches in the ledger', () => {
  let a: AccountsTestApp;

  beforeAll(async () => {
    a = await startAccounts({ syncCountries: false });
  });
  afterAll(async () => {
    await a?.close();
  });

  type Charge = EventData<typeof MessageChargedV1>;
  const charge = (accountId: string, amountMicros: number): Charge => ({ messageUuid: randomUUID(), accountId, amountMicros, currency: 'EUR', balanceAfterMicros: 0 });
  const item = (data: Charge) => ({ id: timeOrderedUuid(), data });
  /** A batch as streams publishes it: the envelope names the items' account. */
  const batch = (accountId: string, items: Array<{ id: string; data: unknown }>): OutgoingEvent =>
    Object.assign(createEnvelope(MessagesChargedV1, { items: [item(charge(accountId, 1))] }, { accountId, source: 'streams' }), { data: { items } });
  const balanceOf = async (id: string) => (await a.sql<{ b: string }>(`SELECT coalesce(sum(amount_micros), 0)::text AS b FROM accounts.balance_entry WHERE account_id = $1`, [id]))[0].b;
  const entries = async (id: string) => (await a.sql<{ n: number }>(`SELECT count(*)::int AS n FROM accounts.balance_entry WHERE account_id = $1 AND kind = 'charge'`, [id]))[0].n;

  it('books every item of a batch once, whether the batch comes again or its items come as per-message events after it', async () => {
    const id = await a.customer();
    const items = Array.from({ length: 300 }, (_, i) => item(charge(id, 1_000 + i)));
    const first = batch(id, items.slice(0, 200));
    const second = batch(id, items.slice(200));
    // the per-message form of some of the same charges (an older streams replica's row, or a replay), same ids
    const perMessage = items.slice(150, 180).map((it) => createEnvelope(MessageChargedV1, it.data, { accountId: id, source: 'streams', id: it.id }));
    await a.publishAll([first, second, first, ...perMessage]);
    await a.publishAll([second]);
    expect(await entries(id)).toBe(300);
    expect(await balanceOf(id)).toBe(String(-items.reduce((s, it) => s + it.data.amountMicros, 0)));
  });

  it('books each item under its own account only: an item naming another account fails alone, and the batch is dead-lettered naming it', async () => {
    const id = await a.customer();
    const other = await a.customer();
    const good = Array.from({ length: 40 }, (_, i) => item(charge(id, 2_000 + i)));
    const foreign = item(charge(other, 99_000));
    const malformed = { id: timeOrderedUuid(), data: { ...charge(id, 5), amountMicros: 'five' } };
    const poisoned = batch(id, [...good.slice(0, 20), foreign, malformed, ...good.slice(20)]);
    const bystander = createEnvelope(MessageChargedV1, charge(id, 7_000), { accountId: id, source: 'streams' });
    // one publish: one chunk, which fails for the poison items and is then handed event by event
    await a.publishAll([bystander, poisoned]);

    expect(await entries(id)).toBe(41);
    expect(await balanceOf(id)).toBe(String(-7_000 - good.reduce((s, it) => s + it.data.amountMicros, 0)));
    expect(await entries(other)).toBe(0);
    const dead = await a.sql<{ event_id: string; error: string }>(`SELECT event_id, error FROM accounts.dead_letter WHERE group_name = 'accounts.messaging' AND event_id = $1`, [poisoned.id]);
    expect(dead).toHaveLength(1);
    expect(dead[0].error).toContain(`2 of its items not booked`);
    expect(dead[0].error).toContain(foreign.id);
    expect(dead[0].error).toContain(`names account ${other}`);
    expect(dead[0].error).toContain(malformed.id);
  });

  it('dead-letters a batch of a version it does not know, booking nothing of it', async () => {
    const id = await a.customer();
    const future = { ...batch(id, [item(charge(id, 3_000))]), version: 2 };
    await a.publishAll([future]);
    expect(await entries(id)).toBe(0);
    const dead = await a.sql<{ error: string }>(`SELECT error FROM accounts.dead_letter WHERE group_name = 'accounts.messaging' AND event_id = $1`, [future.id]);
    expect(dead.map((d) => d.error)).toEqual([expect.stringContaining('v2 is not handled')]);
  });
});
