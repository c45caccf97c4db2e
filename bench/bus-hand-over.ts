/**
 * The in-memory bus alone, published as the outbox relay publishes (each envelope parsed from its row's JSON inside the
 * clock, the row's topic added), with and without the hand-over (docs/decisions/0103): CPU per event of the publish,
 * the copy per group and the delivery to one group with a batch handler that does nothing. In turns, ROUNDS of each;
 * the first two rounds of each are warm-up and not counted.
 *
 *   node scripts/build.mjs --server-only && node dist/bench/bus-hand-over.js [rounds]
 */
import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import { MessageStatusChangedV1, type EventEnvelope } from '@switchboard/contracts';
import { createEnvelope, InMemoryEventBus, type OutgoingEvent } from '@switchboard/platform';

const ROUNDS = Number(process.argv[2] ?? 12);
const EVENTS = 20_000;
/** Events per publish call (the relay's default batch). */
const PER_PUBLISH = 100;

const rows = Array.from({ length: EVENTS }, () => {
  const u = randomUUID();
  const e = createEnvelope(
    MessageStatusChangedV1,
    { messageUuid: u, accountId: '1', streamId: '2', streamUid: u, sender: 'Sender1', destination: '+4915100000000', campaignId: null, status: 'delivered', outgoingStatus: null, error: null, vendorId: null, providerMessageId: null, sentAt: null, deliveredAt: null, mcc: null, mnc: null, occurredAt: new Date().toISOString() },
    { accountId: '1', source: 'dispatch' },
  );
  return { topic: e.topic, payload: JSON.stringify({ ...e, topic: undefined }) };
});

/** CPU microseconds per event of one pass over the rows. */
async function pass(handOver: boolean): Promise<number> {
  const bus = new InMemoryEventBus({ ack: 'handled' });
  let n = 0;
  await bus.subscribe({ group: 'g', topics: [rows[0].topic], concurrency: 5000, handler: async () => void n++, batchHandler: async (es) => void (n += es.length) });
  await bus.start();
  const c0 = process.cpuUsage();
  for (let i = 0; i < EVENTS; i += PER_PUBLISH) {
    const out: OutgoingEvent[] = [];
    for (let j = i; j < i + PER_PUBLISH; j++) out.push({ ...(JSON.parse(rows[j].payload) as EventEnvelope), topic: rows[j].topic });
    await bus.publish(out, handOver ? { handOver: true } : undefined);
  }
  await bus.drain();
  const c = process.cpuUsage(c0);
  await bus.stop();
  if (n !== EVENTS) throw new Error(`delivered ${n} of ${EVENTS}`);
  return (c.user + c.system) / EVENTS;
}

async function main(): Promise<void> {
  const copy: number[] = [];
  const handed: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    copy.push(await pass(false));
    handed.push(await pass(true));
  }
  const show = (name: string, a: number[]) => {
    const s = a.slice(2).sort((x, y) => x - y);
    console.log(`  ${name.padEnd(10)} CPU per event median ${s[s.length >> 1].toFixed(2)} µs, range ${s[0].toFixed(2)}-${s[s.length - 1].toFixed(2)}`);
  };
  console.log(`in-memory bus, relay-style publish, ${EVENTS.toLocaleString('en')} status events, one group, ${ROUNDS - 2} counted rounds each in turns (load ${os.loadavg()[0].toFixed(1)}):`);
  show('copy', copy);
  show('hand-over', handed);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
