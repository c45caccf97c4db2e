import { randomUUID } from 'node:crypto';
import { ACCEPTED_REPUBLISH_SOURCE, MessageAcceptedV1, MessagesAcceptedV1, type EventData } from '@switchboard/contracts';
import { createEnvelope, timeOrderedUuid, type OutgoingEvent } from '@switchboard/platform';
import { acceptedMessage, startAccounts, type AccountsTestApp } from './support';

/**
 * docs/decisions/0181: streams may publish a send batch's accepted messages as one `streams.messages.accepted` event per
 * account. The daily usage takes it as it takes the per-message events it stands for: each item once, under its own
 * account, a redelivered batch or the sweeper's re-publish of its messages counting nothing again, and a poison item
 * failing alone (its batch dead-lettered, naming it) without losing the batch's others. Since 0199 a batch is claimed
 * once under its own id (one `usage_batch` row a batch, not a `processed_events` row a message), the sweeper's
 * re-publishes (ACCEPTED_REPUBLISH_SOURCE) count only a message no claimed batch holds, and a batch's items claimed one
 * by one before it came (by an older release, or a re-publish) are not counted again.
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
  /** The daily usage as the account's users see it (GET /daily_usage_and_limit). */
  const shown = async (id: string) => (await a.call<{ dailyLimit: number | null; dailyUsage: number }>('GET', '/daily_usage_and_limit', { token: a.member(id, []) })).body;
  /** The sweeper's re-publish of a message (its first event's id, its own source). */
  const republished = (it: { id: string; data: Accepted }) => createEnvelope(MessageAcceptedV1, it.data, { accountId: it.data.accountId, source: ACCEPTED_REPUBLISH_SOURCE, id: it.id });
  const batchClaims = async (ids: string[]) => (await a.sql<{ n: number }>(`SELECT count(*)::int AS n FROM accounts.usage_batch WHERE batch_id = ANY($1::uuid[])`, [ids]))[0].n;
  const claims = async (ids: string[]) =>
    (await a.sql<{ n: number }>(`SELECT count(*)::int AS n FROM accounts.processed_events WHERE consumer = 'accounts.daily-usage' AND event_id = ANY($1::uuid[])`, [ids]))[0].n;
  const usage = async (id: string) => (await a.sql<{ messages: number; segments: string }>(`SELECT messages::int, segments::text FROM accounts.daily_usage WHERE account_id = $1 AND day = $2`, [id, day]))[0] ?? { messages: 0, segments: '0' };

  it('counts every item of a batch once, whether the batch comes again or the sweeper re-publishes its items after it', async () => {
    const id = await a.customer();
    const items = Array.from({ length: 300 }, () => item(accepted(id)));
    const first = batch(id, items.slice(0, 200));
    const second = batch(id, items.slice(200));
    // the undispatched sweeper's re-publish of some of the same messages, under the same ids
    const perMessage = items.slice(150, 180).map(republished);
    await a.publishAll([first, second, first, ...perMessage]);
    await a.publishAll([second]);
    await a.publishAll(items.slice(250, 260).map(republished));
    expect(await usage(id)).toEqual({ messages: 300, segments: '600' });
    expect((await shown(id)).dailyUsage).toBe(300);
    // one claim a batch, none a message (the re-publishes' own claims aside)
    expect(await batchClaims([first.id, second.id])).toBe(2);
    expect(await claims(items.map((i) => i.id))).toBe(40);
    expect(await claims(items.slice(0, 150).map((i) => i.id))).toBe(0);
  });

  it('counts a message once when the sweeper re-publishes it before its batch comes (a lagging consumer), and each redelivered batch of a chunk once', async () => {
    const id = await a.customer();
    const items = Array.from({ length: 50 }, () => item(accepted(id)));
    const b = batch(id, items);
    // no batch of theirs counted yet: the re-publishes count (as the sweeper's repair of a batch lost for all)
    await a.publishAll(items.slice(0, 5).map(republished));
    expect((await shown(id)).dailyUsage).toBe(5);
    // the same batch twice in one chunk and again in the next (at-least-once delivery)
    await a.publishAll([b, b]);
    await a.publishAll([b, ...items.slice(0, 50).map(republished)]);
    expect((await shown(id)).dailyUsage).toBe(50);
  });

  it('counts a message whose batch was lost for every consumer once, by its re-publish, however often it is re-published', async () => {
    const id = await a.customer();
    const lost = Array.from({ length: 12 }, () => item(accepted(id)));
    const counted = Array.from({ length: 8 }, () => item(accepted(id)));
    await a.publishAll([batch(id, counted)]);
    await a.publishAll(lost.map(republished));
    await a.publishAll([...lost.slice(0, 6), ...counted].map(republished));
    for (const it of lost.slice(6, 8)) await a.publishAll([republished(it)]);
    expect(await usage(id)).toEqual({ messages: 20, segments: '40' });
    expect((await shown(id)).dailyUsage).toBe(20);
  });

  it('counts a batch and a re-publish of its messages handled in the same chunk once', async () => {
    const id = await a.customer();
    const items = Array.from({ length: 30 }, () => item(accepted(id)));
    const b = batch(id, items);
    await a.publishAll([...items.slice(0, 10).map(republished), b, ...items.slice(10, 20).map(republished)]);
    await a.publishAll([b, ...items.map(republished)]);
    expect(await usage(id)).toEqual({ messages: 30, segments: '60' });
  });

  it("counts the stream API's own per-message events once each, redelivered or not, beside batches of other messages", async () => {
    const id = await a.customer();
    const singles = Array.from({ length: 20 }, () => createEnvelope(MessageAcceptedV1, accepted(id), { accountId: id, source: 'streams' }));
    const items = Array.from({ length: 30 }, () => item(accepted(id)));
    const b = batch(id, items);
    await a.publishAll([...singles, b]);
    await a.publishAll([...singles.slice(0, 10), b]);
    // one event at a time too (a chunk handed event by event)
    for (const s of singles.slice(10, 12)) await a.publishAll([s]);
    expect(await usage(id)).toEqual({ messages: 50, segments: '100' });
    expect((await shown(id)).dailyUsage).toBe(50);
  });

  it('does not count again the items an older release claimed one by one (a chunk redelivered across the upgrade, a dead letter replayed)', async () => {
    const id = await a.customer();
    const items = Array.from({ length: 40 }, () => item(accepted(id)));
    const b = batch(id, items);
    // an accounts release before 0199 counted the first 25 of this batch, each under its own id, then stopped
    await a.sql(`INSERT INTO accounts.processed_events (consumer, event_id) SELECT 'accounts.daily-usage', unnest($1::uuid[])`, [items.slice(0, 25).map((i) => i.id)]);
    await a.sql(`INSERT INTO accounts.daily_usage (account_id, day, messages, segments) VALUES ($1, $2, 25, 50)`, [id, day]);
    await a.publishAll([b]);
    await a.publishAll([b]);
    expect(await usage(id)).toEqual({ messages: 40, segments: '80' });
  });

  it("shows the day's limit beside the usage counted once (streams refuses sends over the limit from its own count)", async () => {
    const id = await a.customer({ customSettings: { streams_max_messages_per_day: 30 } });
    const items = Array.from({ length: 30 }, () => item(accepted(id)));
    const b = batch(id, items);
    await a.publishAll([b, b, ...items.map(republished)]);
    expect(await shown(id)).toEqual({ dailyLimit: 30, dailyUsage: 30 });
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
