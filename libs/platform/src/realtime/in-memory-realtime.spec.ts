import { Logger } from '@nestjs/common';
import type { RealtimeMessage } from '@switchboard/contracts';
import { InMemoryRealtime } from './in-memory-realtime';
import { parseEventId } from './event-id';

const tick = () => new Promise((r) => setImmediate(r));
const payload = (accountId: string, topic: string, type = 'updated', data: unknown = {}) => ({ accountId, topic, type, data });

describe('InMemoryRealtime', () => {
  let rt: InMemoryRealtime;
  beforeEach(() => {
    rt = new InMemoryRealtime();
  });
  afterEach(() => rt.close());

  it('delivers to matching wildcard subscriptions, asynchronously, with id, subject and time', async () => {
    const exact: RealtimeMessage[] = [];
    const star: RealtimeMessage[] = [];
    const rest: RealtimeMessage[] = [];
    await rt.subscribe('rt.10.campaigns', (m) => exact.push(m));
    await rt.subscribe('rt.*.campaigns.*', (m) => star.push(m));
    await rt.subscribe('rt.10.>', (m) => rest.push(m));
    await rt.publish('rt.10.campaigns', payload('10', 'campaigns'));
    await rt.publish('rt.10.campaigns.5', payload('10', 'campaigns'));
    await rt.publish('rt.11.campaigns.6', payload('11', 'campaigns'));
    expect(exact).toHaveLength(0);
    await tick();
    expect(exact.map((m) => m.subject)).toEqual(['rt.10.campaigns']);
    expect(star.map((m) => m.subject)).toEqual(['rt.10.campaigns.5', 'rt.11.campaigns.6']);
    expect(rest.map((m) => m.subject)).toEqual(['rt.10.campaigns', 'rt.10.campaigns.5']);
    expect(parseEventId(exact[0].id)).not.toBeNull();
    expect(Date.parse(exact[0].at)).toBeGreaterThan(0);
  });

  it('keeps publish order per subscriber and monotonic ids', async () => {
    const got: RealtimeMessage[] = [];
    await rt.subscribe('rt.10.campaigns.>', (m) => got.push(m));
    for (let i = 0; i < 500; i++) await rt.publish(`rt.10.campaigns.${i}`, payload('10', 'campaigns', 'updated', { i }));
    await tick();
    expect(got.map((m) => (m.data as { i: number }).i)).toEqual([...Array(500).keys()]);
    const parsed = got.map((m) => parseEventId(m.id));
    for (let i = 1; i < parsed.length; i++) {
      expect(parsed[i]!.ms).toBeGreaterThanOrEqual(parsed[i - 1]!.ms);
      expect(parsed[i]!.seq).toBeGreaterThan(parsed[i - 1]!.seq);
    }
  });

  it('keeps publish order across subscriptions (one client following two topics)', async () => {
    const got: string[] = [];
    await rt.subscribe('rt.10.campaigns.>', (m) => got.push(m.subject));
    await rt.subscribe('rt.10.streams.>', (m) => got.push(m.subject));
    await rt.publish('rt.10.campaigns.1', payload('10', 'campaigns'));
    await rt.publish('rt.10.streams.2', payload('10', 'streams'));
    await rt.publish('rt.10.campaigns.3', payload('10', 'campaigns'));
    await tick();
    expect(got).toEqual(['rt.10.campaigns.1', 'rt.10.streams.2', 'rt.10.campaigns.3']);
  });

  it('stops delivering after unsubscribe, including messages already queued', async () => {
    const got: string[] = [];
    const unsubscribe = await rt.subscribe('rt.10.>', (m) => got.push(m.subject));
    await rt.publish('rt.10.campaigns.1', payload('10', 'campaigns'));
    await unsubscribe();
    await rt.publish('rt.10.campaigns.2', payload('10', 'campaigns'));
    await tick();
    expect(got).toEqual([]);
    expect(rt.subscriptionCount).toBe(0);
  });

  it('isolates a throwing or rejecting listener from the others', async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const got: string[] = [];
    await rt.subscribe('rt.10.>', () => {
      throw new Error('boom');
    });
    await rt.subscribe('rt.10.>', (async () => {
      throw new Error('async boom');
    }) as unknown as (m: RealtimeMessage) => void);
    await rt.subscribe('rt.10.>', (m) => got.push(m.subject));
    await rt.publish('rt.10.campaigns.1', payload('10', 'campaigns'));
    await rt.publish('rt.10.campaigns.2', payload('10', 'campaigns'));
    await tick();
    expect(got).toEqual(['rt.10.campaigns.1', 'rt.10.campaigns.2']);
    expect(logged.mock.calls.map((c) => String(c[0]))).toEqual(expect.arrayContaining([expect.stringMatching(/failed: boom/), expect.stringMatching(/async boom/)]));
    logged.mockRestore();
  });

  it('refuses a message whose account or topic is not its subject', async () => {
    await expect(rt.publish('rt.10.campaigns.1', payload('11', 'campaigns'))).rejects.toThrow(/account 11/);
    await expect(rt.publish('rt.10.campaigns.1', payload('10', 'streams'))).rejects.toThrow(/topic streams/);
    await expect(rt.publish('rt.10.camp aigns', payload('10', 'camp aigns'))).rejects.toThrow(/invalid/);
    await expect(rt.subscribe('rt.>.x', () => undefined)).rejects.toThrow(/invalid/);
  });

  it('replays what a client missed from its account only', async () => {
    const seen: RealtimeMessage[] = [];
    await rt.subscribe('rt.10.>', (m) => seen.push(m));
    await rt.publish('rt.10.campaigns.1', payload('10', 'campaigns'));
    await tick();
    const last = seen[0].id;
    await rt.publish('rt.10.campaigns.2', payload('10', 'campaigns'));
    await rt.publish('rt.11.campaigns.3', payload('11', 'campaigns'));
    await rt.publish('rt.10.streams.4', payload('10', 'streams'));
    const r = await rt.replay('10', last, ['rt.10.campaigns', 'rt.10.campaigns.>']);
    expect(r.complete).toBe(true);
    expect(r.messages.map((m) => m.subject)).toEqual(['rt.10.campaigns.2']);
    // the buffer is keyed by the subject's account: account 11's patterns see nothing of account 10
    expect((await rt.replay('11', last, ['rt.11.>'])).messages.map((m) => m.subject)).toEqual(['rt.11.campaigns.3']);
  });

  it('bounds the replay buffer per account', async () => {
    const small = new InMemoryRealtime({ replay: { perAccount: 10 } });
    for (let i = 0; i < 25; i++) await small.publish(`rt.10.campaigns.${i}`, payload('10', 'campaigns'));
    const r = await small.replay('10', '1-1', ['rt.10.>']);
    expect(r.complete).toBe(false);
    expect(r.messages.map((m) => m.subject)).toEqual([...Array(10).keys()].map((i) => `rt.10.campaigns.${i + 15}`));
    await small.close();
  });

  it("keeps an account's SSE history however many inbox websocket room events it publishes (those replay from the inbox's log)", async () => {
    const seen: RealtimeMessage[] = [];
    await rt.subscribe('rt.10.>', (m) => seen.push(m));
    await rt.publish('rt.10.inbox.1', payload('10', 'inbox'));
    await tick();
    const last = seen[0].id;
    // more room events than the buffer keeps per account (1,000), each still delivered live
    for (let i = 0; i < 1500; i++) await rt.publish(`rt.10.inboxws.team.${i % 3}`, payload('10', 'inboxws', 'incoming_message', { seq: i }));
    await rt.publish('rt.10.inbox.2', payload('10', 'inbox'));
    await tick();
    expect(seen).toHaveLength(1502);
    const r = await rt.replay('10', last, ['rt.10.inbox', 'rt.10.inbox.>']);
    expect(r).toEqual({ messages: [seen[1501]], complete: true });
  });

  it('drops publishes after close instead of failing the caller', async () => {
    await rt.close();
    await expect(rt.publish('rt.10.campaigns', payload('10', 'campaigns'))).resolves.toBeUndefined();
    await expect(rt.subscribe('rt.10.>', () => undefined)).rejects.toThrow(/closed/);
  });
});
