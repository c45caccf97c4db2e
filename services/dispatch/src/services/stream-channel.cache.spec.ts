import type { ProcessRoles } from '@switchboard/platform';
import type { ResolvedDispatchOptions } from '../dispatch.options';
import type { ReadModelRepository, StreamChannelRow } from '../repositories/read-model.repository';
import { STREAM_CHANNEL_RELOAD_MS, StreamChannelCache } from './stream-channel.cache';

const row = (over: Partial<StreamChannelRow> = {}): StreamChannelRow => ({
  streamId: '70',
  accountId: '7',
  streamUid: 'wa-stream-70',
  streamType: 5,
  channel: 'whatsapp',
  sender: '2020202020',
  credentials: { businessId: '1010101010' },
  sealedCredentials: null,
  enabled: true,
  tps: 0,
  authState: null,
  ...over,
});

/** The cache over a read model held in a map, counting the reads by uid a webhook post causes. */
function cacheOver(rows: Map<string, StreamChannelRow>) {
  const reads: string[] = [];
  const repo = {
    streamChannelByUid: async (uid: string) => {
      reads.push(uid);
      await new Promise((r) => setImmediate(r));
      return rows.get(uid) ?? null;
    },
  } as unknown as ReadModelRepository;
  const cache = new StreamChannelCache(repo, { schedulers: false } as unknown as ProcessRoles, {} as ResolvedDispatchOptions);
  return { cache, reads };
}

describe('StreamChannelCache.byUid (the stream a WhatsApp webhook URL names)', () => {
  afterEach(() => jest.useRealTimers());

  it('reads a stream once for many webhook posts, the concurrent ones included', async () => {
    const { cache, reads } = cacheOver(new Map([['wa-stream-70', row()]]));
    const first = await Promise.all(Array.from({ length: 20 }, () => cache.byUid('wa-stream-70')));
    for (let i = 0; i < 30; i++) expect((await cache.byUid('wa-stream-70'))?.accountId).toBe('7');
    expect(first.every((r) => r?.streamId === '70')).toBe(true);
    expect(reads).toEqual(['wa-stream-70']);
  });

  it('answers what the stream event put at once, without a read', async () => {
    const { cache, reads } = cacheOver(new Map([['wa-stream-70', row()]]));
    await cache.byUid('wa-stream-70');
    cache.put(row({ channel: 'sms', streamType: 4 }));
    expect((await cache.byUid('wa-stream-70'))?.channel).toBe('sms');
    expect(reads).toHaveLength(1);
  });

  it('does not remember a uid it did not find: a stream created a moment later is found by the next post', async () => {
    const rows = new Map<string, StreamChannelRow>();
    const { cache } = cacheOver(rows);
    expect(await cache.byUid('wa-stream-70')).toBeNull();
    rows.set('wa-stream-70', row());
    expect((await cache.byUid('wa-stream-70'))?.streamId).toBe('70');
  });

  it('reads the stream again once the reload period has passed (another process changed it)', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    const rows = new Map([['wa-stream-70', row()]]);
    const { cache, reads } = cacheOver(rows);
    await cache.byUid('wa-stream-70');
    rows.set('wa-stream-70', row({ accountId: '8' }));
    jest.advanceTimersByTime(STREAM_CHANNEL_RELOAD_MS - 1);
    expect((await cache.byUid('wa-stream-70'))?.accountId).toBe('7');
    jest.advanceTimersByTime(2);
    expect((await cache.byUid('wa-stream-70'))?.accountId).toBe('8');
    expect(reads).toHaveLength(2);
  });
});
