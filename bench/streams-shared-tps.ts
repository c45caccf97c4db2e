/**
 * The stream API's TPS (0x31) across streams replicas, under real timing (docs/decisions/0067, 0078): `replicas`
 * streams processes as distributed mode runs them (`dist/services/streams/src/main.js`) on one PostgreSQL, the Kafka
 * mock cluster (kcat) and NATS, with `STREAMS_SHARED_TPS` on (the standalone default).
 *
 *   node scripts/build.mjs --server-only
 *   node dist/bench/streams-shared-tps.js [replicas=2] [seconds=10] [accountTps=50] [streamTps=20] [offer=1.5]
 *
 * Two limits at once: an account at `accountTps` (its stream without a rate of its own) and a stream at `streamTps`
 * (its account far above). Each is offered `offer` times its rate through `POST /api/streams/messages`, open loop (a
 * send every 1/rate seconds, never waiting for answers), the sends spread round robin over the replicas as the
 * gateway spreads them. Printed per limit: sends accepted (202) per second over the steady window (2 s after the
 * first acceptance to 1 s before the last, by the time the replica wrote each accepted message, `streams.message.created_at`,
 * so the answers' latency does not count) against the configured rate, which is the
 * ceiling (a limit is met, not beaten): ratio = accepted / configured; the whole run's accepted against what one
 * bucket allows (the rate for each second plus the full bucket's second at the start); the most accepted in one
 * second; the refusals by status and the spec's error code (429 0x31 expected); each replica's share of the
 * accepted; and the CPU of the streams processes and of this load generator per send offered.
 * BENCH_SHARED_TPS=0: a bucket per process (the behaviour before 0067), the contrast. DATABASE_URL: an existing
 * PostgreSQL, else an embedded one.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { ALL_PERMISSIONS, BalanceAdjustedV1, CustomerCreatedV1, PriceChangedV1, type CustomerSnapshot } from '@switchboard/contracts';
import { createEnvelope, startEmbeddedPostgres, TokenSigner, type OutgoingEvent } from '@switchboard/platform';
import { startNatsServer, startServiceCluster, type ServiceProcess } from '@switchboard/platform/testing';

function machine(): string {
  const cpus = os.cpus();
  return `${cpus.length} x ${cpus[0]?.model ?? 'unknown cpu'}, node ${process.version}, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`;
}

/** CPU ms (user + system) a process has used, from /proc. */
function cpuMs(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

/** Keep-alive connections to each replica, at most 32 each (as the gateway's upstream pool): a POST, its status and body. */
const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
function post(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

interface Sent {
  at: number;
  replica: number;
  status: number;
  code: string;
}

async function main(): Promise<void> {
  const [replicasArg, secondsArg, accountArg, streamArg, offerArg] = process.argv.slice(2);
  const replicas = Number(replicasArg ?? 2);
  const seconds = Number(secondsArg ?? 10);
  const accountTps = Number(accountArg ?? 50);
  const streamTps = Number(streamArg ?? 20);
  const offer = Number(offerArg ?? 1.5);
  const shared = process.env.BENCH_SHARED_TPS !== '0';
  const root = path.resolve(__dirname, '../..');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'streams-shared-tps-'));
  fs.chmodSync(dir, 0o755);
  const pg = process.env.DATABASE_URL ? null : await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), persistent: false });
  const url = process.env.DATABASE_URL ?? pg!.url();
  const nats = await startNatsServer();
  const cluster = await startServiceCluster({ root, databaseUrl: url, natsUrl: nats.url, clientId: 'streams-shared-tps' });
  const procs: ServiceProcess[] = [];
  try {
    console.log(`streams-shared-tps: ${replicas} streams processes, ${seconds} s, account ${accountTps}/s, stream ${streamTps}/s, offered ${offer}x, shared buckets ${shared ? 'on' : 'OFF'}; ${machine()}`);
    const env = { STREAMS_SECRET: 'bench-streams-secret-0123456789', PROVIDER_SECRETS_KEY: 'bench-provider-secrets-0123456789', STREAMS_SHARED_TPS: String(shared), STREAMS_CACHE_TTL_MS: '2000' };
    // the first migrates the schema; the others start on it
    procs.push(await cluster.start('streams', env, { readyTimeoutMs: 180_000 }));
    procs.push(...(await Promise.all(Array.from({ length: replicas - 1 }, () => cluster.start('streams', { ...env, MIGRATIONS_RUN: 'false' }, { readyTimeoutMs: 180_000 })))));

    // two accounts as accounts publishes them: one limited by its TPS, one far above its stream's TPS
    const ACCOUNT_LIMITED = '9101';
    const ACCOUNT_WIDE = '9102';
    const customer = (accountId: string, tps: number): CustomerSnapshot => ({
      accountId,
      name: `bench ${accountId}`,
      shortName: null,
      status: 'active',
      active: 1,
      currency: 'EUR',
      tps,
      dailyLimit: null,
      customSettings: {},
      genSettings: {},
      createdAt: new Date().toISOString(),
    });
    const events: OutgoingEvent[] = [];
    for (const [acc, tps] of [
      [ACCOUNT_LIMITED, accountTps],
      [ACCOUNT_WIDE, 100_000],
    ] as const) {
      events.push(createEnvelope(CustomerCreatedV1, customer(acc, tps), { accountId: acc, source: 'accounts' }));
      events.push(createEnvelope(BalanceAdjustedV1, { accountId: acc, adjustmentId: randomUUID(), amountMicros: 1_000_000_000_000, currency: 'EUR', reason: 'bench' }, { accountId: acc, source: 'accounts' }));
    }
    events.push(createEnvelope(PriceChangedV1, { accountId: null, iso2: 'US', pricePerSegmentMicros: 10, currency: 'EUR' }, { accountId: null, source: 'accounts' }));
    await cluster.producer.publish(events);
    const end = Date.now() + 60_000;
    for (;;) {
      const r = await cluster.pool.query(`SELECT count(*)::int AS n FROM streams.customer WHERE account_id IN ($1, $2)`, [ACCOUNT_LIMITED, ACCOUNT_WIDE]);
      const b = await cluster.pool.query(`SELECT count(DISTINCT account_id)::int AS n FROM streams.balance_slot WHERE account_id IN ($1, $2) AND balance_micros > 0`, [ACCOUNT_LIMITED, ACCOUNT_WIDE]);
      if (r.rows[0].n === 2 && b.rows[0].n === 2) break;
      if (Date.now() > end) throw new Error('the accounts did not reach streams in 60 s');
      await new Promise((res) => setTimeout(res, 200));
    }
    // a stream of each through the console API, as a member of the account would make it
    const signer = new TokenSigner(cluster.keys.privateKey);
    const streamToken = async (acc: string, body: Record<string, unknown>): Promise<{ token: string; streamId: string }> => {
      const auth = { authorization: `Bearer ${signer.signAccess({ sub: `u${acc}`, email: 'bench@example.test', acc, perms: [...ALL_PERMISSIONS], roles: [], sa: false, sid: randomUUID() }, 900)}`, 'content-type': 'application/json' };
      const created = await fetch(`${procs[0].url}/api/streams`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'bench', streamType: 2, sender: 'Bench', ...body }) });
      const c = (await created.json()) as { id: string };
      if (created.status !== 201) throw new Error(`stream create answered ${created.status}: ${JSON.stringify(c)}`);
      const shown = (await (await fetch(`${procs[0].url}/api/streams/token/${c.id}`, { headers: auth })).json()) as { token: string };
      return { token: shown.token, streamId: c.id };
    };
    const limits = [
      { name: 'account', rate: accountTps, ...(await streamToken(ACCOUNT_LIMITED, {})) },
      { name: 'stream', rate: streamTps, ...(await streamToken(ACCOUNT_WIDE, { params: { tps: streamTps } })) },
    ];
    // every replica knows both streams (each reads them from the shared database) before the clock starts
    for (const l of limits) for (const p of procs) await fetch(`${p.url}/api/streams/messages`, { method: 'POST', headers: { authorization: l.token, 'content-type': 'application/json' }, body: '{"phone":"bad"}' });
    await new Promise((res) => setTimeout(res, 1500));

    const cpu0 = procs.map((p) => cpuMs(p.child.pid));
    const self0 = process.cpuUsage();
    const start = performance.now();
    let seq = 0;
    const runLimit = (l: (typeof limits)[number]): Promise<Sent[]> => {
      const offered = l.rate * offer;
      const total = Math.round(offered * seconds);
      const sends: Array<Promise<Sent>> = [];
      return new Promise((resolve) => {
        let i = 0;
        const tick = () => {
          const now = performance.now();
          // every send whose slot has come (a late timer sends the ones it missed at once: open loop)
          while (i < total && start + (i * 1000) / offered <= now) {
            const replica = i % procs.length;
            const at = performance.now() - start;
            const n = seq++;
            sends.push(
              post(`${procs[replica].url}/api/streams/messages`, { authorization: l.token, 'content-type': 'application/json' }, JSON.stringify({ phone: `+1415555${String(2000 + (n % 7000)).padStart(4, '0')}`, message: `bench ${n} ${randomUUID()}` }))
                .then((res) => ({ at, replica, status: res.status, code: res.status === 202 ? '' : String((JSON.parse(res.body || '{}') as { code?: string }).code ?? '') }))
                .catch((e: unknown) => ({ at, replica, status: 0, code: String(e) })),
            );
            i++;
          }
          if (i < total) setTimeout(tick, Math.max(0, start + (i * 1000) / offered - performance.now()));
          else void Promise.all(sends).then(resolve);
        };
        tick();
      });
    };
    const results = await Promise.all(limits.map((l) => runLimit(l)));
    const wall = (performance.now() - start) / 1000;
    const cpu = procs.map((p, k) => cpuMs(p.child.pid) - cpu0[k]);
    const self = process.cpuUsage(self0);
    const selfMs = (self.user + self.system) / 1000;
    let offeredAll = 0;

    console.log('');
    console.log('| limit | configured | offered (sends) | accepted/s, steady window | ratio | whole run: accepted / one bucket allows | most in one second | refused (status code: count) | accepted per replica |');
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const [k, l] of limits.entries()) {
      const sent = results[k];
      offeredAll += sent.length;
      // when each accepted send was decided: the replica's clock as it wrote the message (its group commit)
      const ok = (await cluster.pool.query<{ t: number }>(`SELECT extract(epoch FROM created_at) * 1000 AS t FROM streams.message WHERE stream_id = $1 ORDER BY created_at`, [l.streamId])).rows.map((r) => Number(r.t));
      const first = ok[0] ?? 0;
      const last = ok[ok.length - 1] ?? 0;
      const from = first + 2000;
      const to = last - 1000;
      const steady = ok.filter((t) => t >= from && t < to).length / ((to - from) / 1000);
      // a bucket hands out at most its rate over the span plus the full bucket (a second of the rate) at the start
      const allowed = l.rate * ((last - first) / 1000) + l.rate;
      let most = 0;
      for (let i = 0, j = 0; i < ok.length; i++) {
        while (ok[i] - ok[j] >= 1000) j++;
        most = Math.max(most, i - j + 1);
      }
      const refused = new Map<string, number>();
      for (const x of sent.filter((y) => y.status !== 202)) refused.set(`${x.status} ${x.code}`, (refused.get(`${x.status} ${x.code}`) ?? 0) + 1);
      const perReplica = procs.map((_, r) => sent.filter((x) => x.replica === r && x.status === 202).length);
      const span = (sent[sent.length - 1].at - sent[0].at) / 1000;
      console.log(
        `| ${l.name} | ${l.rate}/s | ${(sent.length / span).toFixed(1)}/s (${sent.length}) | **${steady.toFixed(2)}/s** | ${(steady / l.rate).toFixed(3)} | ${ok.length} / ${allowed.toFixed(0)} (${(ok.length / allowed).toFixed(3)}) | ${most} | ${[...refused].map(([c, n]) => `${c}: ${n}`).join(', ')} | ${perReplica.join(' / ')} |`,
      );
    }
    const streamsCpu = cpu.reduce((a, b) => a + b, 0);
    console.log('');
    console.log(`CPU over ${wall.toFixed(1)} s: streams processes ${cpu.map((c) => `${(c / 1000).toFixed(1)} s`).join(' + ')} = ${(streamsCpu / offeredAll).toFixed(2)} ms per send offered; load generator ${(selfMs / offeredAll).toFixed(2)} ms per send offered`);
    console.log(`quiet 2-core projection of the sends this setup answers: 2000 ms / ${((streamsCpu + selfMs) / offeredAll).toFixed(2)} ms = ${(2000 / ((streamsCpu + selfMs) / offeredAll)).toFixed(0)} sends/s`);
  } finally {
    await cluster.stop();
    await nats.stop();
    await pg?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
