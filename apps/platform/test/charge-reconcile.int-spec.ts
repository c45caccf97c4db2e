import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { Client, Pool } from 'pg';
import {
  ALL_PERMISSIONS,
  ChargesListedV1,
  ChargesListRequestedV1,
  chargesOf,
  flattenChargeBatches,
  isChargeBatch,
  MessageChargedV1,
  MessageRefundDueV1,
  type EventDefinition,
  type EventEnvelope,
} from '@switchboard/contracts';
import { createEnvelope, InMemoryEventBus, metricsRegistry } from '@switchboard/platform';
import { createTestApp, recordPublished, type TestApp } from '@switchboard/platform/testing';
import { AccountsBootstrapService, AccountsModule, AccountsOutboxRelay, ChargeReconciler } from '@switchboard/accounts';
import { StreamsModule, StreamsOutboxRelay } from '@switchboard/streams';

/**
 * The reconciliation of charges between streams and accounts' ledger (docs/decisions/0114): accounts and streams as
 * the embedded server runs them, real PostgreSQL, and a bus whose ledger group (`accounts.messaging`, docs/decisions/0124) loses the
 * charge and refund events of chosen messages, the way a broker's retention or an offset reset skips them. Streams
 * and every other group still get them. Windows are of one second, closed one second after their end; the test runs
 * the passes itself.
 */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers are read field by field

const PRICE = 50_000;
const CREDIT = 100_000_000;
const phone = (() => {
  let n = 0;
  return () => `+1415555${String(4100 + n++).padStart(4, '0')}`;
})();

describe("reconciling accounts' ledger with streams' charges", () => {
  /** Per account, which messages' charges never reach the ledger group (decided by uuid, before the message exists). */
  const loseChargeOf = new Map<string, (uuid: string) => boolean>();
  /** Messages whose refund never reaches the ledger group; pages of the accounts in `holdListedFor` are kept aside. */
  const loseRefund = new Set<string>();
  const holdListedFor = new Set<string>();
  const held: EventEnvelope[] = [];
  let passed: EventEnvelope[] = [];

  class LossyBus extends InMemoryEventBus {
    override async subscribe(o: Parameters<InMemoryEventBus['subscribe']>[0]): Promise<void> {
      const kept = (e: EventEnvelope): boolean => {
        const d = e.data as Json;
        if (o.group === 'accounts.messaging') {
          if (e.type === MessageChargedV1.type && loseChargeOf.get(d.accountId as string)?.(d.messageUuid as string)) return false;
          if (e.type === MessageRefundDueV1.type && loseRefund.has(d.messageUuid as string)) return false;
        }
        if (o.group === 'accounts.charge-reconcile' && e.type === ChargesListedV1.type && holdListedFor.has(d.accountId as string)) {
          held.push(e);
          return false;
        }
        return true;
      };
      const handler = o.handler;
      const batchHandler = o.batchHandler;
      // streams' charges come in batches by default (docs/decisions/0178): the ledger group loses a batch item by item
      // (the rest of the batch reaches it as the per-message events they stand for)
      return super.subscribe({
        ...o,
        handler: async (e, ctx) => {
          if (!isChargeBatch(e)) return kept(e) ? handler(e, ctx) : undefined;
          for (const one of chargesOf(e).filter(kept)) await handler(one, ctx);
        },
        ...(batchHandler
          ? { batchHandler: async (events: EventEnvelope[], ctx: { topic: string; group: string }) => batchHandler(flattenChargeBatches(events).filter(kept), ctx) }
          : {}),
      });
    }
  }

  let t: TestApp;
  let pool: Pool;
  let reconciler: ChargeReconciler;

  const settle = async (): Promise<void> => {
    await t.app.get(StreamsOutboxRelay).relay.flush();
    await t.app.get(AccountsOutboxRelay).relay.flush();
    await (t.bus as InMemoryEventBus).drain();
  };
  const until = async <T>(probe: () => Promise<T | undefined | null | false>, what: string, ms = 60_000): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      await settle().catch(() => undefined);
      const v = await probe().catch(() => undefined);
      if (v) return v;
      if (Date.now() > end) throw new Error(`not reached: ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const publish = async <T>(def: EventDefinition<T>, data: T, accountId: string, source = 'test') => {
    await t.bus.publish([createEnvelope(def, data, { accountId, source })]);
    await settle();
  };
  const call = async (method: string, path: string, token: string, body?: unknown): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${t.url}/api${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
  };
  const metric = async (name: string, labels: Record<string, string>) =>
    ((await metricsRegistry.getSingleMetric(name)?.get())?.values ?? []).filter((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x)).reduce((s, v) => s + v.value, 0);
  const booked = (outcome: string) => metric('switchboard_accounts_charge_reconcile_charges_total', { outcome });

  const streamTokens = new Map<string, string>();
  async function account(name: string): Promise<string> {
    const id = String((await t.app.get(AccountsBootstrapService).createCustomer({ name, tps: 1000 })).id);
    const admin = t.token({ sub: '1', acc: null, perms: [...ALL_PERMISSIONS], sa: true });
    expect((await call('POST', `/customers/${id}/balance`, admin, { amount: CREDIT / 1_000_000, reason: 'top-up' })).status).toBeLessThan(300);
    const member = t.token({ sub: '1', acc: id, perms: [...ALL_PERMISSIONS], sa: true });
    const sender = await until(async () => {
      const r = await call('POST', '/senders', member, { name: 'Shop', value: `SHOP${id}`, type: 'outbound-only' });
      return r.status === 201 && r.body;
    }, 'a sender (streams knows the account)');
    expect((await call('PUT', `/senders/superadmin/${sender.id as number}`, member, { approved: 1 })).status).toBe(200);
    const created = await call('POST', '/streams', member, { name: 'API', streamType: 2, sender: `SHOP${id}` });
    expect(created.status).toBe(201);
    streamTokens.set(id, String((await call('GET', `/streams/token/${created.body.id}`, member)).body.token));
    await until(async () => (await balance(id)) === String(CREDIT), 'the credit in the ledger');
    return id;
  }
  async function send(acc: string, n: number): Promise<string[]> {
    const uuids: string[] = [];
    for (let i = 0; i < n; i++) {
      const res = await call('POST', '/streams/messages', streamTokens.get(acc) as string, { phone: phone(), message: `Hello ${i}` });
      if (res.status !== 202) throw new Error(`not accepted: ${res.status} ${JSON.stringify(res.body)}`);
      const r = res.body;
      uuids.push(String(r.message_uuid));
    }
    await settle();
    return uuids;
  }
  const refund = (acc: string, uuid: string) => publish(MessageRefundDueV1, { messageUuid: uuid, accountId: acc, amountMicros: PRICE, currency: 'EUR', reason: 'no route' }, acc, 'dispatch');

  const balance = async (acc: string) => (await pool.query<{ b: string }>(`SELECT balance_micros::text AS b FROM accounts.customer WHERE id = $1`, [acc])).rows[0]?.b;
  const entries = async (acc: string) =>
    (await pool.query<{ kind: string; source_id: string; amount: string; after: string }>(
      `SELECT kind, source_id, amount_micros::text AS amount, balance_after_micros::text AS after FROM accounts.balance_entry WHERE account_id = $1 ORDER BY id`,
      [acc],
    )).rows;
  /** What streams says the account owes: its credit, less every message's price, plus every refund. */
  const owed = async (acc: string) =>
    String((await pool.query<{ v: string }>(`SELECT ($2::bigint - coalesce(sum(price_micros), 0) + coalesce(sum(refunded_micros), 0))::text AS v FROM streams.message WHERE account_id = $1`, [acc, CREDIT])).rows[0].v);
  /** The ledger is exact: one charge per message, one refund per refunded message, the balance and every running balance right. */
  async function expectExact(acc: string, messages: string[], refunded: string[]): Promise<void> {
    const rows = await entries(acc);
    const charges = rows.filter((r) => r.kind === 'charge').map((r) => r.source_id);
    const refunds = rows.filter((r) => r.kind === 'refund').map((r) => r.source_id);
    expect([...charges].sort()).toEqual([...messages].sort());
    expect([...refunds].sort()).toEqual([...refunded].sort());
    expect(await balance(acc)).toBe(String(CREDIT - PRICE * messages.length + PRICE * refunded.length));
    expect(await balance(acc)).toBe(await owed(acc));
    let running = 0n;
    for (const r of rows) {
      running += BigInt(r.amount);
      expect(r.after).toBe(String(running));
    }
  }
  /** Passes until the account has no window left to list and every closed window was summed. */
  async function reconcile(acc: string): Promise<void> {
    // the last message's window closes one second after its end
    await new Promise((r) => setTimeout(r, 2100));
    await until(async () => {
      await reconciler.passOnce();
      await settle();
      const open = await pool.query(`SELECT 1 FROM accounts.charge_reconcile_window WHERE account_id = $1 AND state <> 'reconciled'`, [acc]);
      const swept = await pool.query<{ ok: boolean }>(`SELECT swept_to >= (SELECT max(created_at) FROM streams.message WHERE account_id = $1) AND request_id IS NULL AS ok FROM accounts.charge_reconcile WHERE account_id = $1`, [acc]);
      return open.rowCount === 0 && swept.rows[0]?.ok === true;
    }, `account ${acc} reconciled`);
  }

  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    t = await createTestApp(() => ({
      imports: [
        // passes run by the test (the timer's interval is an hour); windows of a second, closed a second after their end; pages of 4
        AccountsModule.register({ syncCountries: false, chargeReconcile: { intervalMs: 3_600_000, afterMs: 1000, windowMs: 1000, batch: 4, requestsPerPass: 50 } }),
        StreamsModule.register({ secret: 'integration-secret-of-streams', cacheTtlMs: 0, defaultPriceMicros: PRICE }),
      ],
      bus: new LossyBus(),
    }));
    reconciler = t.app.get(ChargeReconciler);
    passed = recordPublished(t.bus);
    pool = new Pool({ connectionString: t.db.url, max: 2 });
    pool.on('error', () => undefined); // an idle client ended by the outage test; the pool replaces it
  }, 120_000);

  afterAll(async () => {
    await pool?.end();
    await t?.close();
    jest.restoreAllMocks();
  });

  it('books the charges and refunds the ledger never got, once: the balance and every entry exact, a second run and late events booking nothing', async () => {
    const acc = await account('Lossy ledger');
    // the charges of about a third of the messages are lost (by their uuid's first digit); refunds of four messages,
    // two of them lost (one of a message whose charge may be lost too)
    const lose = (u: string) => parseInt(u[0], 16) % 3 === 0;
    loseChargeOf.set(acc, lose);
    const all = await send(acc, 24);
    const refunded = [all[1], all[3], all[6], all[10]];
    for (const u of [all[3], all[6]]) loseRefund.add(u);
    for (const u of refunded) await refund(acc, u);
    await until(async () => (await pool.query(`SELECT 1 FROM streams.message WHERE account_id = $1 AND refunded_micros > 0`, [acc])).rowCount === refunded.length, 'streams has the refunds');
    const lostCharges = all.filter(lose);
    expect(lostCharges.length).toBeGreaterThan(0);
    // the ledger is short: the lost charges and refunds are not in it
    await until(async () => (await entries(acc)).filter((r) => r.kind === 'charge').length === all.length - lostCharges.length, 'the ledger took the rest');
    expect(await balance(acc)).not.toBe(await owed(acc));

    const chargesBefore = await booked('charge_booked');
    const refundsBefore = await booked('refund_booked');
    await reconcile(acc);
    await expectExact(acc, all, refunded);
    expect((await booked('charge_booked')) - chargesBefore).toBe(lostCharges.length);
    expect((await booked('refund_booked')) - refundsBefore).toBe(2);
    const windows = (await pool.query<{ booked: number }>(`SELECT sum(charges_booked + refunds_booked)::int AS booked FROM accounts.charge_reconcile_window WHERE account_id = $1`, [acc])).rows[0];
    expect(windows.booked).toBe(lostCharges.length + 2);

    // a second run: every window summed again and, as if its listing had never been verified, listed again; and every
    // listed answer delivered again: nothing booked
    const before = await entries(acc);
    await pool.query(`UPDATE accounts.charge_reconcile_window SET next_check_at = now(), verified_count = NULL WHERE account_id = $1`, [acc]);
    await reconciler.passOnce();
    await settle();
    const answers = passed.filter((e) => e.type === ChargesListedV1.type && e.accountId === acc);
    expect(answers.length).toBeGreaterThan(0);
    await t.bus.publish(answers.map((e) => ({ ...e, topic: ChargesListedV1.topic })));
    await settle();
    await reconcile(acc);
    expect(await entries(acc)).toEqual(before);
    // and the lost events themselves, arriving late, book nothing either
    loseChargeOf.delete(acc);
    loseRefund.clear();
    const lost = flattenChargeBatches(passed).filter((e) => (e.type === MessageChargedV1.type || e.type === MessageRefundDueV1.type) && e.accountId === acc);
    await t.bus.publish(lost.map((e) => ({ ...e, topic: e.type === MessageChargedV1.type ? MessageChargedV1.topic : MessageRefundDueV1.topic })));
    await settle();
    expect(await entries(acc)).toEqual(before);
    await expectExact(acc, all, refunded);
    expect((await booked('charge_booked')) - chargesBefore).toBe(lostCharges.length);
  }, 120_000);

  it("books nothing of B's for an answer about B on A's question, nor for a question about B under A's envelope", async () => {
    const a = await account('Tenant A');
    const b = await account('Tenant B');
    loseChargeOf.set(b, () => true);
    const theirs = await send(b, 3);
    let first = true;
    loseChargeOf.set(a, () => (first ? !(first = false) : false));
    const mine = await send(a, 2);
    await until(async () => (await entries(a)).filter((r) => r.kind === 'charge').length === 1, "the ledger took A's other charge");
    // A's pages held, so A's questions stay open; B's too, so B's charges stay missing from its ledger
    holdListedFor.add(a);
    holdListedFor.add(b);
    await new Promise((r) => setTimeout(r, 2100));
    await until(async () => {
      await reconciler.passOnce();
      await settle();
      return held.some((e) => e.accountId === a);
    }, "A's page asked and answered");
    const [open] = (await pool.query<{ request_id: string; window_start: Date }>(`SELECT request_id::text, window_start FROM accounts.charge_reconcile_window WHERE account_id = $1 AND state = 'listing' LIMIT 1`, [a])).rows;
    expect(open).toBeDefined();
    const rowsOfB = (await pool.query<{ uuid: string }>(`SELECT uuid::text FROM streams.message WHERE account_id = $1`, [b])).rows.map((r) => ({ messageUuid: r.uuid, priceMicros: PRICE, refundedMicros: PRICE, currency: 'EUR' }));
    const from = open.window_start.toISOString();
    const to = new Date(open.window_start.getTime() + 1000).toISOString();
    const bBefore = await entries(b);
    const ignoredBefore = reconciler.stats.ignored;
    holdListedFor.delete(b); // B's own pages stay held; the forged answers below reach accounts
    // an answer of B's rows on A's question: under B's envelope (no question of B's is open by that id), and with B's data under A's envelope
    await publish(ChargesListedV1, { requestId: open.request_id, accountId: b, from, to, rows: rowsOfB, next: null }, b, 'streams');
    await publish(ChargesListedV1, { requestId: open.request_id, accountId: b, from, to, rows: rowsOfB, next: null }, a, 'streams');
    expect(reconciler.stats.ignored).toBe(ignoredBefore + 2);
    expect(await entries(b)).toEqual(bBefore);
    expect(await balance(b)).toBe(String(CREDIT));
    // streams answers no question about B under A's envelope
    const listedBefore = passed.filter((e) => e.type === ChargesListedV1.type).length;
    await publish(ChargesListRequestedV1, { requestId: randomUUID(), accountId: b, from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date().toISOString(), after: null, limit: 10 }, a, 'accounts');
    expect(passed.filter((e) => e.type === ChargesListedV1.type).length).toBe(listedBefore);
    expect(await entries(b)).toEqual(bBefore);
    // A's own answers, held until now, and B's own questions then book what each lost, on its own ledger
    holdListedFor.delete(a);
    await t.bus.publish(held.splice(0).map((e) => ({ ...e, topic: ChargesListedV1.topic })));
    await reconcile(a);
    await reconcile(b);
    await expectExact(a, mine, []);
    await expectExact(b, theirs, []);
  }, 120_000);

  it('waits out a database outage during a run: the pass fails and the next one takes the same work, the answers then book once, nothing dead-lettered', async () => {
    const acc = await account('Outage');
    let n = 0;
    loseChargeOf.set(acc, () => n++ % 3 === 1);
    const all = await send(acc, 7);
    await until(async () => (await entries(acc)).filter((r) => r.kind === 'charge').length === all.length - 2, 'the ledger took the rest');
    holdListedFor.add(acc); // the account's pages answered before the outage arrive after it
    await new Promise((r) => setTimeout(r, 2100));
    await until(async () => {
      await reconciler.passOnce();
      await settle();
      return held.some((e) => e.accountId === acc);
    }, 'a page answered');
    const deadBefore = await metric('switchboard_bus_events_handled_total', { group: 'accounts.charge-reconcile', outcome: 'dead_lettered' });
    const balanceBefore = await balance(acc);

    const admin = new Client({ connectionString: t.db.url.replace(/\/[^/]*$/, '/postgres') });
    await admin.connect();
    try {
      await admin.query(`ALTER DATABASE "${t.db.name}" ALLOW_CONNECTIONS false`);
      await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [t.db.name]);
      await expect(reconciler.passOnce()).rejects.toThrow();
      await expect(reconciler.passOnce()).rejects.toThrow();
    } finally {
      await admin.query(`ALTER DATABASE "${t.db.name}" ALLOW_CONNECTIONS true`);
      await admin.end();
    }
    // nothing was booked or marked during the outage; the held answers and the next passes finish the work
    expect(await until(() => balance(acc), 'the database back')).toBe(balanceBefore);
    holdListedFor.delete(acc);
    await t.bus.publish(held.splice(0).map((e) => ({ ...e, topic: ChargesListedV1.topic })));
    await reconcile(acc);
    await expectExact(acc, all, []);
    expect(await metric('switchboard_bus_events_handled_total', { group: 'accounts.charge-reconcile', outcome: 'dead_lettered' })).toBe(deadBefore);
  }, 180_000);
});
