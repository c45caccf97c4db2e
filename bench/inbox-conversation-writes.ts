/**
 * The inbox's writes for incoming messages alone (issue 14, docs/decisions/0102): MESSAGES `dispatch.message.received`
 * events from CONTACTS customers (each contact's messages in turn, so all but the first of each update a conversation)
 * published on the in-memory bus in groups of BATCH, each group handled by the inbox's conversations consumer as one
 * batch (routes, conversation upsert, timeline, room log); then every conversation opened by an agent (timeline page 1
 * over HTTP: `unread` back to 0). No SMPP, no dispatch, no relay: the figures are the inbox's share of the wire path.
 *
 *   node scripts/build.mjs --server-only && node --expose-gc dist/bench/inbox-conversation-writes.js [messages] [contacts] [batch]
 *
 * Prints, per message (and per opened conversation): CPU of this process and of the bench's PostgreSQL cluster (from
 * /proc), WAL bytes, and of `inbox.conversation` the updates, how many were HOT, and the index count. PGSS=1: the
 * statements per unit (pg_stat_statements, bench/pg-statements.ts). PRELOAD=n: a database with n earlier conversations, then a
 * checkpoint (the full-page images every index page a phase touches first writes). OPENED=0: the incoming phase only.
 */
import 'reflect-metadata';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Client } from 'pg';
import { ALL_PERMISSIONS, MessageReceivedV1 } from '@switchboard/contracts';
import { configureHttpApp, createEnvelope, DevMailbox, generateSigningKeys, InMemoryEventBus, InMemoryRealtime, PlatformModule, startEmbeddedPostgres, TokenSigner, TokenVerifier } from '@switchboard/platform';
import { InboxModule } from '@switchboard/inbox';
import { clusterCpuReader } from './bench-database';
import { printStatementsPerUnit } from './pg-statements';

const MESSAGES = Number(process.argv[2] ?? 5000);
const CONTACTS = Number(process.argv[3] ?? 1000);
const BATCH = Number(process.argv[4] ?? 25);
const ACCOUNT = '42';
const PGSS = process.env.PGSS === '1';
/** Conversations opened at once (OPENING=n, default 8). */
const OPENING = Math.max(1, Number(process.env.OPENING ?? 8));
/** PRELOAD=n: n earlier conversations (one event each, their rooms) before the phases, then a checkpoint (docs/decisions/0155). */
const PRELOAD = Number(process.env.PRELOAD ?? 0);

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inbox-conv-writes-'));
  fs.chmodSync(dir, 0o755);
  const pg = await startEmbeddedPostgres({
    dataDir: path.join(dir, 'pg'),
    persistent: false,
    settings: PGSS ? { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all', 'pg_stat_statements.max': '10000', 'pg_stat_statements.track_planning': 'on' } : {},
  });
  const keys = generateSigningKeys();
  const bus = new InMemoryEventBus({ ack: 'handled', partitions: 16 });
  @Module({
    imports: [
      PlatformModule.forRoot({ bus, realtime: new InMemoryRealtime(), mailer: new DevMailbox(), verifier: new TokenVerifier(keys.publicKey), databaseUrl: pg.url(), processName: 'bench' }),
      InboxModule.register({ media: { dir: path.join(dir, 'media') } }),
    ],
  })
  class BenchModule {}
  const app = await NestFactory.create<NestExpressApplication>(BenchModule, { logger: ['error'] });
  configureHttpApp(app);
  await app.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  const admin = new TokenSigner(keys.privateKey).signAccess({ sub: '1', email: '1@bench', acc: ACCOUNT, perms: [...ALL_PERMISSIONS], roles: [], sa: true, sid: 'bench' }, 3600);
  const pgc = new Client({ connectionString: pg.url() });
  await pgc.connect();
  if (PGSS) await pgc.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const one = async (sql: string, params: unknown[] = []) => (await pgc.query(sql, params)).rows[0] as Record<string, string>;
  const space = (await one(`INSERT INTO inbox.space (account_id, key, name, created_at, updated_at) VALUES ($1, 'support', 'Support', now(), now()) RETURNING id::text`, [ACCOUNT])).id;
  const team = (await one(`INSERT INTO inbox.team (account_id, space_id, key, name, created_at, updated_at) VALUES ($1, $2, 'front', 'Front', now(), now()) RETURNING id::text`, [ACCOUNT, space])).id;
  await pgc.query(`INSERT INTO inbox.incoming_routing (account_id, space_id, team_id, name, stream_id, created_at, updated_at) VALUES ($1, $2, $3, 'Two-way', 7, now(), now())`, [ACCOUNT, space, team]);
  const streamUid = randomUUID();
  if (PRELOAD > 0) {
    // a database that has run for a while (docs/decisions/0155): PRELOAD conversations of other contacts, each with one
    // timeline event and its room's sequence and log row, keyed by random (version 4) uuids as stored before; then a
    // checkpoint, so the phase's first change of each index page writes the page whole, as after every checkpoint
    const t0 = Date.now();
    await pgc.query(
      `INSERT INTO inbox.conversation (uuid, account_id, space_id, stream_id, stream_uid, stream_type, channel, account_phone, contact_phone, status, unread, team_ids, start_time,
         last_incoming_at, last_message, last_message_type, last_updated)
       SELECT gen_random_uuid(), $1, $2, 7, $3, 4, 'sms', '+4930111111', '+4916' || lpad(g::text, 9, '0'), 'unanswered', 1, ARRAY[$4::bigint], now() - interval '1 day',
         now() - interval '1 day', 'an earlier message', 'text', now() - interval '1 day' + g * interval '1 ms'
       FROM generate_series(1, $5::int) g`,
      [ACCOUNT, space, streamUid, team, PRELOAD],
    );
    await pgc.query(
      `INSERT INTO inbox.event (uuid, account_id, conversation_id, event_type, message_uuid, message_time, actor, content, body, source, destination, message_type)
       SELECT gen_random_uuid(), c.account_id, c.id, 'incoming_message', gen_random_uuid(), c.last_updated, '{"type": "contact", "id": null, "name": null}', '{"body": "an earlier message"}',
         'an earlier message', c.contact_phone, c.account_phone, 'text'
       FROM inbox.conversation c`,
    );
    await pgc.query(`INSERT INTO inbox.room_seq (room, seq) SELECT c.account_id || '|conversation:' || c.uuid, 1 FROM inbox.conversation c`);
    await pgc.query(`INSERT INTO inbox.room_event (room, seq, account_id, event, payload, at) SELECT c.account_id || '|conversation:' || c.uuid, 1, c.account_id, 'incoming_message', '{}', now() FROM inbox.conversation c`);
    for (const t of ['conversation', 'event', 'room_seq', 'room_event']) await pgc.query(`VACUUM ANALYZE inbox.${t}`);
    await pgc.query('CHECKPOINT');
    console.log(`preloaded ${PRELOAD} conversations, events and room rows in ${((Date.now() - t0) / 1000).toFixed(1)} s, then a checkpoint`);
  }

  const clusterCpuMs = clusterCpuReader(path.join(dir, 'pg'));
  const wal = async () => BigInt((await one(`SELECT (pg_current_wal_insert_lsn() - '0/0')::bigint::text AS l`)).l);
  const tableStats = async () => {
    await pgc.query('SELECT pg_stat_force_next_flush()');
    await new Promise((r) => setTimeout(r, 1500)); // the other backends' counters reach the shared stats when idle
    return one(
      `SELECT c.n_tup_ins::text AS ins, c.n_tup_upd::text AS upd, c.n_tup_hot_upd::text AS hot, e.n_tup_upd::text AS eupd, e.n_tup_hot_upd::text AS ehot
         FROM pg_stat_user_tables c, pg_stat_user_tables e
        WHERE c.schemaname = 'inbox' AND c.relname = 'conversation' AND e.schemaname = 'inbox' AND e.relname = 'event'`,
    );
  };
  const phase = async (label: string, units: number, run: () => Promise<void>) => {
    const s0 = await tableStats();
    if (PGSS) await pgc.query('SELECT pg_stat_statements_reset()');
    global.gc?.();
    const cpu0 = process.cpuUsage();
    const db0 = clusterCpuMs();
    const w0 = await wal();
    await run();
    const cpu = process.cpuUsage(cpu0);
    const db = clusterCpuMs() - db0;
    const w = Number((await wal()) - w0);
    const s1 = await tableStats();
    if (PGSS) await printStatementsPerUnit(pgc, units, { indent: '  ', label, top: 12 });
    const upd = Number(s1.upd) - Number(s0.upd);
    const hot = Number(s1.hot) - Number(s0.hot);
    const eupd = Number(s1.eupd) - Number(s0.eupd);
    const ehot = Number(s1.ehot) - Number(s0.ehot);
    console.log(
      `${label}: ${units} units; per unit: node ${((cpu.user + cpu.system) / 1000 / units).toFixed(3)} ms, PostgreSQL ${(db / units).toFixed(3)} ms, WAL ${(w / units).toFixed(0)} bytes; conversation rows inserted ${Number(s1.ins) - Number(s0.ins)}, updated ${upd}, HOT ${hot} (${upd ? ((100 * hot) / upd).toFixed(1) : '-'} %); event rows updated ${eupd}, HOT ${ehot} (${eupd ? ((100 * ehot) / eupd).toFixed(1) : '-'} %)`,
    );
  };
  const indexes = await one(`SELECT count(*)::text AS n, string_agg(indexname, ', ' ORDER BY indexname) AS names FROM pg_indexes WHERE schemaname = 'inbox' AND tablename = 'conversation'`);
  console.log(`machine: ${os.cpus().length} CPUs, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; ${MESSAGES} messages from ${CONTACTS} contacts in batches of ${BATCH}; inbox.conversation has ${indexes.n} indexes: ${indexes.names}`);

  const at0 = Date.now() - MESSAGES * 1000;
  await phase('incoming', MESSAGES, async () => {
    for (let i = 0; i < MESSAGES; i += BATCH) {
      const events = [];
      for (let j = i; j < Math.min(MESSAGES, i + BATCH); j++) {
        events.push(
          createEnvelope(
            MessageReceivedV1,
            {
              messageUuid: randomUUID(),
              accountId: ACCOUNT,
              streamId: '7',
              streamUid,
              streamType: 4,
              channel: 'sms',
              accountPhone: '4930111111',
              contactPhone: `+4917${String(60_000_000 + (j % CONTACTS))}`,
              contactName: null,
              messageType: 'text',
              body: `m${j} where is my order?`,
              media: null,
              receivedAt: new Date(at0 + j * 1000).toISOString(),
            },
            { source: 'dispatch', accountId: ACCOUNT },
          ),
        );
      }
      await bus.publish(events);
    }
    await bus.drain();
  });
  // the phase's conversations (not the preloaded ones)
  const convs = (await pgc.query<{ uuid: string }>(`SELECT uuid::text FROM inbox.conversation WHERE contact_phone NOT LIKE '+4916%' ORDER BY id`)).rows.map((r) => r.uuid);
  if (process.env.OPENED !== '0') await phase('opened', convs.length, async () => {
    for (let i = 0; i < convs.length; i += OPENING) {
      await Promise.all(
        convs.slice(i, i + OPENING).map(async (u) => {
          const res = await fetch(`${url}/api/inbox/conversation/${u}?page=1`, { headers: { authorization: `Bearer ${admin}` } });
          if (res.status !== 200) throw new Error(`timeline ${res.status}: ${await res.text()}`);
          await res.arrayBuffer();
        }),
      );
    }
  });

  await pgc.end();
  await app.close();
  await pg.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
