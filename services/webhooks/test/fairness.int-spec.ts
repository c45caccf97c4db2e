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
