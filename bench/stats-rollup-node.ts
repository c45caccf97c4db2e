/**
 * Statistics: the rollup consumer's node work on fixed batches, without PostgreSQL (docs/decisions/0213). A chunk of
 * events as the bus hands it (parsed JSON) goes through `onMessageEvents` (the batch items) and the batch's `apply`
 * (slots, states, the events folded, deltas, the write's parameters), against a fake connection that answers the read
 * with rows built beforehand and the write with the counts it expects. PostgreSQL's time is not in it; pg's decoding of
 * the rows is not either (the rows are made before the timing). The ceiling: `JSON.parse` of the chunk's bytes. Times
 * are the process's CPU (all its threads: the compiler's and the collector's helpers too), not wall time, so that a
 * loaded machine's waits are not counted.
 *
 * `node dist/bench/stats-rollup-node.js [<other dist>]`: with another build's `dist` directory, its consumer runs the
 * same batches in the same process, in alternating rounds, and every write's parameters of the two are compared (they
 * must be equal: the bench fails otherwise).
 * ROUNDS=<n> (default 30) rounds of each batch kind a build; MESSAGES=<n> (default 1000) messages a batch.
 * ONLY=this|other: one build alone (for `--trace-opt --trace-deopt`: compiles and deopts of one build's functions).
 * LATE=<round>: the late kinds (refunds, redeliveries, statuses before acceptances, the per-message accepted form)
 * first come at that round (default 0: from the start), as in a process whose first campaign meets them late.
 */
import * as path from 'node:path';
import { median } from './campaign-ab';

type Envelope = Record<string, unknown>;
type Row = Record<string, unknown>;
interface Consumer {
  onMessageEvents(events: Envelope[]): Promise<void>;
  apply(m: unknown, items: unknown[]): Promise<void>;
}

const MESSAGES = Number(process.env.MESSAGES ?? 1000);
const ROUNDS = Number(process.env.ROUNDS ?? 30);
const LATE = Number(process.env.LATE ?? 0);
const ONLY = process.env.ONLY ?? '';
const ACCOUNT = '42';
const STREAM = '7';
const CAMPAIGN = '900';

const uuid = (batch: number, i: number): string => `${(0x10000000 + batch).toString(16)}-0000-4000-8000-${(0x1000000000000 + i).toString(16).slice(1)}`;
const acceptedAt = (i: number): string => new Date(Date.UTC(2026, 10, 29, 10, 0, 0) + i * 7).toISOString();

function acceptedData(batch: number, i: number): Record<string, unknown> {
  return {
    messageUuid: uuid(batch, i),
    accountId: ACCOUNT,
    streamId: STREAM,
    streamUid: 'stream-uid-7',
    streamType: 1,
    channel: 'sms',
    sender: 'Switchboard',
    destination: `+4479${String(10000000 + i)}`,
    iso2: i % 5 === 0 ? 'FR' : 'GB',
    text: 'Hello from the campaign, reply STOP to opt out',
    encoding: 'GSM7',
    segments: 1 + (i % 2),
    priceMicros: 30000,
    currency: 'EUR',
    payload: null,
    campaignId: CAMPAIGN,
    notBefore: null,
    acceptedAt: acceptedAt(i),
    variantId: String(1 + (i % 3)),
  };
}

function statusData(batch: number, i: number, status: string): Record<string, unknown> {
  return {
    messageUuid: uuid(batch, i),
    accountId: ACCOUNT,
    streamId: STREAM,
    streamUid: 'stream-uid-7',
    campaignId: CAMPAIGN,
    sender: 'Switchboard',
    destination: `+4479${String(10000000 + i)}`,
    status,
    outgoingStatus: status === 'sent' ? 'ENROUTE' : 'DELIVRD',
    error: null,
    vendorId: '3',
    providerMessageId: `p${i}`,
    sentAt: acceptedAt(i),
    deliveredAt: status === 'delivered' ? acceptedAt(i + 1) : null,
    mcc: '234',
    mnc: '15',
    occurredAt: acceptedAt(i + 1),
    parts: 1 + (i % 2),
  };
}

const envelope = (id: string, type: string, data: unknown): Envelope => ({ id, type, version: 1, occurredAt: '2026-11-29T10:00:00.000Z', source: 'bench', accountId: ACCOUNT, traceId: null, key: null, data });

/** A read row as the read statement returns it: the message's state, or its defaults and the acceptance's buckets. */
function row(o: number, u: string, state: 'none' | 'accepted' | 'sent', i: number): Row {
  const found = state !== 'none';
  return {
    o,
    message_uuid: u,
    found,
    x: found ? String(1000 + o) : null,
    account_id: ACCOUNT,
    stream_id: found ? STREAM : null,
    sender: found ? 'Switchboard' : '',
    iso2: found ? (i % 5 === 0 ? 'FR' : 'GB') : '',
    status: found ? state : '',
    rank: state === 'none' ? -1 : state === 'accepted' ? 0 : 1,
    accepted_at: found ? acceptedAt(i) : null,
    hour_bucket: found ? '2026-11-29T10:00:00.000Z' : null,
    day_bucket: found ? '2026-11-29' : null,
    segments: found ? 1 + (i % 2) : 0,
    price_micros: found ? '30000' : '0',
    refunded_micros: '0',
    currency: found ? 'EUR' : '',
    campaign_id: found ? CAMPAIGN : null,
    variant_id: found ? String(1 + (i % 3)) : null,
    destination: found ? `+4479${String(10000000 + i)}` : null,
    new_at: found ? null : acceptedAt(i),
    new_hour: found ? null : '2026-11-29T10:00:00.000Z',
    new_day: found ? null : '2026-11-29',
  };
}

interface Kind {
  name: string;
  /** The chunk's JSON text (what the bus parses) and the read's rows in the order of the batch's slots. */
  json: string;
  rows: () => Row[];
}

function kinds(): Kind[] {
  const out: Kind[] = [];
  const ids = Array.from({ length: MESSAGES }, (_, i) => i);
  // a campaign's acceptances: streams' batches of 500 items (new states)
  {
    const events: Envelope[] = [];
    for (let s = 0; s < MESSAGES; s += 500) {
      const items = ids.slice(s, s + 500).map((i) => ({ id: uuid(100, i), traceId: null, data: acceptedData(1, i) }));
      events.push(envelope(`batch-${s}`, 'streams.messages.accepted', { items }));
    }
    out.push({ name: 'accepted (new states)', json: JSON.stringify(events), rows: () => ids.map((i) => row(i, uuid(1, i), 'none', i)) });
  }
  // their `sent` statuses (known states, the status alone moves)
  out.push({
    name: 'sent',
    json: JSON.stringify(ids.map((i) => envelope(`s-${i}`, 'dispatch.message.status_changed', statusData(1, i, 'sent')))),
    rows: () => ids.map((i) => row(i, uuid(1, i), 'accepted', i)),
  });
  // their receipts
  out.push({
    name: 'delivered',
    json: JSON.stringify(ids.map((i) => envelope(`d-${i}`, 'dispatch.message.status_changed', statusData(1, i, 'delivered')))),
    rows: () => ids.map((i) => row(i, uuid(1, i), 'sent', i)),
  });
  // the late kinds: receipts with a refund for one in ten, one in twenty redelivered, statuses of one in twenty before
  // their acceptance (no state yet), and acceptances in the per-message form
  {
    const events: Envelope[] = [];
    const order: number[] = [];
    const slot = new Map<number, number>();
    const see = (i: number) => {
      if (!slot.has(i)) {
        slot.set(i, order.length);
        order.push(i);
      }
    };
    for (const i of ids) {
      if (i % 20 === 7) {
        events.push(envelope(`e-${i}`, 'dispatch.message.status_changed', statusData(2, i, 'sent')));
        see(i);
        continue;
      }
      if (i % 20 === 13) {
        events.push(envelope(`ma-${i}`, 'streams.message.accepted', acceptedData(2, i)));
        see(i);
        continue;
      }
      events.push(envelope(`f-${i}`, 'dispatch.message.status_changed', statusData(2, i, i % 10 === 3 ? 'undelivered' : 'delivered')));
      see(i);
      if (i % 10 === 3) events.push(envelope(`r-${i}`, 'streams.message.refunded', { messageUuid: uuid(2, i), accountId: ACCOUNT, amountMicros: 30000, currency: 'EUR', balanceAfterMicros: 1, reason: 'undelivered' }));
      if (i % 20 === 1) events.push(envelope(`f-${i}`, 'dispatch.message.status_changed', statusData(2, i, 'delivered')));
    }
    out.push({
      name: 'late (refunds, redelivered, early statuses, per-message acceptances)',
      json: JSON.stringify(events),
      rows: () => order.map((i, o) => row(o, uuid(2, i), i % 20 === 7 || i % 20 === 13 ? 'none' : 'sent', i)),
    });
  }
  return out;
}

/** A fake transaction manager: the read answers the rows given; the write its expected counts, its parameters kept. */
/**
 * The rows of the read of docs/decisions/0218 (`stats_rollup_read_v3`) for the same batch: the found states only, and
 * the account's zone (UTC, so the buckets node computes are the ones the older read's rows carry).
 */
function v3Rows(rows: Row[]): Row[] {
  // each row built by one literal, fields in the statement's order (one shape, as node-postgres builds its rows; a
  // rest copy of the older rows would be a slower dictionary object)
  const v3 = (r: Row, o: unknown, tz: unknown): Row => ({
    o,
    x: r.x,
    account_id: r.account_id,
    stream_id: r.stream_id,
    sender: r.sender,
    iso2: r.iso2,
    status: r.status,
    rank: r.rank,
    accepted_at: r.accepted_at,
    hour_bucket: r.hour_bucket,
    day_bucket: r.day_bucket,
    segments: r.segments,
    price_micros: r.price_micros,
    refunded_micros: r.refunded_micros,
    currency: r.currency,
    campaign_id: r.campaign_id,
    variant_id: r.variant_id,
    destination: r.destination,
    tz,
  });
  const out: Row[] = [];
  for (const r of rows) if (r.found !== false) out.push(v3(r, r.o, null));
  const zone: Row = { x: null, account_id: ACCOUNT, stream_id: null, sender: '', iso2: '', status: '', rank: 0, accepted_at: null, hour_bucket: null, day_bucket: null, segments: 0, price_micros: '0', refunded_micros: '0', currency: '', campaign_id: null, variant_id: null, destination: null };
  out.push(v3(zone, -1, 'UTC'));
  return out;
}

function fakeManager(rows: Row[], writes: unknown[][], rows3: Row[]): unknown {
  const count = (literal: unknown): number => (typeof literal === 'string' && literal.length > 2 ? literal.split(',').length : 0);
  return {
    connection: {},
    queryRunner: {
      databaseConnection: {
        query: (q: { name: string; values: unknown[] }) => {
          if (q.name === 'stats_rollup_read_v2') return Promise.resolve({ rows });
          if (q.name === 'stats_rollup_read_v3') return Promise.resolve({ rows: rows3 });
          writes.push(q.values);
          const created = typeof q.values[1] === 'string' ? (q.values[1].match(/t/g) ?? []).length : 0;
          return Promise.resolve({ rows: [{ inserted: created, rewritten: count(q.values[0]) - created, statusMoved: count(q.values[60]) }] });
        },
      },
    },
  };
}

function load(dist: string): Consumer {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require(path.join(dist, 'services/stats/src/consumers/rollup.consumer')) as { RollupConsumer: { prototype: object } };
  const c = Object.create(mod.RollupConsumer.prototype) as Consumer & Record<string, unknown>;
  c.requests = false;
  c.maxBatch = 5000;
  c.lanes = 2;
  return c;
}

async function run(c: Consumer, json: string, rows: Row[], writes: unknown[][]): Promise<number> {
  const events = JSON.parse(json) as Envelope[];
  let items: unknown[] = [];
  (c as unknown as Record<string, unknown>).batched = { handleMany: (x: unknown[]) => ((items = x), Promise.resolve()) };
  const rows3 = v3Rows(rows);
  const t = process.cpuUsage();
  await c.onMessageEvents(events);
  await c.apply(fakeManager(rows, writes, rows3), items);
  const d = process.cpuUsage(t);
  return (d.user + d.system) / 1000;
}

async function main(): Promise<void> {
  const here = path.resolve(__dirname, '..');
  const other = process.argv[2] ? path.resolve(process.argv[2]) : null;
  const builds: Array<{ name: string; c: Consumer }> = [];
  if (ONLY !== 'other') builds.push({ name: 'this', c: load(here) });
  if (other && ONLY !== 'this') builds.push({ name: 'other', c: load(other) });
  const ks = kinds();
  const times = new Map<string, number[]>();
  const ceiling = new Map<string, number[]>();
  let mismatches = 0;
  for (let r = 0; r < ROUNDS; r++) {
    for (const [ki, k] of ks.entries()) {
      if (ki === 3 && r < LATE) continue;
      const results: unknown[][][] = [];
      // alternate which build goes first
      const order = r % 2 === 0 ? builds : [...builds].reverse();
      for (const b of order) {
        const rows = k.rows();
        const writes: unknown[][] = [];
        const ms = await run(b.c, k.json, rows, writes);
        const key = `${b.name}\t${k.name}`;
        times.set(key, [...(times.get(key) ?? []), ms]);
        results.push(writes);
      }
      if (results.length === 2 && JSON.stringify(results[0]) !== JSON.stringify(results[1])) mismatches++;
      const t = process.cpuUsage();
      JSON.parse(k.json);
      const d = process.cpuUsage(t);
      ceiling.set(k.name, [...(ceiling.get(k.name) ?? []), (d.user + d.system) / 1000]);
    }
  }
  console.log(`stats-rollup-node: ${MESSAGES} messages a batch, ${ROUNDS} rounds, node ${process.version}, flags '${process.execArgv.join(' ')}'`);
  for (const k of ks) {
    const c = median(ceiling.get(k.name) ?? [0]);
    const parts = builds.map((b) => {
      const xs = times.get(`${b.name}\t${k.name}`) ?? [];
      if (!xs.length) return `${b.name} -`;
      const late = xs.slice(Math.floor(xs.length / 2));
      return `${b.name} median ${((median(xs) * 1000) / MESSAGES).toFixed(2)} µs a message (later half ${((median(late) * 1000) / MESSAGES).toFixed(2)}, first ${((xs[0] * 1000) / MESSAGES).toFixed(1)})`;
    });
    console.log(`  ${k.name}: ${parts.join('; ')}; JSON.parse of the chunk ${((c * 1000) / MESSAGES).toFixed(2)} µs a message (${(k.json.length / MESSAGES).toFixed(0)} B)`);
  }
  if (builds.length === 2) {
    console.log(`  write parameters: ${mismatches === 0 ? 'identical in every batch' : `${mismatches} batches differ`}`);
    if (mismatches) process.exitCode = 1;
  }
}

void main();
