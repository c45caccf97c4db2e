import { randomUUID } from 'node:crypto';
import { StreamType } from '@switchboard/contracts';
import { timeOrderedUuid } from '@switchboard/platform';
import { SEND_EVENTS_ALL_TYPE } from './accept-batches';
import { SEND_EVENTS_TYPE } from './charge-batches';
import { type CompactEvents } from './compact-sends';
import { acceptedEventId, SendService, type PreparedSend } from './send.service';

/**
 * docs/decisions/0210: which send batches the send path writes compactly, and what node's part of such a row holds.
 * The statement's side and the relay's events are proved against the full form in test/accept-messages-compact.int-spec.ts.
 */
describe('the send path, compact send rows', () => {
  const stream = (id: string) => ({ id, accountId: '1', streamUid: `uid-${id}`, name: 's', streamType: StreamType.Marketing, status: 1, enableSending: true, sender: 'SHOP', params: {}, acl: {}, checkIpAcl: false, providerReady: true });
  const customer = { accountId: '1', status: 'active', active: 1, currency: 'EUR', tps: 1e9, dailyLimit: null, settings: {} };
  const prepared = (n: number, o: { stream?: string; uuid?: string; variantId?: string } = {}): PreparedSend => ({
    stream: stream(o.stream ?? '10') as never,
    customer: customer as never,
    input: { destination: `+4915110000${n}`, iso2: 'DE', text: `Hello "${n}" ✓`, sender: 'SHOP', payload: null },
    flags: { campaignId: '7', messageUuid: o.uuid ?? timeOrderedUuid(), notBefore: null, noFingerprint: true, variantId: o.variantId },
    key: null,
    requestHash: null,
  });

  function service(o: Record<string, unknown> = {}) {
    const calls: Array<{ name: string; values: unknown[] }> = [];
    const db = {
      prepared: async (name: string, _text: string, values: unknown[]) => {
        calls.push({ name, values });
        return (JSON.parse(String(values[0])) as unknown[]).map((_, n) => ({ ord: n + 1, result: 'ok', amount_micros: '50000', currency: 'EUR' }));
      },
    };
    const options = { sendBatchMax: 100, sendBatchesInFlight: 1, sharedTps: false, duplicateWindowSeconds: 0, balanceSlots: 4, defaultPriceMicros: null, idempotencyTtlSeconds: 86400, chargeBatches: true, acceptBatches: false, compactSendRows: true, ...o };
    const s = new SendService(db as never, {} as never, {} as never, { sent: () => undefined } as never, { now: () => new Date('2026-03-02T10:00:00.000Z') } as never, options as never);
    return { s, calls };
  }

  it('writes a batch whose sends share their heads compactly: rows without heads, and the events text with one group', async () => {
    const { s, calls } = service();
    const sends = [prepared(1), prepared(2, { variantId: '5' }), prepared(3)];
    await s.writeAll(sends, {} as never);
    expect(calls.map((c) => c.name)).toEqual(['streams_accept_messages_compact']);
    const rows = JSON.parse(String(calls[0].values[0])) as Array<Record<string, unknown>>;
    for (const r of rows) for (const k of ['h', 'aid', 'cid', 'v', 'accepted', 'charged']) expect(r).not.toHaveProperty(k);
    const events = JSON.parse(String(calls[0].values[1])) as CompactEvents;
    expect(events.f).toBe(SEND_EVENTS_TYPE);
    expect(events.o).toBe('2026-03-02T10:00:00.000Z');
    expect(events.g).toEqual([expect.objectContaining({ a: '1', s: '10', u: 'uid-10', t: StreamType.Marketing, c: 'sms', ti: null })]);
    expect(events.g[0]).not.toHaveProperty('tp');
    expect(events.s.map((x) => [x[0], x[1], x[3]])).toEqual(sends.map((p) => [0, acceptedEventId(p.flags.messageUuid!), p.flags.messageUuid]));
    expect(events.s[1][4]).toEqual({ sender: 'SHOP', destination: '+49151100002', iso2: 'DE', text: 'Hello "2" ✓', encoding: 'UCS2', segments: 1, payload: null, campaignId: '7', notBefore: null, variantId: '5' });
    expect(new Set(events.s.map((x) => x[2])).size).toBe(3);
  });

  it('names the fold of the row type the options give', async () => {
    const { s, calls } = service({ acceptBatches: true });
    await s.writeAll([prepared(1), prepared(2)], {} as never);
    expect((JSON.parse(String(calls[0].values[1])) as CompactEvents).f).toBe(SEND_EVENTS_ALL_TYPE);
  });

  it('keeps the full form for a send with its own heads, a uuid that is not canonical, and with the option off', async () => {
    const one = service();
    await one.s.writeAll([prepared(1), prepared(2), prepared(3, { stream: '11' })], {} as never);
    const upper = service();
    await upper.s.writeAll([prepared(1), prepared(2, { uuid: randomUUID().toUpperCase() })], {} as never);
    const off = service({ compactSendRows: false });
    await off.s.writeAll([prepared(1), prepared(2)], {} as never);
    expect([...one.calls, ...upper.calls, ...off.calls].map((c) => c.name)).toEqual(['streams_accept_messages_v2', 'streams_accept_messages_v2', 'streams_accept_messages_v2']);
  });
});
