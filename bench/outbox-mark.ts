/**
 * The outbox relay's cost of leaving a published row behind: marking it `published_at` (a new version of the whole
 * row, payload and index entries) against deleting it (`deletePublished`, docs/decisions/0096), in turns.
 *
 *   node --expose-gc dist/bench/outbox-mark.js [events per round = 10000] [rows per pass = 25] [rounds = 3]
 *
 * Each round writes `events` rows shaped like dispatch's inbound message event (~1.1 KB envelope), `perPass` rows per
 * committed transaction, and runs one relay pass after each (as the relay does at 500 inbound messages/s: a pass takes
 * the few rows committed since the last). Only the passes are measured: CPU of this process and of the cluster's
 * PostgreSQL processes, and the cluster's WAL bytes, per event. A load-independent figure is the WAL; CPU per event is
 * what the shared machine lets through, compared in turns (mark, delete, mark, delete…).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { EventBus, Outbox, OutboxRelay, outboxTableSql, startEmbeddedPostgres, type OutgoingEvent, type SubscribeOptions } from '@switchboard/platform';

const EVENTS = Number(process.argv[2] ?? 10000);
const PER_PASS = Number(process.argv[3] ?? 25);
const ROUNDS = Number(process.argv[4] ?? 3);

class CountingBus extends EventBus {
  n = 0;
  async publish(events: OutgoingEvent[]): Promise<void> {
    this.n += events.length;
  }
  async subscribe(_options: SubscribeOptions): Promise<void> {}
  async start(): Promise<void> {}
  async stop(): Promise<void> {}
}

function postgresCpuSeconds(dataDir: string): number {
  let total = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres' || fs.readlinkSync(`/proc/${entry}/cwd`) !== dataDir) continue;
      const f = fs.readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ');
      total += (Number(f[11]) + Number(f[12])) / 100;
    } catch {
      /* ended meanwhile */
    }
  }
  return total;
}

/** An event the size and shape of dispatch's `dispatch.message.received`. */
const inboundEvent = (i: number): OutgoingEvent => ({
  id: randomUUID(),
  type: 'dispatch.message.received',
  version: 1,
  occurredAt: new Date().toISOString(),
  source: 'dispatch',
  accountId: '1',
  traceId: null,
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  data: {
      uuid: randomUUID(),
      accountId: '1',
      streamId: '12',
      streamUid: 'a1b2c3d4e5f6a7b8c9d0',
      streamType: 1,
      channel: 'sms',
      vendorId: '3',
      accountPhone: '+4930111111',
      contactPhone: `+49170${String(1000000 + (i % 1000)).padStart(7, '0')}`,
      contactName: null,
      messageType: 'text',
      body: `Hello, this is reply ${i} to your last message: yes, Tuesday at 10 works for me. Please confirm the address and whether parking is available nearby.`,
      media: null,
      providerMessageId: `smsc-${i}-${randomUUID()}`,
      receivedAt: new Date().toISOString(),
      optChange: null,
  },
  topic: 'switchboard.dispatch',
  key: '1',
});

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outbox-mark-'));
  fs.chmodSync(dir, 0o755);
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), persistent: false });
  const dataDir = fs.realpathSync(path.join(dir, 'pg'));
  const ds = await new DataSource({ type: 'postgres', url: pg.url(), applicationName: 'outbox-mark' }).initialize();
  console.log(`machine: ${os.cpus().length} CPUs, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; ${EVENTS} events per round, ${PER_PASS} per pass`);
  const sample = JSON.stringify(inboundEvent(0));
  console.log(`envelope: ${Buffer.byteLength(sample)} bytes`);
  const rows: string[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const deletePublished of [false, true]) {
      const schema = `m${round}_${deletePublished ? 'delete' : 'mark'}`;
      await ds.query(`CREATE SCHEMA ${schema}`);
      await ds.query(outboxTableSql(schema));
      const bus = new CountingBus();
      const relay = new OutboxRelay({ schema, dataSource: ds, bus, batchSize: 1000, deletePublished, retentionMs: 0 });
      await ds.query('CHECKPOINT');
      global.gc?.();
      let node = 0;
      let db = 0;
      let wal = 0;
      for (let done = 0; done < EVENTS; done += PER_PASS) {
        const events = Array.from({ length: Math.min(PER_PASS, EVENTS - done) }, (_, k) => inboundEvent(done + k));
        await ds.transaction((m) => Outbox.add(m, schema, events));
        const [{ lsn: lsn0 }] = await ds.query<Array<{ lsn: string }>>('SELECT pg_current_wal_insert_lsn()::text AS lsn');
        const db0 = postgresCpuSeconds(dataDir);
        const cpu0 = process.cpuUsage();
        await relay.relayOnce();
        const cpu = process.cpuUsage(cpu0);
        node += (cpu.user + cpu.system) / 1000;
        db += (postgresCpuSeconds(dataDir) - db0) * 1000;
        const [{ bytes }] = await ds.query<Array<{ bytes: string }>>('SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::pg_lsn)::bigint AS bytes', [lsn0]);
        wal += Number(bytes);
      }
      const [{ left }] = await ds.query<Array<{ left: number }>>(`SELECT count(*)::int AS left FROM ${schema}.outbox WHERE published_at IS NULL`);
      if (bus.n !== EVENTS || left !== 0) throw new Error(`round ${round} ${schema}: published ${bus.n}, ${left} left`);
      const line = `${deletePublished ? 'delete' : 'mark  '} round ${round}: per event node ${((node * 1000) / EVENTS).toFixed(1)} µs, PostgreSQL ${((db * 1000) / EVENTS).toFixed(1)} µs, WAL ${(wal / EVENTS).toFixed(0)} bytes (load ${os.loadavg()[0].toFixed(1)})`;
      console.log(line);
      rows.push(line);
      await ds.query(`DROP SCHEMA ${schema} CASCADE`);
    }
  }
  await ds.destroy();
  await pg.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
