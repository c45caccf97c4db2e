import { randomUUID } from 'node:crypto';
import { AppError } from '@switchboard/platform';
import { LookupsService, type ActiveStream } from '../src/services/lookups.service';
import { SendDatabase } from '../src/services/send-database';
import { SendService, type SendResult } from '../src/services/send.service';
import { phone, startStreams, type Json, type StreamsTestApp } from './support';

/**
 * Group commit (docs/decisions/0016-stream-api-group-commit.md): sends that arrive together are written by one
 * statement and one commit, yet each is decided on its own, in arrival order, as if written one by one. Lookups are
 * cached here, so sends submitted in one turn of the event loop land in one batch.
 */
describe('stream API group commit', () => {
  let a: StreamsTestApp;
  let sends: SendService;
  let statements: jest.SpyInstance;

  beforeAll(async () => {
    // the per-message form of charges (docs/decisions/0178: batches are the default, covered by charge-batches.int-spec)
    a = await startStreams({ cacheTtlMs: 60_000, chargeBatches: false });
    sends = a.t.app.get(SendService);
    statements = jest.spyOn(a.t.app.get(SendDatabase), 'prepared');
  });
  afterAll(async () => {
    await a?.close();
  });

  /** A stream of a new account, its lookups cached by a first send. */
  async function streamOf(acc: string, o: Parameters<StreamsTestApp['account']>[1]): Promise<ActiveStream> {
    await a.account(acc, { prices: { US: 50_000 }, ...o, balance: (o?.balance ?? 0) + 50_000 });
    const created = await a.stream(acc);
    const stream = (await a.t.app.get(LookupsService).streamByToken(created.token)) as ActiveStream;
    await sends.send(stream, { phone: phone(99), message: `warm ${randomUUID()}` });
    return stream;
  }

  /** Sends in one turn; each answer is the status and code, or the accepted answer's price. */
  async function together(batch: Array<[ActiveStream, Json, string?]>): Promise<Array<{ status: number; code?: string; body?: SendResult['body'] }>> {
    statements.mockClear();
    const settled = await Promise.allSettled(batch.map(([stream, body, key]) => sends.send(stream, body, { idempotencyKey: key ?? null })));
    return settled.map((s) => (s.status === 'fulfilled' ? { status: 202, body: s.value.body } : { status: (s.reason as AppError).status, code: String((s.reason as AppError).code) }));
  }

  const long = 'x'.repeat(161); // two segments: 100 000 micros

  it('decides each send of a batch on its own, in order: the balance pays for the first and third, not the second and fourth', async () => {
    const st = await streamOf('901', { balance: 150_000 });
    const answers = await together([
      [st, { phone: phone(1), message: long }],
      [st, { phone: phone(2), message: long }],
      [st, { phone: phone(3), message: 'one segment' }],
      [st, { phone: phone(4), message: 'one segment' }],
    ]);
    expect(statements).toHaveBeenCalledTimes(1);
    expect(answers.map((x) => x.status)).toEqual([202, 402, 202, 402]);
    expect(answers[1].code).toBe('0x41');
    expect(await a.balance('901')).toBe(0);
    const [{ n }] = await a.sql(`SELECT count(*)::int AS n FROM streams.message WHERE account_id = 901`);
    expect(n).toBe(3);
    // each charged event carries the balance after its own debit
    const events = await a.events();
    expect(events.filter((e) => e.type === 'streams.messages.charged')).toEqual([]);
    const charged = events.filter((e) => e.type === 'streams.message.charged' && e.accountId === '901').map((e) => e.data as Json);
    const after = (uuid: string | undefined) => charged.find((d) => d.messageUuid === uuid)?.balanceAfterMicros;
    expect([after(answers[0].body?.message_uuid), after(answers[2].body?.message_uuid)]).toEqual([50_000, 0]);
  });

  it('counts the earlier sends of its batch against the daily limit (0x30)', async () => {
    const st = await streamOf('902', { balance: 1_000_000, dailyLimit: 3 });
    const answers = await together([1, 2, 3].map((i) => [st, { phone: phone(i), message: `limit ${i}` }]));
    expect(statements).toHaveBeenCalledTimes(1);
    expect(answers.map((x) => x.code ?? x.status)).toEqual([202, 202, '0x30']);
  });

  it('charges each account of a mixed batch its own price and balance', async () => {
    const rich = await streamOf('903', { balance: 1_000_000, ownPrices: { US: 20_000 } });
    const broke = await streamOf('904', { balance: 0 });
    const before = await a.balance('903');
    const answers = await together([
      [broke, { phone: phone(1), message: 'mixed' }],
      [rich, { phone: phone(1), message: 'mixed' }],
    ]);
    expect(statements).toHaveBeenCalledTimes(1);
    expect(answers[0].code).toBe('0x41');
    expect(answers[1]).toMatchObject({ status: 202, body: { price: 0.02 } });
    expect({ rich: await a.balance('903'), broke: await a.balance('904') }).toEqual({ rich: before - 20_000, broke: 0 });
  });

  it('keeps two sends of one text to one destination apart: the first is accepted, the second is a duplicate (0x19)', async () => {
    const st = await streamOf('905', { balance: 1_000_000 });
    const body = { phone: phone(1), message: `twice ${randomUUID()}` };
    const answers = await together([
      [st, body],
      [st, body],
    ]);
    expect(statements).toHaveBeenCalledTimes(2);
    expect(answers.map((x) => x.code ?? x.status)).toEqual([202, '0x19']);
    expect(await a.balance('905')).toBe(1_000_000 - 50_000);
  });

  it('answers concurrent sends with one Idempotency-Key with one message', async () => {
    const st = await streamOf('906', { balance: 1_000_000 });
    const key = `together-${randomUUID()}`;
    const body = { phone: phone(1), message: 'keyed' };
    const answers = await together([0, 1, 2].map(() => [st, body, key]));
    expect(answers.map((x) => x.status)).toEqual([202, 202, 202]);
    expect(new Set(answers.map((x) => x.body?.message_uuid)).size).toBe(1);
    expect(await a.balance('906')).toBe(1_000_000 - 50_000);
  });

  it('releases the fingerprint and the Idempotency-Key of a send refused for its balance, so it can be sent again once paid', async () => {
    const st = await streamOf('907', { balance: 0 });
    const key = `retry-${randomUUID()}`;
    const body = { phone: phone(1), message: 'pay first' };
    expect((await together([[st, body, key]]))[0].code).toBe('0x41');
    await a.account('907', { balance: 50_000 });
    const again = await together([[st, body, key]]);
    expect(again[0]).toMatchObject({ status: 202, body: { price: 0.05 } });
  });

  it('holds two concurrent batches of one account to its daily limit together: exactly the limit is accepted', async () => {
    const st = await streamOf('908', { balance: 1_000_000, dailyLimit: 4 }); // the warm-up send is the first of 4
    const db = a.t.app.get(SendDatabase);
    const accepted = async () => (await a.sql<{ n: number }>(`SELECT count(*)::int AS n FROM streams.message WHERE account_id = 908`))[0].n;
    const first = await sends.prepare(st, { phone: phone(1), message: 'first batch' });
    if ('replay' in first) throw new Error('unexpected replay');
    let second: Promise<Array<{ status: number; code?: string }>> | null = null;
    await db.transaction(async (c) => {
      // the first batch is written and not yet committed when the second one is written
      expect((await sends.commit(first, c)).body).toMatchObject({ price: 0.05 });
      second = together([2, 3, 4].map((i) => [st, { phone: phone(i), message: `second batch ${i}` }]));
      // until the second batch has finished, or waits on a lock the first one holds
      let done = false;
      void second.then(() => (done = true));
      for (;;) {
        const [{ waiting }] = await a.sql<{ waiting: number }>(
          `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE application_name = 'switchboard-streams-send' AND wait_event_type = 'Lock'`,
        );
        if (done || waiting > 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
    });
    const answers = await (second as unknown as Promise<Array<{ status: number; code?: string }>>);
    expect(answers.map((x) => x.code ?? x.status)).toEqual([202, 202, '0x30']);
    expect(await accepted()).toBe(4);
  });
});
