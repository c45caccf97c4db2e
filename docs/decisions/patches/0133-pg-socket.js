// 0133: one prepared statement with a 2 KB text parameter over TCP loopback and over a unix socket: node's user and system CPU and the backend's a round trip. From the repo root: node docs/decisions/patches/0133-pg-socket.js
const fs = require('node:fs');
const path = require('node:path');
const { Client } = require(require('node:path').resolve('node_modules/pg'));
const { benchDatabase } = require(require('node:path').resolve('dist/bench/bench-database.js'));
const cpu = (pid) => { const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
(async () => {
  const sockDir = require('node:fs').mkdtempSync('/tmp/0133-sock-'); fs.mkdirSync(sockDir, { recursive: true }); fs.chmodSync(sockDir, 0o777);
  const db = await benchDatabase('sk-', { settings: { unix_socket_directories: sockDir } });
  const u = new URL(db.url);
  const tcp = new Client({ connectionString: db.url });
  const unix = new Client({ user: decodeURIComponent(u.username), password: decodeURIComponent(u.password), host: sockDir, port: Number(u.port), database: u.pathname.slice(1) });
  await tcp.connect(); await unix.connect();
  const big = 'x'.repeat(Number(process.env.BYTES ?? 2000));
  const N = 20000;
  for (let round = 0; round < 3; round++) for (const [name, c] of [['tcp', tcp], ['unix', unix]]) {
    const [{ pid }] = (await c.query('SELECT pg_backend_pid() AS pid')).rows;
    const n0 = process.cpuUsage(), p0 = cpu(pid);
    for (let i = 0; i < N; i++) await c.query({ name: 'q', text: 'SELECT length($1::text) AS n, $2::int AS i', values: [big, i] });
    const n1 = process.cpuUsage(n0), p1 = cpu(pid);
    console.log(`${round} ${name.padEnd(4)} node user ${(n1.user / N).toFixed(1)} µs sys ${(n1.system / N).toFixed(1)} µs, backend ${((p1 - p0) * 1000 / N).toFixed(1)} µs a query`);
  }
  await tcp.end(); await unix.end(); await db.stop(); fs.rmSync(sockDir, { recursive: true, force: true });
})().catch((e) => { console.error(e); process.exit(1); });
