/**
 * Dispatch under SIGKILL: 100,000 `streams.message.accepted` events on Kafka (librdkafka's mock cluster through kcat),
 * a dispatch process (Kafka driver, real PostgreSQL) killed with SIGKILL at random points and started again, a local
 * SMSC that keeps unacknowledged receipts for the next bind (store and forward). At the end: every message must
 * have a final status (none lost); every message the SMSC received twice must be flagged possible_duplicate; the
 * flagged ones are compared with what was in flight (`submitting`) at each kill.
 *
 *   node scripts/build.mjs --server-only
 *   node dist/bench/dispatch-crash.js [messages=100000] [kills=6]
 *   RECEIPT_DELAY_MS=2000 node dist/bench/dispatch-crash.js ...   (receipts 2 s after each submit_sm_resp: the carrier path, 0212)
 */
import 'reflect-metadata';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { KafkaEventBus, startEmbeddedPostgres, type OutgoingEvent } from '@switchboard/platform';
import { acceptedMessage, startKafkaMock } from '@switchboard/platform/testing';
import { SmppPeer } from '@switchboard/dispatch';
import { startDispatchChild } from './dispatch-child';

function machine(): string {
  const cpus = os.cpus();
  return `${cpus.length} x ${cpus[0]?.model ?? 'unknown cpu'}, node ${process.version}, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`;
}

// the SMSC identifies each message by its text
const accepted = (i: number) => acceptedMessage(i, { accountId: String(1 + (i % 10)), streamId: '10', sender: 'CRASH', text: (uuid) => `m ${uuid}`, source: 'bench' });

async function parent(total: number, kills: number): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dispatch-crash-'));
  fs.chmodSync(dir, 0o755);
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), persistent: false });
  const url = pg.url();
  const kafka = await startKafkaMock(1);
  // RECEIPT_DELAY_MS: receipts that long after the submit_sm_resp (a real carrier's; default 0, at once)
  const peer = new SmppPeer({ redeliverUnacked: true, receiptDelayMs: Number(process.env.RECEIPT_DELAY_MS ?? 0) });
  const port = await peer.listen();
  console.log(`dispatch-crash: ${total} messages, ${kills} SIGKILLs, ${machine()}`);

  const db = new Client({ connectionString: url });
  await db.connect();
  const count = async (sql: string): Promise<number> => {
    try {
      return Number((await db.query(sql)).rows[0].n);
    } catch {
      return 0; // schema not migrated yet
    }
  };
  // librdkafka's mock cluster keeps only the newest few thousand records per partition, so the events are produced
  // as dispatch stores them (at most 4,000 ahead) rather than all at once: what the broker dropped would look lost.
  const producer = new KafkaEventBus({ clientId: 'crash-producer', brokers: kafka.url.split(',') });
  let published = 0;
  let producing = true;
  const produce = (async () => {
    while (published < total && producing) {
      const stored = await count(`SELECT count(*) AS n FROM dispatch.message`);
      if (published - stored >= 4000) {
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      const events: OutgoingEvent[] = [];
      for (let j = published; j < Math.min(total, published + 1000); j++) events.push(accepted(j));
      await producer.publish(events);
      published += events.length;
    }
    await producer.stop();
  })();
  const start = () =>
    startDispatchChild(url, kafka.url, port, {
      clientId: 'dispatch-crash',
      consumer: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500, rebalanceTimeoutMs: 8000, partitionsConsumedConcurrently: 16, maxWaitTimeMs: 200 },
      smpp: { window: 128 },
      dispatcher: { heartbeatMs: 500, staleAfterMs: 2000, idleMs: 20, batchSize: 500 },
      outboxBatchSize: 2000,
    });

  const started = Date.now();
  let inFlightAtKills = 0;
  let proc = await start();
  for (let k = 0; k < kills; k++) {
    await new Promise((r) => setTimeout(r, 2000 + Math.random() * 4000));
    const done = await count(`SELECT count(*) AS n FROM dispatch.message WHERE send_state = 'done'`);
    if (done >= total) break;
    await proc.stop('SIGKILL');
    // a COMMIT the process sent just before dying may still be running in its PostgreSQL backend
    await new Promise((r) => setTimeout(r, 1000));
    const submitting = await count(`SELECT count(*) AS n FROM dispatch.message WHERE send_state = 'submitting'`);
    inFlightAtKills += submitting;
    console.log(`  kill ${k + 1} at ${((Date.now() - started) / 1000).toFixed(1)} s: ${done} final, ${submitting} submitting (in flight)`);
    proc = await start();
  }
  let last = -1;
  let lastChange = Date.now();
  for (;;) {
    const done = await count(`SELECT count(*) AS n FROM dispatch.message WHERE send_state = 'done'`);
    if (done >= total) break;
    if (done !== last) {
      last = done;
      lastChange = Date.now();
    } else if (Date.now() - lastChange > 180_000) {
      // the benchmark stops by itself: report what a stuck run shows rather than wait forever
      const stored = await count(`SELECT count(*) AS n FROM dispatch.message`);
      console.log(`  no progress for 180 s: ${done} final of ${stored} stored (${total} published); the Kafka consumer group did not recover`);
      break;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  const secs = (Date.now() - started) / 1000;
  producing = false;
  await produce;
  await proc.stop('SIGKILL');

  const rows = (await db.query(`SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'delivered')::int AS delivered, count(*) FILTER (WHERE possible_duplicate)::int AS flagged FROM dispatch.message`)).rows[0];
  const perText = new Map<string, number>();
  for (const p of peer.parts) perText.set(p.text, (perText.get(p.text) ?? 0) + 1);
  const duplicated = [...perText].filter(([, n]) => n > 1).map(([t]) => t.slice(2));
  const unflagged = duplicated.length
    ? Number((await db.query(`SELECT count(*)::int AS n FROM dispatch.message WHERE uuid = ANY($1::uuid[]) AND NOT possible_duplicate`, [duplicated])).rows[0].n)
    : 0;
  const missing = total - perText.size;
  console.log(`  all ${rows.n} messages final in ${secs.toFixed(1)} s (${rows.delivered} delivered); lost: ${total - rows.n + (rows.n - rows.delivered)}; never submitted: ${missing}`);
  console.log(`  resent after kills: ${duplicated.length} reached the SMSC twice, all flagged: ${unflagged === 0}; flagged possible_duplicate ${rows.flagged} <= in flight at the kills ${inFlightAtKills}: ${rows.flagged <= inFlightAtKills}`);
  console.log(`  SMSC: ${peer.submitted} submit_sm, ${peer.receiptsSent} receipts, ${peer.redelivered} receipts redelivered after rebinds`);
  await db.end();
  await peer.close();
  await kafka.stop();
  await pg.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}

const [a, b] = process.argv.slice(2);
parent(Number(a ?? 100_000) || 100_000, Number(b ?? 6)).then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
