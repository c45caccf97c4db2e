import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { StreamCreatedV1, StreamUpdatedV1, type StreamSnapshot } from '@switchboard/contracts';
import { createEnvelope } from '@switchboard/platform';
import { SmppPeer } from '../src';
import { smppVendor, startDispatch, type DispatchTestApp } from './support';

const ACCOUNT = '21';

/** Polls on the monotonic clock: `Date.now` is held still by these tests. */
async function until(check: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const end = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 15));
  }
}

describe('stream TPS in the dispatcher, from the streams events', () => {
  let peer: SmppPeer;
  let d: DispatchTestApp;
  const uids = new Map<string, string>();

  const snapshot = (streamId: string, o: Partial<StreamSnapshot> = {}): StreamSnapshot => {
    if (!uids.has(streamId)) uids.set(streamId, randomUUID());
    return {
      streamId,
      accountId: ACCOUNT,
      streamUid: uids.get(streamId)!,
      name: `stream ${streamId}`,
      streamType: 2,
      status: 0,
      staticServiceType: null,
      sender: 'ACME',
      enableSending: true,
      isDefault: false,
      tps: 0,
      updatedAt: new Date().toISOString(),
      ...o,
    };
  };
  const publishStream = (def: typeof StreamCreatedV1 | typeof StreamUpdatedV1, data: StreamSnapshot) =>
    d.publish([createEnvelope(def, data, { accountId: data.accountId, source: 'streams' })]);
  const channelRow = async (streamId: string) =>
    (await d.sql<{ tps: number; sender: string; enabled: boolean; channel: string }>(`SELECT tps, sender, enabled, channel FROM dispatch.stream_channel WHERE stream_id = $1`, [streamId]))[0];
  const submittedTo = (prefix: string) => peer.parts.filter((p) => p.destination.startsWith(prefix)).length;

  beforeAll(async () => {
    peer = new SmppPeer();
    const port = await peer.listen();
    d = await startDispatch({ seedVendors: [smppVendor(port)] });
    await d.until(() => peer.binds > 0);
    await d.setAccountTps(ACCOUNT, 1000);
  });

  afterEach(() => jest.restoreAllMocks());

  afterAll(async () => {
    await d.close();
    await peer.close();
  });

  it('keeps the TPS of a stream without provider settings from its created and updated events', async () => {
    await publishStream(StreamCreatedV1, snapshot('2100', { tps: 20 }));
    await until(async () => (await channelRow('2100'))?.tps === 20);
    // a marketing or transactional stream has no channel of its own: its row matches no inbound number
    expect(await channelRow('2100')).toEqual({ tps: 20, sender: '', enabled: false, channel: 'sms' });
    await publishStream(StreamUpdatedV1, snapshot('2100', { tps: 7 }));
    await until(async () => (await channelRow('2100'))?.tps === 7);
    // an event from before the field existed reads as no stream limit
    const old: Record<string, unknown> = { ...snapshot('2100') };
    delete old.tps;
    await d.publish([createEnvelope(StreamUpdatedV1, old as StreamSnapshot, { accountId: ACCOUNT, source: 'streams' })]);
    await until(async () => (await channelRow('2100'))?.tps === 0);
  });

  it('keeps the TPS when the channel settings of a two-way stream arrive or change, and keeps the channel when the TPS changes', async () => {
    await publishStream(StreamCreatedV1, snapshot('2110', { streamType: 4, sender: '4915199990000', tps: 15 }));
    await d.configureStream({ streamId: '2110', streamUid: uids.get('2110'), accountId: ACCOUNT, streamType: 4, channel: 'sms', sender: '4915199990000' });
    expect(await channelRow('2110')).toEqual({ tps: 15, sender: '4915199990000', enabled: true, channel: 'sms' });
    await publishStream(StreamUpdatedV1, snapshot('2110', { streamType: 4, sender: '4915199990000', tps: 30 }));
    await until(async () => (await channelRow('2110'))?.tps === 30);
    expect(await channelRow('2110')).toEqual({ tps: 30, sender: '4915199990000', enabled: true, channel: 'sms' });
  });

  it('paces a stream updated to 20/s at 20 submits per second of the dispatcher clock, holding the rest back', async () => {
    const prefix = '491512021';
    await publishStream(StreamCreatedV1, snapshot('2101'));
    await publishStream(StreamUpdatedV1, snapshot('2101', { tps: 20 }));
    await until(async () => (await channelRow('2101'))?.tps === 20);

    // The dispatcher's clock stands still: what it lets through is what its buckets allow in that instant (a burst of
    // one, then a slot every 50 ms for the next second); a message whose slot is further off is not sent (it waits
    // parked in memory, or back in the queue, until its turn).
    const t0 = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(t0);
    const uuids = await Promise.all(Array.from({ length: 50 }, (_, i) => d.accept({ accountId: ACCOUNT, streamId: '2101', streamUid: uids.get('2101'), destination: `+${prefix}${String(i).padStart(3, '0')}` })));
    const state = async () =>
      (await d.sql<{ unsent: number }>(`SELECT count(*) FILTER (WHERE status = 'accepted')::int AS unsent FROM dispatch.message WHERE uuid = ANY($1::uuid[])`, [uuids]))[0].unsent;
    await until(async () => submittedTo(prefix) >= 21 && (await state()) === 29);
    expect(submittedTo(prefix)).toBe(21);

    // One second later on that clock: twenty more slots, no burst on top (the bucket spent it), the rest still held.
    clock.mockReturnValue(t0 + 1000);
    await d.sql(`UPDATE dispatch.message SET next_attempt_at = now() WHERE uuid = ANY($1::uuid[]) AND send_state = 'queued'`, [uuids]);
    d.dispatcher.wakeUp();
    await until(async () => submittedTo(prefix) >= 41 && (await state()) === 9);
    expect(submittedTo(prefix)).toBe(41);

    // the clock runs again: the rest go, each message exactly once
    clock.mockRestore();
    await d.sql(`UPDATE dispatch.message SET next_attempt_at = now() WHERE uuid = ANY($1::uuid[]) AND send_state = 'queued'`, [uuids]);
    d.dispatcher.wakeUp();
    for (const uuid of uuids) await d.untilStatus(uuid, 'delivered');
    expect(submittedTo(prefix)).toBe(50);
    expect(new Set(peer.parts.filter((p) => p.destination.startsWith(prefix)).map((p) => p.destination)).size).toBe(50);
  });

  it('lets a stream whose TPS is removed go at the account rate', async () => {
    const prefix = '491512022';
    await publishStream(StreamCreatedV1, snapshot('2102', { tps: 1 }));
    await publishStream(StreamUpdatedV1, snapshot('2102', { tps: 0 }));
    await until(async () => (await channelRow('2102'))?.tps === 0);
    const clock = jest.spyOn(Date, 'now').mockReturnValue(Date.now());
    // at 1/s, 30 messages would need half a minute; under the account's 1000/s (a burst of 20) they fit in its first second
    const uuids = await Promise.all(Array.from({ length: 30 }, (_, i) => d.accept({ accountId: ACCOUNT, streamId: '2102', streamUid: uids.get('2102'), destination: `+${prefix}${String(i).padStart(3, '0')}` })));
    await until(() => submittedTo(prefix) >= 30);
    clock.mockRestore();
    for (const uuid of uuids) await d.untilStatus(uuid, 'delivered');
  });
});
