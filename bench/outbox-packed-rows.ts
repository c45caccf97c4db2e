/**
 * The outbox's large packed rows (docs/decisions/0220): the writer's text and the relay's sizing of its events, for a
 * dispatch write batch of status and EDR events (2,000 by default, about 1.7 MB as one row), without PostgreSQL.
 *
 * - before: one row whatever its size (`JSON.stringify(events)`); the relay, finding the row over its publish cap
 *   (OUTBOX_MAX_BATCH_BYTES, 900,000), serialised every event again to measure it (`JSON.stringify(toEnvelope(e))`).
 * - after: `packedRows` cuts the events into rows under the cap; the relay sizes each row's events by the row's average.
 * - ceiling: `JSON.stringify(events)` alone, the least any writer does.
 *
 * Both sides include the relay's `JSON.parse` of the rows' texts (the same bytes), as the relay does it. Times are the
 * process's CPU (process.cpuUsage), in alternating rounds; the figures are medians a round.
 *
 * `node dist/bench/outbox-packed-rows.js [events=2000] [rounds=40]`
 */
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { outboxMaxBatchBytes, packedRows, type OutgoingEvent } from '@switchboard/platform';
import { toEnvelope } from '../libs/platform/src/bus/delivery';
import { median } from './campaign-ab';

const EVENTS = Number(process.argv[2] ?? 2000);
const ROUNDS = Number(process.argv[3] ?? 40);
const CAP = outboxMaxBatchBytes();

/** A dispatch status change and, for a final status, its EDR, as events.service writes them (their members in order). */
function dispatchEvents(n: number): OutgoingEvent[] {
  const out: OutgoingEvent[] = [];
  const at = new Date(Date.UTC(2026, 10, 29, 14, 0, 0));
  for (let i = 0; out.length < n; i++) {
    const uuid = randomUUID();
    const common = { messageUuid: uuid, accountId: '12', streamId: '3', streamUid: 'b7c1e0d2-5a4f-4c3e-9f1a-0d2c3b4a5e6f', campaignId: '7', sender: 'ACME', destination: `+44740${String(1000000 + i)}` };
    const envelope = (type: string, topic: string, data: Record<string, unknown>): OutgoingEvent => ({
      id: randomUUID(),
      type,
      version: 1,
      occurredAt: at.toISOString(),
      source: 'dispatch',
      accountId: '12',
      traceId: randomUUID().replace(/-/g, ''),
      traceparent: `00-${randomUUID().replace(/-/g, '')}-${randomUUID().replace(/-/g, '').slice(0, 16)}-01`,
      key: uuid,
      data,
      topic,
    });
    const status = {
      ...common,
      status: 'delivered',
      outgoingStatus: 'DELIVRD',
      error: null,
      vendorId: '1',
      providerMessageId: `smsc-${i.toString(16).padStart(12, '0')}`,
      sentAt: at.toISOString(),
      deliveredAt: at.toISOString(),
      mcc: '234',
      mnc: '15',
      occurredAt: at.toISOString(),
      possibleDuplicate: false,
    };
    out.push(envelope('dispatch.message.status_changed', 'switchboard.dispatch.message-status', status));
    if (out.length < n) {
      const edr = { ...common, status: 'delivered', sentAt: at.toISOString(), deliveredAt: at.toISOString(), mcc: '234', mnc: '15', network: 'Vodafone UK', messageLength: 96, messagePartsCount: 1, utf8: false, costMicros: 12000, rateMicros: 12000, currency: 'EUR' };
      out.push(envelope('dispatch.message.edr', 'switchboard.dispatch.edr', edr));
    }
  }
  return out;
}

/** What the relay does with a row before the publish: parse it, and the sizes of its events. */
function relaySizes(text: string, sizes: number[]): void {
  const events = JSON.parse(text) as OutgoingEvent[];
  const bytes = Buffer.byteLength(text);
  if (bytes <= CAP) {
    const each = Math.ceil(bytes / Math.max(1, events.length));
    for (let i = 0; i < events.length; i++) sizes.push(each);
  } else for (const e of events) sizes.push(Buffer.byteLength(JSON.stringify(toEnvelope(e))));
}

function before(events: OutgoingEvent[]): number {
  const sizes: number[] = [];
  relaySizes(JSON.stringify(events), sizes);
  return sizes.length;
}

function after(events: OutgoingEvent[]): number {
  const sizes: number[] = [];
  for (const row of packedRows(events, undefined, CAP)) relaySizes(row.text, sizes);
  return sizes.length;
}

function ceiling(events: OutgoingEvent[]): number {
  return JSON.stringify(events).length;
}

function cpuMicros(f: (e: OutgoingEvent[]) => number, events: OutgoingEvent[], times: number): number {
  const t0 = process.cpuUsage();
  for (let i = 0; i < times; i++) f(events);
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / times;
}

function main(): void {
  const events = dispatchEvents(EVENTS);
  const whole = Buffer.byteLength(JSON.stringify(events));
  const rows = packedRows(events, undefined, CAP);
  if (before(events) !== EVENTS || after(events) !== EVENTS) throw new Error('a side lost events');
  // the rows hold every event once, in order
  const back = rows.flatMap((r) => JSON.parse(r.text) as OutgoingEvent[]);
  if (back.length !== EVENTS || back.some((e, i) => e.id !== events[i].id)) throw new Error('packedRows changed the events');
  console.log(
    `outbox packed rows: ${EVENTS.toLocaleString('en')} dispatch events, ${whole.toLocaleString('en')} B as one row (${Math.round(whole / EVENTS)} B an event); cap ${CAP.toLocaleString('en')} B; after: ${rows.length} rows (${rows.map((r) => r.count).join(' + ')} events); node ${process.version}`,
  );
  for (let i = 0; i < 5; i++) for (const f of [before, after, ceiling]) f(events);
  const t: Record<string, number[]> = { before: [], after: [], ceiling: [] };
  for (let r = 0; r < ROUNDS; r++) {
    t.before.push(cpuMicros(before, events, 3) / EVENTS);
    t.after.push(cpuMicros(after, events, 3) / EVENTS);
    t.ceiling.push(cpuMicros(ceiling, events, 3) / EVENTS);
  }
  const b = median(t.before);
  const a = median(t.after);
  const c = median(t.ceiling);
  const lower = t.after.filter((x, i) => x < t.before[i]).length;
  console.log(`CPU µs an event (median of ${ROUNDS} rounds): before ${b.toFixed(2)}, after ${a.toFixed(2)} (lower in ${lower} of ${ROUNDS} rounds), ceiling (JSON.stringify alone) ${c.toFixed(2)}`);
  console.log(`after / before ${(a / b).toFixed(2)}; after / ceiling ${(a / c).toFixed(2)}; load ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
}

main();
