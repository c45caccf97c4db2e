/**
 * Outage drill (issue 10, item 4): the whole embedded platform as `npm start` runs it (every service module, the
 * in-memory bus acknowledged when handled, the SMS simulator reporting after about 2 s), on a PostgreSQL this drill
 * owns; 100,000 sends through the stream API at a fixed rate, and PostgreSQL stopped for `BENCH_OUTAGE_S` (30 s) once
 * 30% are accepted, then started again. The client retries refused sends with their Idempotency-Key, as an
 * integrator would. At the end, over the database:
 *   lost          accepted sends without a dispatch message in a final status, or without a ledger charge
 *   charged twice ledger charges beyond one per message, and messages beyond one per accepted send
 *   stuck         accepted messages not final (streams' view or dispatch's) 5 minutes after the last answer
 * (all three must be 0), the rate end to end with and without the outage, and a ceiling from the same run: the same
 * PostgreSQL writing what the platform writes per message at its least (message row, dispatch row, ledger entry,
 * outbox row) in batches of 500, with nothing else around it.
 *
 *   node scripts/build.mjs --server-only
 *   node --max-semi-space-size=64 dist/bench/outage-drill.js
 *   env: BENCH_MESSAGES (100000), BENCH_RATE (1000/s), BENCH_OUTAGE_S (30), BENCH_CONNECTIONS (32)
 */
import 'reflect-metadata';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { ALL_PERMISSIONS } from '@switchboard/contracts';
import { freePort, loadOrCreateSigningKeys, startEmbeddedPostgres, TokenSigner, type RunningPostgres } from '@switchboard/platform';
import { AccountsBootstrapService } from '@switchboard/accounts';
import { startEmbeddedServer } from '../apps/platform/src/embedded-server';
import { loadPlatformConfig } from '../apps/platform/src/platform.config';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function postgresCpuSeconds(dataDir: string): number {
  if (!fs.existsSync('/proc')) return 0;
  let total = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres' || fs.readlinkSync(`/proc/${entry}/cwd`) !== dataDir) continue;
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(f[11]) + Number(f[12])) / 100;
    } catch {
      /* ended meanwhile */
    }
  }
  return total;
}

async function main(): Promise<void> {
  const total = Number(process.env.BENCH_MESSAGES ?? 100_000);
  const rate = Number(process.env.BENCH_RATE ?? 1000);
  const outageS = Number(process.env.BENCH_OUTAGE_S ?? 30);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
  const cpus = os.cpus();
  console.log(`machine: ${cpus.length} x ${cpus[0]?.model ?? 'unknown cpu'}, node ${process.version}, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'outage-drill-'));
  fs.chmodSync(tmp, 0o755);
  const dataDir = path.join(tmp, 'pg');
  const pgPort = await freePort();
  let pg: RunningPostgres = await startEmbeddedPostgres({ dataDir, port: pgPort, persistent: true });
  const admin = new Client({ connectionString: pg.url() });
  await admin.connect();
  await admin.query('CREATE DATABASE drill');
  await admin.end();
  const url = pg.url('drill');
  const realDataDir = fs.realpathSync(dataDir);

  const port = await freePort();
  const logger = new Logger('drill');
  const server = await startEmbeddedServer(loadPlatformConfig({ SWITCHBOARD_DATA_DIR: tmp, PORT: String(port), DATABASE_URL: url }), logger);
  const sql = async <T>(text: string, params: unknown[] = []): Promise<T[]> => {
    const c = new Client({ connectionString: url });
    await c.connect();
    try {
      return (await c.query(text, params)).rows as T[];
    } finally {
      await c.end();
    }
  };
  try {
    const demo = await server.app.get(AccountsBootstrapService).seed({ demoAccountName: 'Demo account' });
    const acc = demo.demoAccountId;
    const signer = new TokenSigner(loadOrCreateSigningKeys(path.join(tmp, 'keys')).privateKey);
    const root = signer.signAccess({ sub: '1', email: 'root@local', acc, perms: [], roles: [], sa: true, sid: 'drill-root' }, 3600);
    const member = signer.signAccess({ sub: '1', email: 'drill@local', acc, perms: [...ALL_PERMISSIONS], roles: [], sa: false, sid: 'drill' }, 3600);
    const api = async (token: string, method: string, p: string, body?: unknown) => {
      const res = await fetch(`${server.url}/api${p}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
      const text = await res.text();
      if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${text}`);
      return (text ? JSON.parse(text) : {}) as Record<string, unknown>;
    };
    await api(root, 'PUT', `/customers/${acc}`, { tps: 100_000, customSettings: { streams_max_messages_per_day: null } });
    await api(root, 'POST', `/customers/${acc}/balance`, { amount: 100_000_000, reason: 'drill' });
    const sender = await api(member, 'POST', '/senders', { name: 'Drill', value: 'Drill' });
    await api(root, 'PUT', `/senders/superadmin/${String(sender.id)}`, { approved: 1 });
    const stream = await api(member, 'POST', '/streams', { name: 'drill', streamType: 2, sender: 'Drill' });
    const { token } = (await api(member, 'GET', `/streams/token/${String(stream.id)}`)) as { token: string };
    await sleep(1000);

    // ---- the run ------------------------------------------------------------------------------------------------
    const accepted = new Map<number, string>();
    let refused = 0;
    let next = 0;
    const started = Date.now();
    const cpu0 = { node: process.cpuUsage(), pg: postgresCpuSeconds(realDataDir) };
    let outage: { from: number; to: number } | null = null;
    let pgCpuBeforeStop = 0;
    const send = async (i: number): Promise<void> => {
      for (;;) {
        try {
          const res = await fetch(`${server.url}/api/streams/messages`, {
            method: 'POST',
            headers: { authorization: token, 'content-type': 'application/json', 'idempotency-key': `drill-${i}` },
            body: JSON.stringify({ phone: `+1415${String(5_000_000 + (i % 4_000_000)).padStart(7, '0')}`, message: `drill ${i}` }),
          });
          const text = await res.text();
          if (res.status === 202) {
            accepted.set(i, (JSON.parse(text) as { message_uuid: string }).message_uuid);
            return;
          }
        } catch {
          /* the server refused or the connection broke: the same send again, same key */
        }
        refused++;
        await sleep(500);
      }
    };
    const worker = async (): Promise<void> => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        const due = started + (i * 1000) / rate + (outage && i / rate * 1000 > outage.from - started ? outage.to - outage.from : 0);
        if (due > Date.now()) await sleep(due - Date.now());
        await send(i);
      }
    };
    const drill = (async () => {
      while (accepted.size < total * 0.3) await sleep(50);
      pgCpuBeforeStop = postgresCpuSeconds(realDataDir);
      const from = Date.now();
      console.log(`PostgreSQL stopped after ${accepted.size} accepted sends, for ${outageS} s`);
      await pg.stop();
      await sleep(outageS * 1000);
      pg = await startEmbeddedPostgres({ dataDir, port: pgPort, persistent: true });
      outage = { from, to: Date.now() };
      console.log(`PostgreSQL started again after ${((outage.to - from) / 1000).toFixed(1)} s`);
    })();
    const progress = setInterval(() => console.log(`  ${((Date.now() - started) / 1000).toFixed(0)} s: ${accepted.size} accepted, ${refused} refusals`), 5000);
    await Promise.all(Array.from({ length: connections }, worker));
    await drill;
    clearInterval(progress);
    const lastAnswer = Date.now();
    const uuids = [...accepted.values()];
    console.log(`${accepted.size} sends accepted in ${((lastAnswer - started) / 1000).toFixed(1)} s (${refused} refusals retried with the same Idempotency-Key)`);

    // ---- the end: everything final? ------------------------------------------------------------------------------
    const finals = `('delivered', 'undelivered', 'sent_failed', 'no_routes', 'rejected')`;
    const count = async (q: string): Promise<number> => Number((await sql<{ n: string }>(q, [uuids]))[0].n);
    const notFinal = () =>
      count(`SELECT count(*) AS n FROM unnest($1::uuid[]) u(id) LEFT JOIN dispatch.message m ON m.uuid = u.id LEFT JOIN streams.message s ON s.uuid = u.id
              WHERE m.status IS NULL OR m.status NOT IN ${finals} OR s.status IS NULL OR s.status NOT IN ${finals}`);
    const charged = () => count(`SELECT count(DISTINCT source_id) AS n FROM accounts.balance_entry WHERE kind = 'charge' AND source_id = ANY($1::text[])`);
    let waiting = await notFinal();
    while ((waiting > 0 || (await charged()) < uuids.length) && Date.now() - lastAnswer < 300_000) {
      await sleep(1000);
      waiting = await notFinal();
    }
    const allFinal = Date.now();
    const cpuNode = process.cpuUsage(cpu0.node);
    const cpuPg = postgresCpuSeconds(realDataDir) + pgCpuBeforeStop - cpu0.pg;

    const lost = await count(
      `SELECT count(*) AS n FROM unnest($1::uuid[]) u(id)
        WHERE NOT EXISTS (SELECT 1 FROM dispatch.message m WHERE m.uuid = u.id AND m.status IN ${finals})
           OR NOT EXISTS (SELECT 1 FROM accounts.balance_entry b WHERE b.kind = 'charge' AND b.source_id = u.id::text)`,
    );
    const chargeEntries = await count(`SELECT count(*) AS n FROM accounts.balance_entry WHERE kind = 'charge' AND source_id = ANY($1::text[])`);
    const messagesRows = Number((await sql<{ n: string }>(`SELECT count(*) AS n FROM streams.message WHERE stream_id = $1`, [stream.id]))[0].n);
    const chargedTwice = chargeEntries - (await charged()) + Math.max(0, messagesRows - uuids.length);
    const stuck = await notFinal();
    const deadLetters = await sql<{ service: string; n: string }>(
      `SELECT 'dispatch' AS service, count(*) AS n FROM dispatch.dead_letter UNION ALL SELECT 'streams', count(*) FROM streams.dead_letter
       UNION ALL SELECT 'accounts', count(*) FROM accounts.dead_letter`,
    );
    const outageMs = outage ? (outage as { from: number; to: number }).to - (outage as { from: number; to: number }).from : 0;
    const endToEnd = uuids.length / ((allFinal - started) / 1000);
    const withoutOutage = uuids.length / ((allFinal - started - outageMs) / 1000);
    console.log(`lost ${lost} / charged twice ${chargedTwice} / stuck ${stuck}   (${uuids.length} accepted, ${chargeEntries} ledger charges, ${messagesRows} message rows)`);
    console.log(`dead letters: ${deadLetters.map((d) => `${d.service} ${d.n}`).join(', ')}`);
    console.log(
      `end to end: ${endToEnd.toFixed(0)} messages/s including the ${(outageMs / 1000).toFixed(1)} s outage, ${withoutOutage.toFixed(0)}/s without it; ` +
        `all final ${((allFinal - lastAnswer) / 1000).toFixed(1)} s after the last answer`,
    );
    console.log(`CPU per message: node ${((cpuNode.user + cpuNode.system) / 1000 / uuids.length).toFixed(3)} ms (server and load generator), PostgreSQL ${((cpuPg * 1000) / uuids.length).toFixed(3)} ms`);

    // ---- ceiling: the same PostgreSQL writing the least a message needs, nothing else ------------------------
    const c = new Client({ connectionString: url });
    await c.connect();
    await c.query(`CREATE SCHEMA ceiling;
      CREATE TABLE ceiling.message (uuid uuid PRIMARY KEY, account_id bigint, destination text, text text, status text, created_at timestamptz DEFAULT now());
      CREATE TABLE ceiling.dispatch (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, uuid uuid UNIQUE, status text, updated_at timestamptz DEFAULT now());
      CREATE TABLE ceiling.ledger (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, source_id text, amount bigint, UNIQUE (source_id));
      CREATE TABLE ceiling.outbox (id bigserial PRIMARY KEY, packed text, published_at timestamptz)`);
    const t0 = Date.now();
    const batch = 500;
    for (let i = 0; i < uuids.length; i += batch) {
      const ids = uuids.slice(i, i + batch);
      await c.query('BEGIN');
      await c.query(`INSERT INTO ceiling.message (uuid, account_id, destination, text, status) SELECT u, 1, '+14155550000', 'drill', 'accepted' FROM unnest($1::uuid[]) u`, [ids]);
      await c.query(`INSERT INTO ceiling.outbox (packed) VALUES ($1)`, [JSON.stringify(ids.map((id) => ({ id, type: 'streams.message.accepted' })))]);
      await c.query('COMMIT');
      await c.query('BEGIN');
      await c.query(`INSERT INTO ceiling.dispatch (uuid, status) SELECT u, 'sent' FROM unnest($1::uuid[]) u`, [ids]);
      await c.query(`INSERT INTO ceiling.ledger (source_id, amount) SELECT u::text, 45000 FROM unnest($1::uuid[]) u`, [ids]);
      await c.query(`UPDATE ceiling.outbox SET published_at = now() WHERE published_at IS NULL`);
      await c.query('COMMIT');
      await c.query(`UPDATE ceiling.dispatch SET status = 'delivered', updated_at = now() WHERE uuid = ANY($1::uuid[])`, [ids]);
      await c.query(`UPDATE ceiling.message SET status = 'delivered' WHERE uuid = ANY($1::uuid[])`, [ids]);
    }
    const ceiling = uuids.length / ((Date.now() - t0) / 1000);
    await c.end();
    console.log(
      `ceiling (same run, same PostgreSQL, ${batch} messages a transaction, the least writes a message needs): ${ceiling.toFixed(0)} messages/s; ` +
        `platform without the outage at ${((withoutOutage / ceiling) * 100).toFixed(1)}% of it (offered rate ${rate}/s)`,
    );
    if (lost || chargedTwice || stuck) process.exitCode = 1;
  } finally {
    await server.close();
    await pg.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
