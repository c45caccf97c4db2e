import { randomUUID } from 'node:crypto';
import { MessageStatusChangedV1 } from '@switchboard/contracts';
import { Receiver, startWebhooks, type WebhooksTestApp } from './support';

/**
 * One account's receiver hangs until the timeout; another's answers at once. The hanging webhook holds at most its
 * share of the worker (perWebhookConcurrency), so the healthy one's deliveries all go out while it hangs.
 */
describe('webhook delivery fairness', () => {
  let a: WebhooksTestApp;
  let slow: Receiver;
  let fast: Receiver;

  beforeAll(async () => {
    // a timeout far longer than the test: the slow receiver's requests stay in flight throughout
    a = await startWebhooks({ concurrency: 4, perWebhookConcurrency: 2, timeoutMs: 120_000 });
    slow = await new Receiver().start();
    slow.answer = () => 'hang';
    fast = await new Receiver().start();
  });
  afterAll(async () => {
    await slow?.stop();
    await fast?.stop();
    await a?.close();
  });

  it('delivers every event of the healthy account while the other account\'s receiver hangs', async () => {
    const hook = async (acc: string, url: string) => (await a.call('POST', '/webhooks', { token: a.member(acc), body: { name: acc, url, trigger: 'message_status_change' } })).body.id as number;
    const slowHook = await hook('91', `${slow.url}/hang`);
    const fastHook = await hook('92', `${fast.url}/ok`);
    const event = (acc: string) => ({
      messageUuid: randomUUID(), accountId: acc, streamId: '1', streamUid: 's', campaignId: null, sender: 'S', destination: '+14155552671', status: 'sent' as const,
      outgoingStatus: null, error: null, vendorId: null, providerMessageId: null, sentAt: null, deliveredAt: null, mcc: null, mnc: null, occurredAt: new Date().toISOString(),
    });
    // the hanging account's events first, so a first-in-first-out queue would give it the whole worker
    for (let i = 0; i < 20; i++) await a.publish(MessageStatusChangedV1, event('91'));
    for (let i = 0; i < 20; i++) await a.publish(MessageStatusChangedV1, event('92'));

    // tick claims and starts sends without waiting for them; the hanging ones stay in flight
    for (let round = 0; round < 100 && fast.requests.length < 20; round++) {
      await a.deliveries.tick();
      await new Promise((r) => setImmediate(r));
      const [{ n }] = await a.sql<{ n: number }>(`SELECT count(*)::int AS n FROM webhooks.delivery WHERE webhook_id = $1 AND state = 'delivering'`, [slowHook]);
      expect(n).toBeLessThanOrEqual(2);
      await waitFor(async () => (await a.sql(`SELECT 1 FROM webhooks.delivery WHERE webhook_id = $1 AND state = 'delivering'`, [fastHook])).length === 0);
    }
    expect(fast.requests).toHaveLength(20);
    expect(slow.requests.length).toBe(2);
    const [{ n }] = await a.sql<{ n: number }>(`SELECT count(*)::int AS n FROM webhooks.delivery WHERE webhook_id = $1 AND state = 'succeeded'`, [fastHook]);
    expect(n).toBe(20);
  });
});

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('condition not reached');
}

/** At least once: a claim is a lease; a worker that never finishes (hung, or killed) loses its deliveries to the next. */
describe('webhook delivery leases', () => {
  it('sends a delivery again under the same event id when the lease of a stuck attempt ran out, and the late outcome changes nothing', async () => {
    const a = await startWebhooks({ timeoutMs: 120_000 });
    const rx = await new Receiver().start();
    try {
      rx.answer = () => 'hang';
      const created = await a.call('POST', '/webhooks', { token: a.member('93'), body: { name: 'l', url: `${rx.url}/l`, trigger: 'message_status_change' } });
      await a.publish(MessageStatusChangedV1, {
        messageUuid: randomUUID(), accountId: '93', streamId: '1', streamUid: 's', campaignId: null, sender: 'S', destination: '+14155552671', status: 'sent',
        outgoingStatus: null, error: null, vendorId: null, providerMessageId: null, sentAt: null, deliveredAt: null, mcc: null, mnc: null, occurredAt: new Date().toISOString(),
      });
      await a.deliveries.tick();
      await waitFor(async () => rx.requests.length === 1);
      // the lease (3 x timeout + 60 s) runs out while the first attempt still hangs
      a.clock.advance(3 * 120_000 + 60_001);
      rx.answer = () => ({ status: 200 });
      await a.deliveries.tick();
      await waitFor(async () => (await a.sql(`SELECT 1 FROM webhooks.delivery WHERE webhook_id = $1 AND state = 'succeeded'`, [created.body.id])).length === 1);
      expect(rx.requests).toHaveLength(2);
      expect(rx.requests[1].headers['webhook-id']).toBe(rx.requests[0].headers['webhook-id']);
      // the stuck attempt ends (its connection is cut): logged, but the delivery stays succeeded
      await rx.stop();
      await a.deliveries.runOnce();
      await waitFor(async () => (await a.sql(`SELECT 1 FROM webhooks.request_log WHERE webhook_id = $1`, [created.body.id])).length === 2);
      expect(await a.sql(`SELECT state, attempts FROM webhooks.delivery WHERE webhook_id = $1`, [created.body.id])).toEqual([{ state: 'succeeded', attempts: 2 }]);
    } finally {
      await rx.stop().catch(() => undefined);
      await a.close();
    }
  });
});
