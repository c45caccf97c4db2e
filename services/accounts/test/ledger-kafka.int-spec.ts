import { randomUUID } from 'node:crypto';
import { Kafka, logLevel as kafkaLogLevel } from 'kafkajs';
import { MessageAcceptedV1, MessageChargedV1, MessageRefundDueV1, Topics, type EventData } from '@switchboard/contracts';
import { createEnvelope, KafkaEventBus, type OutgoingEvent } from '@switchboard/platform';
import { createTestApp, startKafkaMock, type RunningBroker, type TestApp } from '@switchboard/platform/testing';
import { ACCOUNTS_GROUPS, AccountsBootstrapService, AccountsModule } from '../src';
import { acceptedMessage } from './support';

/**
 * The ledger on the Kafka driver, as the campaign crash drill runs it (docs/decisions/0107): a backlog of one account's
 * charges (a campaign's, so all on one partition), with redeliveries and refunds, is booked in a few large
 * transactions, each charge once, with the running balance exact on every entry. Before, the ledger took chunks of 256,
 * one transaction each, and fell behind dispatch on a loaded machine.
 */
describe('accounts ledger on the Kafka driver', () => {
  let kafka: RunningBroker;
  let t: TestApp;
  let bus: KafkaEventBus;

  beforeAll(async () => {
    // the file's own mock cluster: no other test's accounts joins the ledger's group
    kafka = await startKafkaMock(1);
    bus = new KafkaEventBus({
      clientId: 'accounts-ledger-test',
      brokers: kafka.url.split(','),
      logLevel: kafkaLogLevel.NOTHING,
      consumer: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 300, rebalanceTimeoutMs: 5000, maxWaitTimeMs: 100, partitionsConsumedConcurrently: 8, maxBytesPerPartition: 2 * 1024 * 1024 },
    });
    t = await createTestApp(() => ({ imports: [AccountsModule.register({ syncCountries: false })], bus }));
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await kafka?.stop();
  }, 60_000);

  const sql = async <R>(text: string, params: unknown[] = []): Promise<R[]> => {
    const { Client } = await import('pg');
    const c = new Client({ connectionString: t.db.url });
    await c.connect();
    try {
      return (await c.query(text, params)).rows as R[];
    } finally {
      await c.end();
    }
  };

  it("books a backlog of one account's charges once each, in a few transactions, with its running balance", async () => {
    const id = (await t.app.get(AccountsBootstrapService).createCustomer({ name: 'Ledger on Kafka' })).id;
    const N = 3000;
    const messages = Array.from({ length: N }, () => randomUUID());
    const amount = (i: number) => 40_000 + (i % 13);
    const charges = messages.map((m, i) => createEnvelope(MessageChargedV1, { messageUuid: m, accountId: id, amountMicros: amount(i), currency: 'EUR', balanceAfterMicros: 0 }, { accountId: id, source: 'test' }));
    const refunds = messages
      .slice(0, 100)
      .map((m, i) => createEnvelope(MessageRefundDueV1, { messageUuid: m, accountId: id, amountMicros: amount(i), currency: 'EUR', reason: 'no route' }, { accountId: id, source: 'test' }));
    // the backlog after a restart: charges, then redeliveries of charges already in it, refunds twice
    const backlog: OutgoingEvent[] = [...charges, ...charges.slice(0, 400), ...refunds, ...refunds];
    await bus.publish(backlog);

    const expected = -messages.reduce((s, _m, i) => s + amount(i), 0) + refunds.reduce((s, _r, i) => s + amount(i), 0);
    const deadline = Date.now() + 90_000;
    for (;;) {
      const [{ n }] = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM accounts.balance_entry WHERE account_id = $1`, [id]);
      if (n >= N + refunds.length || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const [customer] = await sql<{ balance: string }>(`SELECT balance_micros::text AS balance FROM accounts.customer WHERE id = $1`, [id]);
    expect(customer.balance).toBe(String(expected));
    const rows = await sql<{ kind: string; source_id: string; amount_micros: string; balance_after_micros: string; tx: string }>(
      `SELECT kind, source_id, amount_micros::text, balance_after_micros::text, xmin::text AS tx FROM accounts.balance_entry WHERE account_id = $1 ORDER BY id`,
      [id],
    );
    expect(rows.filter((r) => r.kind === 'charge')).toHaveLength(N);
    expect(rows.filter((r) => r.kind === 'refund')).toHaveLength(refunds.length);
    expect(new Set(rows.map((r) => `${r.kind}:${r.source_id}`)).size).toBe(rows.length);
    let running = 0n;
    for (const r of rows) {
      running += BigInt(r.amount_micros);
      expect([r.source_id, r.balance_after_micros]).toEqual([r.source_id, String(running)]);
    }
    // the rows a transaction inserted share its xmin: the 3,400 charge events (one account, one partition) came in
    // chunks of up to 2,000, one transaction each; before, a chunk was at most 256 events, so the 3,000 charges took
    // 12 transactions or more
    const transactions = new Set(rows.filter((r) => r.kind === 'charge').map((r) => r.tx)).size;
    expect(transactions).toBeLessThanOrEqual(4);
  }, 120_000);

  it("books the ledger and the daily usage from one consumer group: each record of streams' topic fetched once, both exact after redeliveries and poison events", async () => {
    const boot = t.app.get(AccountsBootstrapService);
    const id = (await boot.createCustomer({ name: 'Ledger and usage on Kafka' })).id;
    const other = (await boot.createCustomer({ name: 'Another tenant' })).id;
    const N = 1500;
    const now = new Date();
    const day = now.toISOString().slice(0, 10);
    const messages = Array.from({ length: N }, () => randomUUID());
    const segments = (i: number) => 1 + (i % 3);
    const amount = (i: number) => 45_000 + (i % 11);
    const acceptedData = (m: string, i: number, acceptedAt = now.toISOString()): EventData<typeof MessageAcceptedV1> =>
      acceptedMessage({ messageUuid: m, accountId: id, segments: segments(i), priceMicros: amount(i), acceptedAt });
    // streams' order for a message: accepted, then charged
    const accepted = messages.map((m, i) => createEnvelope(MessageAcceptedV1, acceptedData(m, i), { accountId: id, source: 'test' }));
    const charges = messages.map((m, i) => createEnvelope(MessageChargedV1, { messageUuid: m, accountId: id, amountMicros: amount(i), currency: 'EUR', balanceAfterMicros: 0 }, { accountId: id, source: 'test' }));
    // poison, each failing by itself: a charge of this account published for another tenant, an accepted message
    // whose time is no time, a charge of a version not handled
    const foreign = createEnvelope(MessageChargedV1, { messageUuid: randomUUID(), accountId: id, amountMicros: 99_000, currency: 'EUR', balanceAfterMicros: 0 }, { accountId: other, source: 'test' });
    const timeless = createEnvelope(MessageAcceptedV1, acceptedData(randomUUID(), 0, 'not a time'), { accountId: id, source: 'test' });
    const future = { ...createEnvelope(MessageChargedV1, { messageUuid: randomUUID(), accountId: id, amountMicros: 77_000, currency: 'EUR', balanceAfterMicros: 0 }, { accountId: id, source: 'test' }), version: 2 };
    const poison = [foreign, timeless, future];
    const backlog: OutgoingEvent[] = [];
    messages.forEach((_m, i) => {
      backlog.push(accepted[i], charges[i]);
      if (i === 700) backlog.push(...poison);
    });
    // redeliveries of both kinds, the same records again
    backlog.push(...accepted.slice(0, 300), ...charges.slice(0, 300));
    await bus.publish(backlog);

    const deadline = Date.now() + 90_000;
    const dead = async () =>
      sql<{ event_id: string; group_name: string }>(`SELECT event_id, group_name FROM accounts.dead_letter WHERE event_id = ANY($1::text[])`, [[...poison, ...accepted, ...charges].map((e) => e.id)]);
    for (;;) {
      const [{ n }] = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM accounts.balance_entry WHERE account_id = $1`, [id]);
      const [usage] = await sql<{ messages: number }>(`SELECT messages::int FROM accounts.daily_usage WHERE account_id = $1 AND day = $2`, [id, day]);
      if ((n >= N && (usage?.messages ?? 0) >= N && (await dead()).length >= poison.length) || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    // one group of accounts fetched and decoded streams' records: the groups with committed offsets on the topic
    const admin = new Kafka({ clientId: 'accounts-ledger-test-admin', brokers: kafka.url.split(','), logLevel: kafkaLogLevel.NOTHING }).admin();
    await admin.connect();
    try {
      // (the mock broker answers no ListGroups: accounts' group names, the current one and the two it replaced)
      const readers: string[] = [];
      for (const groupId of Object.values(ACCOUNTS_GROUPS)) {
        const [offsets] = await admin.fetchOffsets({ groupId, topics: [Topics.Streams] });
        if (offsets?.partitions.some((p) => Number(p.offset) >= 0)) readers.push(groupId);
      }
      expect(readers).toEqual([ACCOUNTS_GROUPS.messaging]);
    } finally {
      await admin.disconnect();
    }
    // the ledger: each charge once, the foreign and the future charge not at all
    const [customer] = await sql<{ balance: string }>(`SELECT balance_micros::text AS balance FROM accounts.customer WHERE id = $1`, [id]);
    expect(customer.balance).toBe(String(-messages.reduce((s, _m, i) => s + amount(i), 0)));
    const [entries] = await sql<{ n: number; distinct_n: number }>(`SELECT count(*)::int AS n, count(DISTINCT source_id)::int AS distinct_n FROM accounts.balance_entry WHERE account_id = ANY($1::bigint[])`, [[id, other]]);
    expect(entries).toEqual({ n: N, distinct_n: N });
    // the daily usage: each accepted message once, the timeless one not at all
    const [usage] = await sql<{ messages: number; segments: number }>(`SELECT messages::int, segments::int FROM accounts.daily_usage WHERE account_id = $1 AND day = $2`, [id, day]);
    expect(usage).toEqual({ messages: N, segments: messages.reduce((s, _m, i) => s + segments(i), 0) });
    // exactly the three poison events are dead-lettered, by the one group
    expect((await dead()).map((d) => `${d.group_name}:${d.event_id}`).sort()).toEqual(poison.map((e) => `${ACCOUNTS_GROUPS.messaging}:${e.id}`).sort());
  }, 150_000);
});
