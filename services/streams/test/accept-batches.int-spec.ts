import { randomUUID } from 'node:crypto';
import { flattenAcceptBatches, flattenChargeBatches, MessageAcceptedV1, MessageChargedV1, MessagesAcceptedV1, MessagesChargedV1 } from '@switchboard/contracts';
import { LookupsService, type ActiveStream } from '../src/services/lookups.service';
import { SendService } from '../src/services/send.service';
import { phone, startStreams, type Json, type StreamsTestApp } from './support';

/**
 * docs/decisions/0181: with `acceptBatches` on, a send batch's accepted events leave as one `streams.messages.accepted`
 * event per account, each item the per-message event it replaces, with the charges in either form.
 */
describe.each([true, false])('accepted batches from the send path (charge batches %s)', (chargeBatches) => {
  let a: StreamsTestApp;
  let sends: SendService;

  beforeAll(async () => {
    a = await startStreams({ cacheTtlMs: 60_000, acceptBatches: true, chargeBatches });
    sends = a.t.app.get(SendService);
  });
  afterAll(async () => {
    await a?.close();
  });

  async function streamOf(acc: string): Promise<ActiveStream> {
    await a.account(acc, { prices: { US: 50_000 }, balance: 10_000_000 });
    const created = await a.stream(acc);
    const stream = (await a.t.app.get(LookupsService).streamByToken(created.token)) as ActiveStream;
    await sends.send(stream, { phone: phone(99), message: `warm ${randomUUID()}` });
    return stream;
  }

  it("publishes one batch per account of a send batch's accepted messages, no per-message accepted event, each item its message's own", async () => {
    const one = await streamOf(chargeBatches ? '941' : '951');
    const two = await streamOf(chargeBatches ? '942' : '952');
    await a.events();
    const seen = (await a.events()).length;
    const batch: Array<[ActiveStream, Json]> = [
      [one, { phone: phone(1), message: 'first' }],
      [two, { phone: phone(1), message: 'second' }],
      [one, { phone: phone(2), message: 'third' }],
    ];
    const answers = await Promise.all(batch.map(([stream, body]) => sends.send(stream, body)));
    const uuids = answers.map((r) => r.body.message_uuid);

    const events = (await a.events()).slice(seen);
    expect(events.filter((e) => e.type === MessageAcceptedV1.type)).toEqual([]);
    const batches = events.filter((e) => e.type === MessagesAcceptedV1.type);
    expect(batches.map((b) => b.accountId).sort()).toEqual([one.accountId, two.accountId].sort());
    for (const b of batches) expect(() => MessagesAcceptedV1.schema.parse(b.data)).not.toThrow();
    const accepted = flattenAcceptBatches(batches);
    expect(accepted.map((e) => (e.data as Json).messageUuid).sort()).toEqual([...uuids].sort());
    for (const e of accepted) {
      expect(e.accountId).toBe((e.data as Json).accountId);
      expect(e.key).toBe((e.data as Json).messageUuid);
      expect(() => MessageAcceptedV1.schema.parse(e.data)).not.toThrow();
    }
    expect((accepted.find((e) => (e.data as Json).messageUuid === uuids[1])?.data as Json).text).toBe('second');
    // the charges: in the form their own option says
    const charges = chargeBatches ? flattenChargeBatches(events.filter((e) => e.type === MessagesChargedV1.type)) : events.filter((e) => e.type === MessageChargedV1.type);
    expect(charges.map((c) => (c.data as Json).messageUuid).sort()).toEqual([...uuids].sort());
  });
});
