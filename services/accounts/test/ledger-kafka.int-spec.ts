import { randomUUID } from 'node:crypto';
import { logLevel } from 'kafkajs';
import { MessageChargedV1, MessageRefundDueV1 } from '@switchboard/contracts';
import { createEnvelope, KafkaEventBus, type OutgoingEvent } from '@switchboard/platform';
import { createTestApp, startKafkaMock, type RunningBroker, type TestApp } from '@switchboard/platform/testing';
import { AccountsBootstrapService, AccountsModule } from '../src';

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
      logLevel: logLevel.NOTHING,
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
});
