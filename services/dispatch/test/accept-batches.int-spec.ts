import { randomUUID } from 'node:crypto';
import { MessageAcceptedV1, MessagesAcceptedV1, type EventData } from '@switchboard/contracts';
import { createEnvelope, type OutgoingEvent } from '@switchboard/platform';
import { SmppPeer } from '../src';
import { smppVendor, startDispatch, type DispatchTestApp } from './support';

type Accepted = EventData<typeof MessageAcceptedV1>;

/** docs/decisions/0181: a send batch's accepted messages as one `streams.messages.accepted` event, taken by dispatch's intake. */
describe("dispatch's intake of accepted batches", () => {
  let peer: SmppPeer;
  let d: DispatchTestApp;

  beforeAll(async () => {
    peer = new SmppPeer();
    const port = await peer.listen();
    d = await startDispatch({ seedVendors: [smppVendor(port)] });
    await d.until(() => d.dispatcher.stats !== undefined && peer.binds > 0);
  });

  afterAll(async () => {
    await d.close();
    await peer.close();
  });

  const accepted = (text: string, o: Partial<Accepted> = {}): Accepted => ({
    messageUuid: randomUUID(),
    accountId: '1',
    streamId: '10',
    streamUid: 'stream-10',
    streamType: 2,
    channel: 'sms',
    sender: 'ACME',
    destination: '+4915112345678',
    iso2: 'DE',
    text,
    encoding: 'GSM7',
    segments: 1,
    priceMicros: 50_000,
    currency: 'EUR',
    payload: null,
    campaignId: null,
    notBefore: null,
    acceptedAt: new Date().toISOString(),
    ...o,
  });
  const itemOf = (data: unknown) => ({ id: randomUUID(), data });
  const batchOf = (accountId: string, items: Array<{ id: string; data: unknown }>): OutgoingEvent =>
    // the envelope made of a good item, then given these (a bad item would fail createEnvelope's check)
    ({ ...createEnvelope(MessagesAcceptedV1, { items: [{ id: randomUUID(), data: accepted('envelope', { accountId }) }] }, { accountId, source: 'streams' }), key: accountId, data: { items } }) as OutgoingEvent;
  const sentTimes = (text: string) => peer.parts.filter((p) => p.text === text).length;
  const rows = async (uuids: string[]) => d.sql<{ uuid: string }>(`SELECT uuid::text FROM dispatch.message WHERE uuid = ANY($1::uuid[])`, [uuids]);

  it('stores every item of a batch and sends each once; a redelivered batch and the per-message form after it store and send nothing again', async () => {
    const tag = randomUUID().slice(0, 8);
    const datas = Array.from({ length: 5 }, (_, i) => accepted(`batch ${tag} ${i}`, { destination: `+49151100000${i}` }));
    const items = datas.map(itemOf);
    const batch = batchOf('1', items);
    await d.publish([batch]);
    for (const x of datas) await d.untilStatus(x.messageUuid, 'delivered');
    // the same batch again (a redelivery, a relay that published it twice), and one item's per-message event (the sweeper)
    await d.publish([{ ...batch }]);
    await d.publish([createEnvelope(MessageAcceptedV1, datas[2], { accountId: '1', source: 'streams', id: items[2].id })]);
    const marker = await d.accept({ text: `marker ${tag}` });
    await d.untilStatus(marker, 'delivered');
    await new Promise((r) => setTimeout(r, 300));
    expect(await rows(datas.map((x) => x.messageUuid))).toHaveLength(5);
    for (const x of datas) expect(sentTimes(x.text)).toBe(1);
  });

  it('a bad item does not lose the others: they are stored and sent, and the batch is dead-lettered naming it', async () => {
    const tag = randomUUID().slice(0, 8);
    const good = [accepted(`good ${tag} 0`), accepted(`good ${tag} 1`)];
    const foreign = itemOf(accepted(`foreign ${tag}`, { accountId: '2' }));
    const malformed = itemOf({ ...accepted(`malformed ${tag}`), segments: 'many' });
    const batch = batchOf('1', [itemOf(good[0]), foreign, malformed, itemOf(good[1])]);
    await d.publish([batch]);
    for (const x of good) await d.untilStatus(x.messageUuid, 'delivered');
    await d.until(async () => (await d.sql(`SELECT 1 FROM dispatch.dead_letter WHERE event_id = $1`, [batch.id])).length > 0, 30_000);
    const [letter] = await d.sql<{ error: string; event_type: string }>(`SELECT error, event_type FROM dispatch.dead_letter WHERE event_id = $1`, [batch.id]);
    expect(letter.event_type).toBe(MessagesAcceptedV1.type);
    expect(letter.error).toContain(foreign.id);
    expect(letter.error).toContain(malformed.id);
    expect(letter.error).not.toContain(good[0].messageUuid);
    for (const x of good) expect(sentTimes(x.text)).toBe(1);
    expect(sentTimes(`foreign ${tag}`)).toBe(0);
    expect(await rows([(foreign.data as Accepted).messageUuid, (malformed.data as Accepted).messageUuid])).toEqual([]);
  });
});
