import { randomUUID } from 'node:crypto';
import { flattenChargeBatches, MessageAcceptedV1, MessageChargedV1, MessagesChargedV1 } from '@switchboard/contracts';
import type { AppError } from '@switchboard/platform';
import { LookupsService, type ActiveStream } from '../src/services/lookups.service';
import { SendDatabase } from '../src/services/send-database';
import { SendService } from '../src/services/send.service';
import { phone, startStreams, type Json, type StreamsTestApp } from './support';

/**
 * docs/decisions/0178: with `chargeBatches` on (the default), a send batch's charges leave as one `streams.messages.charged` event per
 * account, each item the per-message event it replaces (its account, amount and balance after its own debit); the
 * accepted events stay one a message.
 */
describe('charge batches from the send path', () => {
  let a: StreamsTestApp;
  let sends: SendService;
  let statements: jest.SpyInstance;

  beforeAll(async () => {
    a = await startStreams({ cacheTtlMs: 60_000 });
    sends = a.t.app.get(SendService);
    statements = jest.spyOn(a.t.app.get(SendDatabase), 'prepared');
  });
  afterAll(async () => {
    await a?.close();
  });

  async function streamOf(acc: string, balance: number): Promise<ActiveStream> {
    await a.account(acc, { prices: { US: 50_000 }, balance: balance + 50_000 });
    const created = await a.stream(acc);
    const stream = (await a.t.app.get(LookupsService).streamByToken(created.token)) as ActiveStream;
    await sends.send(stream, { phone: phone(99), message: `warm ${randomUUID()}` });
    return stream;
  }

  it("publishes one batch per account of a send batch's charges, no per-message charge, each item its message's own", async () => {
    const one = await streamOf('931', 150_000);
    const two = await streamOf('932', 1_000_000);
    await a.events();
    const seen = (await a.events()).length;
    statements.mockClear();
    const batch: Array<[ActiveStream, Json]> = [
      [one, { phone: phone(1), message: 'x'.repeat(161) }],
      [two, { phone: phone(1), message: 'first' }],
      [one, { phone: phone(2), message: 'x'.repeat(161) }],
      [one, { phone: phone(3), message: 'one segment' }],
      [two, { phone: phone(2), message: 'second' }],
    ];
    const settled = await Promise.allSettled(batch.map(([stream, body]) => sends.send(stream, body)));
    expect(statements).toHaveBeenCalledTimes(1);
    expect(settled.map((s) => (s.status === 'fulfilled' ? 202 : (s.reason as AppError).status))).toEqual([202, 202, 402, 202, 202]);
    const uuids = settled.map((s) => (s.status === 'fulfilled' ? s.value.body.message_uuid : null));

    const events = (await a.events()).slice(seen);
    expect(events.filter((e) => e.type === MessageChargedV1.type)).toEqual([]);
    // one accepted event for each accepted send; concurrent sends have no defined order among themselves (CI, stop 33)
    expect(events.filter((e) => e.type === MessageAcceptedV1.type).map((e) => String((e.data as Json).messageUuid)).sort()).toEqual(uuids.filter((u): u is string => u !== null).sort());
    const batches = events.filter((e) => e.type === MessagesChargedV1.type);
    expect(batches.map((b) => b.accountId).sort()).toEqual(['931', '932']);
    for (const b of batches) expect(() => MessagesChargedV1.schema.parse(b.data)).not.toThrow();

    const charges = flattenChargeBatches(batches);
    const of = (uuid: string | null) => charges.find((c) => (c.data as Json).messageUuid === uuid);
    // each under its own account, with the balance after its own debit, as the per-message events carried
    expect(charges).toHaveLength(4);
    expect(of(uuids[0])).toMatchObject({ accountId: '931', key: '931', data: { accountId: '931', amountMicros: 100_000, balanceAfterMicros: 50_000 } });
    expect(of(uuids[3])).toMatchObject({ accountId: '931', data: { amountMicros: 50_000, balanceAfterMicros: 0 } });
    expect(of(uuids[1])).toMatchObject({ accountId: '932', data: { accountId: '932', amountMicros: 50_000, balanceAfterMicros: 950_000 } });
    expect(of(uuids[4])).toMatchObject({ accountId: '932', data: { amountMicros: 50_000, balanceAfterMicros: 900_000 } });
    for (const c of charges) expect(() => MessageChargedV1.schema.parse(c.data)).not.toThrow();
    expect(new Set(charges.map((c) => c.id)).size).toBe(4);
  });
});
