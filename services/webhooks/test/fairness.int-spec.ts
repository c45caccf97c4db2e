import { randomUUID } from 'node:crypto';
import { MessageStatusChangedV1 } from '@switchboard/contracts';
import { getDataSourceToken } from '@nestjs/typeorm';
import { PROCESS_ROLES } from '@switchboard/platform';
import { DeliveryService } from '../src/services/delivery.service';
import { WebhooksOutboxRelay } from '../src/services/outbox-relay';
import { WebhookService } from '../src/services/webhook.service';
import { WEBHOOKS_CONNECTION, WEBHOOKS_OPTIONS } from '../src/webhooks.options';
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
      // the hanging receiver never answers: every request it got is still in flight
      expect(slow.requests.length).toBeLessThanOrEqual(2);
      // every request the receiver has had is recorded before the next claim (requests of this tick still on their way
      // may land meanwhile: at least, not exactly)
      const sent = fast.requests.length;
      await waitFor(async () => (await a.sql(`SELECT 1 FROM webhooks.delivery WHERE webhook_id = $1 AND state = 'succeeded'`, [fastHook])).length >= sent);
    }
    expect(fast.requests).toHaveLength(20);
    expect(slow.requests.length).toBe(2);
    await waitFor(async () => (await a.sql(`SELECT 1 FROM webhooks.delivery WHERE webhook_id = $1 AND state = 'succeeded'`, [fastHook])).length === 20);
    const [{ n }] = await a.sql<{ n: number }>(`SELECT count(*)::int AS n FROM webhooks.delivery WHERE webhook_id = $1 AND state = 'succeeded'`, [fastHook]);
    expect(n).toBe(20);
    // the hanging account's deliveries are all still waiting for an outcome (two in flight, none recorded)
    expect(await a.sql(`SELECT state, count(*)::int AS n FROM webhooks.delivery WHERE webhook_id = $1 GROUP BY state`, [slowHook])).toEqual([{ state: 'pending', n: 20 }]);
  });
});

/** A bound so a broken run fails instead of hanging (generous: CI runners are loaded), not a speed figure. */
async function waitFor(check: () => Promise<boolean>, what = 'condition'): Promise<void> {
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`${what} not reached`);
}

/**
 * At least once without writing claims (docs/decisions/0059): a process serves the webhooks of the buckets its database
 * session holds; while it lives no other process sends them; when its session ends (a killed process) the next takes
 * them over and sends what had no outcome again, under the same event id; the first one's late outcome changes nothing.
 */
describe('webhook delivery ownership', () => {
  it('leaves a live worker\'s delivery alone, takes it over under the same event id once that worker\'s session ends, and ignores the late outcome', async () => {
    const a = await startWebhooks({ timeoutMs: 120_000 });
    const rx = await new Receiver().start();
    // a second replica of the worker: its own session, the same database
    const other = new DeliveryService(
      a.t.app.get(getDataSourceToken(WEBHOOKS_CONNECTION)), a.t.app.get(WEBHOOKS_OPTIONS), a.t.app.get(PROCESS_ROLES), a.t.app.get(WebhookService), a.clock,
      a.t.app.get(WebhooksOutboxRelay), a.t.db.url,
    );
    try {
      rx.answer = () => 'hang';
      const created = await a.call('POST', '/webhooks', { token: a.member('93'), body: { name: 'l', url: `${rx.url}/l`, trigger: 'message_status_change' } });
      const hook = created.body.id as number;
      await a.publish(MessageStatusChangedV1, {
        messageUuid: randomUUID(), accountId: '93', streamId: '1', streamUid: 's', campaignId: null, sender: 'S', destination: '+14155552671', status: 'sent',
        outgoingStatus: null, error: null, vendorId: null, providerMessageId: null, sentAt: null, deliveredAt: null, mcc: null, mnc: null, occurredAt: new Date().toISOString(),
      });
      const [queued] = await a.sql<{ tx: string }>(`SELECT xmin::text AS tx FROM webhooks.delivery WHERE webhook_id = $1`, [hook]);
      await a.deliveries.tick();
      await waitFor(async () => rx.requests.length === 1);
      const [first] = await a.sql<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE application_name = 'switchboard-webhooks-delivery' AND datname = current_database()`);
      // sending wrote nothing: the row is the one the consumer queued
      expect(await a.sql(`SELECT xmin::text AS tx, state, attempts FROM webhooks.delivery WHERE webhook_id = $1`, [hook])).toEqual([{ tx: queued.tx, state: 'pending', attempts: 0 }]);
      // the first worker lives: the other sends nothing, however late it is
      a.clock.advance(3_600_000);
      await other.tick();
      await new Promise((r) => setTimeout(r, 200));
      expect(rx.requests).toHaveLength(1);

      // the first worker's database session ends (as when its process is killed): its bucket is free
      await a.sql(`SELECT pg_terminate_backend($1)`, [first.pid]);
      rx.answer = () => ({ status: 200 });
      await waitFor(async () => {
        await other.tick();
        return rx.requests.length === 2;
      }, 'the takeover');
      await waitFor(async () => (await a.sql(`SELECT 1 FROM webhooks.delivery WHERE webhook_id = $1 AND state = 'succeeded'`, [hook])).length === 1, 'the takeover recorded');
      expect(rx.requests[1].headers['webhook-id']).toBe(rx.requests[0].headers['webhook-id']);
      // the stuck attempt ends (its connection is cut): logged, but the delivery stays succeeded after one attempt
      await rx.stop();
      await waitFor(async () => (await a.sql(`SELECT 1 FROM webhooks.request_log WHERE webhook_id = $1`, [hook])).length === 2, 'the late outcome logged');
      expect(await a.sql(`SELECT status FROM webhooks.request_log WHERE webhook_id = $1 ORDER BY id`, [hook])).toEqual([{ status: 'success' }, { status: 'failed' }]);
      expect(await a.sql(`SELECT state, attempts FROM webhooks.delivery WHERE webhook_id = $1`, [hook])).toEqual([{ state: 'succeeded', attempts: 1 }]);
    } finally {
      await rx.stop().catch(() => undefined);
      await other.onModuleDestroy();
      await a.close();
    }
  }, 120_000);
});
