import { randomUUID } from 'node:crypto';
import { MessageAcceptedV1, MessagesAcceptedV1, type EventData } from '@switchboard/contracts';
import { createEnvelope, timeOrderedUuid, type OutgoingEvent } from '@switchboard/platform';
import { acceptedMessage, startAccounts, type AccountsTestApp } from './support';

/**
 * docs/decisions/0181: streams may publish a send batch's accepted messages as one `streams.messages.accepted` event per
 * account. The daily usage takes it as it takes the per-message events it stands for: each item once (its own event
 * id's claim), under its own account, a redelivered batch or the per-message form after it counting nothing again, and a
 * poison item failing alone (its batch dead-lettered, naming it) without losing the batch's others.
 */
describe('accepted batches in the daily usage', () => {
  let a: AccountsTestApp;

  beforeAll(async () => {
    a = await startAccounts({ syncCountries: false });
  });
  afterAll(async () => {
    await a?.close();
  });

  type Accepted = EventData<typeof MessageAcceptedV1>;
  const now = new Date();
  const day = now.toISOString().slice(0, 10);
  const accepted = (accountId: string): Accepted => acceptedMessage({ messageUuid: randomUUID(), accountId, acceptedAt: now.toISOString() });
  const item = <T,>(data: T) => ({ id: timeOrderedUuid(), data });
  /** A batch as streams publishes it: the envelope names the items' account. */
  const batch = (accountId: string, items: Array<{ id: string; data: unknown }>): OutgoingEvent =>
    Object.assign(createEnvelope(MessagesAcceptedV1, { items: [item(accepted(accountId))] }, { accountId, source: 'streams' }), { data: { items } });
  const usage = async (id: string) => (await a.sql<{ messages: number; segments: string }>(`SELECT messages::int, segments::text FROM accounts.daily_usage WHERE account_id = $1 AND day = $2`, [id, day]))[0] ?? { messages: 0, segments: '0' };

  it('counts every item of a batch once, whether the batch comes again or its items come as per-message events after it', async () => {
    const id = await a.customer();
    const items = Array.from({ length: 300 }, () => item(accepted(id)));
    const first = batch(id, items.slice(0, 200));
    const second = batch(id, items.slice(200));
    // the per-message form of some of the same messages (the undispatched sweeper, an older streams replica), same ids
    const perMessage = items.slice(150, 180).map((it) => createEnvelope(MessageAcceptedV1, it.data, { accountId: id, source: 'streams', id: it.id }));
    await a.publishAll([first, second, first, ...perMessage]);
    await a.publishAll([second]);
    expect(await usage(id)).toEqual({ messages: 300, segments: '600' });
  });

  it('counts each item under its own account only: an item naming another account fails alone, and the batch is dead-lettered naming it', async () => {
    const id = await a.customer();
    const other = await a.customer();
    const good = Array.from({ length: 40 }, () => item(accepted(id)));
    const foreign = item(accepted(other));
    const malformed = item({ ...accepted(id), segments: 'two' });
    const poisoned = batch(id, [...good.slice(0, 20), foreign, malformed, ...good.slice(20)]);
    const bystander = createEnvelope(MessageAcceptedV1, accepted(id), { accountId: id, source: 'streams' });
    // one publish: one chunk, which fails for the poison items and is then handed event by event
    await a.publishAll([bystander, poisoned]);

    expect((await usage(id)).messages).toBe(41);
    expect((await usage(other)).messages).toBe(0);
    const dead = await a.sql<{ error: string }>(`SELECT error FROM accounts.dead_letter WHERE group_name = 'accounts.messaging' AND event_id = $1`, [poisoned.id]);
    expect(dead).toHaveLength(1);
    expect(dead[0].error).toContain('2 of its items not counted');
    expect(dead[0].error).toContain(foreign.id);
    expect(dead[0].error).toContain(`names account ${other}`);
    expect(dead[0].error).toContain(malformed.id);
  });

  it('dead-letters a batch of a version it does not know, counting nothing of it', async () => {
    const id = await a.customer();
    const future = { ...batch(id, [item(accepted(id))]), version: 2 };
    await a.publishAll([future]);
    expect((await usage(id)).messages).toBe(0);
    const dead = await a.sql<{ error: string }>(`SELECT error FROM accounts.dead_letter WHERE group_name = 'accounts.messaging' AND event_id = $1`, [future.id]);
    expect(dead.map((d) => d.error)).toEqual([expect.stringContaining('v2 is not handled')]);
  });
});
