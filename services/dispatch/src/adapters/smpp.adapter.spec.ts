import { SmppPeer } from '../testing/smpp-peer';
import type { OutboundMessage, ProviderInbound, ProviderReceipt } from './provider-adapter';
import { SmppAdapter } from './smpp.adapter';

function message(text: string, destination = '+4915112345678'): OutboundMessage {
  return {
    id: '1',
    uuid: '00000000-0000-4000-8000-000000000001',
    accountId: '1',
    streamId: '1',
    channel: 'sms',
    sender: 'ACME',
    destination,
    text,
    encoding: null,
    payload: null,
    credentials: null,
    possibleDuplicate: false,
  };
}

async function until(check: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('SMPP adapter against a local SMSC', () => {
  let peer: SmppPeer;
  let adapter: SmppAdapter;
  const receipts: ProviderReceipt[] = [];
  const inbound: ProviderInbound[] = [];

  async function boot(options: ConstructorParameters<typeof SmppPeer>[0] = {}, cfg: Partial<ConstructorParameters<typeof SmppAdapter>[1]> = {}) {
    peer = new SmppPeer(options);
    const port = await peer.listen();
    adapter = new SmppAdapter('7', { host: '127.0.0.1', port, systemId: 'dispatch', password: 'secret', throttleBackoffMs: 5, ...cfg });
    receipts.length = 0;
    inbound.length = 0;
    await adapter.start({
      receipt: async (r) => void receipts.push(r),
      inbound: async (m) => void inbound.push(m),
    });
    await until(() => adapter.ready());
  }

  afterEach(async () => {
    await adapter.stop();
    await peer.close();
  });

  it('binds as a transceiver, submits a GSM7 message and follows its receipt', async () => {
    await boot();
    const outcome = await adapter.send(message('Hello {world} €5'));
    expect(outcome).toEqual({ kind: 'accepted', providerIds: [peer.parts[0].messageId] });
    expect(peer.parts[0]).toMatchObject({ destination: '4915112345678', source: 'ACME', dataCoding: 0, concat: null, text: 'Hello {world} €5' });
    await until(() => receipts.length === 1);
    expect(receipts[0]).toMatchObject({ vendorId: '7', providerMessageId: peer.parts[0].messageId, outcome: 'delivered' });
  });

  it('splits a long UCS2 message into UDH parts of 67 units, each with its own id and receipt', async () => {
    await boot();
    const text = 'Привет, мир! '.repeat(12); // 156 units -> 3 parts
    const outcome = await adapter.send(message(text));
    expect(outcome.kind).toBe('accepted');
    expect(peer.parts).toHaveLength(3);
    const ref = peer.parts[0].concat![0];
    expect(peer.parts.map((p) => p.concat)).toEqual([
      [ref, 3, 1],
      [ref, 3, 2],
      [ref, 3, 3],
    ]);
    expect(peer.parts.every((p) => p.dataCoding === 8 && (p.esmClass & 0x40) === 0x40)).toBe(true);
    expect(peer.parts.map((p) => p.text).join('')).toBe(text);
    expect(outcome.kind === 'accepted' && outcome.providerIds).toEqual(peer.parts.map((p) => p.messageId));
    await until(() => receipts.length === 3);
    expect(new Set(receipts.map((r) => r.providerMessageId))).toEqual(new Set(peer.parts.map((p) => p.messageId)));
  });

  it('backs off on ESME_RTHROTTLED and resends the refused parts', async () => {
    await boot({ throttleFirst: 3 });
    const outcome = await adapter.send(message('throttled at first'));
    expect(outcome.kind).toBe('accepted');
    expect(peer.submitted).toBe(1);
  });

  it('paces down to a throttling SMSC: every message taken exactly once, none failed, the bind slowed after throttles', async () => {
    await boot({ throttleRate: 300 }, { tps: 1000 });
    const n = 300;
    const outcomes = await Promise.all(Array.from({ length: n }, (_, i) => adapter.send(message(`throttled ${i}`, `+49151${String(i).padStart(7, '0')}`))));
    expect(outcomes.filter((o) => o.kind !== 'accepted')).toEqual([]);
    expect(peer.throttledResponses).toBeGreaterThan(0);
    expect(peer.submitted).toBe(n);
    expect(new Set(peer.parts.map((p) => p.text)).size).toBe(n);
    const [bind] = adapter.pacing();
    // every refusal was seen and answered by a resend; the rate was halved at least once and is below the ceiling
    expect(bind.throttled).toBe(peer.throttledResponses);
    expect(bind.accepted).toBe(n);
    expect(bind.decreases).toBeGreaterThan(0);
    expect(bind.decreases).toBeLessThanOrEqual(bind.throttled);
    expect(bind.rate).toBeLessThan(1000);
    expect(bind.throttledAt).toBeLessThan(1000);
    await until(() => receipts.length === n);
  }, 20_000);

  it('writes a gated message only once its gate opens, and the messages queued behind it meanwhile (decision 0094)', async () => {
    await boot();
    let open = false;
    let sent = 0;
    const gated = { ...message('x'.repeat(300), '+4915100000001'), gate: { wait: () => (open ? 0 : 20), sent: () => void sent++ } };
    const first = adapter.send(gated);
    const behind = await adapter.send(message('not gated', '+4915100000002'));
    expect(behind.kind).toBe('accepted');
    expect(peer.parts.map((p) => p.destination)).toEqual(['4915100000002']);
    expect(sent).toBe(0);
    open = true;
    // a long message (two GSM7 parts): its parts go together, counted once at the gate
    const outcome = await first;
    expect(outcome.kind === 'accepted' && outcome.providerIds.length).toBe(2);
    expect(sent).toBe(1);
  });

  it('keeps the writes of a gated limit within its one-second window at the wire, however the SMPP window bunches them', async () => {
    // the SMSC answers each submit 150 ms late: a window of 4 fills, and the queued submits would leave in bunches
    await boot({ responseDelayMs: 150 }, { window: 4 });
    const { SendWindow } = await import('../domain/token-bucket');
    const rate = 5;
    const w = new SendWindow(rate);
    const writes: number[] = [];
    const gate = {
      wait: () => w.waitAt(performance.now()),
      sent: () => {
        const t = performance.now();
        w.sent(t);
        writes.push(t);
      },
    };
    const n = 12;
    const outcomes = await Promise.all(Array.from({ length: n }, (_, i) => adapter.send({ ...message(`paced ${i}`, `+49152${String(i).padStart(7, '0')}`), gate })));
    expect(outcomes.filter((o) => o.kind !== 'accepted')).toEqual([]);
    expect(writes).toHaveLength(n);
    // no one-second window (from any write) holds more than the rate
    let busiest = 0;
    for (let i = 0, j = 0; i < writes.length; i++) {
      while (writes[i] - writes[j] >= 1000) j++;
      busiest = Math.max(busiest, i - j + 1);
    }
    expect(busiest).toBeLessThanOrEqual(rate);
  }, 20_000);

  it('reports a refused destination as rejected', async () => {
    await boot({ rejectFor: new Set(['4900000000']) });
    expect(await adapter.send(message('x', '+4900000000'))).toMatchObject({ kind: 'rejected' });
  });

  it('reports an unanswered submit as unknown instead of resending it', async () => {
    await boot({ silentFor: new Set(['4911111111']) }, { submitTimeoutMs: 100 });
    expect(await adapter.send(message('x', '+4911111111'))).toMatchObject({ kind: 'unknown' });
  });

  it('rebinds after the SMSC drops the connection', async () => {
    await boot({}, { reconnectMs: 20 });
    peer.dropConnections();
    await until(() => !adapter.ready());
    await until(() => adapter.ready());
    expect(peer.binds).toBe(2);
    expect((await adapter.send(message('after reconnect'))).kind).toBe('accepted');
  });

  it('gives back submits not yet written when the connection drops, so they can go another way', async () => {
    // one submit a second: the first goes out, the other two wait on the bind when the SMSC goes away for good
    await boot({}, { tps: 1, reconnectMs: 20 });
    const outcomes = Promise.all([0, 1, 2].map((i) => adapter.send(message(`queued ${i}`, `+4915100000${i}`))));
    await until(() => peer.submitted === 1);
    await peer.close();
    const [first, ...rest] = await outcomes;
    expect(first.kind).toBe('accepted');
    expect(rest).toEqual([
      { kind: 'retry', error: 'SMPP connection lost before the submit was written' },
      { kind: 'retry', error: 'SMPP connection lost before the submit was written' },
    ]);
    expect(adapter.ready()).toBe(false);
  });

  it('reassembles a long mobile-originated message before handing it on', async () => {
    await boot();
    const text = 'two-way reply '.repeat(20);
    peer.sendMo('491700000001', '4930123456', text);
    await until(() => inbound.length === 1);
    expect(inbound[0]).toMatchObject({ channel: 'sms', accountPhone: '4930123456', contactPhone: '+491700000001', body: text });
  });

  it('gets a customer\'s message that arrived at the SMSC while the bind was down, once it binds again (the SMSC stores and forwards)', async () => {
    await boot({}, { reconnectMs: 300 });
    peer.dropConnections();
    await until(() => !adapter.ready());
    // no bind to offer it to: the SMSC keeps the message and offers it on the next bind
    peer.sendMo('491700000002', '4930123456', 'are you open today?');
    expect(peer.binds).toBe(1);
    await until(() => peer.binds === 2);
    await until(() => inbound.length >= 1);
    expect(inbound[inbound.length - 1]).toMatchObject({ contactPhone: '+491700000002', body: 'are you open today?' });
  });
});
