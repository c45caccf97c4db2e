// decision 0142: node docs/decisions/patches/0142-bus-groups.js <tree with dist/> <groups> [events]
// CPU µs an event of the in-memory bus's publish + delivery to G no-op groups (a message-status-like event)
const dir = process.argv[2]; const groups = Number(process.argv[3] ?? 4); const n = Number(process.argv[4] ?? 50000);
const { InMemoryEventBus } = require(dir + '/dist/libs/platform/src/bus/in-memory-event-bus.js');
const { randomUUID } = require('crypto');
(async () => {
  const bus = new InMemoryEventBus({ partitions: 8 });
  let handled = 0;
  for (let g = 0; g < groups; g++) await bus.subscribe({ group: 'g' + g, topics: ['t'], concurrency: 64, handler: async (e) => { if (e.data.parts > 0) handled++; } });
  await bus.start();
  const mk = (i) => ({ topic: 't', id: randomUUID(), type: 'message.status.changed', version: 1, occurredAt: new Date().toISOString(), source: 'dispatch', accountId: 17, traceId: null, key: 'm' + (i % 1000),
    data: { messageUuid: randomUUID(), accountId: 17, streamId: 3, campaignId: null, status: 'delivered', previousStatus: 'sent', channel: 'sms', country: 'DE', parts: 1, cost: { amount: '0.0123', currency: 'EUR' }, at: new Date(), error: null, tags: ['a', 'b'] } });
  const events = Array.from({ length: n }, (_, i) => mk(i));
  // warm-up
  for (let i = 0; i < 5000; i += 500) await bus.publish(events.slice(i, i + 500)); await bus.drain();
  handled = 0;
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i += 500) { await bus.publish(events.slice(i, i + 500)); }
  await bus.drain();
  const c = process.cpuUsage(c0);
  console.log(JSON.stringify({ groups, n, handled, cpuUsPerEvent: +((c.user + c.system) / n).toFixed(2) }));
  await bus.stop();
})();
