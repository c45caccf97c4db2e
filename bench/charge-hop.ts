/**
 * The node side of streams' charged hop alone (docs/decisions/0178), per message, without PostgreSQL: a send batch row
 * of `size` sends (accepted and charged events, as `accept_messages` writes them) taken as the relay takes it (parse,
 * the fold with `batch`, the sizes of a row over the publish cap), published on an in-memory bus to an accounts-like
 * group (types filter, chunks of 2000) whose chunk handler checks every charge as the ledger consumer does and builds
 * its ledger items. Prints the process's CPU a message for the per-message form (A) and the batch form (B), in
 * interleaved rounds.
 *
 *   node dist/bench/charge-hop.js [rounds=8] [rows=40] [size=1000]
 */
import { randomUUID } from 'node:crypto';
import { chargeItemsOf, isChargeBatch, MessageAcceptedV1, MessageChargedV1, MessagesChargedV1, type EventEnvelope } from '@switchboard/contracts';
import { InMemoryEventBus, timeOrderedUuid, type OutgoingEvent } from '@switchboard/platform';
import { toEnvelope } from '../libs/platform/src/bus/delivery';
import { fastCharge } from '../services/accounts/src/consumers/messaging.consumer';
import { batchCharges } from '../services/streams/src/services/charge-batches';

const rounds = Number(process.argv[2] ?? 8);
const rows = Number(process.argv[3] ?? 40);
const size = Number(process.argv[4] ?? 1000);

/** A campaign send batch's events as the row's JSON text. */
function rowText(): string {
  const at = new Date().toISOString();
  const head = { occurredAt: at, source: 'streams', accountId: '7', traceId: null };
  const events: unknown[] = [];
  for (let i = 0; i < size; i++) {
    const messageUuid = randomUUID();
    events.push({
      id: timeOrderedUuid(),
      type: MessageAcceptedV1.type,
      version: 1,
      ...head,
      key: messageUuid,
      topic: MessageAcceptedV1.topic,
      data: {
        messageUuid,
        accountId: '7',
        streamId: '12',
        streamUid: 'a0e1b2c3-d4e5-4f60-8a1b-2c3d4e5f6a7b',
        streamType: 1,
        channel: 'sms',
        sender: 'ACME',
        destination: `+49151${String(10_000_000 + i)}`,
        iso2: 'DE',
        text: `Hello ${i}, our winter sale starts today: 20% off everything until Sunday.`,
        encoding: 'GSM7',
        segments: 1,
        payload: null,
        campaignId: '42',
        notBefore: null,
        acceptedAt: at,
        priceMicros: 50_000,
        currency: 'EUR',
      },
    });
    events.push({
      id: timeOrderedUuid(),
      type: MessageChargedV1.type,
      version: 1,
      ...head,
      key: '7',
      topic: MessageChargedV1.topic,
      data: { messageUuid, accountId: '7', amountMicros: 50_000, currency: 'EUR', balanceAfterMicros: 1_000_000_000 - 50_000 * i },
    });
  }
  return JSON.stringify(events);
}

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function main(): Promise<void> {
  const texts = Array.from({ length: rows }, rowText);
  const bus = new InMemoryEventBus();
  let booked = 0;
  await bus.subscribe({
    group: 'accounts.messaging',
    topics: [MessageChargedV1.topic],
    types: [MessageChargedV1.type, MessagesChargedV1.type],
    concurrency: 2000,
    handler: async () => undefined,
    batchHandler: async (events: EventEnvelope[]) => {
      const ledger: Array<{ event: { id: string }; data: unknown }> = [];
      for (const e of events) {
        if (isChargeBatch(e)) {
          for (const it of chargeItemsOf(e)) {
            const d = fastCharge(it.data) ?? MessageChargedV1.schema.parse(it.data);
            if (d.accountId !== e.accountId) throw new Error('tenancy');
            ledger.push({ event: it, data: { charge: d } });
          }
          continue;
        }
        const d = fastCharge(e.data) ?? MessageChargedV1.schema.parse(e.data);
        if (d.accountId !== e.accountId) throw new Error('tenancy');
        ledger.push({ event: e, data: { charge: d } });
      }
      booked += ledger.length;
    },
  });
  await bus.start();
  const pass = async (fold: boolean): Promise<number> => {
    booked = 0;
    const t0 = cpuMs();
    for (const text of texts) {
      const parsed = JSON.parse(text) as OutgoingEvent[];
      const events = fold ? batchCharges(parsed) : parsed;
      // a row over the publish cap is sized event by event, as the relay does
      let bytes = 0;
      for (const e of events) bytes += Buffer.byteLength(JSON.stringify(toEnvelope(e)));
      if (bytes < 0) throw new Error('never');
      await bus.publish(events);
    }
    await bus.drain();
    const ms = cpuMs() - t0;
    if (booked !== rows * size) throw new Error(`booked ${booked} of ${rows * size}`);
    return (ms * 1000) / (rows * size);
  };
  await pass(false);
  await pass(true);
  const a: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < rounds; r++) {
    // A B B A
    if (r % 2 === 0) {
      a.push(await pass(false));
      b.push(await pass(true));
    } else {
      b.push(await pass(true));
      a.push(await pass(false));
    }
  }
  const f = (l: number[]) => l.map((x) => x.toFixed(1)).join(' ');
  const mean = (l: number[]) => l.reduce((s, x) => s + x, 0) / l.length;
  console.log(`charge hop, ${rows} rows of ${size} sends, CPU µs a message (accepted events parsed and sized too; the bus delivers only charges)`);
  console.log(`  per-message charges: ${f(a)}  mean ${mean(a).toFixed(1)}`);
  console.log(`  batched charges:     ${f(b)}  mean ${mean(b).toFixed(1)}`);
  await bus.stop();
}

void main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
