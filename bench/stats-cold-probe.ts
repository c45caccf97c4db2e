/**
 * Probe (not a bench; docs/decisions/0137): the first calls after a stats app starts, on a database stats-latency
 * loaded (DATABASE_URL, BENCH_REUSE's database), ms over HTTP and the process's CPU a call.
 *   PROBE_FETCH=1            the client's own first fetch first, against a bare server (node loads undici on first use)
 *   PROBE_NOAUTH=1|bad       a credential-less (or bad-token) POST first
 *   PROBE_FIRST='<path> <json>'  one other call first, e.g. '/dashboard_statistics/main {"type":"day"}'
 *   PROBE_MODULES=1          the modules the first default dashboard call loaded
 *   PROBE_PROF=<file>        a CPU profile (100 µs) of that call
 *   PROBE_SERVE=<file>       serve only: writes "<base> <token> <pid>" for a client in another process (curl), whose
 *                            server CPU a call is then read from /proc/<pid>/task/* /schedstat; ends on SIGTERM
 *   node scripts/build.mjs --server-only && DATABASE_URL=... PROBE_FETCH=1 node dist/bench/stats-cold-probe.js
 */
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ALL_PERMISSIONS } from '@switchboard/contracts';
import { configureHttpApp, DevMailbox, generateSigningKeys, InMemoryEventBus, InMemoryRealtime, PlatformModule, TokenSigner, TokenVerifier } from '@switchboard/platform';
import { StatsModule } from '@switchboard/stats';

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL as string;
  const keys = generateSigningKeys();
  const token = new TokenSigner(keys.privateKey).signAccess({ sub: 'bench', email: 'bench@example.com', acc: '1', perms: [...ALL_PERMISSIONS], roles: [], sa: false, sid: 'bench' }, 3600);
  @Module({ imports: [PlatformModule.forRoot({ bus: new InMemoryEventBus(), realtime: new InMemoryRealtime(), mailer: new DevMailbox(), verifier: new TokenVerifier(keys.publicKey), databaseUrl: url, processName: 'bench' }), StatsModule.register({ cacheMs: 0 })] })
  class ProbeModule {}
  const t0 = performance.now();
  const app = await NestFactory.create<NestExpressApplication>(ProbeModule, { logger: ['error', 'warn'] });
  configureHttpApp(app);
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/api`;
  const ready = performance.now() - t0;
  const call = async (p: string, body: unknown): Promise<number> => {
    const c0 = process.cpuUsage();
    const s = performance.now();
    const res = await fetch(base + p, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${p}: ${res.status}`);
    await res.json();
    const cpu = process.cpuUsage(c0);
    cpus.push(((cpu.user + cpu.system) / 1000).toFixed(1));
    return performance.now() - s;
  };
  const cpus: string[] = [];
  if (process.env.PROBE_SERVE) {
    // serve only: the token and port for a client in another process (curl), so the client's costs stay out
    (await import('node:fs')).writeFileSync(process.env.PROBE_SERVE, `${base} ${token} ${process.pid}\n`);
    await new Promise<void>((ok) => process.once('SIGTERM', () => ok()));
    await app.close();
    return;
  }
  const out: string[] = [`ready ${ready.toFixed(0)} ms`];
  if (process.env.PROBE_FETCH) {
    // the client's own first fetch (node loads undici on first use), against a bare server of this process
    const http = await import('node:http');
    const srv = http.createServer((_q, r) => r.end('{}'));
    await new Promise<void>((ok) => srv.listen(0, '127.0.0.1', ok));
    const c0 = process.cpuUsage();
    const s = performance.now();
    await (await fetch(`http://127.0.0.1:${(srv.address() as { port: number }).port}/`)).json();
    const cpu = process.cpuUsage(c0);
    out.push(`bare fetch ${(performance.now() - s).toFixed(1)} ms cpu ${((cpu.user + cpu.system) / 1000).toFixed(1)}`);
    srv.close();
  }
  if (process.env.PROBE_NOAUTH) {
    const s = performance.now();
    const res = await fetch(base + '/dashboard_statistics/main', { method: 'POST', headers: { 'content-type': 'application/json', ...(process.env.PROBE_NOAUTH === 'bad' ? { authorization: 'Bearer x.y.z' } : {}) }, body: '{}' });
    await res.text();
    out.push(`unauthorised ${res.status} ${(performance.now() - s).toFixed(1)}`);
  }
  if (process.env.PROBE_FIRST) {
    const [p, b] = process.env.PROBE_FIRST.split(' ');
    out.push(`first ${p} ${b ?? '{}'}: ${(await call(p, JSON.parse(b ?? '{}'))).toFixed(1)}`);
  }
  const loaded = new Set(Object.keys(require.cache));
  const inspector = await import('node:inspector/promises');
  const session = new inspector.Session();
  if (process.env.PROBE_PROF) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
  }
  out.push(`${new Date().toISOString()} main default: ${(await call('/dashboard_statistics/main', {})).toFixed(1)}`);
  if (process.env.PROBE_PROF) {
    const { profile } = await session.post('Profiler.stop');
    (await import('node:fs')).writeFileSync(process.env.PROBE_PROF, JSON.stringify(profile));
    session.disconnect();
  }
  if (process.env.PROBE_MODULES) console.log('modules loaded by the first call:', Object.keys(require.cache).filter((k) => !loaded.has(k)).map((k) => k.replace(/.*node_modules\//, '')));
  for (let i = 0; i < 3; i++) out.push(`again: ${(await call('/dashboard_statistics/main', {})).toFixed(1)}`);
  console.log(out.join(' | '), '| node cpu ms a call:', cpus.join(' '));
  await app.close();
}
main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
